"""A cluster of one colour's touching sheets, explained again as a whole when one of them is weak.

The greedy fitter explains a merged blob of one expedition's colour sheet by sheet: the first
shape taken decides what is left for the rest, and the refits that follow move one sheet at a
time against the others.  Where sheets of one colour overlap, a wrong first shape (a hexagonal
biological unit in the middle of two pointed sheets side by side) leaves the rest as slivers
that no shape explains clearly, so one of the cluster ends up unsure.  Such a cluster (an unsure
sheet and the sheets whose outlines come close enough for their colour to meet its colour) is
explained again from scratch, the rest of the expedition's sheets explained first: every shape the search
finds plausible for the cluster's biggest blob is tried as its first sheet, the rest fitted
greedily after it, and the set whose union explains the cluster's colour best, less a cost per
sheet, replaces the old one only when it explains it clearly better.  The box's own rules are
priors where they are rules: a pointed sheet's point off the shore costs (``FitGrid.off_shore``,
inside ``FitGrid.explained_by``), and a set putting three of one expedition's sheets over one
spot is never taken ("no more than two of your own may overlap at the same spot": placement.py).

Pure numpy/OpenCV on masks; no I/O.
"""

from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

from .sheetgrid import FitGrid
from .sheetgroups import SHEET_COST_MM2, explain_blob, plausible_pose

# Off (session 17): development 1,439 -> 1,442 of 1,492 sheets named right from the measured colour
# (wrong types 4 -> 3), but the never-scored check set 9500-9559 + 9600-9639 931 -> 932 with wrong
# types 6 -> 7 (seed 9637), fitting 1.07x paired; a wrong type is worse than an unnamed sheet
# (docs/board-vision.md, equipment type, tenth round). Tests switch it on to check what it does.
CLUSTERS = False  # see the module's docstring; off: the fitter as before
# the new set must explain the cluster's colour better than the old by this much (mm^2 of
# colour, after each set's cost per sheet): a blurred edge or a pose a pixel off moves a set's
# score by tens of mm^2, a sheet set right explains hundreds
MIN_BETTER_MM2 = 30.0
# (not tuned: set once, before any figure was measured)
MAX_CLUSTER = 4  # sheets in a cluster explained again (more: a pile too big to search afresh)
MAX_FIRSTS = 4  # shapes tried as the cluster's first sheet (explain_blob tries two); the search refines at most three


def _region(grid: FitGrid, shapes, sheets: list[tuple]) -> np.ndarray:
    """The coarse pixels of colour left unexplained under (or touching) the cluster's outlines:
    the colour the cluster's sheets are to explain."""
    k = grid.coarse
    colour = grid._colour_blocks(k)
    m = np.zeros(colour.shape, np.uint8)
    for eq, x, y, ang, *_ in sheets:
        poly = grid._poly(shapes[eq], x, y, ang) / k
        cv2.fillPoly(m, [np.round(poly * 16).astype(np.int32)], 1, shift=4)
    m = cv2.dilate(m, np.ones((3, 3), np.uint8)) > 0
    return m & (colour > 0.25)


def explain_again(grid: FitGrid, shapes, placed: list[tuple], weak: Callable[[int], bool], min_px: float,
                  legal: Callable[[list[tuple]], bool]) -> list[tuple]:
    """``placed`` (type, x, y, angle, refined) with every cluster holding a weak sheet (``weak(i)``)
    explained again where a set of sheets explains its colour clearly better (see the module's
    docstring).  ``legal(sheets)``: do the sheets keep the box's placement rules among themselves."""
    from .sheetfit import _near  # (sheetfit imports this module)

    if not CLUSTERS or not placed:
        return placed
    near = [[j for j in range(len(placed)) if j != i and _near(shapes[placed[i][0]], placed[i][1:4],
                                                               shapes[placed[j][0]], placed[j][1:4])]
            for i in range(len(placed))]
    cost = SHEET_COST_MM2 * grid.ppm ** 2
    replaced: dict = {}  # index in placed -> the sheets taking its place (the group's first only)
    for i in range(len(placed)):
        # a weak sheet and the sheets its colour meets
        group = [i] + near[i]
        if i in replaced or not weak(i) or len(group) > MAX_CLUSTER or replaced.keys() & set(group):
            continue
        rest = [p for j, p in enumerate(placed) if j not in group and j not in replaced]
        rest += [s for new in replaced.values() for s in new]
        grid.reset(rest, shapes)
        old = [placed[j] for j in group]
        region = _region(grid, shapes, old)
        if not region.any():
            continue
        before = grid.save()
        old_score = grid.explained_by(old, shapes, before, region) - cost * len(old)
        new = _explain_region(grid, shapes, region, min_px)
        grid.restore(before)
        if not new or not legal(new):
            continue
        new_score = grid.explained_by(new, shapes, before, region) - cost * len(new)
        if new_score > old_score + MIN_BETTER_MM2 * grid.ppm ** 2:
            for j in group:
                replaced[j] = []
            replaced[i] = new
    if not replaced:
        return placed
    result = []
    for i, p in enumerate(placed):
        result += replaced.get(i, [p])
    return result


def _explain_region(grid: FitGrid, shapes, region: np.ndarray, min_px: float) -> list[tuple]:
    """The cluster's colour explained blob by blob, biggest first, each by the best set of sheets
    whose first is any plausible shape the search finds for it."""
    from .sheetsearch import search

    sheets: list[tuple] = []
    for _ in range(2 * MAX_CLUSTER):
        if len(sheets) >= MAX_CLUSTER + 1:
            break
        blob = grid.largest_blob(within=region)
        if blob is None or blob[1] < min_px:
            break
        spare: dict = {}
        found = search(grid, shapes, blob[0], spare)
        group = [] if found is None else explain_blob(
            grid, shapes, blob, found, min_px, lambda t, fit: plausible_pose(grid, shapes[t], *fit, min_px), spare,
            rivals=MAX_FIRSTS - 1, always=True)
        if not group:
            grid.drop(blob[0])
            continue
        sheets += group
    return sheets
