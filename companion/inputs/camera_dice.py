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

The state machine, per frame (docs/dice-stream.md has the long version and the measured costs):

* ``empty``   -- still, and the tray holds no dice; its picture is learnt (slowly followed).
* ``rolling`` -- something moves in the tray (dice, a hand).
* ``at_rest`` -- still after moving: the dice are being read, one die's crop per frame, from the
  first still frame on; the throw is reported on the ``rest_frames``-th still frame.
* ``read``    -- the dice were read and the throw reported; nothing more is reported until the
  dice are picked up (the tray reads empty) or thrown again (they rest somewhere else). A nudge
  (the same values, each die near where it was) or a hand passing over them reports nothing.

Where the dice are comes from the difference against the empty tray's picture
(:mod:`companion.vision.tray_reader`), so a read costs a few milliseconds. Until the tray has been
seen empty (started with dice in it), or when the picture no longer fits (the camera was moved),
or when a crop does not read cleanly, the whole tray goes to the still-photo reader instead: slower,
counted in the health record as ``full_reads`` with the reason.

A die the reader cannot read, or more dice than ``expected_dice``, reports no throw: the health
record says why, and the players use the on-screen buttons or throw again. Frames that are not
images, blank frames (a covered or failing sensor) and a frozen stream are counted there too.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision.tray_reader import (Blob, EmptyTray, TrayView, changes, cut_crop, estimate_side,
                                          misjudged_side, read_die_crop)

from .base import DiceSource, InputEvent
from .camera_source import CameraError, CameraSource

EMPTY, ROLLING, AT_REST, READ = "empty", "rolling", "at_rest", "read"
NUDGE_FRAMES = 3  # at most this many frames of motion can be a nudge rather than a throw (10 fps)


@dataclass
class _ReadJob:
    """A read in progress over the still frames of one rest."""

    todo: list[tuple[Blob, float | None]] = field(default_factory=list)  # blobs to read (and at
    # what die side, if known), one per frame
    dice: list = field(default_factory=list)
    unchanged: bool = False  # the tray is as at the last read: nothing to read
    full: str = ""  # why the whole tray must go to the still-photo reader ("" if not)
    stale: bool = False  # the empty tray's picture no longer fits the view


@dataclass
class _Nothing:
    """A blob the crop reader found no readable die in: the read is unsure without a second look."""

    blob: Blob
    value = None


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
    :param reader: the whole-tray reader, for when the empty tray is not known yet or a crop does
        not read cleanly (default :func:`companion.vision.dice.read_dice`).
    :param frozen_after: this many identical frames in a row are reported as a frozen camera.
    """

    kind = "camera"

    def __init__(self, camera: CameraSource, name: str = "camera dice",
                 tray: tuple[float, float, float, float] | None = None, expected_dice: int = 1,
                 rest_frames: int = 2, motion_threshold: float = 0.004, fps: float = 10.0,
                 stale_after_s: float = 2.0, reader: Callable | None = None, frozen_after: int = 30):
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
        self.frozen_after = frozen_after
        if reader is None:
            from companion.vision.dice import read_dice as reader
        self._reader = reader
        self.state = EMPTY
        self._before_rolling = EMPTY  # the settled state the motion started from
        self._prev: np.ndarray | None = None
        self._shape: tuple | None = None
        self._odd_size = 0  # frames in a row of a size other than the last good one
        self._still = 0
        self._moving_frames = 0  # frames of motion since the tray was last settled
        self._same_frames = 0
        self._job: _ReadJob | None = None
        self._empty = EmptyTray()
        self._snapshot: np.ndarray | None = None  # the tray (small) when the dice were last read
        self._side_small: float | None = None  # a die's side as last read, in small-image pixels
        self._last_dice: list | None = None  # what the last read saw (values and centres)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.frames = 0
        self.reads = 0
        self.health.details = {"state": self.state, "frames": 0, "reads": 0, "crop_reads": 0, "full_reads": 0,
                               "empty_tray": "unknown", "camera": camera.describe()}

    # ------------------------------------------------------------ per frame (pure, testable)

    def _tray(self, frame: np.ndarray) -> np.ndarray:
        if self.tray is None:
            return frame
        H, W = frame.shape[:2]
        x, y, w, h = self.tray
        x0, y0 = int(x * W), int(y * H)
        x1, y1 = min(W, int((x + w) * W)), min(H, int((y + h) * H))
        return frame[y0:y1, x0:x1]

    def _motion(self, small: np.ndarray) -> float:
        """The fraction of the (downscaled, smoothed) tray that changed since the last frame, after
        taking out a change of overall brightness (lamp flicker, auto-exposure)."""
        gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        if gray.shape[1] > 160:
            gray = cv2.resize(gray, (160, max(1, round(gray.shape[0] * 160 / gray.shape[1]))),
                              interpolation=cv2.INTER_AREA)
        gray = cv2.GaussianBlur(gray, (5, 5), 0)
        prev, self._prev = self._prev, gray
        if prev is None or prev.shape != gray.shape:
            return 1.0
        gain = (cv2.mean(gray)[0] + 1.0) / (cv2.mean(prev)[0] + 1.0)
        diff = cv2.absdiff(gray, cv2.convertScaleAbs(prev, alpha=gain) if abs(gain - 1) > 0.004 else prev)
        changed = cv2.countNonZero(cv2.threshold(diff, 14, 255, cv2.THRESH_BINARY)[1])
        self._same_frames = self._same_frames + 1 if cv2.countNonZero(diff) == 0 else 0
        return changed / diff.size

    def process_frame(self, frame: np.ndarray) -> list[InputEvent]:
        """Feed one frame; returns (and emits) the throw events it completes. Never raises on a
        bad frame: it is counted and noted in the health record."""
        if (not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3
                or frame.shape[2] != 3 or min(frame.shape[:2]) < 16):
            self._note_bad_frame("bad_frames", "a frame that is not a BGR image")
            return []
        self.frames += 1
        view = TrayView.of(self._tray(frame))
        if self._shape != view.full.shape:
            self._odd_size += 1
            if self._shape is not None and self._odd_size < 3:  # one odd frame is garbage, not a new mode
                self._note_bad_frame("bad_frames", f"a frame of another size ({frame.shape[1]}x{frame.shape[0]})")
                return []
            # a new camera mode: what was learnt no longer fits
            self._shape, self._prev, self._snapshot, self._side_small = view.full.shape, None, None, None
            self._empty.forget()
            self._interrupted()
        self._odd_size = 0
        lo, hi = cv2.minMaxLoc(cv2.cvtColor(view.small, cv2.COLOR_BGR2GRAY))[:2]
        if hi - lo <= 2:  # one flat colour: a covered lens or a failing sensor, not a picture
            self._note_bad_frame("blank_frames", "blank frames from the camera (covered or failing?)")
            self._interrupted()
            return []
        moving = self._motion(view.small) > self.motion_threshold
        if self._same_frames >= self.frozen_after:
            self._note_bad_frame("frozen_frames", f"camera frozen: the same frame {self._same_frames} times")
        events: list[InputEvent] = []
        if moving:
            if self.state in (EMPTY, READ):
                self._before_rolling, self._moving_frames = self.state, 0
            self._moving_frames += 1
            self.state, self._still, self._job = ROLLING, 0, None
        elif self.state in (ROLLING, AT_REST):
            self._still += 1
            planned_now = self._job is None
            if planned_now:
                self._job = self._plan(view)
                self.state = AT_REST
            events = self._work(view, planned_now)
        elif self.state == EMPTY and self._empty.known:
            self._empty.learn(view.small)  # follow slow changes of the light
        self.health.details.update(state=self.state, frames=self.frames, reads=self.reads)
        return events

    # ------------------------------------------------------------ reading at rest

    def _min_side(self, small: np.ndarray) -> float:
        """The smallest blob worth reading, in small pixels: half a die, or 3 % of the tray."""
        return 0.5 * self._side_small if self._side_small else 0.03 * min(small.shape[:2])

    def _plan(self, view: TrayView) -> _ReadJob:
        """On the first still frame: is there anything to read, and where?"""
        min_side = self._min_side(view.small)
        if self._before_rolling == READ and self._snapshot is not None:
            since = changes(view.small, self._snapshot, min_side)
            if not since.stale and not since.blobs:
                return _ReadJob(unchanged=True)  # a hand passed over the dice, touching nothing
        if not self._empty.known:
            return _ReadJob(full="the empty tray has not been seen yet")
        found = changes(view.small, self._empty.picture, min_side)
        if found.stale:
            return _ReadJob(full=f"{found.changed_fraction:.0%} of the tray differs from its empty picture",
                            stale=True)
        return _ReadJob(todo=[(b, None) for b in found.blobs])

    def _work(self, view: TrayView, planned_now: bool) -> list[InputEvent]:
        """This frame's share of the read, and the throw once the dice have rested ``rest_frames``
        frames. A frame does one costly step at most: plan, read one crop, or the full reader."""
        job = self._job
        busy = planned_now
        if job.todo and not busy:
            blob, side = job.todo.pop(0)
            dice, better = self._read_blob(view, blob, side)
            if better:  # the die's size was a guess from the blob: read it again at its own, next frame
                job.todo.insert(0, (blob, better))
            else:
                job.dice += dice
            busy = True
        if job.todo or self._still < self.rest_frames:
            return []
        if job.unchanged:
            self._job, self.state = None, READ
            return []
        if not job.full:
            if not job.dice:
                self._job = None
                return self._conclude(view, [])  # nothing differs from the empty tray: it is empty
            job.full = self._unsure(job.dice)
            if not job.full:
                self._job = None
                return self._conclude(view, job.dice)
        if busy:
            return []  # the full reader gets a frame of its own
        self._job = None
        return self._full_read(view, job)

    def _read_blob(self, view: TrayView, blob: Blob, side: float | None) -> tuple[list, float | None]:
        """The dice in one blob, and the die side (small pixels) to read it again at if the one
        assumed was off (only while no die has been measured yet)."""
        self.health.details["crop_reads"] += 1
        crop = cut_crop(view, blob, side or estimate_side(blob, self._side_small))
        dice = read_die_crop(crop)
        if side is None and self._side_small is None:
            better = misjudged_side(dice, crop)
            if better:
                return [], better * view.scale
        sides = [d.side_px for d in dice if d.value is not None]
        if not sides:
            return [_Nothing(blob)], None
        self._side_small = float(np.median(sides)) * view.scale  # the next blobs' size, measured
        return dice, None

    def _unsure(self, dice: list) -> str:
        """Why the crops' reading is not to be trusted on its own ("" if it is)."""
        if any(isinstance(d, _Nothing) for d in dice):
            return "a change in the tray the crop reader found no die in"
        if any(d.value is None for d in dice):
            return "a die the crop reader could not read"
        if self.expected_dice and len(dice) != self.expected_dice:
            return f"the crops read {len(dice)} dice, expected {self.expected_dice}"
        return ""

    def _full_read(self, view: TrayView, job: _ReadJob) -> list[InputEvent]:
        self.health.details["full_reads"] += 1
        self.health.details["full_read_reason"] = job.full
        try:
            dice = self._reader(view.full)
        except Exception as exc:  # a reader bug must not take the source down
            self.fail(f"reader failed: {type(exc).__name__}: {exc}")
            self.state = READ
            return []
        if dice or job.dice:
            if dice and job.stale:
                self._empty.forget()  # out of date: learnt again at the next empty tray
            if not dice:  # the crops saw something; no reader makes a die of it
                self.fail("something in the tray that reads as no die: throw again or use the buttons")
                self.state, self._snapshot = READ, view.small.astype(np.float32)
                return []
            return self._conclude(view, dice)
        self._empty.learn(view.small, fresh=True)  # seen empty: now it is known (again)
        return self._conclude(view, [])

    def _conclude(self, view: TrayView, dice: list) -> list[InputEvent]:
        """The tray at rest holds ``dice``: report them if they are a new, good throw."""
        self.reads += 1
        self.health.details["last_read"] = [d.value for d in dice]
        self.health.details["empty_tray"] = "learnt" if self._empty.known else "unknown"
        if not dice:
            self.state, self._last_dice, self._snapshot = EMPTY, None, None
            return []
        self.state = READ
        self._snapshot = view.small.astype(np.float32)
        sides = [d.side_px for d in dice if d.value is not None]
        if sides:
            self._side_small = float(np.median(sides)) * view.scale
            self.health.details["die_side_px"] = round(float(np.median(sides)), 1)
        if self._same_as_last(dice):
            return []  # a nudge or a hand passing: the same throw
        self._last_dice = [(d.value, d.center, d.side_px) for d in dice]
        readable = [d for d in dice if d.value is not None]
        unreadable = len(dice) - len(readable)
        if unreadable:
            self.fail(f"{unreadable} die unreadable: throw again or use the buttons")
            return []
        if self.expected_dice and len(readable) != self.expected_dice:
            self.fail(f"{len(readable)} dice in the tray, expected {self.expected_dice}")
            return []
        events = [InputEvent("throw", int(d.value), "camera") for d in readable]
        for e in events:
            self.emit(e)
        return events

    def _same_as_last(self, dice) -> bool:
        """The same dice with the same values, each near where it was: within a die and a half
        after a brief touch (a nudge), within half a die after a longer motion (a throw moves the
        dice for several frames, and may well land the same value a die's width away)."""
        last = self._last_dice
        if not last or len(last) != len(dice):
            return False
        reach = 1.5 if self._moving_frames <= NUDGE_FRAMES else 0.5
        unused = list(last)
        for d in dice:
            match = None
            for k, (v, c, side) in enumerate(unused):
                near = reach * max(side, d.side_px, 10.0)
                if v == d.value and math.hypot(c[0] - d.center[0], c[1] - d.center[1]) < near:
                    match = k
                    break
            if match is None:
                return False
            unused.pop(match)
        return True

    def _interrupted(self) -> None:
        """The view was lost for a while: a read in progress starts again when the dice are still."""
        self._prev = None
        if self.state in (ROLLING, AT_REST):
            self.state, self._still, self._job = ROLLING, 0, None

    def _note_bad_frame(self, counter: str, why: str) -> None:
        self.health.details[counter] = self.health.details.get(counter, 0) + 1
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
        self._interrupted()  # the view may have changed while the camera was away

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._thread = None
        try:
            self.camera.close()
        finally:
            super().close()
