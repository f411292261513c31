"""A fit that shows plain paper over much of its seen outline and leads no other shape clearly is
not named (sheetfit.PAPER_FIT_CHECK): a sheet never shows plain paper, so neither shape is the sheet."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fit_reach_held_off(monkeypatch):
    # (coverage_fit_reach.FIT_REACH_UNDECIDED, session 42, makes a hex undecided where a named fit
    # reaches across its line with no colour seen there: its decisions follow the fits, which this
    # file's rule moves, so it is held off -- these tests compare coverage with their own rule off and
    # on; assertions unchanged)
    from companion.vision import coverage_fit_reach
    monkeypatch.setattr(coverage_fit_reach, "FIT_REACH_UNDECIDED", False)


def test_a_fit_showing_paper_with_no_clear_lead_is_not_named(box, monkeypatch):
    """Development seed 566 (broadened) as rendered: the Independent biological unit, its colour
    largely lost inside its outline, was fitted as an underwater camera (colour over 0.69 of its seen
    outline, confidence 0.43): a wrong type.  With the check it is unidentified instead; every sheet
    named right stays right, coverage's decisions unchanged.  Fails without the rule (switch off:
    one wrong type)."""
    from companion.vision import sheetfit
    from tests.coverage_helpers import assert_rule_unnames_one_wrong_type

    assert_rule_unnames_one_wrong_type(box, monkeypatch, 566, sheetfit, "PAPER_FIT_CHECK")
