"""A region of no pips that rings a die: the blob held the die and its shadow, so the crop made
the die some 0.6 of its die and took the table's or the shadow's colour, the commonest in the crop,
for the face colour; that region, a ring round the die, read "no pips", and the die's own face,
small and broken by a marbled die's veins, read nothing. The ring's hole is read again from a crop
of its own at the hole's scale (``dice.RING_HOLES_READ``, ``dice_crop.RING_HOLES_KEPT``).
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision import dice, dice_crop, dice_nested_discs


def test_rendered_marbled_six_in_its_ring_reads_six(monkeypatch):
    """Development ray 1068 (a defocused marbled blue six, light pips, 124 px, on a white table):
    unread ("no pips") with the switch off, read right with it on, nothing wrong, near-wrong or
    extra more. Fails with ``RING_HOLES_READ`` off (the test compares off and on)."""
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    # (with this rule off the ringed-pips look reads the die right as well, dice_ringed_pips: held
    # off, so the test measures this rule alone)
    monkeypatch.setattr(dice, "MARBLED_PIPS_BY_RINGS", False)
    # (and the nested discs read the six right with this rule off: held off too; session 42)
    monkeypatch.setattr(dice_nested_discs, "UNREAD_READ_IN_NESTED_DISCS", False)
    # (the ringed look read again at the read dice's size, dice_ringed_again (session 42), reads this
    # die right with this test's rule off too: held off, the test measures its own rule alone)
    from companion.vision import dice_ringed_again
    monkeypatch.setattr(dice_ringed_again, "UNREAD_RINGED_AT_DICE_SIZE", False)
    off, on = counts_off_then_on(monkeypatch, dice, "RING_HOLES_READ", render_raymarch(1068))
    assert on["right"] == off["right"] + 1 and on["unread"] == off["unread"] - 1
    assert on["wrong"] == off["wrong"] and on["near_wrong"] == off["near_wrong"] and on["extra"] == off["extra"]


def test_a_ring_round_a_square_keeps_its_hole():
    """A drawn crop: a grey ring (the table's colour in the mask) round a dark square with no pips.
    The ring's reading, "no pips", holds the square as its hole (the square's own reading, "no
    pips" too, none). (The ring fills 1.7 times itself: RING_FILLS.)"""
    img = np.full((200, 200, 3), 200, np.uint8)
    cv2.rectangle(img, (60, 60), (140, 140), (90, 40, 120), -1)
    mask = np.zeros((200, 200), np.uint8)
    cv2.circle(mask, (100, 100), 70, 255, -1)
    ring = [r for r in dice_crop.read_crop(img, mask) if r.hole is not None]
    assert len(ring) == 1 and ring[0].reason == "no pips"
    ys, xs = np.nonzero(ring[0].hole)
    assert 55 <= xs.min() <= 65 and 135 <= xs.max() <= 145 and 55 <= ys.min() <= 65


def test_no_hole_kept_with_the_switch_off(monkeypatch):
    """The same crop with ``dice_crop.RING_HOLES_KEPT`` off: no reading holds a hole."""
    monkeypatch.setattr(dice_crop, "RING_HOLES_KEPT", False)
    img = np.full((200, 200, 3), 200, np.uint8)
    cv2.rectangle(img, (60, 60), (140, 140), (90, 40, 120), -1)
    mask = np.zeros((200, 200), np.uint8)
    cv2.circle(mask, (100, 100), 70, 255, -1)
    assert all(r.hole is None for r in dice_crop.read_crop(img, mask))
