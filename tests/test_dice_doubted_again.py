"""A die the size rule doubted, read again at its neighbours' size (``dice.DOUBTED_SIZES_READ_AGAIN``,
:mod:`companion.vision.dice_doubted_again`): a part of a die was read (a three's two pips as a two
at half the die's size) and the size rule made it unreadable; read again in a crop made for a die
the neighbours' size, the whole die reads.
"""

from __future__ import annotations

import cv2

from companion.vision import dice, dice_doubted_again, dice_nested_discs


def test_rendered_three_read_as_a_two_reads_right_again(monkeypatch):
    """Development ray 2092 (a marbled purple three, 127 px, in a 4000 px photo on blue felt): the
    first looks read two of its pips as a two at 69 px beside dice read at 136 px, which the size
    rule doubts; read again at 136 px it is a three (confidence 0.99). Unread with the switch off,
    right with it on, nothing wrong, near-wrong or extra more. Fails with
    ``DOUBTED_SIZES_READ_AGAIN`` off (the test compares off and on)."""
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    # (the nested discs read this three right with the read-again off: held off, this test's subject is the read-again)
    monkeypatch.setattr(dice_nested_discs, "UNREAD_READ_IN_NESTED_DISCS", False)
    off, on = counts_off_then_on(monkeypatch, dice, "DOUBTED_SIZES_READ_AGAIN", render_raymarch(2092))
    assert on["right"] == off["right"] + 1 and on["unread"] == off["unread"] - 1
    assert on["wrong"] == off["wrong"] and on["near_wrong"] == off["near_wrong"] and on["extra"] == off["extra"]


def test_no_one_is_kept_from_a_reading_again(monkeypatch):
    """Development ray 2084 scaled 1.5 (a dark red three, 310 px there, in a 6000 px photo): a two
    read on two of its pips is doubted by the size rule, and read again at its neighbours' size the
    crop reads a **one** at its middle pip (0.67 of the neighbours' read size, confidence over 0.6):
    a wrong value. ``dice_doubted_again.VALUES_KEPT`` keeps no one, and the three stays unread.
    Fails without that rule (the first assert checks the one is read with ones allowed)."""
    import numpy as np

    from tests.dice_raymarch import render_raymarch

    scene = render_raymarch(2084)
    big = cv2.resize(scene.image, None, fx=1.5, fy=1.5, interpolation=cv2.INTER_CUBIC)
    three = next(d for d in scene.dice if d.value == 3 and d.center[1] < 300)
    at = ((three.center[0] + 0.5) * 1.5 - 0.5, (three.center[1] + 0.5) * 1.5 - 0.5)

    def values_there():
        return [d.value for d in dice.read_dice(big)
                if np.hypot(d.center[0] - at[0], d.center[1] - at[1]) < 0.5 * 1.5 * three.side_px]

    monkeypatch.setattr(dice, "DOUBTED_SIZES_READ_AGAIN", True)
    monkeypatch.setattr(dice_doubted_again, "VALUES_KEPT", (1, 2, 3, 4, 5, 6))
    assert 1 in values_there()
    monkeypatch.setattr(dice_doubted_again, "VALUES_KEPT", (2, 3, 4, 5, 6))
    assert 1 not in values_there()
