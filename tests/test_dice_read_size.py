"""A die-shaped blob that every look read nothing in, refused by the photo's typical blob (each a die
with its shadow on a blurred photo), is judged by the dice read in the photo instead and reported
unreadable where the read dice lie in their blobs (dice.BLOBS_SIZED_BY_READ_DICE); die-shaped blobs'
reports are placed the same way (dice.SHAPED_BLOBS_PLACED_BY_READ_DICE). Drawn blobs for the
rule's parts; rendered ray 2122 and ray 2040 for the missed dice now reported."""

from __future__ import annotations

import numpy as np
import pytest


def _die(value, centre, side):
    from companion.vision.dice import Die

    return Die(value, centre, 0.9 if value else 0.0, side)


def _square_blob(size: int, pad: int = 0) -> np.ndarray:
    m = np.zeros((size + 2 * pad, size + 2 * pad), bool)
    m[pad:pad + size, pad:pad + size] = True
    return m


def test_the_read_dice_offset_in_their_blobs_is_in_their_sides():
    from companion.vision.dice_read_size import die_offsets

    # two blobs 40 work px (scale 0.5: 80 photo px) whose dice, 50 px, lie 10 photo px left of
    # the blob's centre (the shadow to the right)
    blob = _square_blob(40)
    located = [(blob, (100, 100), _die(3, (2 * 120 - 10, 2 * 120), 50.0)),
               (blob, (300, 100), _die(5, (2 * 320 - 10, 2 * 120), 50.0))]
    offs = die_offsets(located, 0.5)
    assert offs == [pytest.approx((-0.2, 0.0), abs=0.03)] * 2


def test_a_refused_blob_of_the_read_dice_size_is_reported_moved_by_their_offset():
    from companion.vision.dice import DIE_SIZE_RANGE, Die
    from companion.vision.dice_read_size import REASON, judged_by_read_dice

    blob = _square_blob(40)
    located = [(blob, (100, 100), _die(3, (230, 240), 50.0)), (blob, (300, 100), _die(5, (630, 240), 50.0))]
    dice = [d for _, _, d in located]
    got = judged_by_read_dice([(55.0, (1000.0, 500.0))], dice, located, 0.5, DIE_SIZE_RANGE, Die)
    assert len(got) == 1 and got[0].value is None and got[0].reason == REASON
    # moved by -0.2 of the die's side (the read dice's 50 px, under the blob's 55) to the left
    assert got[0].center == pytest.approx((990.0, 500.0), abs=1.0)
    assert got[0].side_px == 50.0


def test_a_refused_blob_far_from_the_read_dice_size_or_with_no_die_read_is_not_reported():
    from companion.vision.dice import DIE_SIZE_RANGE, Die
    from companion.vision.dice_read_size import judged_by_read_dice

    blob = _square_blob(40)
    located = [(blob, (100, 100), _die(3, (230, 240), 50.0)), (blob, (300, 100), _die(5, (630, 240), 50.0))]
    dice = [d for _, _, d in located]
    # a shadow or a part of a die (half the read dice), two dice in one blob (twice)
    assert judged_by_read_dice([(25.0, (1000.0, 500.0)), (100.0, (1200.0, 500.0))], dice, located, 0.5,
                               DIE_SIZE_RANGE, Die) == []
    # no die read in the photo: nothing to judge by (the old rule's refusal stands)
    assert judged_by_read_dice([(55.0, (1000.0, 500.0))], [_die(None, (5.0, 5.0), 50.0)], [], 0.5,
                               DIE_SIZE_RANGE, Die) == []


def test_one_blob_of_one_die_read_moves_no_report():
    from companion.vision.dice import DIE_SIZE_RANGE, Die
    from companion.vision.dice_read_size import judged_by_read_dice

    blob = _square_blob(40)
    located = [(blob, (100, 100), _die(3, (230, 240), 50.0))]  # (under OFFSETS_LEAST)
    got = judged_by_read_dice([(50.0, (1000.0, 500.0))], [located[0][2]], located, 0.5, DIE_SIZE_RANGE, Die)
    assert [d.center for d in got] == [(1000.0, 500.0)]


def test_ray_2122s_blurred_white_two_refused_by_the_typical_blob_is_reported(monkeypatch):
    """Fails with dice.BLOBS_SIZED_BY_READ_DICE off: the two is missed (its blob, die and blur,
    0.42 of the typical blob -- a die with its shadow -- is refused)."""
    from companion.vision import dice
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    off, on = counts_off_then_on(monkeypatch, dice, "BLOBS_SIZED_BY_READ_DICE", render_raymarch(2122))
    assert on["missed"] == off["missed"] - 1
    assert on["unread"] == off["unread"] + 1 and on["right"] == off["right"]
    assert on["wrong"] == on["extra"] == on["near_wrong"] == off["wrong"] == off["extra"] == 0


def test_ray_2040s_die_shaped_blob_report_is_moved_onto_its_die(monkeypatch):
    """Fails with dice.SHAPED_BLOBS_PLACED_BY_READ_DICE off: the marbled blue three's report at its blob's
    centre (die and shadow) lies 0.54 sides off its top face, the die scored missed."""
    from companion.vision import dice
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    off, on = counts_off_then_on(monkeypatch, dice, "SHAPED_BLOBS_PLACED_BY_READ_DICE", render_raymarch(2040))
    assert on["missed"] == off["missed"] - 1
    assert on["unread"] == off["unread"] + 1 and on["right"] == off["right"]
    assert on["wrong"] == off["wrong"] and on["extra"] == off["extra"]
