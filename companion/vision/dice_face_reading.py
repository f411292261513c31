"""What reading one die's top face gives back, and the scale it works at (shared by the pip
modules, the crop read and the finding side)."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass, field

import cv2
import numpy as np

FACE_PX = 96  # the side of a top face, in pixels, in the normalised crop
_scale = threading.local()  # (a thread's own face size: the stream's worker may read at another while a still read runs)


def face_px() -> int:
    """The side of a top face in the crop the read on this thread works at: ``FACE_PX``, or the
    size set by :func:`at_face_px` (the stream's first look at a die's own scale)."""
    return getattr(_scale, "px", FACE_PX)


def quick_look() -> bool:
    """Is the read on this thread a quick look (:func:`at_face_px`), one that a full read follows
    wherever it is unsure?"""
    return getattr(_scale, "quick", False)


@contextmanager
def at_face_px(px: int, quick: bool = False):
    """Crop reads on this thread, inside the ``with``, take a die to be ``px`` across: every size
    the read measures in the face's pixels (areas, reaches, kernels, the blob look's scales) follows.
    ``quick``: a face that does not read at the first look is left unread (no kinder looks: faint
    pips, past glare, by the pips' colour, as blobs): the caller reads such a crop the full way."""
    before = face_px(), quick_look()
    _scale.px, _scale.quick = px, quick
    try:
        yield
    finally:
        _scale.px, _scale.quick = before


@dataclass
class FaceReading:
    value: int | None  # None: a die seen but not read
    center: tuple[float, float]  # in crop pixels
    confidence: float
    side: float  # face side in crop pixels (as fitted, or estimated)
    reason: str = ""
    face_mask: np.ndarray | None = None
    pips: list | None = None  # the pips the value was read from (a first look's readings only)
    #: a region of no pips that is a ring round another colour (the table or a shadow round a die
    #: in the crop): that colour's part inside it, a mask of the crop (dice_crop.RING_HOLES_KEPT)
    hole: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: a two refused as off layout: its two pips, kept so the photo can tell whether one of them is a
    #: one's and the other a side face's (:mod:`.dice_one_beside_side_pip`)
    seen: list | None = field(default=None, repr=False, compare=False)


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """The mask with every hole filled (regions not reachable from the border)."""
    h, w = mask.shape
    pad = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    flood = pad.copy()
    ff = np.zeros((h + 4, w + 4), np.uint8)
    cv2.floodFill(flood, ff, (0, 0), 255)
    return cv2.bitwise_or(mask, cv2.bitwise_not(flood)[1:-1, 1:-1])
