"""A hex a named sheet's fitted outline reaches across, with no colour of it seen there, is undecided
for its expedition, not uncovered (coverage_fit_reach.FIT_REACH_UNDECIDED)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from companion.vision import coverage_fit_reach
from companion.vision.coverage import CoverageResult
from companion.vision.sheetfit import FittedSheet
from companion.vision.sheets import LINE_MM, SheetPose
from tests.coverage_helpers import raycast_photo

# a flat-topped hex (20 x 15 mm, as the house board's), its bottom border line's centre at y = 7.5 mm
_HEX = [(-10.0, 0.0), (-5.0, -7.5), (5.0, -7.5), (10.0, 0.0), (5.0, 7.5), (-5.0, 7.5)]
_SQUARE = [(-20.0, -16.0), (20.0, -16.0), (20.0, 16.0), (-20.0, 16.0)]


def _drawn(reach_mm: float, equipment: str = "eye_witness", identified: bool = True, covered: bool = False):
    """A one-hex board and a 40 x 32 mm sheet of that shape below the hex whose top edge comes
    ``reach_mm`` past the hex's bottom border line's outer edge (y = 7.5 + LINE_MM / 2)."""
    box = SimpleNamespace(loch=SimpleNamespace(hexes=[SimpleNamespace(address="A1a", polygon=_HEX)]),
                          equipment={equipment: SimpleNamespace(shape=_SQUARE)})
    top = 7.5 + LINE_MM / 2 - reach_mm
    fit = FittedSheet(SheetPose("british", equipment, 0.0, top + 16.0, 0.0), 0.9, 1000.0, identified=identified)
    cov = CoverageResult({"british": ["A1a"] if covered else []}, {"british": []}, [], [], {}, None, {}, None, 0.0)
    return box, cov, {"british": [fit]}


def test_a_hex_a_named_fit_reaches_across_is_undecided_not_uncovered():
    """Reaching 1.0 mm past the line's outer edge: undecided.  Not at 0.3 mm (under REACH_MM), not
    for a cage, nor an unidentified fit; a covered hex stays covered (and is not made undecided)."""
    box, cov, sheets = _drawn(1.0)
    assert coverage_fit_reach.undecided_under_fits(box, cov, sheets).unknown["british"] == ["A1a"]
    for kw in ({"reach_mm": 0.3}, {"reach_mm": 1.0, "equipment": "cage"}, {"reach_mm": 1.0, "identified": False}):
        box, cov, sheets = _drawn(**kw)
        assert coverage_fit_reach.undecided_under_fits(box, cov, sheets).unknown["british"] == [], kw
    box, cov, sheets = _drawn(3.0, covered=True)
    got = coverage_fit_reach.undecided_under_fits(box, cov, sheets)
    assert got.covered["british"] == ["A1a"] and got.unknown["british"] == []


def test_development_25_the_tips_at_the_shore_are_undecided(box, monkeypatch):
    """Second generator, development photo 25 (daylight): four hexes a sheet's tip or edge reaches
    0.6-1.5 mm across (three Japanese, one British, all on the shore row) read uncovered without the
    rule; with it they are undecided.  Covered hexes and the sheets are the same, and every hex the
    rule makes undecided is truly covered (or too close to call)."""
    from companion.vision.adjudicate import adjudicate
    from companion.vision.evaluate import score_coverage
    from tests import board_raycast as rc

    photo, scene = raycast_photo(box, 25)
    truth = rc.truth_of(box, scene)

    def read():
        adj = adjudicate(photo, box)
        return adj, score_coverage(box, truth, adj.coverage.covered, adj.coverage.unknown)

    now, s_now = read()  # as the code stands
    monkeypatch.setattr(coverage_fit_reach, "FIT_REACH_UNDECIDED", False)
    off, s_off = read()
    assert s_off.false_uncovered >= 4
    assert s_now.false_uncovered == s_off.false_uncovered - 4
    assert s_now.false_covered == s_off.false_covered
    assert now.coverage.covered == off.coverage.covered
    assert all(set(off.coverage.unknown[e]) <= set(now.coverage.unknown[e]) for e in off.coverage.unknown)
    moved = {(e, a) for e in now.coverage.unknown for a in set(now.coverage.unknown[e]) - set(off.coverage.unknown[e])}
    assert all(truth["coverage"].get(e, {}).get(a, {"covered": False})["covered"]
               or truth["coverage"].get(e, {}).get(a, {"close": False})["close"] for e, a in moved), moved
    assert ([f.to_json() for fs in now.sheets.values() for f in fs]
            == [f.to_json() for fs in off.sheets.values() for f in fs])
