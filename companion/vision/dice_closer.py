"""A die left unreadable that is small at the working scale, read again closer: at the photo's own
resolution, in a window round it.

The reader finds dice on the photo scaled to ``WORK_PX`` on its long side (0.2 of a 4000x3000
photo): a die 40-60 px across there is 8-12 work pixels, under the least die side the finder
expects (``min_die_frac``), and the blob it is found from is its blur's halo more than the die --
a defocused die's blob is 1.5-2 times the die, every look's window is sized by it, and the face
region then takes the pips in ("no pips", session 37's development reading: 8 of the 17 unread dice
of ray 1000-1085). The same photo cut round such a die is read at full resolution, where the die is
the size the finder and the looks were made for, and its blob is measured at the scale of its
pixels. (A person looks closer at a small die; the pixels are the same.)

Only unreadable reports change, and only to one sure value read there, of the dice's size, away
from every die read: a die read right stays as it is; a die read nowhere is not made (nothing is
added where the photo's reading reported nothing).
"""

from __future__ import annotations

import math
from dataclasses import replace
from statistics import median
from typing import Callable

import numpy as np

#: a report is read closer when its side is under this many of the finder's least die side at the
#: working scale (``ReaderSettings.min_die_frac`` of the photo's shorter side): the blob it was
#: found from is then a few work pixels across, its outline its halo's (2: twice the least die)
SMALL_SIDES = 2.0
#: the window read round the report: this many of the report's sides each way (the die, its halo
#: and shadow, and table enough round them for the table's colour)
REACH = 3.0
#: the value read closer is the report's die when it lies within this share of the report's side of
#: it (the half-die rule the score and every re-read in the reader use)
AT = 0.5
#: ... and is of the dice's size: at least this share of the median side of the dice read in the
#: photo (the size rule's least for a one, two or three: dice_sizes' 0.6)
SIZE_LEAST = 0.6
#: the value read closer must be read again, the same, in windows cut with their edges moved: the
#: window's centre shifted by this share of the report's side left, right, up and down (a die's value
#: does not depend on where a crop's edges fall; a reading that does is of what the edges cut -- a
#: neighbour's face, a side face, a shadow -- or of a pip found at one crop and not the next).
#: False: one window's reading is taken (session 37's rule).
CLOSER_READ_AGREES_SHIFTED = True
SHIFT = 0.5
#: ... but one of the four moved windows may read *nothing* there (no value: the die missed or
#: reported unreadable in that crop), so long as none reads another value: a window that fails to
#: read the die says nothing of its value -- a crop whose border ring takes in the die's shadow or
#: blur judges the table's colour, and with it the die's pips, worse -- while one that reads another
#: value shows the reading depends on the edges. Three moved windows and the window as cut, five
#: crops in all, must still read the one value. (Session 39, h1: of the 19 values the closer read
#: gave on the development sets, the one wrong -- ray 3089's four off its one -- had two moved windows
#: reading the one; 4 of the 7 right values the guard refused lacked a value in one window only, and
#: fresh light 3408's two and 3414's six likewise.) False: all four must read it (session 38's guard).
#: OFF since the lead's held-out read (session 39): there it gave one value, and it was wrong (ray
#: 59593, an unread die read as another value -- one the unguarded rule of session 37 also misread).
CLOSER_ONE_WINDOW_MAY_MISS = False


def small_at_work_scale(side_px: float, photo_shape: tuple[int, int], work_px: int, min_die_frac: float) -> bool:
    """Is a report of ``side_px`` (photo pixels) under SMALL_SIDES least dice at the working scale?"""
    H, W = photo_shape[:2]
    f = min(1.0, work_px / max(H, W))
    if f >= 1.0:
        return False  # (read at full resolution already)
    return side_px < SMALL_SIDES * min_die_frac * min(H, W)


def replace_small_unread(img: np.ndarray, dice: list, work_px: int, min_die_frac: float, read_one) -> list:
    """``dice`` with each unreadable report small at the working scale replaced by ``read_one(d, read,
    typical)`` when that gives a die (None: the report kept); ``read`` the dice read with a value,
    ``typical`` their median side (None when none). Shared by the closer read and the blurred fit."""
    read = [d for d in dice if d.value is not None]
    typical = median(d.side_px for d in read) if read else None
    return [(read_one(d, read, typical) or d)
            if d.value is None and small_at_work_scale(d.side_px, img.shape, work_px, min_die_frac) else d
            for d in dice]


def read_closer(img: np.ndarray, dice: list, work_px: int, min_die_frac: float,
                read_window: Callable[[np.ndarray, tuple[int, int]], list]) -> list:
    """``dice`` with each unreadable report small at the working scale replaced by the one value
    read round it in ``img`` at full resolution (``read_window(window, (x0, y0))``: the dice read in
    the window cut at x0, y0, in the window's pixels)."""

    def one(d, read, typical):
        here = _read_at(img, d, d.center, read_window)
        if here is None or len(here) != 1:
            return None
        g = here[0]
        if typical is not None and g.side_px < SIZE_LEAST * typical:
            return None  # (a part of a face read as a die: the size rule would doubt it)
        if any(math.dist(g.center, o.center) < max(g.side_px, o.side_px) for o in read):
            return None  # (another die's face, read already)
        if CLOSER_READ_AGREES_SHIFTED and not _agrees_shifted(img, d, g.value, read_window):
            return None  # (the value depends on where the window's edges fall)
        return replace(g, seen_pips=None, seen_at=None)

    return replace_small_unread(img, dice, work_px, min_die_frac, one)


def _read_at(img: np.ndarray, d, centre: tuple[float, float], read_window) -> list | None:
    """The dice with a value read within AT of ``d``'s side of ``d`` in a window of REACH report
    sides each way round ``centre`` (photo pixels; None: no window fits)."""
    H, W = img.shape[:2]
    h = REACH * d.side_px
    x0, y0 = int(max(0, centre[0] - h)), int(max(0, centre[1] - h))
    x1, y1 = int(min(W, centre[0] + h)), int(min(H, centre[1] + h))
    if x1 - x0 < 16 or y1 - y0 < 16:
        return None
    got = [replace(g, center=(g.center[0] + x0, g.center[1] + y0),
                   pips=None if g.pips is None else tuple((px + x0, py + y0, r) for px, py, r in g.pips))
           for g in read_window(img[y0:y1, x0:x1], (x0, y0)) if g.value is not None]
    return [g for g in got if math.dist(g.center, d.center) < AT * d.side_px]


def _agrees_shifted(img: np.ndarray, d, value: int, read_window) -> bool:
    """Is ``value`` the one value read at ``d`` in each window shifted SHIFT of its side each way
    (with CLOSER_ONE_WINDOW_MAY_MISS: in all but one, which reads no value there)?"""
    s = SHIFT * d.side_px
    missed = 0  # (moved windows reading no value there: CLOSER_ONE_WINDOW_MAY_MISS)
    for dx, dy in ((s, 0.0), (-s, 0.0), (0.0, s), (0.0, -s)):
        here = _read_at(img, d, (d.center[0] + dx, d.center[1] + dy), read_window)
        if here is None:
            return False
        values = [g.value for g in here]
        if values == [value]:
            continue
        if values or not CLOSER_ONE_WINDOW_MAY_MISS:
            return False  # (another value, or more than one, read there)
        missed += 1
    return missed <= 1
