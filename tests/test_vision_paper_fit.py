"""A fit that shows plain paper over much of its seen outline and leads no other shape clearly is
not named (sheetfit.PAPER_FIT_CHECK): a sheet never shows plain paper, so neither shape is the sheet."""

from __future__ import annotations


def test_a_fit_showing_paper_with_no_clear_lead_is_not_named(box, monkeypatch):
    """Development seed 566 (broadened) as rendered: the Independent biological unit, its colour
    largely lost inside its outline, was fitted as an underwater camera (colour over 0.69 of its seen
    outline, confidence 0.43): a wrong type.  With the check it is unidentified instead; every sheet
    named right stays right, coverage's decisions unchanged.  Fails without the rule (switch off:
    one wrong type)."""
    from companion.vision import sheetfit
    from tests.coverage_helpers import assert_no_coverage_change, broad_photo_reader, read_on_and_off

    read = broad_photo_reader(box, 566)  # as rendered
    (now, cov_now), (before, cov_before) = read_on_and_off(read, monkeypatch, sheetfit, "PAPER_FIT_CHECK")

    assert before.wrong == 1  # what the rule is for
    assert now.wrong == 0 and now.unidentified == before.unidentified + 1
    assert now.right == before.right and now.extra_named <= before.extra_named
    assert_no_coverage_change(cov_now, cov_before)
