"""A blob with nothing reported on it, a die's size with its shadow: read at the read dice's size
at its ends.

A light die under one lamp casts a shadow as long as it is tall: at the working scale the die and
its shadow are one blob, up to twice the die's side long and 1.5-2.5 of its squares in area, the die
at one end. Such a blob is not die-shaped (the shadow's parallelogram on a square: too little of its
hull filled, or too long), and its box is larger than the dice read: every look reads it as a
whole, at its own size -- the shadow's dark grey a face, the die a part of it -- and reads nothing,
and neither the die-shaped-blob report nor the small-blob looks take it. The die is missed with
nothing reported near it (development light 3319, 3408, 3451; docs/dice-camera.md, fortieth round,
h3).

The die lies at one end of its blob, where is not known (the shadow falls the lamp's way). So the
blob is read with the reader's own look at the size of the dice read in the photo (one throw's dice
are one size), in windows at its ends and middle: a die there reads its value in every window that
holds it whole, the shadow's end reads nothing. A value is kept when at least :data:`AGREE`
windows read it at one place and no window reads another value there: the die read from two
windows set apart, not a chance reading of one crop.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence, TypeVar

import cv2
import numpy as np

from .blob_labels import components_with_stats
from .dice_foreground import _Foreground

D = TypeVar("D")  # a :class:`.dice.Die`

#: read the blobs with nothing reported on them, of a die's size with its shadow (False: the old reader)
LONE_BLOBS_READ = True
#: a blob's area, in squared sides of the dice read: a die alone is about one (0.6: a light die's
#: top face the table's tone, only its side faces in the blob), a die with its shadow up to 2.5,
#: 3.5 with blur round both
AREA = (0.6, 3.5)
#: the blob's box, in sides: no side under this (a die seen across its top face, or a part of one) ...
BOX_LEAST = 0.8
#: ... and none over this (a die and its shadow: two sides long at most, a blur's rim round them)
BOX_MOST = 2.6
#: a blob with a report within this many sides of its box is that report's (already read or doubted)
MARGIN = 0.5
#: sides: windows a side across are cut this far apart over the box ...
STEP = 0.3
#: ... reaching this far past it (a light die's top face the table's tone lies partly beyond its
#: blob of side faces and shadow: light 3414)
PAD = 0.2
#: sides: a reading counts for a window when its centre lies within this of the window's
NEAR = 0.35
#: a reading's side must be within this range of the read dice's side (one throw's dice are one size)
SIZE_RANGE = (0.7, 1.4)
#: sides: readings within this of each other are one place
PLACE = 0.3
#: sides: a value read is read again in windows centred on it and moved this far each way along
#: both axes (a die's reading does not hang on where its crop was cut: a shadow's or a rim's does)
MOVE = 0.15
#: of those five windows, at least this many must read the same value at its place, none another
#: (light 3408's defocused six: three of five; the two others read nothing)
AGREE = 3


def read_lone_blobs(dice: Sequence[D], img: np.ndarray, work_px: float, sigmas: float,
                    read_square: Callable[[tuple[float, float], float], list],
                    make: Callable[[D, tuple[float, float]], D],
                    seen: tuple[np.ndarray, float] | None = None) -> list[D]:
    """``dice`` with the dice read in blobs nothing is reported on (:data:`LONE_BLOBS_READ`).
    The foreground is computed at ``work_px`` with the reader's ``sigmas``; ``read_square(centre,
    side)`` reads the dice round ``centre`` for a die ``side`` across (photo pixels); ``make(die,
    centre)`` is a reading moved to ``centre``; ``seen``, the reader's foreground mask and its
    scale, is used when it is at ``work_px``'s scale (computed again otherwise)."""
    out = list(dice)
    if not LONE_BLOBS_READ:
        return out
    sides = [d.side_px for d in out if d.value is not None and d.side_px > 0]
    if not sides:
        return out
    side = float(np.median(sides))
    H, W = img.shape[:2]
    f = min(1.0, work_px / max(H, W))
    size = (round(W * f), round(H * f)) if f < 1 else (W, H)
    if seen is not None and seen[1] == f and seen[0].shape[:2] == size[::-1]:
        fg = seen[0]  # (the reader's own: the same photo, scale and sigmas)
    else:
        small = cv2.resize(img, size, interpolation=cv2.INTER_AREA) if f < 1 else img
        fg = _Foreground(small, sigmas).mask
    n, _, stats, _ = components_with_stats(fg)
    s = side * f
    added: list[D] = []
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if not AREA[0] * s * s <= area <= AREA[1] * s * s or min(bw, bh) < BOX_LEAST * s or max(bw, bh) > BOX_MOST * s:
            continue
        x0, y0, x1, y1 = x / f, y / f, (x + bw) / f, (y + bh) / f
        m = MARGIN * side
        if any(x0 - m <= d.center[0] <= x1 + m and y0 - m <= d.center[1] <= y1 + m for d in out + added):
            continue
        for v, c, d in _window_reads(read_square, (x0, y0, x1, y1), side):
            got = _agreed(read_square, v, c, side)
            if got is not None:
                added.append(make(d, got))
                break
    return out + added


def _window_reads(read_square, box: tuple[float, float, float, float], side: float) -> list[tuple]:
    """(value, centre, reading) of every valued reading of a die's size near its window's centre,
    windows a side across cut STEP sides apart over the box and PAD past it."""
    x0, y0, x1, y1 = box

    def places(a, b):
        lo, hi = a + side / 2 - PAD * side, b - side / 2 + PAD * side
        if hi <= lo:
            return [0.5 * (a + b)]
        k = int(math.ceil((hi - lo) / (STEP * side)))
        return list(np.linspace(lo, hi, k + 1))

    reads = []
    for cy in places(y0, y1):
        for cx in places(x0, x1):
            for d in read_square((cx, cy), side):
                if d.value is None or not SIZE_RANGE[0] <= d.side_px / side <= SIZE_RANGE[1]:
                    continue
                if math.dist(d.center, (cx, cy)) <= NEAR * side:
                    reads.append((d.value, d.center, d))
    return reads


def _agreed(read_square, value: int, at: tuple[float, float], side: float):
    """The mean centre of ``value``'s readings in the windows at ``at`` and moved MOVE sides each
    way, when AGREE of them read it within PLACE sides of ``at`` and none reads another value
    there; else None."""
    same, other = [], False
    for dx, dy in ((0, 0), (MOVE, 0), (-MOVE, 0), (0, MOVE), (0, -MOVE)):
        c = (at[0] + dx * side, at[1] + dy * side)
        here = [d for d in read_square(c, side) if d.value is not None and math.dist(d.center, at) <= PLACE * side]
        same += [d.center for d in here if d.value == value]
        other |= any(d.value != value for d in here)
    if other or len(same) < AGREE:
        return None
    return float(np.mean([c[0] for c in same])), float(np.mean([c[1] for c in same]))
