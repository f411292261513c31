"""A face whose two found pips make no layout, completed by its missing pips at a larger layout's
places (``dice_pips.MISSING_PIPS_LOOK``, :mod:`companion.vision.dice_missing_pips`): a marbled die's
veins take pips into them, and two pips of a four are rightly refused as a two.
"""

from __future__ import annotations

from companion.vision import dice_missing_pips, dice_pips


def test_rendered_marbled_four_is_completed_by_its_missing_pips(monkeypatch):
    """Development ray 1040 (a marbled blue four, 102 px, white pips in dark veins, on a white
    table): two pips of its left column are found, one right pip runs into a vein and the other is
    cut off the face region's edge, so the reader gave "2 pips off layout". Completed, the four's
    other two places hold round white spots and its middle is plain. Unread with the switch off,
    right with it on, nothing wrong, near-wrong or extra more. Fails with ``MISSING_PIPS_LOOK`` off
    (the test compares off and on)."""
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    off, on = counts_off_then_on(monkeypatch, dice_pips, "MISSING_PIPS_LOOK", render_raymarch(1040))
    assert on["right"] == off["right"] + 1 and on["unread"] == off["unread"] - 1
    assert on["wrong"] == off["wrong"] and on["near_wrong"] == off["near_wrong"] and on["extra"] == off["extra"]
