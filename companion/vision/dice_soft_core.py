"""A defocused die read at its own size, inside the halo its blur spreads round it.

Defocus spreads a die's colour into the table round it: the foreground blob is the die and a halo
(some 1.3-1.7 times the die across), and every look reads the die at the blob's size -- the die
then fills 0.6-0.8 of the crop's die, the face region takes the soft pips in ("no pips"), and the
sharpened look (:mod:`.dice_defocus`) sharpens at the halo's scale too. But a blur is symmetric:
a blurred edge passes half-way from the table's colour to the die's where the sharp edge was. So
the die's own outline is found again as the part of the blob at least half-way (``CORE_SHARE``)
from the table's colour to the die's, and read there, sharpened at two strengths of the pip's
scale (``SHARPEN_SIDES``), a value kept only where both read it alike at one place and only of the
values the sharpened look may read (``dice_defocus.VALUES_READ``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable

import cv2
import numpy as np

from .dice_defocus import AMOUNT, VALUES_READ, agreed, sharpened, window_round

#: the die's edge in its blur: the place half-way from the table's colour to the die's (a
#: Gaussian-blurred step crosses its middle where the step was)
CORE_SHARE = 0.5
#: the die's colour: the median of the blob's pixels beyond this percentile of distance from the
#: table's colour (the die's face and sides; a high one, as the halo is the blob's larger part --
#: chosen, not tuned)
DIE_PERCENTILE = 90
#: the window round the blob reaches this many of the blob's guessed sides past its box (the
#: table's colour is taken from it, outside the blob; chosen, not tuned)
REACH = 0.5
#: Lab distances weigh lightness less, as the face reader's do (shading moves it most)
WEIGHTS = np.array([math.sqrt(0.6), 1.0, 1.0], np.float32)
#: the window is looked at with the blob's guessed die this many pixels across (a coarse mask is
#: enough for the die's outline: the read itself is made at full resolution)
CORE_PX = 40
#: a part of the half-way mask is a die's when at least this share of the blob's guessed die's
#: area (a lone pip, a side face's sliver or the table's speck is smaller; the soft dice gained had
#: cores of 0.4-0.7 of it) ...
CORE_LEAST = 0.25
#: ... and at most this share: a core as large as the blob is no die in a halo, and the looks at
#: the blob's size read it already (both bounds chosen before measuring, not tuned)
CORE_MOST = 0.85
#: the core is read less a rim of these shares of its side, in turn until one reads a value: the
#: read takes the crop's commonest colour for the face, and the core's rim is its shadow's and side
#: faces' as much as its face's (ray 2103's red four: with the rim nothing was read, without, a four)
CORE_ERODES = (0.15, 0.2)
#: a die read in the core is the core's die: read at least this share of the part read's side. The
#: seven development dice gained came out 0.8-1.3 of it; a part of a face read as a die is smaller
#: (a three's two pips: development light 40 mirrored, a sharp pastel pink three on white paper whose
#: core was its shaded sides, read as a two at 0.48 -- a wrong value in the invariance audit). Set
#: between, at a column of a six's share of its die (0.71, as dice_sizes reasons). 0: no bound, the
#: first version
READ_LEAST = 0.7
#: the unsharp mask's strengths: blur sigmas as a share of the part read's side (a pip's radius is
#: about 0.08 of the side). Measured on the 53 development scenes holding the unread soft dice, with
#: one rim share (0.15): 0.08 and 0.12 read 5 more right, 0.06 and 0.10 two, 0.10 and 0.14 three,
#: none wrong (one strength alone, at their true size and place: 0.04 read 16 of the 53 defocused
#: dice right, 0.08 22)
SHARPEN_SIDES = (0.08, 0.12)


def die_cores(window: np.ndarray, blob: np.ndarray, est_full: float) -> tuple[list[np.ndarray], float]:
    """The parts of ``window`` (BGR) at least half-way from the table's colour to the die's, each
    a mask of the window scaled by the returned factor; ``blob`` is the blob's mask in the same
    scaled window's pixels, ``est_full`` its guessed die's side in the window's."""
    s = CORE_PX / max(est_full, 1.0)
    h, w = blob.shape
    small = cv2.resize(window, (w, h), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    round_it = cv2.dilate(blob, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))) == 0
    if round_it.sum() < 20 or not blob.any():
        return [], s
    d = (lab - np.median(lab[round_it], axis=0)) * WEIGHTS
    dist = np.sqrt((d * d).sum(axis=2))
    inside = dist[blob > 0]
    far = (blob > 0) & (dist >= np.percentile(inside, DIE_PERCENTILE))
    die = np.median(d[far], axis=0)  # (the die's colour, less the table's)
    length = float(np.linalg.norm(die))
    if length < 1e-3:
        return [], s
    # (the way from the table's colour to the die's: a grey shadow on a white table is a short way
    # along a red die's, all the way along its dark sides)
    along = (d @ (die / length)).astype(np.float32)
    core = ((along >= CORE_SHARE * length) & (blob > 0)).astype(np.uint8) * 255
    core = cv2.morphologyEx(core, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=8)
    guessed = (CORE_PX * 1.0) ** 2
    parts = [(labels == i).astype(np.uint8) * 255 for i in range(1, n)
             if CORE_LEAST * guessed <= stats[i, cv2.CC_STAT_AREA] <= CORE_MOST * guessed]
    return parts, s


def _eroded(core: np.ndarray, share: float) -> np.ndarray:
    """``core`` less a rim of ``share`` of its side."""
    k = max(3, int(share * math.sqrt(float(cv2.countNonZero(core)))) | 1)
    return cv2.erode(core, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))


def read_soft_cores(img: np.ndarray, box: tuple[float, float, float, float],
                    blob_mask: Callable[[tuple, float], np.ndarray], est_full: float, read_hole: Callable) -> list:
    """The dice read in the die-cores of the blob in ``box`` (x0, y0, x1, y1, full resolution),
    each on sharpened copies of the window at ``SHARPEN_SIDES`` of its side, kept where they agree.
    ``blob_mask(window_box, s)``: the blob's mask on the window scaled by ``s``; ``read_hole(window,
    core, s)``: the dice read in a core mask of the window scaled by ``s`` (the window's pixels)."""
    x0, y0, x1, y1 = window_round(img.shape, box, REACH * est_full)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return []
    window = img[y0:y1, x0:x1]
    s = CORE_PX / max(est_full, 1.0)
    blob = blob_mask((x0, y0, x1, y1), s)
    cores, s = die_cores(window, blob, est_full)
    out = []
    for core in cores:
        for share in CORE_ERODES:
            mask = _eroded(core, share)
            side = math.sqrt(float(cv2.countNonZero(mask))) / s  # (the part read: the pips' scale)
            got = _agreed_read(window, mask, s, side, read_hole) if side > 0 else []
            if got:
                out += got
                break
    return [_moved(d, x0, y0) for d in out]


def _agreed_read(window: np.ndarray, mask: np.ndarray, s: float, side: float, read_hole: Callable) -> list:
    """The dice read alike in ``mask`` on the window sharpened at each of ``SHARPEN_SIDES`` of
    ``side`` (a value of ``VALUES_READ`` only)."""
    readings = []
    for k in SHARPEN_SIDES:
        got = [d for d in read_hole(sharpened(window, k * side, AMOUNT), mask, s) if d.value is not None]
        if not any(d.value in VALUES_READ for d in got):
            return []  # (nothing that could be kept read at one strength: the rest not read)
        readings.append(got)
    return [d for d in agreed(readings) if d.value in VALUES_READ and d.side_px >= READ_LEAST * side]


def _moved(d, x0: int, y0: int):
    """A die read in the window at (x0, y0), in the photo's pixels."""
    return replace(d, center=(d.center[0] + x0, d.center[1] + y0),
                   pips=None if d.pips is None else tuple((px + x0, py + y0, r) for px, py, r in d.pips))
