"""One blob of colour, several ways to explain it: keep the set of sheets that explains it best.

The greedy fitter takes the best single shape for a blob first.  Where sheets of one colour
merge, a shape that none of them is can explain more of their union than any one of them does (a
hexagonal biological unit inside two pointed sheets side by side, a sonar from the far shore over
a camera and an eye witness from the near one), and what it leaves is then fitted with scraps or
not at all.  So when another shape explains the blob nearly as well, each is tried as the blob's
first sheet, the rest of the blob is fitted greedily after it, and the set whose union explains
the blob best (``FitGrid.explained_by``: colour explained once, paper shown paid for once), less
a cost for every sheet it needs, is kept.  A blob its best shape explains well is that shape.
Switched off (``GROUPS``): see there why.

Pure numpy/OpenCV on masks; no I/O.
"""

from __future__ import annotations

from typing import Callable

from .sheetgrid import UNCOLOURED_COST, FitGrid, _area
from .sheetsearch import refine, search

# On since the land round the loch is measured (sheetland.py): with it, bench_sheets' 1,228 sheets
# gave 1,167 named right against 1,158 off, wrong types 11 against 19 and extra typed sheets 7
# against 14; the development set +2 of 1,492 and never-scored seeds 9300-9439 +4 of 843, for
# 1.13x the fitting time.  A wrong type misleads the table; a few ms more does not.  (Before the
# land was measured it named only 4-5 more of 1,230 and stayed off.)
GROUPS = True
RIVAL_SHARE = 0.5  # a shape whose gain comes to this share of the best one's is tried first too ...
MAX_RIVALS = 1  # ... the best this many of them
MAX_SPARE = 1  # shapes the search did not refine, refined for the try (best coarse match first)
# every sheet of a set must be worth this much colour: of two sets explaining a blob equally, the
# one with fewer sheets (a sheet more could always mop up a blurred edge); a little over the
# smallest sheet worth keeping (sheetfit.MIN_SHEET_MM2), well under a cage's 116 mm^2
SHEET_COST_MM2 = 60.0
# A blob's colour left without a plausible sheet is searched once more with the coarse template
# match paying the fine grid's full cost for paper shown (``sheetgrid.UNCOLOURED_COST``) before
# it is given up.  The coarse grid's mild cost lets a shape win there by covering more of a
# scrap's colour while spilling over paper, and its refinement then shows too much paper to be
# plausible; the scrap's own sheet, whose outline shows none, was never refined (session 33: a
# sheet half under its own expedition's other sheet, its rest left as a scrap, was missed so).
# Off: development +2 right, check -1, the lead's held-out photos no right more and 4 untyped
# extras more, for 3.9 % of the fitting CPU (docs/board-vision.md, twenty-sixth round)
STRICT_RETRY = False
# ... trying only shapes at least this many times the scrap's colour: the scrap is the seen part of
# a sheet mostly hidden.  Chosen after seeing development: with every shape larger than the scrap
# (1x) the retry put untyped phantom cages on scraps of 40-110 mm^2 (8 on the missed sheets'
# photos) and cost 532's first-phone sonar its name
STRICT_SCRAP_SHARE = 2.0
# the best shape explaining this share of its blob's colour is taken as a sheet alone (on the dev
# seeds a blob's best set differed from its best shape alone only where that explained at most
# 0.93 of it, two thirds of the blobs lie above 0.9; 0.8 named as many sheets right as 0.9)
WELL_EXPLAINED = 0.8
MAX_GROUP = 5  # sheets fitted to one blob in one try (one expedition rarely piles more in one place)
MIN_PURITY = 0.8  # share of a fitted sheet's visible outline that must show the colour


def plausible_pose(grid: FitGrid, shape, gain: float, pose: tuple, min_px: float) -> bool:
    """Does a fitted pose explain enough new colour, with little plain paper showing inside it?"""
    good, paper = grid.plain_paper(shape, *pose)
    return gain >= min_px and good >= MIN_PURITY * (good + paper)


def explain_blob(grid: FitGrid, shapes, blob, found, min_px: float,
                 plausible: Callable[[str, tuple], bool], spare: dict | None = None,
                 rivals: int = MAX_RIVALS, always: bool = False) -> list[tuple]:
    """Sheets (type, x, y, angle, refined rivals) explaining one blob, marked explained on the grid.

    ``blob``: ``FitGrid.largest_blob``'s answer; ``found``: ``search``'s over it; ``spare``: the
    search's leading shapes it did not refine (tried too when the best shape explains the blob
    poorly); ``plausible(type, (gain, pose))``: does a refined pose explain enough new colour
    without showing paper.  Returns [] when no shape is plausible (the caller gives the blob up).
    ``rivals``: other shapes tried as the first sheet; ``always``: every plausible shape is a rival
    however far its gain falls short of the best one's, and a blob its best shape explains well
    is searched as well (sheetclusters.py, explaining a cluster again).
    """
    refined = dict(found[0])
    ranked = [t for t in sorted(refined, key=lambda t: -refined[t][0]) if plausible(t, refined[t])]
    if not ranked:
        return []
    region = blob[2]
    # the best shape explaining most of its blob (what it explains less paper shown): a sheet alone
    if not always and (not GROUPS or grid.explained_by([_sheet(ranked[0], refined)], shapes, (grid.U,), region)
                       >= WELL_EXPLAINED * blob[1]):
        return _apply(grid, shapes, [_sheet(ranked[0], refined)])
    before = grid.save()
    # otherwise the blob holds more than one sheet, or the shape is none of them (it fits inside
    # their union, or spans them showing paper): the other shapes the search found, refined or
    # not yet, are tried as its first sheet too
    bar = refined[ranked[0]][0] * (0.0 if always else RIVAL_SHARE)
    firsts = [ranked[0]] + [t for t in ranked[1:] if refined[t][0] >= bar]
    for t, start in list((spare or {}).items())[:max(MAX_SPARE, rivals if always else 0)]:
        x, y, ang, gain = refine(grid, shapes[t], *start)
        refined[t] = (gain, (x, y, ang))
        if plausible(t, refined[t]) and gain >= bar:
            firsts.append(t)
    firsts = firsts[:1] + sorted(firsts[1:], key=lambda t: -refined[t][0])[:rivals]
    cost = SHEET_COST_MM2 * grid.ppm ** 2
    best = None
    for t in firsts:
        group = [_sheet(t, refined)]
        grid.explain(shapes[t], *refined[t][1])
        if best is not None:
            # the most the rest of the blob could add: all the colour the first sheet leaves in
            # it, for one sheet more; a first sheet that cannot win so is not followed up
            first = grid.explained_by(group, shapes, before, region) - cost
            if first + max(grid.colour_within(region) - cost, 0.0) <= best[0]:
                grid.restore(before)
                continue
        # (a patch worth less than a sheet cannot raise a set's score: the greedy fitter takes
        # such patches up afterwards, on their own)
        group += _rest_of_blob(grid, shapes, region, max(min_px, cost))
        sheets = [g for g in group if g[0] is not None]
        score = grid.explained_by(sheets, shapes, before, region) - cost * len(sheets)
        if best is None or score > best[0]:
            best = (score, group)
        grid.restore(before)
    return _apply(grid, shapes, best[1])


def strict_search(grid: FitGrid, shapes, blob):
    """``search`` over a blob given up, for ``STRICT_RETRY``: the coarse match paying the full cost
    for paper, every shape refined, but only the shapes at least ``STRICT_SCRAP_SHARE`` times the
    blob's colour (a shape that fits inside it was matched fairly the first time: the mild cost
    distorts only the shapes that must spill past the scrap, a sheet the scrap is the seen part of;
    a small one there is a phantom).  None: no such shape."""
    bigger = {t: s for t, s in shapes.items() if _area(s) * grid.ppm ** 2 > STRICT_SCRAP_SHARE * blob[1]}
    if not bigger:
        return None
    return search(grid, bigger, blob[0], paper_cost=UNCOLOURED_COST, every_shape=True)


def _plausible_best(grid: FitGrid, shapes, found, min_px: float):
    """(type, refined) of a search's best plausible shape, or (None, None)."""
    if found is None:
        return None, None
    refined = found[0]
    eq = next((t for t in sorted(refined, key=lambda t: -refined[t][0])
               if plausible_pose(grid, shapes[t], *refined[t], min_px)), None)
    return eq, refined


def _sheet(t: str, refined) -> tuple:
    x, y, ang = refined[t][1]
    return t, x, y, ang, refined


def _apply(grid: FitGrid, shapes, group: list[tuple]) -> list[tuple]:
    """Mark the group's sheets explained (and the patches it gave up dropped); its sheets."""
    for g in group:
        if g[0] is None:
            grid.drop(g[1])
        else:
            grid.explain(shapes[g[0]], *g[1:4])
    return [g for g in group if g[0] is not None]


def _rest_of_blob(grid: FitGrid, shapes, region, min_px: float) -> list[tuple]:
    """Greedy fitting of what one blob's first sheet leaves (its pixels on the coarse grid:
    ``region``): sheets as (type, x, y, angle, refined), patches given up as (None, bbox)."""
    out: list[tuple] = []
    for _ in range(4 * MAX_GROUP):
        if sum(g[0] is not None for g in out) >= MAX_GROUP - 1:
            break
        blob = grid.largest_blob(within=region)
        if blob is None or blob[1] < min_px:
            break
        found = search(grid, shapes, blob[0])
        eq, refined = _plausible_best(grid, shapes, found, min_px)
        if eq is None and STRICT_RETRY:
            eq, refined = _plausible_best(grid, shapes, strict_search(grid, shapes, blob), min_px)
        if eq is None:
            grid.drop(blob[0])
            out.append((None, blob[0]))
            continue
        grid.explain(shapes[eq], *refined[eq][1])
        out.append(_sheet(eq, refined))
    return out
