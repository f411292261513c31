"""A one whose face region holds its side faces too: the top face told from them by its shade.

A tilted die, or one near a wide photo's edge, shows one or two side faces beside its top face.
When they are of the die's colour they join the top face in one face region, and a one's pip,
in the middle of the top face, is then off the region's middle ("lone pip off centre"), or is
read with a side face's pip as a two that fits no face. The side faces are lit unlike the top
face (they face another way), so the face pixels of the shade just round the pip, within a tight
colour step, are the top face alone. That region is read once more by every check of a one (the
pip in its middle, its vacancies and corners plain); anything but a one read so is dropped.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import cv2
import numpy as np

from .dice_face_reading import FACE_PX, FaceReading, fill_holes
from .dice_pip_finding import face_hull

if TYPE_CHECKING:
    from .dice_pip_finding import Pip

RING = (1.7, 2.7)  # pip radii: the ring round the pip whose shade is the top face's
SHADE_STEP = 9.0  # Lab units (L weighted 0.6): the most a top-face pixel's shade differs from the ring's
SHADE_SPREAD = 3.0  # ... or this many times the ring's own spread, if larger (noise, texture)
LEAST_FACE = 0.3  # FACE_PX squared: the least a top face found so may cover (a die of the crop's scale)
SHARE_OF_REGION = 0.85  # the top face found must leave this part of the region or less (else nothing new)


def read_ace_by_its_shade(filled: np.ndarray, marks: list[Pip], dl: np.ndarray) -> FaceReading | None:
    """A one read on the top face cut from ``filled`` by the shade round its largest pip, or None.

    ``marks``: every mark found on the whole region (the one's pip is the largest); ``dl``: the
    Lab offset from the region's face colour. A pip-like mark on the top face found (or within its
    reach) besides the largest is no side face's: then no one is read (a five's corner, a two's
    other pip)."""
    from .dice_pips import _read_face_once  # (dice_pips calls this module: imported when used)

    if not marks or dl is None or dl.ndim != 3:
        return None
    pip = max(marks, key=lambda p: p.area)
    r = math.sqrt(pip.area / math.pi)
    h, w = filled.shape
    yy, xx = np.ogrid[:h, :w]
    d2 = (xx - pip.x) ** 2 + (yy - pip.y) ** 2
    ring = (d2 >= (RING[0] * r) ** 2) & (d2 <= (RING[1] * r) ** 2) & (filled > 0)
    if np.count_nonzero(ring) < 20:
        return None
    shade = np.median(dl[ring], axis=0).astype(np.float32)
    step = dl - shade
    closeness = np.sqrt(0.6 * step[..., 0] ** 2 + step[..., 1] ** 2 + step[..., 2] ** 2).astype(np.float32)
    spread = float(np.median(closeness[ring]))
    top = ((closeness < max(SHADE_STEP, SHADE_SPREAD * spread)) & (filled > 0)).astype(np.uint8) * 255
    top = cv2.morphologyEx(top, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    n, labels = cv2.connectedComponents(top, connectivity=8)
    if n < 2:
        return None
    counts = np.bincount(labels[ring], minlength=n)
    counts[0] = 0
    top = (labels == int(np.argmax(counts))).astype(np.uint8) * 255
    area = cv2.countNonZero(fill_holes(top))
    if area < LEAST_FACE * FACE_PX * FACE_PX or area > SHARE_OF_REGION * cv2.countNonZero(filled):
        return None
    reach = cv2.dilate(cv2.bitwise_or(fill_holes(top), face_hull(top)), np.ones((REACH_PX, REACH_PX), np.uint8))
    for m in marks:
        if m is not pip and m.area >= LIKE_A_PIP[0] * pip.area and max(m.contrast, m.peak) >= LIKE_A_PIP[1] * pip.contrast \
                and reach[min(h - 1, max(0, int(round(m.y)))), min(w - 1, max(0, int(round(m.x))))] > 0:
            return None
    got = _read_face_once(top, closeness, step)
    return got if got.value == 1 else None


#: a mark at least these parts of the largest pip's area and contrast is pip-like
LIKE_A_PIP = (0.15, 0.4)
REACH_PX = 9  # (crop pixels, FACE_PX 96) the top face found is widened by this much: a pip on its rim is on it
