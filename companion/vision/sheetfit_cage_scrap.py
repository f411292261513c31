"""A fitted cage that is the seen scrap of a bigger sheet whose rest lies under another film
(sheetfit.CAGE_SCRAP_LEADER).

A sheet under or over another expedition's sheet shows the fitter only the part of its colour
outside the overlap: coverage leaves the overlap (the two filters' product) unseen when it cannot
read it as a colour or a known pair.  Where the part outside is hex-sized, a cage explains it as
well as the sheet does (the sheet's rest is unseen, which earns nothing and costs little): a tie,
confidence 0, the cage unidentified and the true sheet missed.  Session 40 sorted the 0-159
development sheets of the second generator not named right: of the 64 whose colour the fitter was
shown (at least 0.3 of the sheet's own part) and that it missed, 30 had only a cage fitted inside
them, 12 of those an unsure one (development 0, 15, 33, 66, 68, 91, 102).

``sheetfit.EVIDENCE_LEADER`` names the refined shape leading on evidence when the fit lies inside
it; it is held off for cages because a cage-sized scrap lies inside some bigger shape wherever it
is, and where the scrap's rest is lost to glare the bigger shape's place is a guess (session 28:
the first renderer's 612, a scrap by glare named an eye witness 74 mm off).  The physical test
that tells the two apart: two filters over one another pass the product of their transmissions, so
a film's part hidden under (or over) another film is *darker* in the photo than the film alone;
glare that hides a film is brighter.  So a cage fit may give way to its evidence leader when the
leader's unseen part reads darker than the cage's own colour by at least ``STACK_DARKER_LOG`` and
lies beside *another expedition's* colour (at least ``BESIDE_SHARE`` of a band round it): a
sheet's part under one of its own expedition's films is darker too, but there the fitter reads the
two layers of one colour (sheetlayers.py) and a bigger shape's place among the stack is a guess.
And the leader must lead every other bigger shape the search refined by at least
``sheetfit.MIN_SHEET_MM2`` of evidence (the least colour the fitter takes for a sheet at all): a
scrap whose rest is unseen tells one bigger shape from another only by the colour round it, and a
lead smaller than a sheet's worth is a sliver (development 95: the eye witness led the surface
camera by 31 mm^2 in a pile of five films, and was named on the true sonar, a wrong type; 116:
29 mm^2, an unidentified sheet instead of a missed one).
"""

from __future__ import annotations

import cv2
import numpy as np

from .sheetlayers import _LOG8

# Every filter takes at least 0.55 log of grey (the lightest, Japanese yellow); a film under
# another is darker than that film alone by the other's grey loss: half the lightest's, so a
# second film shows however its dark channels clip (sheetfit.OTHER_DARKER_LOG's reasoning and value)
STACK_DARKER_LOG = 0.28
# the leader's unseen part must be at least this big (mm^2) to be read at all: a band the width of
# a printed line round the cage (the pose's own blur) is not a hidden part of a sheet
MIN_HIDDEN_MM2 = 40.0
# the band round the leader's unseen part (mm) ...
BAND_MM = 2.0
# ... at least this share of it another expedition's colour: the other film continues past the
# overlap (its seen part borders the overlap along about half its edge, the rest this film's own
# colour); a quarter, for the other film's edges blurred or lost under glare.  The only value
# tried; the nine development cages it let through read 0.29-0.58 (0: 0.29), 95's pile 0.39
BESIDE_SHARE = 0.25
# a photo pixel at or under this (0..255, every channel) is off the photo (the warp's border) or
# clipped black: no reading
BLACK = 4


def _mask(grid, shape, pose):
    wgt, win = grid._weights(shape, *pose)
    if wgt is None:
        return None, None
    return wgt > 127.0, win


def _grey(photo, ys, xs):
    """Mean log colour against the drawn board's (as sheetfit._grey), and which pixels are read."""
    at = ys * photo.warped.shape[1] + xs
    px = np.take(photo.warped.reshape(-1, 3), at, axis=0)
    L = _LOG8[px] - np.take(photo.log_reference.reshape(-1, 3), at, axis=0)
    return (L[:, 0] + L[:, 1] + L[:, 2]) / np.float32(3), px.max(1) > BLACK


def leads_bigger(grid, shapes, refined, lead: str, cage: str, min_px: float) -> bool:
    """Does the leader's evidence lead every other refined shape but the cage by ``min_px``?"""
    mine = grid.evidence(shapes[lead], *refined[lead][1])
    rivals = [grid.evidence(shapes[t], *pose) for t, (_g, pose) in refined.items() if t not in (lead, cage)]
    return not rivals or mine - max(rivals) >= min_px


def cage_scrap(grid, cage_shape, cage_pose, leader_shape, leader_pose, photo, r0: int, c0: int,
               other=None) -> bool:
    """Is a fitted cage the seen scrap of its evidence leader, whose unseen part lies under
    another film (darker than the cage's colour by ``STACK_DARKER_LOG``)?  ``photo``: the
    fitter's PhotoColour (sheetlayers), on the fine grid the fitter's grid is a cut of at
    (``r0``, ``c0``); ``other``: the other expeditions' colour (shares, 0..1) on the fitter's grid."""
    if photo is None or other is None:
        return False
    inside, win = _mask(grid, leader_shape, leader_pose)
    cage, cwin = _mask(grid, cage_shape, cage_pose)
    if inside is None or cage is None:
        return False
    # the leader's unseen part (neither colour nor paper to this expedition), outside the cage
    hidden = inside & (grid.S[win] < 0.5)
    H = np.zeros(grid.S.shape, bool)
    H[win] = hidden
    H[cwin] &= ~cage
    own = np.zeros(grid.S.shape, bool)
    own[cwin] = cage & (grid.C[cwin] > 0.99)
    h, w = photo.warped.shape[:2]
    got = []
    for m in (H, own):
        ys, xs = np.nonzero(m)
        ys, xs = ys + r0, xs + c0
        ok = (ys < h) & (xs < w)
        g, read = _grey(photo, ys[ok], xs[ok])
        got.append(g[read])
    hidden_g, own_g = got
    if len(hidden_g) < MIN_HIDDEN_MM2 * grid.ppm ** 2 or not len(own_g):
        return False
    if not float(np.median(hidden_g)) < float(np.median(own_g)) - STACK_DARKER_LOG:
        return False
    k = 2 * int(round(BAND_MM * grid.ppm)) + 1
    other = other[:H.shape[0], :H.shape[1]]
    # the band round the unseen part, where it is seen (paper, this colour or another's)
    band = (cv2.dilate(H.view(np.uint8), np.ones((k, k), np.uint8)) > 0) & ~H & (grid.S + other > 0.5)
    n = int(band.sum())
    return n > 0 and float(other[band].sum()) >= BESIDE_SHARE * n
