"""A cage fitted on a scrap of colour that runs on under another film is not named
(sheetfit.CAGE_BESIDE_OVERLAP_UNNAMED).

A cage is the one sheet small enough to be explained by a hex-sized scrap of any bigger sheet.  The
fitter names a small fit only where it shows its edge (``sheetfit._named``: plain paper seen in a
band round it), and passes a fit whose band it does not see at all ("no band seen: no veto").  Where
a sheet lies half under (or over) another expedition's film, coverage leaves the overlap -- the two
filters' product -- unseen, and the sheet's own colour shows only where it sticks out: a corner or a
tip, hex-sized.  The search explains that scrap with a cage; with no bigger shape refined for it the
cage has no rival and is named with a high confidence (development 13 of the second generator,
daylight: an Independent eye witness lying over a British surface camera, its two top corners fitted
as two named cages -- two typed extras).

The physical test: two filters over one another pass the product of their transmissions, so a
film's colour that runs on under (or over) another film reads *darker* in the photo than the film
alone; paper, glare or a neighbouring hex's printed line do not.  So a named cage whose band (just
past its outline, into the neighbouring hexes) is largely unseen to the fitter *and* darker than
the cage's own colour by ``STACK_DARKER_LOG`` does not show where it ends: its colour may be the
visible part of a bigger sheet.  It is reported unidentified (a sheet is there, its type unsure):
the fits and coverage are untouched.
"""

from __future__ import annotations

import cv2
import numpy as np

from .sheetfit_cage_scrap import STACK_DARKER_LOG, _grey  # noqa: F401  (the stack's darkness, as there)
from .sheetgrid import _fill

# the band round the cage's outline: from just outside the blurred edge (0.5 mm, the pose's own
# blur, as sheetgrid.EDGE_BAND_MM) to 3 mm out -- past the printed hex line round the cage's hex
# into the neighbouring hexes, where a bigger sheet's colour would continue
BAND_MM = (0.5, 3.0)
# at least this share of the band unseen to the fitter and darker than the cage's own colour by
# STACK_DARKER_LOG: the colour runs on under another film along that much of the cage's edge.  Set
# after seeing cases (session 41): the typed extras it takes read 0.37-0.50 (the second generator's
# 13 and 29, the first renderer's 512 and 521), the 85 right named cages read 0.18 at most (531
# through the first phone); typed extras at 0.19-0.29 are left (35, 520, 521); the only value tried
DARK_BESIDE_SHARE = 0.3
# a fit's grid pixel is unseen to it when under half of it is seen (as sheetfit_cage_scrap)
UNSEEN = 0.5


def cage_runs_under(grid, shape, pose, photo, r0: int, c0: int) -> bool:
    """Is a fitted cage's band (``BAND_MM``) at least ``DARK_BESIDE_SHARE`` unseen and darker than
    the cage's own colour by ``STACK_DARKER_LOG``?  ``photo``: the fitter's PhotoColour (sheetlayers),
    on the fine grid the fitter's grid is a cut of at (``r0``, ``c0``); None: no reading, False."""
    if photo is None:
        return False
    H, W = grid.S.shape
    poly = np.asarray(grid._poly(shape, *pose), float)
    pad = int(np.ceil(BAND_MM[1] * grid.ppm)) + 2
    lo = np.maximum(np.floor(poly.min(0)).astype(int) - pad, 0)
    hi = np.minimum(np.ceil(poly.max(0)).astype(int) + pad, [W, H])
    if (hi <= lo).any():
        return False
    win = (slice(lo[1], hi[1]), slice(lo[0], hi[0]))
    m = _fill(poly - lo, (hi[1] - lo[1], hi[0] - lo[0])) > 0
    k0, k1 = (int(round(r * grid.ppm)) * 2 + 1 for r in BAND_MM)
    mu = m.view(np.uint8)
    band = (cv2.dilate(mu, np.ones((k1, k1), np.uint8)) > 0) & ~(cv2.dilate(mu, np.ones((k0, k0), np.uint8)) > 0)
    n = int(band.sum())
    if not n:
        return False
    S, C = grid.S[win], grid.C[win]
    h, w = photo.warped.shape[:2]

    def grey(mask):
        ys, xs = np.nonzero(mask)
        ys, xs = ys + lo[1] + r0, xs + lo[0] + c0
        ok = (ys < h) & (xs < w)
        g, read = _grey(photo, ys[ok], xs[ok])
        return g[read]
    own = grey(m & (C > 0.99))
    if not len(own):
        return False
    dark = grey(band & (S < UNSEEN)) < float(np.median(own)) - STACK_DARKER_LOG
    return int(dark.sum()) >= DARK_BESIDE_SHARE * n
