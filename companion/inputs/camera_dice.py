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
* ``at_rest`` -- still after moving: the dice are being read in what is left of each frame's CPU
  budget (``frame_budget_ms``; :mod:`companion.sliced_work`), reported once the read is done, on
  the ``rest_frames``-th still frame at the earliest.
* ``read``    -- the dice were read and the throw reported; nothing more is reported until the
  dice are picked up (the tray reads empty) or thrown again (they rest somewhere else). A nudge
  (the same values, each die near where it was) or a hand passing over them reports nothing.

Where the dice are comes from the difference against the empty tray's picture
(:mod:`companion.vision.tray_reader`), and each die is read from a small crop
(:mod:`companion.vision.tray_rest_read`). Started with dice in the tray, the empty tray is guessed
around what stands out in it until it is seen empty. A crop that does not read cleanly is read
again grown over a die's faint body, then by the still-photo reader on the region around it
(``region_reads``), then the whole tray (``full_reads``). A blob unchanged since an earlier read
is not read again (dice stopping one after another). A read of resting dice that move before it
is done goes on and is reported late.

A die the reader cannot read, or more dice than ``expected_dice``, reports no throw: the health
record says why, and the players use the on-screen buttons or throw again. Frames that are not
images, blank frames (a covered or failing sensor) and a frozen stream are counted there too.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from companion.freed_memory import keep_freed_memory
from companion.vision.dice import Die
from companion.vision.tray_blob_reads import BlobReads
from companion.vision.tray_reader import EmptyTray, TrayView
from companion.vision.tray_rest_read import ReadAhead, RestRead, TrayMemory, read_tray_at_rest, warm_up_once

from .base import InputEvent
from .camera_source import CameraSource
from .camera_thread import CameraThread, freeze_startup_objects
from . import stream_gc
from .tray_watch import BLANK, CLIPPED, die_side, difference, flat_frame, motion_gray, moved, same_throw, unchanged
from companion.sliced_work import SlicedWork

EMPTY, ROLLING, AT_REST, READ = "empty", "rolling", "at_rest", "read"
NUDGE_FRAMES = 3  # at most this many frames of motion can be a nudge rather than a throw (10 fps)
FRAME_BUDGET_MS = 8.0  # 10 ms target, less a slice's overshoot (one OpenCV call) and the frame's own end
DIE_READ_MS = 5.0  # CPU per die of a read from crops until measured (a 640x480 tray: 4-6 ms)
READ_WHILE_MOVING_ABOVE = 1.5  # read on moving frames too when a read needs more budgets than this (3 dice and up)
MOVING_RESERVE_MS = 1.5  # less for a read on a moving frame: smeared dice and hands make bigger crops, whose
# single steps run longer (the biggest say so themselves: tray_rest_read.BIG_CROP_PX; 0.5 ms measured no better)
MIN_SLICE_S = 0.001  # a read gets at least this much of a frame, however dear the frame was already
UNMATCHED = "something in the tray that reads as no die: throw again or use the buttons"
MAX_LATE_READS = 3  # late reads kept at once (each a throw not yet reported); more only if reads never end
LATE_THROWS_KEPT = 8  # the frames of the last throws reported late, kept in the health record


class CameraDice(CameraThread):
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
    :param frame_budget_ms: the CPU time a frame may spend, its share of a read included; a read
        that needs more goes on at the next frame (:mod:`companion.sliced_work`). The
        target is 10 ms; the default leaves room for a slice's overshoot. ``None``: every read is
        done within the frame it starts in, whatever it costs (tests of the frame logic).
    """

    kind = "camera"

    def __init__(self, camera: CameraSource, name: str = "camera dice",
                 tray: tuple[float, float, float, float] | None = None, expected_dice: int = 1,
                 rest_frames: int = 2, motion_threshold: float = 0.004, fps: float = 10.0,
                 stale_after_s: float = 2.0, reader: Callable | None = None, frozen_after: int = 30,
                 frame_budget_ms: float | None = FRAME_BUDGET_MS):
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
        self.frame_budget_ms = frame_budget_ms
        warm_up_once()
        freeze_startup_objects()  # a full garbage collection in a frame would cost more than the frame
        keep_freed_memory()  # each frame's arrays on pages mapped already, not fresh ones (a fault each 4 kB)
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
        self._job: SlicedWork | None = None  # the read under way (over the still frames)
        self._job_small: np.ndarray | None = None  # the tray it reads (small)
        self._parked: tuple | None = None  # (job, small, rested): a read that motion interrupted
        self._late_ran = False
        self._lent_s = 0.0
        self._late: list[SlicedWork] = []  # reads of resting dice that moved before they were done, oldest first
        self._ahead: SlicedWork | None = None  # a read dropped on a moving frame, going on through the blobs
        # that were still when it began (their reads kept for the read at rest)
        self._empty = EmptyTray()
        self._blob_reads = BlobReads()  # recent blobs' reads, dropped reads' too: unchanged blobs are not read again
        self._small_before = self._small_now = None  # the last two good frames' small views
        self._snapshot: np.ndarray | None = None  # the tray (small) when the dice were last read
        self._snapshot_boxes: list = []  # the dice's boxes then (small pixels): a throw is seen there first
        self._side_small: float | None = None  # a die's side as last read, in small-image pixels
        self._last_dice: list | None = None  # what the last read saw (values and centres)
        self.frames = 0
        self.reads = 0
        self._die_read_ms = DIE_READ_MS  # CPU per die of a read from crops, as measured (ms)
        self.health.details = {"state": self.state, "frames": 0, "reads": 0, "crop_reads": 0, "region_reads": 0,
                               "full_reads": 0,
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
        gray = motion_gray(small)
        prev, self._prev = self._prev, gray
        if prev is None or prev.shape != gray.shape:
            return 1.0
        changed, identical = difference(gray, prev)
        self._same_frames = self._same_frames + 1 if identical else 0
        return changed

    def process_frame(self, frame: np.ndarray) -> list[InputEvent]:
        """Feed one frame; returns (and emits) the throw events it completes. Never raises on a
        bad frame: it is counted and noted in the health record."""
        if (not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3
                or frame.shape[2] != 3 or min(frame.shape[:2]) < 16):
            self._note_bad_frame("bad_frames", "a frame that is not a BGR image")
            return []
        cpu0 = time.thread_time()
        stream_gc.hold(self)  # no collection in a frame that may read (until one that reads nothing ends)
        self.frames += 1
        self._late_ran = False  # whether a late read had some of this frame
        self._lent_s = 0.0  # CPU the reads used in this frame (in their worker threads)
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
        flat = flat_frame(view.small)  # (a tray clipped white is a picture: counted, no complaint, read on)
        d = self.health.details
        d["clipped_white_frames"] = d.get("clipped_white_frames", 0) + (flat == CLIPPED)
        if flat == BLANK:  # one flat colour: a covered lens or a failing sensor, not a picture
            self._note_bad_frame("blank_frames", "blank frames from the camera (covered or failing?)")
            self._interrupted()
            return []
        first = self._prev is None  # nothing to compare with: the dice may be resting already
        self._small_before, self._small_now = self._small_now, view.small  # (a read takes still blobs first)
        moving = moved(self._motion(view.small), self._prev.size, self.motion_threshold,
                       die_side(self._side_small, view.small.shape, self._prev.shape[1]))
        if self._same_frames >= self.frozen_after:
            self._note_bad_frame("frozen_frames", f"camera frozen: the same frame {self._same_frames} times")
        events: list[InputEvent] = []
        if moving:
            if self.state in (EMPTY, READ):
                self._before_rolling, self._moving_frames = self.state, 0
            self._moving_frames += 1
            if self.state == AT_REST and self._job is not None:
                # a read under way: kept (paused) in case the motion was a hand passing over the
                # dice; it goes on if the tray is as it was when the motion ends
                self._drop_parked()
                self._parked = (self._job, self._job_small, self._still >= self.rest_frames)
                self._job = None
            self.state, self._still = ROLLING, 0
            self._drop_read(keep_still=True)
            if self._late:
                events = self._lend_late(cpu0)  # before a read of dice that may not be resting
            elif self.frame_budget_ms is not None:
                parked = self._parked is not None and self._parked[2] and not self._parked[0].done
                if parked:
                    # a read of dice that had rested long enough to be reported: its throw stands
                    # whatever this motion is (a hand passing, a pick-up), so it goes on meanwhile
                    # and is reported as soon as it ends
                    if self._run_job(self._parked[0], max(self.frame_budget_ms / 1000 - self._spent(cpu0), MIN_SLICE_S)):
                        events = self._finish_parked()
                ahead = self._lend_ahead(cpu0, MOVING_RESERVE_MS)
                if (first or self._read_while_moving()) and self._ahead is None:
                    # the dice may have come to rest in this very frame (the next one will say), or
                    # be resting since before the first frame: its read starts now, in what the
                    # frame has left, and is dropped if they move on
                    self._start_read(view)
                    self._lend(cpu0, MOVING_RESERVE_MS, at_least=0.0 if parked or ahead else MIN_SLICE_S)
        elif self.state in (ROLLING, AT_REST):
            self._still += 1
            self.state = AT_REST
            if self._parked is not None:
                self._resume_parked(view)
            if self._job is None:
                self._start_read(view)
            # a late read first: its throw is older (reported before this one) and already overdue
            events = self._lend_late(cpu0)
            if not self._late:
                ahead = self._lend_ahead(cpu0)  # (its blobs' reads are this read's: no work lost)
                events += self._work(cpu0, view, at_least=0.0 if events or self._late_ran or ahead else MIN_SLICE_S)
        elif self.state == EMPTY and self._empty.known:
            self._empty.learn(view.small)  # follow slow changes of the light
        if not moving and self._job is None and not self._late_ran:
            events += self._lend_late(cpu0)
        if not moving and self._job is None and not self._late:
            self._lend_ahead(cpu0)
        if not self.reading and not self._lent_s:
            stream_gc.release(self)  # collections held back run now, in a frame that read nothing
        self.health.details.update(state=self.state, frames=self.frames, reads=self.reads)
        return events

    # ------------------------------------------------------------ reading at rest

    def _start_read(self, view: TrayView) -> None:
        """The read of this view starts, as work lent CPU frame by frame."""
        memory = TrayMemory(self._empty.picture, self._snapshot if self._before_rolling == READ else None,
                            self._empty.unknown, self._side_small, self.expected_dice, self._blob_reads,
                            self._small_before, snapshot_boxes=self._snapshot_boxes)
        memory.ahead = ReadAhead()
        self._job = SlicedWork(read_tray_at_rest, view, memory, self._reader, name=f"{self.name} read")
        self._job.ahead = memory.ahead
        # what its throw is compared with, should it end late (after the dice moved on)
        self._job.last = (self._last_dice, self._moving_frames)
        self._job.began = self.frames  # the frame (1 = the first fed) whose view it reads
        self._job.small = view.small  # ... and that view (a late read's end learns the empty tray from it)
        self._job.view = view
        self._job_small = view.small

    def _read_while_moving(self) -> bool:
        """Whether to start reading on frames with motion too: the frame the dice come to rest in
        still shows motion, and such reads keep the still dice's reads (dice stopping one after
        another). At up to a budget a moving frame, only when a throw's read needs more than the
        still frames before the report give: several dice, at the CPU per die reads took so far."""
        if self.frame_budget_ms is None:
            return False
        if self._side_small is None:
            return True  # no die read yet: the dice's size is a guess, and a die that is only an
            # edge against the tray may need the still reader (15-45 ms)
        dice = self.expected_dice or max(1, len(self._last_dice or ()))
        return dice * self._die_read_ms > READ_WHILE_MOVING_ABOVE * self.frame_budget_ms

    def _run_job(self, job: SlicedWork, seconds: float) -> bool:
        """``job.run_for(seconds)``, its CPU counted as this frame's (it runs in the worker's thread,
        which the frame's own clock does not see)."""
        done = job.run_for(seconds)
        self._lent_s += job.slice_cpu_s
        return done

    def _spent(self, cpu0: float) -> float:
        """The CPU this frame has used: its own thread's, and the reads' it lent time to."""
        return time.thread_time() - cpu0 + self._lent_s

    @property
    def lent_s(self) -> float:
        """CPU seconds the last frame lent the reads (in their worker threads); 0: it read nothing."""
        return self._lent_s

    @property
    def reading(self) -> bool:
        """A read is under way (started, not yet done or dropped), paused by motion, or a late one goes on."""
        return self._job is not None or bool(self._late) or self._parked is not None or self._ahead is not None

    def _lend_ahead(self, cpu0: float, reserve_ms: float = 0.0) -> bool:
        """What this frame has left (less ``reserve_ms``) goes to the read dropped to its still blobs
        (:meth:`_drop_read`), before the read of this frame: the blob it is reading is most likely
        one of this read's too, which then takes its read kept. True if there was such a read."""
        if self._ahead is None:
            return False
        left = (self.frame_budget_ms - reserve_ms) / 1000 - self._spent(cpu0)
        if self._run_job(self._ahead, left):
            try:
                self.health.details["crop_reads_ahead"] = (self.health.details.get("crop_reads_ahead", 0)
                                                           + self._ahead.result().crop_reads)
            except Exception as exc:  # a reader bug must not take the source down, nor go unseen
                self.fail(f"reader failed: {type(exc).__name__}: {exc}")
            self._ahead = None
        return True

    def _lend(self, cpu0: float, reserve_ms: float = 0.0, at_least: float = MIN_SLICE_S) -> bool:
        """Let the read run in what is left of this frame's CPU budget (less ``reserve_ms``); True
        once it is done. At least ``at_least``: a read always moves on, however dear the frame was
        already -- unless a late read had the frame (then it waits its turn)."""
        if self.frame_budget_ms is None:
            return self._run_job(self._job, math.inf)
        left = (self.frame_budget_ms - reserve_ms) / 1000 - self._spent(cpu0)
        return self._run_job(self._job, max(left, at_least))

    def _work(self, cpu0: float, view: TrayView, at_least: float = MIN_SLICE_S) -> list[InputEvent]:
        """This frame's share of the read, and the throw once the read is done and the dice have
        rested ``rest_frames`` frames."""
        job = self._job
        if not self._lend(cpu0, at_least=at_least) or self._still < self.rest_frames:
            return []
        self._job = None
        return self._finish(job, view)

    def _finish_parked(self) -> list[InputEvent]:
        """The parked read of dice that had rested long enough to be reported ended during motion
        (a hand passing over them, a pick-up): its throw stands whatever the motion is, so it is
        reported now, not once things are still again (bench session 1105's third throw, a black
        die read in 36 ms with a hand passing: reported 3 frames later, when the hand had gone). The
        tray it read becomes the last read's, as if the motion had begun after the report: a hand
        that touched nothing costs no second read, and a nudge is the same throw."""
        job = self._parked[0]
        self._parked = None
        self.health.details["reads_ended_moving"] = self.health.details.get("reads_ended_moving", 0) + 1
        motion = self._moving_frames - job.last[1]  # this motion's frames (job.last: as when the read began)
        self._moving_frames = job.last[1]  # (what the throw is weighed against the last one with)
        events = self._finish(job, job.view)
        self._before_rolling, self._moving_frames = self.state, max(0, motion)
        self.state = ROLLING
        return events

    def _finish(self, job: SlicedWork, view: TrayView) -> list[InputEvent]:
        """The ended read ``job`` of ``view``: what it found is learnt, and its throw reported if new."""
        self.health.details["read_frames"] = job.slices
        self._learn_read_cost(job)
        try:
            found: RestRead = job.result()
        except Exception as exc:  # a reader bug must not take the source down
            self.fail(f"reader failed: {type(exc).__name__}: {exc}")
            self.state = READ
            return []
        self._count_reads(found)
        if found.side_small:
            self._side_small = found.side_small
        if found.unchanged:
            self.state = READ
            return []
        if found.full:
            if found.dice and found.stale:
                self._empty.forget()  # out of date: learnt again at the next empty tray
        self._learn_empty_tray(found, view.small)
        if found.unmatched:
            self.fail(UNMATCHED)
            self.state, self._snapshot, self._snapshot_boxes = READ, view.small.astype(np.float32), []
            return []
        return self._conclude(view, found.dice)

    def _learn_empty_tray(self, found: RestRead, small: np.ndarray) -> None:
        """What a read saw of the empty tray (``small``: the view it read) goes into its picture."""
        if found.guessed is not None and not self._empty.known:
            self._empty.guess(*found.guessed)  # the dice were there at the start: guessed around them
        for blob in found.uncovered:
            self._empty.uncover(small, blob.x, blob.y, blob.mask)
        tray_empty = not found.dice and not found.unmatched
        if found.seen_empty or (tray_empty and self._empty.unknown is not None):
            self._empty.learn(small, fresh=True)  # seen empty: now it is known (again)

    def _count_reads(self, found: RestRead) -> None:
        d = self.health.details
        d["crop_reads"] += found.crop_reads
        if found.no_die:  # (a moved light spot, a stain: worth seeing if it happens every throw)
            d["blobs_read_as_no_die"] = d.get("blobs_read_as_no_die", 0) + found.no_die
        d["crop_reads_reused"] = self._blob_reads.reused
        if found.region:
            d["region_reads"] += 1
            d["region_read_reason"] = found.region
        if found.full:
            d["full_reads"] += 1
            d["full_read_reason"] = found.full

    def _learn_read_cost(self, job: SlicedWork) -> None:
        """Follow the CPU a crop read takes per die (for :meth:`_read_while_moving`)."""
        try:
            found = job.result()
        except Exception:
            return
        if found.full or found.region or found.unchanged or not found.dice:
            return  # the still reader's cost is no crop read's
        per_die = 1000 * job.cpu_s / len(found.dice)
        self._die_read_ms += 0.3 * (per_die - self._die_read_ms)

    def _conclude(self, view: TrayView, dice: list) -> list[InputEvent]:
        """The tray at rest holds ``dice``: report them if they are a new, good throw."""
        self.reads += 1
        self.health.details["last_read"] = [d.value for d in dice]
        self.health.details["empty_tray"] = ("unknown" if not self._empty.known else
                                             "guessed around the dice" if self._empty.unknown is not None else "learnt")
        if not dice:
            self.state, self._last_dice, self._snapshot = EMPTY, None, None
            return []
        self.state = READ
        self._snapshot = view.small.astype(np.float32)
        self._snapshot_boxes = [_box(d, view.scale) for d in dice if isinstance(d, Die)]
        sides = [d.side_px for d in dice if d.value is not None]
        if sides:
            self._side_small = float(np.median(sides)) * view.scale
            self.health.details["die_side_px"] = round(float(np.median(sides)), 1)
        return self._report(dice)

    def _report(self, dice: list) -> list[InputEvent]:
        """Report ``dice`` (read at rest) if they are a new, good throw."""
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
        return same_throw(self._last_dice, dice, 1.5 if self._moving_frames <= NUDGE_FRAMES else 0.5)

    def _interrupted(self) -> None:
        """The view was lost for a while: a read in progress starts again when the dice are still."""
        self._prev = None
        # a read of dice that had rested long enough to be reported reads a picture they lay still
        # in: its throw stands, and it goes on late (a blank frame or a camera hiccup loses nothing)
        if self._job is not None and self.state == AT_REST and self._still >= self.rest_frames:
            self._go_late(self._job)
            self._job = None
        if self._parked is not None and self._parked[2]:
            self._go_late(self._parked[0])
            self._parked = None
        if self.state in (ROLLING, AT_REST):
            self.state, self._still = ROLLING, 0
            self._drop_read()
        self._drop_parked()
        self._drop_ahead()

    def _drop_read(self, keep_still: bool = False) -> None:
        """The read under way is not wanted. ``keep_still``: if it is reading a blob that was still
        when it began (a die at rest while the last ones roll: 8-10 ms of crop read, more than a
        moving frame lends), it goes on through such blobs only, in the budget frames have left,
        and their reads are kept (one such read at a time: a later one is dropped)."""
        job, self._job = self._job, None
        if job is None:
            return
        if keep_still and self._ahead is None and job.ahead.on_still and not job.done:
            job.ahead.dropped = True
            self._ahead = job
            return
        job.cancel()

    def _resume_parked(self, view: TrayView) -> None:
        """Still again after motion that interrupted a read: if the tray looks as it did when the
        read began (a hand passed over the dice), the read goes on; else it is dropped."""
        job, small, rested = self._parked
        self._parked = None
        if unchanged(small, view.small, die_side(self._side_small, view.small.shape, view.small.shape[1])):
            self._drop_read()  # a read begun on a moving frame: the parked one is further on
            self._job, self._job_small = job, small
            self.health.details["reads_resumed"] = self.health.details.get("reads_resumed", 0) + 1
            return
        if not rested:
            job.cancel()
            return
        # at rest long enough to be reported, but the read was not done (a die only the still
        # reader reads: 15-150 ms, spread over frames). What it reads is still the throw -- the
        # dice lay still in that picture -- so it goes on in the budget no read needs, and is
        # reported late rather than lost
        self._go_late(job)

    def _go_late(self, job: SlicedWork) -> None:
        """``job`` goes on as a late read: first in every frame's budget (its throw is older than any
        read under way), reported when it ends."""
        self.health.details["reads_late"] = self.health.details.get("reads_late", 0) + 1
        if len(self._late) >= MAX_LATE_READS:  # only when reads keep failing to end: give up the oldest
            self._late.pop(0).cancel()
            self.health.details["reads_unfinished"] = self.health.details.get("reads_unfinished", 0) + 1
            self.fail(f"the dice moved before their read was done, {MAX_LATE_READS + 1} times running (hard "
                      "dice: the still reader takes many frames): throw again or use the buttons")
        self._late.append(job)

    def _lend_late(self, cpu0: float) -> list[InputEvent]:
        """What this frame has left goes to the late reads (:meth:`_resume_parked`), oldest first;
        each one's throw is reported once it is done, unless it is the last throw again."""
        events: list[InputEvent] = []
        while self._late:
            left = math.inf if self.frame_budget_ms is None else self.frame_budget_ms / 1000 - self._spent(cpu0)
            if left < MIN_SLICE_S and self._late_ran:
                break
            self._late_ran = True
            if not self._run_job(self._late[0], max(left, MIN_SLICE_S)):  # at least a little, as any read
                break
            events += self._conclude_late(self._late.pop(0))
        return events

    def _conclude_late(self, job: SlicedWork) -> list[InputEvent]:
        try:
            found: RestRead = job.result()
        except Exception as exc:  # a reader bug must not take the source down
            self.fail(f"reader failed: {type(exc).__name__}: {exc}")
            return []
        self._count_reads(found)
        if not self._empty.known or self._empty.unknown is not None:
            # the tray it read, seen empty or guessed around the dice (a cold start's first read is
            # often late): learnt, or every later read pays the foreground test and the guess again.
            # (Not once the tray is known: a newer picture of it is not replaced by an older one)
            self._learn_empty_tray(found, job.small)
        if found.unmatched:  # as a read on time says it: nothing reported, and why
            self.fail(UNMATCHED)
            return []
        if not found.dice:
            return []
        if found.side_small and self._side_small is None:
            self._side_small = found.side_small
        last, moving_frames = job.last  # as when the read began: the tray may have been read empty since
        if same_throw(last, found.dice, 1.5 if moving_frames <= NUDGE_FRAMES else 0.5):
            return []
        events = self._report(found.dice)
        if events:  # which frame's throw it was: a late report follows a newer throw's landing
            self.health.details["late_throws"] = self.health.details.get("late_throws", 0) + 1
            seen = self.health.details.setdefault("late_throws_seen_at", [])
            seen.append(job.began)
            del seen[:-LATE_THROWS_KEPT]
        for later in self._late:  # they began after this throw: it is the one they follow
            later.last = (self._last_dice, later.last[1])
        return events

    def _drop_parked(self) -> None:
        if self._parked is not None:
            self._parked[0].cancel()
            self._parked = None

    def _drop_ahead(self) -> None:
        if self._ahead is not None:
            self._ahead.cancel()
            self._ahead = None

    def _drop_late(self) -> None:
        for job in self._late:
            job.cancel()
        self._late = []

    def _note_bad_frame(self, counter: str, why: str) -> None:
        self.health.details[counter] = self.health.details.get(counter, 0) + 1
        self.fail(why)

    def _release(self) -> None:
        """The reads under way are dropped (the source closes)."""
        self._drop_read()
        self._drop_parked()
        self._drop_ahead()
        self._drop_late()
        stream_gc.release(self)


def _box(die: Die, scale: float) -> tuple[int, int, int, int]:
    """A die's square (full-resolution tray pixels) as a box (x, y, w, h) of the small view."""
    half = die.side_px * scale / 2
    x, y = die.center[0] * scale - half, die.center[1] * scale - half
    return int(x), int(y), int(math.ceil(2 * half)) + 1, int(math.ceil(2 * half)) + 1
