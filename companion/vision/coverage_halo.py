"""A phone's sharpening halo, measured on the board's own printed lines, kept out of the added light
the sheet fitter's veil is read from.

An unsharp mask (every phone sharpens) brightens the paper beside each dark edge: a printed line,
a sheet's edge.  lighting.added_light reads white light added on top of the lamp's as the uncovered
paper's rise per 8 mm cell, so a cell of paper left beside a sheet -- all of it near an edge -- reads
as light added, spread 16 mm under the sheets; over a dark overlap (a stack of one expedition's
sheets, passing a few per cent in its dim channels) a rise of a few per cent is a veil, grown as a
glare spot's fade, and the sheet fitter loses the whole sheet round it.

The printed hex lines are the same dark edge all over the board, printed the same everywhere, so the
photo itself shows its halo: the plain paper's brightness (mean log-transmission of the three
channels, the lighting divided out) against its distance from the nearest printed line.  As rendered
(no sharpening) the paper beside a line reads a little darker than the paper away from it (the
lens's blur); through the first phone of tests/phone_pipeline 0.04-0.07 log brighter at 1-1.5 mm,
falling to the far paper's level by 2.5-4 mm (development 578: +0.068 at 1-1.5 mm, +0.054 at
1.5-2, +0.035 at 2-2.5, +0.018 at 2.5-3, +0.006 at 3-3.5 mm; a wide mask's halo peaks at 1.5-2 mm,
the lens's blur darkening the line's rim: 530, 607).  Where the photo shows such a halo (HALO_MIN_LOG),
the fitter's added light is measured again on the plain paper further than the halo's measured reach
from anything dark (a printed line, a sheet's colour, misfit), and the lesser of that and the added
light as before is what the fitter's veil is read from -- the veil it keeps over overlaps too -- over
the photo's own noise floor as before: the rule only ever takes light away (a floor read on the
halo-free cells, less noisy, put more veil on second-phone photos: development 576, three sheets
lost).  Coverage's own decisions keep the veil as before.
"""

from __future__ import annotations

import cv2
import numpy as np

from .lighting import added_light

# On: the fitter's veil is read from the added light measured away from the photo's own sharpening
# halo, when the printed lines show one (see the module's doc).  Coverage's hex decisions untouched.
# OFF as committed (session 39, s39h3): development 500-619 through the first phone 1,045 -> 1,053
# of 1,136 right, the second 1,063 -> 1,065, as rendered identical, coverage identical on every
# photo; but wrong types +1 on each phone (612) and a typed extra on the first (601), and on the
# second generator's development 0-39 (uncalibrated) 235 -> 241 right with wrong types 5 -> 6 and
# typed extras 9 -> 14 (cages named on scraps the lifted veil shows: 18, 29, 36).
# docs/board-vision.md, thirty-second round, h3.
LINE_HALO_FOR_FITTER = False
HALO_MIN_LOG = 0.02  # the paper beside the lines brighter than the far paper by this: a halo
HALO_TOL_LOG = 0.01  # ... its reach: where the excess falls under this (a third of lighting's VEIL_MIN)
FAR_MM = 4.0  # paper this far from every printed line is clear of any halo measured (reach <= 3.5)
BINS_MM = (1.0, 1.5, 2.0, 2.5, 3.0, 3.5, FAR_MM)  # distance bins from the nearest line (paper starts ~1 mm out)
MIN_PX = 500  # pixels a bin must hold to be read


def _line_distance(lay) -> np.ndarray:
    """Each pixel's distance (mm) from the nearest printed line (cached on the layout)."""
    got = getattr(lay, "_line_distance", None)
    if got is None:
        got = cv2.distanceTransform((~lay.printed).view(np.uint8), cv2.DIST_L2, 5) * np.float32(1.0 / lay.ppm)
        lay._line_distance = got
    return got


def line_halo(L: np.ndarray, plain: np.ndarray, lay) -> tuple[float, float] | None:
    """(excess, reach_mm): how much brighter (log) the plain paper beside a printed line reads than
    the paper FAR_MM and more from every line (the most of the bins of BINS_MM), and the distance by
    which the excess has fallen under HALO_TOL_LOG past that bin.  None: too little paper to tell."""
    dist = _line_distance(lay)
    st = 2  # every other pixel each way: medians need no more
    d = dist[::st, ::st]
    p = plain[::st, ::st]
    m = L[::st, ::st].mean(axis=2)
    far = p & (d >= FAR_MM)
    if np.count_nonzero(far) < MIN_PX:
        return None
    level = float(np.median(m[far]))
    excess = []
    for lo, hi in zip(BINS_MM[:-1], BINS_MM[1:]):
        sel = p & (d >= lo) & (d < hi)
        if np.count_nonzero(sel) < MIN_PX:
            return None
        excess.append(float(np.median(m[sel])) - level)
    top = int(np.argmax(excess))  # (a wide unsharp mask's halo peaks off the line: the lens blurs the line's rim)
    reach = FAR_MM
    for lo, e in zip(BINS_MM[top:-1], excess[top:]):
        if e < HALO_TOL_LOG:
            reach = lo
            break
    return excess[top], reach


def halo_free_added(L: np.ndarray, plain: np.ndarray, lay, ppm: float, spread: list | None = None):
    """The added light (lighting.added_light) measured on the plain paper beyond the photo's own
    halo's reach from anything dark, or None when the printed lines show no halo (the photo was not
    sharpened, or too little paper to tell).  ``plain``: the uncovered paper, nothing else on it;
    ``L``: the log-transmission as added_light takes it (the photo as taken); ``spread``: as
    added_light's, for the cells measured here."""
    got = line_halo(L, plain, lay)
    if got is None or got[0] < HALO_MIN_LOG:
        return None
    k = 2 * int(round(got[1] * ppm)) + 1
    inner = cv2.erode(plain.view(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0
    return added_light(L, inner, ppm, spread=spread)
