"""Another expedition's colour darkened by a second filter is unseen to the sheet fitter, not
plain paper (sheetfit.OTHER_COLOUR_UNSEEN): where one expedition's sheet lies under another's, the
overlap shows the two filters' product, which coverage's colour match may code as the other
expedition alone; counted as plain paper, it kept the fitter from any shape reaching under it."""

from __future__ import annotations

from tests.coverage_helpers import assert_fitter_rule_names_more, broad_photo_reader


def test_a_sheet_under_another_expeditions_sheet_is_named(box, monkeypatch):
    """Development seed 566 (broadened) as rendered: the British eye witness #9 lies two thirds
    under the Independent sheets (red under green: a dark brown coded green or too dark), and was
    missed, its red rims fitted as cages; with the rule it and one more sheet are named right, with
    no wrong type and no typed extra more, and coverage's decisions (covered and unknown hexes)
    unchanged.  Fails with the switch off (8 right)."""
    from companion.vision import sheetfit

    read = broad_photo_reader(box, 566)  # as rendered
    assert_fitter_rule_names_more(read, monkeypatch, sheetfit, "OTHER_COLOUR_UNSEEN", gain=2, before_most=8)
