"""A hex a fitted sheet's outline reaches across is not called uncovered for that sheet's expedition.

Coverage decides a hex from the colour seen on it and on its border lines (coverage_lines.py); a
hex with no colour of an expedition on it, its lines or just outside is "uncovered" for it.  But a
sheet is a rigid, known shape: where its fitted outline (sheetfit) lies across a hex's border line
while no colour of it shows there, the film is still there -- only too thin to show colour.  On the
second generator's development photos 0-51 (session 42, h5) 19 of the 26 uncovered-when-covered
decisions were such hexes, a sheet reaching 0.6-1.6 mm past the border line's outer edge: the tip of a
pointed sheet (eye witness, underwater camera) ending on a line hub -- often at the shore, where no
paper lies beyond -- or a straight edge lying along the line itself.  The colour match needs a patch
of plain paper a sheet's width across, and a tip narrower than that shows none; on the line the
colour is carried only from paper beside it (coverage_lines: bridged or crossed), which such a tip
does not have.  (Three more were pale films the colour match named nothing, their fitted outline
2.5-4.2 mm into the hex.)

The fitted pose is good to a millimetre or so, not to the colour's own pixel, so the hex is made
**undecided** for that expedition, never covered: absence of colour is no evidence there, and the
sheet's own colour elsewhere placed it.  Coverage's covered hexes are untouched (no covered-when-not
can come of it); a hex already covered or undecided is left as it is.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .sheets import LINE_MM, outline, reaches

# The switch: hexes a named sheet's fitted outline reaches across, with no colour of it seen there,
# are undecided for its expedition, not uncovered (see the module's docstring).  False: coverage's
# decisions exactly as before this rule.
FIT_REACH_UNDECIDED = True
# How far past the hex's border line's outer edge the fitted outline must reach (mm): the target's own
# too-close margin (sheets.CLOSE_MM, 0.5 mm), under which a decision is not counted at all.  On the
# development photos (0-51) the fits of the missed hexes reached 0.59-4.2 mm; named non-cage fits that
# reached 0.0-0.42 mm into hexes truly uncovered (5, 31, 35, 50) stay decided.  Set after seeing those.
REACH_MM = 0.5
# Cages are left out: a cage is smaller than a hex (14 x 11 mm against 20 x 15) and lies inside one,
# its edges along that hex's own border lines, so a fit a millimetre off lies across a neighbour's line
# (development 4 and 8: two named cages reached 1.06 and 1.09 mm into truly uncovered neighbours); and
# cages are the fits most often named on a scrap (session 41's typed extras).
SKIP_EQUIPMENT = ("cage",)


def undecided_under_fits(box, coverage, sheets: dict):
    """``coverage`` (coverage.CoverageResult) with, per expedition, every hex that a named fit of it
    (``sheets``: expedition -> FittedSheet list) reaches REACH_MM past the border line's outer edge,
    and which coverage decided uncovered, moved to its undecided list.  Returns ``coverage`` itself
    when nothing moves, or when FIT_REACH_UNDECIDED is off."""
    if not FIT_REACH_UNDECIDED:
        return coverage
    half = LINE_MM / 2
    hexes = [(h.address, np.asarray(h.polygon, float)) for h in box.loch.hexes]
    moved: dict[str, set[str]] = {}
    for e, fits in sheets.items():
        decided = set(coverage.covered.get(e, [])) | set(coverage.unknown.get(e, []))
        for f in fits:
            if not f.identified or f.pose.equipment in SKIP_EQUIPMENT:
                continue
            poly = outline(box, f.pose)
            lo, hi = poly.min(0) - half, poly.max(0) + half
            for a, hp in hexes:
                if a in decided or a in moved.get(e, ()):
                    continue
                if (hp[:, 0].max() < lo[0] or hp[:, 0].min() > hi[0]
                        or hp[:, 1].max() < lo[1] or hp[:, 1].min() > hi[1]):
                    continue
                if reaches(poly, hp, half - REACH_MM):
                    moved.setdefault(e, set()).add(a)
    if not moved:
        return coverage
    unknown = dict(coverage.unknown)
    for e, add in moved.items():
        now = set(unknown.get(e, [])) | add
        unknown[e] = [a for a, _ in hexes if a in now]
    return dataclasses.replace(coverage, unknown=unknown)
