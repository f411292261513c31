"""What the camera dice source compares from frame to frame: motion, an unchanged tray, the same throw.

Pure functions on small pictures of the tray (:class:`companion.vision.tray_reader.TrayView`'s
``small``), used by :mod:`companion.inputs.camera_dice` every frame, so each costs well under a
millisecond.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

MOTION_W = 160  # the motion test's grey tray is this wide (a 48 px die of a 640x480 camera: 12 px)
MOTION_LEVEL = 14  # a grey level this far from the last frame's (blurred 5x5) has changed
DIE_SHARE_MOVING = 1 / 6  # this share of a die's area changed between frames is motion
UNCHANGED_LEVEL = 8  # levels: the noise of a (3x3-blurred) small tray is 2-3 (unchanged)
MIN_CHANGED_PX = 4  # ... and never fewer pixels than this
SMALLEST_DIE = 0.06  # a die's side is at least this share of the tray's shorter side (as tray_rest_read assumes)
FLAT_LEVELS = 2  # a small grey tray spanning this few levels is one flat colour: no picture of anything
CLIPPED_WHITE = 250  # ... unless every pixel is this light: a light tray in a bright lamp's light, clipped
# white by the camera (rendered sessions on white trays do it; a die thrown there still shows)
BLANK, CLIPPED = "blank", "clipped white"


def flat_frame(small: np.ndarray) -> str:
    """Whether the tray is one flat colour: ``BLANK`` (a covered lens or a failing sensor: no
    picture), ``CLIPPED`` (every pixel clipped white: a picture of a light tray, over-exposed) or
    "" (a picture with something in it)."""
    lo, hi = cv2.minMaxLoc(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))[:2]
    if hi - lo > FLAT_LEVELS:
        return ""
    return CLIPPED if lo >= CLIPPED_WHITE else BLANK


def motion_gray(small: np.ndarray) -> np.ndarray:
    """The tray as the motion test sees it: grey, ``MOTION_W`` wide, blurred."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    if gray.shape[1] > MOTION_W:
        gray = cv2.resize(gray, (MOTION_W, max(1, round(gray.shape[0] * MOTION_W / gray.shape[1]))),
                          interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(gray, (5, 5), 0)


def difference(gray: np.ndarray, prev: np.ndarray) -> tuple[float, bool]:
    """The fraction of a (small, blurred) grey tray that differs from ``prev``, a change of
    overall brightness taken out; and whether the two are identical pictures (a flat one repeats
    exactly without the camera being frozen: a tray clipped white)."""
    gain = (cv2.mean(gray)[0] + 1.0) / (cv2.mean(prev)[0] + 1.0)
    diff = cv2.absdiff(gray, cv2.convertScaleAbs(prev, alpha=gain) if abs(gain - 1) > 0.004 else prev)
    changed = cv2.countNonZero(cv2.threshold(diff, MOTION_LEVEL, 255, cv2.THRESH_BINARY)[1])
    identical = cv2.countNonZero(diff) == 0 and cv2.minMaxLoc(gray)[1] - cv2.minMaxLoc(gray)[0] > FLAT_LEVELS
    return changed / diff.size, identical


def die_side(side_small: float | None, small_shape: tuple, width: int) -> float:
    """A die's side in pixels of a picture of the tray ``width`` wide: as last read (``side_small``,
    in the small tray's pixels), else the smallest die there can be."""
    side = side_small or SMALLEST_DIE * min(small_shape[:2])
    return side * width / small_shape[1]


def moved(fraction: float, size: int, threshold: float, side: float) -> bool:
    """A difference of ``fraction`` of a grey tray of ``size`` pixels is motion: more than
    ``threshold`` of the tray, or a sixth of a die's area (``side`` in the same pixels). The die
    counts: a black die on black felt moving or picked up changes its pips and lit edges only,
    less than the share of the tray; noise, blurred and downscaled, stays far below the level."""
    return fraction > threshold or fraction * size >= max(MIN_CHANGED_PX, DIE_SHARE_MOVING * side * side)


def unchanged(then: np.ndarray | None, now: np.ndarray, side: float) -> bool:
    """The small tray (in colour) is as it was: fewer pixels than a sixth of a die (``side``) differ
    by more than ``UNCHANGED_LEVEL`` in a channel, the overall brightness taken out. Finer than
    the motion test (0.5 ms against its 0.2): a black die on black felt picked up changes its body
    by 10-25 levels only."""
    if then is None or then.shape != now.shape:
        return False
    gain = [(a + 1.0) / (b + 1.0) for a, b in zip(cv2.mean(now)[:3], cv2.mean(then)[:3])]
    diff = cv2.absdiff(now, cv2.multiply(then, (*gain, 1.0), dtype=cv2.CV_8U))
    b, g, r = cv2.split(cv2.blur(diff, (3, 3)))
    changed = cv2.countNonZero(cv2.threshold(cv2.max(cv2.max(b, g), r), UNCHANGED_LEVEL, 255,
                                             cv2.THRESH_BINARY)[1])
    return changed < max(MIN_CHANGED_PX, DIE_SHARE_MOVING * side * side)


def same_throw(last: list | None, dice: list, reach: float) -> bool:
    """``dice`` are the ``last`` ones (value, centre, side): as many, the same values, each within
    ``reach`` dice of where one of them was."""
    if not last or len(last) != len(dice):
        return False
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
