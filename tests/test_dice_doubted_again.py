"""A die the size rule doubted, read again at its neighbours' size (``dice.DOUBTED_SIZES_READ_AGAIN``,
:mod:`companion.vision.dice_doubted_again`): a part of a die was read (a three's two pips as a two
at half the die's size) and the size rule made it unreadable; read again in a crop made for a die
the neighbours' size, the whole die reads.
"""

from __future__ import annotations

from companion.vision import dice, dice_doubted_again


def test_rendered_three_read_as_a_two_reads_right_again(monkeypatch):
    """Development ray 2092 (a marbled purple three, 127 px, in a 4000 px photo on blue felt): the
    first looks read two of its pips as a two at 69 px beside dice read at 136 px, which the size
    rule doubts; read again at 136 px it is a three (confidence 0.99). Unread with the switch off,
    right with it on, nothing wrong, near-wrong or extra more. Fails with
    ``DOUBTED_SIZES_READ_AGAIN`` off (the test compares off and on)."""
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    off, on = counts_off_then_on(monkeypatch, dice, "DOUBTED_SIZES_READ_AGAIN", render_raymarch(2092))
    assert on["right"] == off["right"] + 1 and on["unread"] == off["unread"] - 1
    assert on["wrong"] == off["wrong"] and on["near_wrong"] == off["near_wrong"] and on["extra"] == off["extra"]


def test_rendered_one_read_small_reads_right_by_its_pip(monkeypatch):
    """Development ray 2113 (an ivory one, 54 px, motion-blurred, beside dice of 71-74 px read at
    78): its face region reads a one at 46 px (0.59 of its neighbours: doubted); read again at the
    neighbours' size the same pip reads a one at the same size, which only
    ``dice_doubted_again.ONES_BY_THEIR_PIP`` keeps. Fails with that switch off (compares off and on)."""
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    monkeypatch.setattr(dice, "DOUBTED_SIZES_READ_AGAIN", True)
    off, on = counts_off_then_on(monkeypatch, dice_doubted_again, "ONES_BY_THEIR_PIP", render_raymarch(2113))
    assert on["right"] == off["right"] + 1 and on["unread"] == off["unread"] - 1
    assert on["wrong"] == off["wrong"] and on["near_wrong"] == off["near_wrong"] and on["extra"] == off["extra"]
