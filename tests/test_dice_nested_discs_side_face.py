"""The nested discs leave unread a reading doubted as a side face for its top face's pips beyond it
(dice_pips_beyond), where it is still reported at that side face: the discs round it read the side
face's own pips again (``dice_nested_discs.SIDE_FACE_DOUBT_KEPT``; docs/dice-camera.md, forty-first
round, h1). The tests that such a report stays unread fail with the switch's default flipped (the
scripted one) or with it off (the rendered one); the moved-report test passes either way (it tests
the guard does not reach a report moved to its top face).
"""

from __future__ import annotations

from companion.vision import dice_nested_discs as N, dice_pips_beyond
from companion.vision.dice import Die
from tests.dice_flags import counts_off_then_on

READ = Die(4, (100.0, 100.0), 0.9, 100.0)


def _every_disc_reads(value: int, at=(505.0, 298.0)):
    def read_disc(centre, side, disc):
        return [Die(value, at, 0.9, 95.0 * disc)]
    return read_disc


def test_a_report_at_a_side_face_doubted_for_the_pips_beyond_it_is_not_read_again(monkeypatch):
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", True)
    side_face = Die(None, (500.0, 300.0), 0.0, 60.0, reason=dice_pips_beyond.SIDE_FACE_REASON)
    assert N.read_in_nested_discs([READ, side_face], _every_disc_reads(3))[1] == side_face  # (the default)
    monkeypatch.setattr(N, "SIDE_FACE_DOUBT_KEPT", False)  # (off: the side face's value taken)
    assert N.read_in_nested_discs([READ, side_face], _every_disc_reads(3))[1].value == 3


def test_a_report_moved_to_its_top_face_is_still_read_again(monkeypatch):
    """dice_pips_beyond's report moved to the top face its pips show: the discs there are centred on
    the top face (development ray 4376's four, read right)."""
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", True)
    monkeypatch.setattr(N, "SIDE_FACE_DOUBT_KEPT", True)
    moved = Die(None, (500.0, 300.0), 0.0, 60.0, reason=dice_pips_beyond.TOP_FACE_REASON)
    assert moved.reason.startswith(dice_pips_beyond.SIDE_FACE_REASON)
    assert N.read_in_nested_discs([READ, moved], _every_disc_reads(4))[1].value == 4


def test_rendered_side_face_one_of_a_five_stays_unread(monkeypatch):
    """Development light 3148: an ivory five, 77 px in a 3000x2250 photo, tilted 22 degrees, its side
    face a one. With the five's own report lost (dice_one_middle's share bar at 0, dice_pips_beyond's
    move and the reads past side faces and closer held off, as test_dice_one_middle does) the one is
    doubted for the five's pips beyond it and stays where it was read, 0.6-0.8 of a side inward of the
    five. With the switch off the discs read it again as a one in every disc: an extra and a
    near-wrong."""
    from companion.vision import dice, dice_one_middle
    from tests.dice_raymarch_light import render_light

    monkeypatch.setattr(dice_pips_beyond, "TOP_FACE_AT_ITS_PIPS", False)
    monkeypatch.setattr(dice, "TOPS_READ_PAST_SIDE_FACES", False)
    monkeypatch.setattr(dice, "UNREAD_SMALL_READ_CLOSER", False)
    monkeypatch.setattr(dice_one_middle, "TOP_FACE_SHARE_LEAST", 0.0)
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", True)
    off, on = counts_off_then_on(monkeypatch, N, "SIDE_FACE_DOUBT_KEPT", render_light(3148))
    assert off["extra"] == 1 and off["near_wrong"] == 1  # (off: the side face read as a one)
    assert on["extra"] == on["near_wrong"] == on["wrong"] == 0
    assert on["right"] == off["right"] == 6 and on["missed"] == off["missed"] == 1
