"""A defocused die read once more on a sharpened copy of its part of the photo.

A phone photo slightly out of focus spreads each pip into the face round it: the pip's step in
colour is lowered and widened, the face region takes the pips in ("no pips"), or two pips melt.
Defocus is a low-pass filter; an unsharp mask (the picture plus ``AMOUNT`` times its difference
from a blurred copy) lifts back the frequencies it lowered, up to the blur's own scale. How blurred
the die is cannot be told reliably from a small crop (the edge-width estimates tried overlapped
between sharp and defocused dice, docs/dice-camera.md, seventeenth round), so the copy is made at
the scale that matters to the reading -- the pips': a blur of about a pip's radius or less is what
still leaves pips to find once sharpened; blurs much larger wipe them out for good.

A die is read this way only where every other look read nothing in its blob (a cheap last look),
and a value is kept only where two sharpenings -- half a pip radius and a whole one -- read the same
value at the same place: a value that only one strength gives is the sharpening's accident (a
marbled vein or the rim's shading made into a mark), not the die's face.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import cv2
import numpy as np

#: the unsharp mask's strengths: blur sigmas as a share of the die's side. A pip's radius is about
#: 0.08 of the side (real dice's pips are 13-20 % of the face across): half of it, and a whole one
SHARPEN_SIDES = (0.04, 0.08)
#: how much of the detail lost is put back (1 restores a Gaussian-blurred step's slope about
#: halfway at the blur's own scale; 1.5 chosen before measuring, as the usual phone sharpening's
#: 0.6 is made for sharp photos, not defocused ones)
AMOUNT = 1.5
#: the window sharpened reaches this many guessed sides past the blob's box (the crop's pad is 0.3
#: of a side and a retry may look at a larger size; the blur reaches 3 sigmas)
WINDOW_SIDES = 1.0
#: the same die in two readings: centres within this share of the larger side (as ``_dedupe``'s)
SAME_PLACE = 0.5
#: the values this look may read. Not a one (a lone mark -- sharpening makes marks of a light die's
#: texture and shading: light 3238 and 3267, ones read 0.4-0.7 sides off a two and a three) nor a
#: five (a four's pips with one mark more: light 3259, a tilted four with its side face's nearest
#: pip sharpened in; blurred, four pips' tails also light a four's middle, as the blurred-face look
#: found). Set after the development sets' reading showed those three (no one or five gained was
#: lost but light 4010, ray 4999 and rayphone 6009's fives).
VALUES_READ = (2, 3, 4, 6)


def sharpened(window: np.ndarray, sigma: float, amount: float = AMOUNT) -> np.ndarray:
    """``window`` (8-bit) with an unsharp mask of ``sigma`` pixels: the picture plus ``amount``
    times its difference from the picture blurred by ``sigma``."""
    soft = cv2.GaussianBlur(window, (0, 0), max(0.3, sigma))
    return cv2.addWeighted(window, 1.0 + amount, soft, -amount, 0)


class _Reading:  # (the part of a Die this module uses)
    value: int | None
    center: tuple[float, float]
    side_px: float


def window_round(shape: tuple, box, reach: float) -> tuple[int, int, int, int]:
    """The window (x0, y0, x1, y1) of ``box`` grown by ``reach`` pixels on every side, inside a
    photo of ``shape``."""
    H, W = shape[:2]
    x0, y0 = max(0, int(box[0] - reach)), max(0, int(box[1] - reach))
    x1, y1 = min(W, int(math.ceil(box[2] + reach))), min(H, int(math.ceil(box[3] + reach)))
    return x0, y0, x1, y1


def read_sharpened(img: np.ndarray, box: tuple[int, int, int, int], side_full: float,
                   read_window: Callable[[np.ndarray, tuple[int, int]], Sequence[_Reading]]) -> list:
    """The dice read in the part of ``img`` round ``box`` (x0, y0, x1, y1, full-resolution pixels)
    at each strength of ``SHARPEN_SIDES`` (sigma times ``side_full``, the die's guessed side) --
    ``read_window(window, (wx0, wy0))`` reads a sharpened window cut at (wx0, wy0) and gives dice in
    the photo's pixels -- kept where every strength read the same value at the same place."""
    x0, y0, x1, y1 = window_round(img.shape, box, WINDOW_SIDES * side_full)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return []
    window = img[y0:y1, x0:x1]
    readings = []
    for k in SHARPEN_SIDES:
        readings.append([d for d in read_window(sharpened(window, k * side_full), (x0, y0)) if d.value is not None])
        if not any(d.value in VALUES_READ for d in readings[-1]):
            return []  # (nothing that could be kept read at one strength: the rest not read)
    # (every value takes part in the agreement: another value read at a place is a disagreement)
    return [d for d in agreed(readings) if d.value in VALUES_READ]


def agreed(readings: Sequence[Sequence[_Reading]]) -> list:
    """The dice of the first reading that every other reading read with the same value at the same
    place, and no other value there."""
    if not readings:
        return []
    first, rest = readings[0], readings[1:]

    def here(d, o):
        return math.dist(d.center, o.center) < SAME_PLACE * max(d.side_px, o.side_px, 1.0)

    return [d for d in first
            if all(any(here(d, o) and o.value == d.value for o in other)
                   and not any(here(d, o) and o.value != d.value for o in other) for other in rest)]
