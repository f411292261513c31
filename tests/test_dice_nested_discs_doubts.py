"""The nested discs leave unread a report an earlier doubt made of a reading whose *face* it doubted
(a side face in shade, a part of a larger face): the discs round such a face read its own pips again
(``dice_nested_discs.OTHER_FACE_DOUBTS_KEPT``; docs/dice-camera.md, fortieth round, h1). Each test
that a report stays unread fails with the guard off; the rendered one also with the guard's default
flipped.
"""

from __future__ import annotations

import math

import pytest

from companion.vision import dice_face_runs_on, dice_nested_discs as N, dice_shaded_face
from companion.vision.dice import Die, read_dice
from tests.dice_flags import counts_off_then_on

READ = Die(4, (100.0, 100.0), 0.9, 100.0)
SHADED = "a light face 89 darker than the light round it: a side face in shade?"


def _every_disc_reads(value: int, at=(505.0, 298.0)):
    def read_disc(centre, side, disc):
        return [Die(value, at, 0.9, 95.0 * disc)]
    return read_disc


@pytest.mark.parametrize("reason", [SHADED, dice_face_runs_on.DOUBT])
def test_a_report_doubted_as_another_face_is_not_read_again(monkeypatch, reason):
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", True)
    doubted = Die(None, (500.0, 300.0), 0.0, 60.0, reason=reason)
    monkeypatch.setattr(N, "OTHER_FACE_DOUBTS_KEPT", True)
    assert N.read_in_nested_discs([READ, doubted], _every_disc_reads(3))[1] == doubted
    monkeypatch.setattr(N, "OTHER_FACE_DOUBTS_KEPT", False)  # (the guard off: read as a three)
    assert N.read_in_nested_discs([READ, doubted], _every_disc_reads(3))[1].value == 3


def test_a_report_doubted_for_its_value_is_still_read_again(monkeypatch):
    """A doubt about the marks round a face's pips (what the discs answer) is no face doubt."""
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", True)
    monkeypatch.setattr(N, "OTHER_FACE_DOUBTS_KEPT", True)
    doubted = Die(None, (500.0, 300.0), 0.0, 60.0, reason="a lone pip with other marks beside it")
    assert N.read_in_nested_discs([READ, doubted], _every_disc_reads(3))[1].value == 3


def test_the_doubts_named_are_the_ones_their_modules_give():
    """The guard matches the reasons as dice_shaded_face and dice_face_runs_on write them."""
    assert N.other_face_doubted(Die(None, (0.0, 0.0), 0.0, 50.0, reason=dice_face_runs_on.DOUBT))
    assert SHADED.endswith(dice_shaded_face.DOUBT_END)
    assert N.other_face_doubted(Die(None, (0.0, 0.0), 0.0, 50.0, reason=SHADED))
    assert not N.other_face_doubted(Die(None, (0.0, 0.0), 0.0, 50.0, reason="no pips"))


def test_rendered_side_face_in_shade_stays_unread(monkeypatch):
    """Pool light 6198: a defocused translucent two on white paper, its lower pip read as a one (a
    part of its face: dice_face_runs_on) and its side face in shade, 0.75 of a side off the die, read
    as a three and doubted ("a light face 89 darker than the light round it"). Every nested disc round
    that side face reads a three (0.94): with the guard off, an extra and a near-wrong."""
    from tests.dice_raymarch_light import render_light

    scene = render_light(6198)
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", True)
    off, on = counts_off_then_on(monkeypatch, N, "OTHER_FACE_DOUBTS_KEPT", scene)
    assert off["extra"] == 1 and off["near_wrong"] == 1  # (the guard off: the side face read as a three)
    assert on["extra"] == on["near_wrong"] == on["wrong"] == 0
    assert on["right"] == off["right"] == 2 and on["unread"] == off["unread"] == 1
    # (the guard at its default, the discs on: the side face's report stays unread)
    monkeypatch.undo()
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", True)
    found = read_dice(scene.image)
    two = next(t for t in scene.dice if t.value == 2)
    side_face = [d for d in found if 0.5 * two.side_px < math.dist(d.center, two.center) < two.side_px]
    assert side_face and all(d.value is None for d in side_face)
