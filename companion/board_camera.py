"""The overhead board camera: the calibration wizard's live preview, and live mode.

``open_board_camera(spec, box)`` gives a :class:`companion.inputs.camera_source.CameraSource`:
"sim" is the simulated twin of the board (:class:`SimulatedBoard`: the board drawn from the box
profile at a slight tilt, as the demo has no camera; a sheet bought in the game is laid on it at a
legal place, so live mode has something to find), anything else is passed to ``open_camera``
(Picamera2, a webcam number, a path or URL).  Frames are BGR arrays.

:meth:`BoardCamera.start_live` runs live mode (companion/vision/live.py) on the camera's frames in
a thread, a few frames a second, and watches the table for purchases (board_watch.py).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time

import cv2
import numpy as np

from companion.inputs.camera_source import CameraError, CameraSource, open_camera

log = logging.getLogger(__name__)

SIM_CAMERA = {"tilt_deg": 12.0, "azimuth_deg": 20.0, "fov_deg": 60.0, "fill": 0.9}
LIVE_FPS = 4.0  # frames looked at per second: stillness needs a few; more only costs CPU on a Pi
STALLED_S = 5.0  # no frame for this long: the camera has stalled


class SimulatedBoard(CameraSource):
    """The board rendered from the box profile, with the sheets laid on it (``lay``)."""

    name = "simulated board camera"

    def __init__(self, box, size=(1600, 1200), seed: int = 1):
        self.box, self.size, self.seed = box, size, seed
        self.sheets: list = []
        self._frame: np.ndarray | None = None
        self._lock = threading.Lock()
        self._rng = np.random.default_rng(seed)
        self.unplugged = False  # tests pull the simulated cable

    def _render(self) -> np.ndarray:
        from companion.vision.render import Scene, render

        image, _ = render(self.box, Scene(sheets=list(self.sheets), width=self.size[0], height=self.size[1],
                                          seed=self.seed, camera=dict(SIM_CAMERA)))
        return cv2.cvtColor(image, cv2.COLOR_RGB2BGR)

    def read(self) -> np.ndarray:
        with self._lock:
            if self.unplugged:
                raise CameraError(f"{self.name}: unplugged")
            if self._frame is None:
                self._frame = self._render()
            return self._frame

    def lay(self, pose, redraw: bool = True) -> None:
        """Put a sheet on the simulated board (the next frames show it, once redrawn)."""
        with self._lock:
            self.sheets.append(pose)
            if redraw:
                self._frame = self._render()

    def redraw(self) -> None:
        with self._lock:
            self._frame = self._render()

    def clear(self) -> None:
        """Every sheet off the board (a new game)."""
        with self._lock:
            self.sheets = []
            self._frame = self._render()

    def lay_bought(self, expedition: str, equipment: str, hex_address: str | None = None,
                   redraw: bool = True) -> None:
        """Lay a bought sheet where a careful player would: pointed end on a shore, a biological unit
        on the loch, a cage inside its hex."""
        from companion.vision.sheets import SheetPose

        shore = np.asarray(self.box.loch.shore_outline, float)
        north, south = shore[:, 1].min(), shore[:, 1].max()
        x_lo, x_hi = shore[:, 0].min() + 40, shore[:, 0].max() - 40
        r = self._rng
        if equipment == "cage":
            hexes = self.box.loch.hexes
            h = self.box.loch.parse(hex_address) if hex_address else hexes[int(r.integers(len(hexes)))]
            pose = SheetPose(expedition, equipment, h.center[0], h.center[1], 0.0)
        elif equipment == "biological_unit":
            pose = SheetPose(expedition, equipment, float(r.uniform(x_lo, x_hi)), (north + south) / 2,
                             float(r.uniform(0, 60)))
        elif r.random() < 0.5:
            pose = SheetPose(expedition, equipment, float(r.uniform(x_lo, x_hi)), north - 1.0, float(r.uniform(-25, 25)))
        else:
            pose = SheetPose(expedition, equipment, float(r.uniform(x_lo, x_hi)), south + 1.0,
                             180.0 + float(r.uniform(-25, 25)))
        self.lay(pose, redraw)


def open_board_camera(spec: str, box, size=(1600, 1200)) -> CameraSource:
    if spec == "sim":
        return SimulatedBoard(box, size)
    return open_camera(spec, size)


class BoardCamera:
    """One board camera shared by the pages: opened on first use, a failure reported, never raised."""

    def __init__(self, spec: str, box, memory_path=None):
        self.spec, self.box = spec, box
        self.memory_path = memory_path  # live mode's memory across a restart (companion/live_memory.py)
        self._memory = None
        self._memory_key = None
        self._camera: CameraSource | None = None  # made once, so the simulated board keeps its sheets
        self._opened = False
        self._lock = threading.Lock()
        self.last_error: str | None = None
        self.live = None  # companion.vision.live.LiveBoard, once started
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._latest: np.ndarray | None = None  # the live thread's last frame, for the preview
        self._latest_at: float | None = None
        self._games_seen = 0  # live mode's new games the simulated board has been cleared for

    def frame(self):
        """The latest frame (BGR), or None with ``last_error`` saying why."""
        if self._thread is not None and self._thread.is_alive():
            # live mode reads the camera: share its frame rather than steal the next one
            if self.last_error:
                return None
            if self._latest is not None and time.monotonic() - (self._latest_at or 0) < STALLED_S:
                return self._latest
            return self._read()
        return self._read()

    def _read(self):
        with self._lock:
            try:
                if self._camera is None:
                    self._camera = open_board_camera(self.spec, self.box)
                if not self._opened:
                    self._camera.open()
                    self._opened = True
                frame = self._camera.read()
                self.last_error = None
                return frame
            except (CameraError, OSError, ValueError, ImportError) as exc:
                self.last_error = str(exc)
                if self._camera is not None:
                    self._camera.close()  # opened again on the next read: a camera plugged back in
                self._opened = False
                return None

    # -- live mode -----------------------------------------------------------------------------

    def start_live(self, table=None, colours: dict | None = None, fps: float = LIVE_FPS):
        """Run live mode on this camera (once; later calls return the running one)."""
        from companion.board_watch import PurchaseWatcher
        from companion.vision.live import LiveBoard

        with self._lock:
            if self.live is not None:
                return self.live
            self.live = LiveBoard(self.box, colours)
            self._recall(table)
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, args=(table, PurchaseWatcher(), 1.0 / fps),
                                            name="board-camera-live", daemon=True)
            self._thread.start()
            return self.live

    def _run(self, table, watcher, period: float) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self._tick(table, watcher, started)
            except Exception:  # a bug in one frame must not end live mode for the evening
                log.exception("board camera live mode: a frame failed")
            self._stop.wait(max(0.0, period - (time.monotonic() - started)))

    def _tick(self, table, watcher, now: float) -> None:
        if table is not None:
            before = len(self.live.sheets)
            watcher.poll(table.state, self.live, now, table.setup)
            self._lay_on_simulated_board(before)
        frame = self._read()
        if frame is None:
            self.live.camera_failed(f"the board camera gives no picture: {self.last_error}", now)
            self._stop.wait(1.0)  # an unplugged camera: try again, gently
            return
        self._latest, self._latest_at = frame, now
        self.live.feed(frame, now)
        self._remember(table)

    # -- memory across a restart ---------------------------------------------------------------

    def _open_memory(self):
        """Live mode's memory (companion/live_memory.py), opened on first use; None when there is no
        file to keep it in, or it cannot be opened (then live mode goes on unremembered)."""
        if self._memory is None and self.memory_path is not None:
            from companion.live_memory import LiveMemory

            try:
                self._memory = LiveMemory(self.memory_path)
            except (OSError, sqlite3.Error) as exc:
                log.warning("board camera: cannot keep live mode's memory at %s: %s", self.memory_path, exc)
                self.memory_path = None
        return self._memory

    def _recall(self, table) -> None:
        """Follow again what live mode followed before the companion stopped (a pulled plug)."""
        if table is None or table.game_id is None or self._open_memory() is None:
            return
        from companion.board_watch import pieces_on_board

        try:
            memory = self._memory.load(table.game_id)
            if memory is not None:
                n = self.live.recall(memory, time.monotonic(), set(pieces_on_board(table.state)))
                log.info("board camera: following %d sheet(s) remembered from before the restart", n)
                if self.spec == "sim":  # the demo's board kept its sheets too, as a real one would
                    self._camera = open_board_camera(self.spec, self.box)
                    for s in self.live.sheets:
                        if s.pose is not None:
                            self._camera.lay(s.pose, redraw=False)
                    self._camera.redraw()
        except (OSError, ValueError, KeyError, TypeError, sqlite3.Error) as exc:
            log.warning("board camera: live mode's memory is not used (%s); starting afresh", exc)
        self._memory_key = self.live.memory_key()

    def _remember(self, table) -> None:
        """Write live mode's memory when what it follows has changed since the last write."""
        if table is None or table.game_id is None or self._open_memory() is None:
            return
        key = self.live.memory_key()
        if key == self._memory_key:
            return
        memory = self.live.remember()
        if memory is None:
            return
        try:
            self._memory.save(table.game_id, memory)
            self._memory_key = key
        except (OSError, ValueError, sqlite3.Error) as exc:  # a full disk: the game goes on, unremembered
            log.warning("board camera: live mode's memory not saved: %s", exc)

    def _lay_on_simulated_board(self, before: int) -> None:
        """In the demo, the simulated board shows what was bought (a real camera sees the players do it);
        a new game clears it."""
        if not isinstance(self._camera, SimulatedBoard):
            return
        if self.live.games != self._games_seen:  # a new game: the board is cleared for it
            self._games_seen = self.live.games
            self._camera.clear()
            before = 0
        bought = self.live.sheets[before:]
        for sheet in bought:
            self._camera.lay_bought(sheet.expedition, sheet.equipment, sheet.hex, redraw=False)
        if bought:
            self._camera.redraw()  # once, however many were bought: a new game lays a dozen

    def clear_frame(self):
        """(the last frame live mode found clear and still, its age in seconds), or None."""
        view = self.live.clear_view if self.live is not None else None
        if view is None:
            return None
        frame, at = view
        return frame, time.monotonic() - at

    def live_status(self) -> dict:
        """Live mode's status, with how fresh the camera's picture is (in seconds, not clock readings)."""
        if self.live is None:
            return {"state": "off", "message": "live mode is not running"}
        st = dict(self.live.snapshot())  # a copy: the keys are rewritten below
        now = time.monotonic()
        for key in ("last_frame_at", "last_view_at"):
            at = st.pop(key)
            st[key.replace("_at", "_age_s")] = None if at is None else round(now - at, 1)
        if st["last_frame_age_s"] is not None and st["last_frame_age_s"] > STALLED_S and st["state"] != "no camera":
            st["state"], st["message"] = "no camera", f"no frame from the board camera for {st['last_frame_age_s']:.0f} s"
        st["camera"] = {"source": self.spec, "error": self.last_error}
        return st

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None
        if self._memory is not None:
            self._memory.close()
            self._memory = None
        with self._lock:
            if self._camera is not None:
                self._camera.close()
                self._camera = None
                self._opened = False


def calibrated_colours(box, database: str) -> dict | None:
    """The sheet colours measured by the calibration wizard (saved beside the database), if any."""
    from pathlib import Path

    from companion.vision.calibrate import CalibrationError, load_calibration

    if not database or database == ":memory:":
        return None
    path = Path(database).with_name("calibration.json")
    if not path.exists():
        return None
    try:
        return load_calibration(path, box)[1]
    except CalibrationError:
        return None  # made for another board or version: the profile's colours until recalibrated
