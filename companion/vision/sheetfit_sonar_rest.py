"""A fit nested in a sonar whose rest the photo does not refute is not named
(sheetfit.SONAR_REST_UNNAMED).

Session 41 sorted the harmful errors of the second generator's development photos: every wrong
type (5 of 5 on 0-40) was a true sonar named as a smaller shape lying inside it (a surface camera,
an eye witness), named with confidence 0.40-0.75 and no veto near.  The sonar's rest -- its outline
outside the fitted shape -- lay under another expedition's film or under glare: unseen to the
fitter, or seen as another colour, which the fitter counts as paper.  A sonar there earns nothing
for that rest and pays for it; the smaller shape pays nothing; so the smaller shape leads on
evidence and is named, though the photo shows nothing that says the sheet ends at its outline.

The physical test: a sheet ends where plain paper shows, and a sonar is there if its colour is.
Over the rest of the best sonar that contains the fit (the fit's area inside it at least
``sheetfit.NESTED_SHARE``), count
- this expedition's colour that no fit explains (the fitter's ``U``): colour the fit leaves and
  the sonar explains;
- the pixels that say no sheet of this expedition lies there: plain paper (the fitter's paper at
  its full cost -- not the blurred edge beside the colour, not the washed-out halo round glare, as
  ``FitGrid.plain_paper`` reads it) -- but not another expedition's colour that reads *darker than
  that colour alone beside the sonar* (within ``ALONE_MM``) by ``STACK_DARKER_LOG``: two filters
  pass the product of their transmissions, so another film lying over (or under) this sheet is
  darker there than where it lies on paper, and the fitter counts such a pixel as paper when the
  colour match names only the other film.
When that colour exceeds the refuting paper by at least ``sheetfit.MIN_SHEET_MM2`` (a sheet's
worth: the least colour the fitter takes for a sheet at all), the sonar is as well supported as the
fit -- it explains a sheet's worth more of the colour the fit leaves than the photo shows paper
against it -- and the fit is reported unidentified (a sheet there, its type unsure).  Unseen pixels
(glare, an overlap the colour match cannot read) count neither way.  The fits and coverage are
untouched, so the switch's effect is exactly a named fit becoming unnamed.  No constant of its own
but ``ALONE_MM``; the comparison and its margin were chosen after seeing the cases (without the
margin, colour merely more than paper, the first renderer's first phone lost two right sheets more,
at leads of 3-5 mm^2: docs/board-vision.md, thirty-fifth round, h4).
"""

from __future__ import annotations

import cv2
import numpy as np

from .sheetfit_cage_scrap import STACK_DARKER_LOG, _grey, _mask
from .sheetgrid import UNCOLOURED_COST
from .sheets import place
from .sheetsearch import refine

# the fitted shapes it reads: the pointed shapes smaller than a sonar (a sonar's point and sides
# hold each of them) -- a cage is the cage rules' (sheetfit_cage_scrap, sheetfit_cage_beside), a
# biological unit is not pointed (its place is not tied to the shore as a sonar's is)
NESTED_TYPES = ("surface_camera", "eye_witness", "underwater_camera")
# another colour's pixels "alone" are read within this distance (mm) outside the sonar: the other
# film where it lies on paper beside the overlap (past the printed line round the sonar's hexes,
# about a hex's half-width; the only value tried)
ALONE_MM = 6.0
# a sonar of this expedition already fitted covering this share of the sonar read is that sonar: the
# fit lies on it (a second sheet, two layers of one colour), not inside an unfitted one
FITTED_SHARE = 0.5
# a fine-grid pixel is another colour's when at least this share of it is (as sheetfit_cage_beside's UNSEEN)
OTHER = 0.5


def _photo_grey(photo, m: np.ndarray, r0: int, c0: int) -> np.ndarray:
    ys, xs = np.nonzero(m)
    ys, xs = ys + r0, xs + c0
    h, w = photo.warped.shape[:2]
    ok = (ys < h) & (xs < w)
    g, read = _grey(photo, ys[ok], xs[ok])
    out = np.full(len(ys), np.nan, np.float32)
    idx = np.flatnonzero(ok)[read]
    out[idx] = g[read]
    return out


def _full(grid, shape, pose):
    m, win = _mask(grid, shape, pose)
    if m is None:
        return None
    out = np.zeros(grid.S.shape, bool)
    out[win] = m
    return out


def rest_figures(grid, fit_shape, fit_pose, sonar_shape, sonar_pose, photo, r0: int, c0: int, other) -> dict | None:
    """The sonar's rest outside the fit: its area, its plain paper and the part of that paper that
    is another colour darker than that colour alone (pixels of the fine grid)."""
    G = _full(grid, sonar_shape, sonar_pose)
    F = _full(grid, fit_shape, fit_pose)
    if G is None or F is None or not F.any():
        return None
    nested = float((G & F).sum()) / float(F.sum())
    R = G & ~F
    n = int(R.sum())
    plain = np.maximum(grid.P - grid.B, 0.0) / (UNCOLOURED_COST - 1.0)  # paper at full cost, as plain_paper
    plain_px = float(plain[R].sum())
    stacked_px = 0.0
    if photo is not None and other is not None:
        oth = np.zeros(R.shape, bool)
        h, w = min(R.shape[0], other.shape[0]), min(R.shape[1], other.shape[1])
        oth[:h, :w] = other[:h, :w] >= OTHER
        k = 2 * int(round(ALONE_MM * grid.ppm)) + 1
        near = (cv2.dilate(G.view(np.uint8), np.ones((k, k), np.uint8)) > 0) & ~G
        alone = near & oth & (grid.S > 0.5)
        ga = _photo_grey(photo, alone, r0, c0)
        ga = ga[np.isfinite(ga)]
        cand = R & oth & (plain > 0)
        if len(ga) and cand.any():
            level = float(np.median(ga))
            g = _photo_grey(photo, cand, r0, c0)
            dark = np.zeros(R.shape, bool)
            ys, xs = np.nonzero(cand)
            d = np.isfinite(g) & (g < level - STACK_DARKER_LOG)
            dark[ys[d], xs[d]] = True
            stacked_px = float(plain[dark].sum())
    return {"nested": nested, "rest_px": n, "plain_px": plain_px, "stacked_px": stacked_px,
            "unseen_px": float((grid.S[R] < 0.5).sum()), "own_px": float(grid.U[R].sum()),
            "refuted_share": (plain_px - stacked_px) / max(n, 1),
            "support_px": float(grid.U[R].sum()) - (plain_px - stacked_px)}


def _fitted_there(shape, pose, fitted) -> bool:
    """Does a sonar already fitted (``fitted``: poses) cover at least ``FITTED_SHARE`` of a sonar at ``pose``?"""
    mine = place(shape, *pose).astype(np.float32)
    area = cv2.contourArea(mine)
    return any(cv2.intersectConvexConvex(mine, place(shape, *q).astype(np.float32))[0] >= FITTED_SHARE * area
               for q in fitted)


def best_rest(grid, shapes, refined, eq, pose, photo, r0: int, c0: int, other, nested_share: float,
              sonar: str = "sonar", fitted=(), min_px: float | None = None) -> dict | None:
    """The figures (``rest_figures``) of the best supported sonar holding a fitted shape (``eq`` at
    ``pose`` (x, y, angle)): the most of this colour left unexplained in its rest, less its refuting
    paper; or None.  The sonar's poses tried: the search's refined one, and one refined from the
    fit's own pose (the point on the shore both share) -- not one a sonar of this expedition already
    fitted covers (``fitted``: the fit lies on that sonar, a second sheet; the colour its pose leaves
    are slivers).  ``other``: the other expeditions' colour, or a function giving it (asked only when
    the darker-than-alone part could decide: with ``min_px``, when the colour leads the plain paper
    by under ``min_px`` but is ``min_px`` or more)."""
    if eq not in NESTED_TYPES or sonar not in shapes:
        return None
    s = shapes[sonar]
    poses = []
    if sonar in refined:
        poses.append(tuple(refined[sonar][1]))
    poses.append(tuple(refine(grid, s, *pose)[:3]))
    poses = [p for p in poses if not _fitted_there(s, p, fitted)]

    def figures(oth):
        best = None
        for p in poses:
            f = rest_figures(grid, shapes[eq], pose, s, p, photo, r0, c0, oth)
            if f is None or f["nested"] < nested_share:
                continue
            f["pose"] = [round(float(v), 2) for v in p]
            if best is None or f["support_px"] > best["support_px"]:
                best = f
        return best
    if not callable(other):
        return figures(other)
    best = figures(None)  # plain paper all refuting: the darker-than-alone part can only add support
    if best is None or min_px is None or best["support_px"] >= min_px or best["own_px"] < min_px:
        return best
    return figures(other())


def sonar_unrefuted(grid, shapes, refined, eq, pose, photo, r0: int, c0: int, other, nested_share: float,
                    min_px: float, fitted=()) -> bool:
    """Is a fitted shape nested in a sonar whose rest holds more of this colour that no fit explains
    than plain paper (other films darker than alone aside), by at least ``min_px``?"""
    best = best_rest(grid, shapes, refined, eq, pose, photo, r0, c0, other, nested_share, fitted=fitted, min_px=min_px)
    return best is not None and best["support_px"] >= min_px
