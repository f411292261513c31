"""A second layer of one expedition's colour judged pure against the photo's own one layer
(sheetlayers.PHOTO_AXIS): a cage lying on a sheet of its own expedition shows only as a darker
hexagon, the two filters' product; in a photo whose one layer sits a little off the colour's
axis, that second layer sat twice as far off it and was never read, so no cage was fitted."""

from __future__ import annotations

from tests.coverage_helpers import assert_fitter_rule_names_more, broad_photo_reader


def test_a_cage_on_its_own_expeditions_sheet_is_named(box, monkeypatch):
    """Development seed 549 (broadened) as rendered: the American cage #2 lies on an American
    sheet, its second layer 0.20 log off the colour's axis (past MAX_OFF_AXIS 0.12); with the rule
    it is named right (12 -> 13 right), with no wrong type and no typed extra more, and coverage's
    decisions (covered and unknown hexes) unchanged.  Fails with the switch off (12 right)."""
    from companion.vision import sheetlayers

    read = broad_photo_reader(box, 549)  # as rendered
    assert_fitter_rule_names_more(read, monkeypatch, sheetlayers, "PHOTO_AXIS", gain=1, before_most=12)
