"""The camera as a dice source: watch the dice tray, report each throw once, when the dice rest.

Wiring: an overhead camera (the Pi camera or a USB webcam) sees the table; ``tray`` is the part
of the frame where dice are thrown, as fractions of the frame ``(x, y, width, height)``.

    >>> from companion.inputs.camera_source import SimulatedCamera
    >>> from companion.vision.dice_sim import throw_frames
    >>> frames = throw_frames(seed=2, values=[5])
    >>> source = CameraDice(SimulatedCamera(f.image for f in frames))
    >>> events = []
    >>> for f in frames:
    ...     events += source.process_frame(f.image)
    >>> [e.value for e in events]
    [5]

The state machine, per frame (only the tray, downscaled, is compared; the reader runs once per
rest, so a frame costs about a millisecond while nothing changes):

* ``empty``   -- still, and the last read found no dice.
* ``rolling`` -- something moves in the tray (dice, a hand).
* ``at_rest`` -- still for ``rest_frames`` frames after moving: the reader runs now.
* ``read``    -- the dice were read and the throw reported; nothing more is reported until the
  dice are picked up (the tray reads empty) or thrown again (they rest somewhere else). A nudge
  (the same values, each die near where it was) or a hand passing over them reports nothing.

A die the reader cannot read, or more dice than ``expected_dice``, reports no throw: the health
record says why, and the players use the on-screen buttons or throw again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import cv2
import numpy as np

from .base import DiceSource, InputEvent
from .camera_source import CameraError, CameraSource

EMPTY, ROLLING, AT_REST, READ = "empty", "rolling", "at_rest", "read"


class CameraDice(DiceSource):
    """A :class:`DiceSource` reading thrown dice from an overhead camera's dice tray.

    :param camera: where frames come from (:mod:`companion.inputs.camera_source`).
    :param tray: the dice tray as fractions ``(x, y, w, h)`` of the frame; ``None``: the whole frame.
    :param expected_dice: how many dice one throw has (Nessie Hunt: 1); a throw is reported only
        when exactly this many dice are read. ``0``: any number, one event per die.
    :param rest_frames: still frames in a row that make "at rest" (2: reported on the 2nd still frame).
    :param motion_threshold: fraction of the tray's pixels that must change for "moving".
    :param fps: frames per second the thread asks for (it sleeps the rest of each period).
    :param stale_after_s: no frame for this long marks the camera disconnected.
    :param reader: the image-to-dice function (default :func:`companion.vision.dice.read_dice`).
    """

    kind = "camera"

    def __init__(self, camera: CameraSource, name: str = "camera dice",
                 tray: tuple[float, float, float, float] | None = None, expected_dice: int = 1,
                 rest_frames: int = 2, motion_threshold: float = 0.004, fps: float = 10.0,
                 stale_after_s: float = 2.0, reader: Callable | None = None):
        super().__init__(name)
        if tray is not None and not (len(tray) == 4 and all(0 <= v <= 1 for v in tray) and tray[2] > 0 and tray[3] > 0):
            raise ValueError(f"tray must be (x, y, w, h) fractions of the frame, got {tray!r}")
        self.camera = camera
        self.tray = tray
        self.expected_dice = expected_dice
        self.rest_frames = max(1, rest_frames)
        self.motion_threshold = motion_threshold
        self.fps = fps
        self.stale_after_s = stale_after_s
        if reader is None:
            from companion.vision.dice import read_dice as reader
        self._reader = reader
        self.state = EMPTY
        self._prev: np.ndarray | None = None
        self._still = 0
        self._last_dice: list | None = None  # what the last read saw (values and centres)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.frames = 0
        self.reads = 0
        self.health.details = {"state": self.state, "frames": 0, "reads": 0, "camera": camera.describe()}

    # ------------------------------------------------------------ per frame (pure, testable)

    def _tray(self, frame: np.ndarray) -> np.ndarray:
        if self.tray is None:
            return frame
        H, W = frame.shape[:2]
        x, y, w, h = self.tray
        x0, y0 = int(x * W), int(y * H)
        x1, y1 = min(W, int((x + w) * W)), min(H, int((y + h) * H))
        return frame[y0:y1, x0:x1]

    def _motion(self, tray: np.ndarray) -> float:
        """The fraction of the (downscaled, smoothed) tray that changed since the last frame."""
        h, w = tray.shape[:2]
        scale = 160.0 / max(w, 1)
        small = cv2.resize(tray, (160, max(1, int(h * scale))), interpolation=cv2.INTER_AREA)
        gray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        prev, self._prev = self._prev, gray
        if prev is None or prev.shape != gray.shape:
            return 1.0
        diff = cv2.absdiff(gray, prev)
        return float(np.count_nonzero(diff > 14)) / diff.size

    def process_frame(self, frame: np.ndarray) -> list[InputEvent]:
        """Feed one frame; returns (and emits) the throw events it completes. Never raises on a
        bad frame: it is counted and noted in the health record."""
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or frame.size == 0:
            self._note_bad_frame("a frame that is not a BGR image")
            return []
        self.frames += 1
        tray = self._tray(frame)
        moving = self._motion(tray) > self.motion_threshold
        events: list[InputEvent] = []
        if moving:
            self.state, self._still = ROLLING, 0
        elif self.state == ROLLING:
            self._still += 1
            if self._still >= self.rest_frames:
                self.state = AT_REST
                events = self._read(tray)
        self.health.details.update(state=self.state, frames=self.frames, reads=self.reads)
        return events

    def _read(self, tray: np.ndarray) -> list[InputEvent]:
        self.reads += 1
        try:
            dice = self._reader(tray)
        except Exception as exc:  # a reader bug must not take the source down
            self.fail(f"reader failed: {type(exc).__name__}: {exc}")
            self.state = READ
            return []
        readable = [d for d in dice if d.value is not None]
        unreadable = [d for d in dice if d.value is None]
        self.health.details["last_read"] = [d.value for d in dice]
        if not dice:
            self.state, self._last_dice = EMPTY, None
            return []
        self.state = READ
        if self._same_as_last(dice):
            return []  # a nudge or a hand passing: the same throw
        self._last_dice = [(d.value, d.center, d.side_px) for d in dice]
        if unreadable:
            self.fail(f"{len(unreadable)} die unreadable: throw again or use the buttons")
            return []
        if self.expected_dice and len(readable) != self.expected_dice:
            self.fail(f"{len(readable)} dice in the tray, expected {self.expected_dice}")
            return []
        events = [InputEvent("throw", int(d.value), "camera") for d in readable]
        for e in events:
            self.emit(e)
        return events

    def _same_as_last(self, dice) -> bool:
        """The same dice with the same values, each within a die and a half of where it was."""
        last = self._last_dice
        if not last or len(last) != len(dice):
            return False
        unused = list(last)
        for d in dice:
            match = None
            for k, (v, c, side) in enumerate(unused):
                near = 1.5 * max(side, d.side_px, 10.0)
                if v == d.value and abs(c[0] - d.center[0]) < near and abs(c[1] - d.center[1]) < near:
                    match = k
                    break
            if match is None:
                return False
            unused.pop(match)
        return True

    def _note_bad_frame(self, why: str) -> None:
        self.health.details["bad_frames"] = self.health.details.get("bad_frames", 0) + 1
        self.fail(why)

    # ------------------------------------------------------------ the thread

    def start(self, callback) -> None:
        super().start(callback)
        self.health.connected = False  # until the first frame arrives
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"{self.name} reader", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        period = 1.0 / self.fps if self.fps > 0 else 0.0
        last_frame = time.monotonic()
        backoff = 0.1
        opened = False
        while not self._stop.is_set():
            t0 = time.monotonic()
            try:
                if not opened:
                    self.camera.open()
                    opened = True
                frame = self.camera.read()
            except CameraError as exc:
                self._camera_down(str(exc), last_frame)
                opened = False
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 2.0)
                continue
            except Exception as exc:  # a driver's own exception: same handling
                self._camera_down(f"camera: {type(exc).__name__}: {exc}", last_frame)
                opened = False
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 2.0)
                continue
            backoff = 0.1
            last_frame = time.monotonic()
            if not self.health.connected:
                self.health.connected = True
                self.health.details["recovered_at"] = time.time()
            try:
                self.process_frame(frame)
            except Exception as exc:  # never let one frame end the thread
                self.fail(f"frame failed: {type(exc).__name__}: {exc}")
            if period:
                self._stop.wait(max(0.0, period - (time.monotonic() - t0)))

    def _camera_down(self, message: str, last_frame: float) -> None:
        self.fail(message)
        self.health.details["camera_errors"] = self.health.details.get("camera_errors", 0) + 1
        if time.monotonic() - last_frame >= self.stale_after_s or self.health.connected:
            self.health.connected = False
        self._prev = None  # the view may have changed while the camera was away
        if self.state in (ROLLING, AT_REST):
            self.state = ROLLING

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._thread = None
        try:
            self.camera.close()
        finally:
            super().close()
