"""Is the camera's view still?  Frame differencing on a small, blurred grey copy of each frame.

Live mode adjudicates only a still view: a hand reaching over the board, a sheet being slid into
place or a camera knocked on its stand all show up as motion between consecutive frames.  The
frame is shrunk first (noise and JPEG speckle average out; a 1600 px frame costs well under a
millisecond), then the share of pixels that changed by more than ``MOTION_LEVEL`` grey levels is
the frame's *motion*.  The view is still after ``still_frames`` consecutive frames below
``MOTION_FRACTION``.

    >>> import numpy as np
    >>> d = StillnessDetector(still_frames=2)
    >>> frame = np.full((240, 320, 3), 128, np.uint8)
    >>> [d.update(frame) > 0 for _ in range(3)], d.still
    ([True, False, False], True)
"""

from __future__ import annotations

import cv2
import numpy as np

SMALL_WIDTH = 160  # px: enough to see a hand or a sheet move, small enough to cost nothing
DETAIL_WIDTH = 480  # px: to tell whether a still view differs from the last one looked at (a 3 mm slide)
DETAIL_LEVEL = 8  # grey levels a detail pixel must change by
DETAIL_PIXELS = 3  # ... and how many must, for the view to differ
MOTION_LEVEL = 12  # grey levels (of 255) a shrunk pixel must change by to count as motion
MOTION_FRACTION = 0.003  # share of the frame that may change between still frames (noise, flicker)
STILL_FRAMES = 4  # consecutive quiet frames that make a still view (about 1 s at 4 frames a second)


class StillnessDetector:
    """Feed it every frame; ``still`` says whether the last ``still_frames`` frames were quiet."""

    def __init__(self, still_frames: int = STILL_FRAMES, motion_fraction: float = MOTION_FRACTION,
                 motion_level: int = MOTION_LEVEL):
        self.still_frames = max(1, int(still_frames))
        self.motion_fraction = motion_fraction
        self.motion_level = motion_level
        self._previous: np.ndarray | None = None
        self._detail: np.ndarray | None = None  # the last frame at DETAIL_WIDTH
        self.quiet = 0  # consecutive frames without motion
        self.motion = 1.0  # the last frame's motion (share of changed pixels)

    def update(self, frame_bgr: np.ndarray) -> float:
        small = _small_grey(frame_bgr, SMALL_WIDTH)
        self._detail = _small_grey(frame_bgr, DETAIL_WIDTH)
        if self._previous is None or self._previous.shape != small.shape:
            self.motion = 1.0  # nothing to compare with: not known to be still
        else:
            changed = cv2.absdiff(small, self._previous) > self.motion_level
            self.motion = float(changed.mean())
        self._previous = small
        self.quiet = self.quiet + 1 if self.motion <= self.motion_fraction else 0
        return self.motion

    @property
    def still(self) -> bool:
        return self.quiet >= self.still_frames

    def snapshot(self) -> np.ndarray | None:
        """The last frame, shrunk less: to tell later whether a still view differs from this one."""
        return self._detail

    def differs_from(self, snapshot: np.ndarray | None) -> bool:
        """Does the last frame differ from ``snapshot`` anywhere?  A sheet slid a few millimetres, or
        slipped in between two frames, never counts as motion, yet makes the view worth a look."""
        if snapshot is None or self._detail is None or snapshot.shape != self._detail.shape:
            return True
        return int((cv2.absdiff(snapshot, self._detail) > DETAIL_LEVEL).sum()) >= DETAIL_PIXELS

    def reset(self) -> None:
        """Forget the past (the camera stopped, or a frame was garbage): stillness starts again."""
        self._previous, self._detail, self.quiet, self.motion = None, None, 0, 1.0


def _small_grey(frame_bgr: np.ndarray, width: int) -> np.ndarray:
    h, w = frame_bgr.shape[:2]
    small = cv2.resize(frame_bgr, (width, max(1, int(round(h * width / w)))), interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    return cv2.GaussianBlur(grey, (3, 3), 0)
