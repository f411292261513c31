"""A blob no look read a value in, its pips found by the ring round each, without a face region
(``dice.MARBLED_PIPS_BY_RINGS``, :mod:`companion.vision.dice_ringed_pips`): a marbled die's veins
break its face region, and its pips lie on the pieces' edges.
"""

from __future__ import annotations

from companion.vision import dice


def test_rendered_marbled_four_is_read_by_its_ringed_pips(monkeypatch):
    """Development ray 2082 (a marbled green four, 102 px, black pips, dark veins, on black felt):
    every look gave nothing ("a die-shaped blob, no face read in it"): the lit top face, its darker
    veins and the shaded side faces make no face region holding the four pips. Each pip steps from
    every sector of the ring round it; the four make a four of the die's size with nothing else
    on the face. Unread with the switch off, right with it on, nothing wrong, near-wrong or extra
    more. Fails with ``MARBLED_PIPS_BY_RINGS`` off (the test compares off and on)."""
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    off, on = counts_off_then_on(monkeypatch, dice, "MARBLED_PIPS_BY_RINGS", render_raymarch(2082))
    assert on["right"] == off["right"] + 1 and on["unread"] == off["unread"] - 1
    assert on["wrong"] == off["wrong"] and on["near_wrong"] == off["near_wrong"] and on["extra"] == off["extra"]
