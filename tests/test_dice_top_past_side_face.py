"""A side face doubted by its top face's pips beyond it, its top face then read
(``dice.TOPS_READ_PAST_SIDE_FACES``; docs/dice-camera.md, thirty-fifth round, "A side face doubted
by its top face's pips: that top face read (h3)"). The doubt (``dice_pips_beyond``) knows where the
top face is but left the die unread; with the switch on the report is looked round for its top face
as a side face's report is (``dice_top_beside_unread``). Each test reads the scene with the switch
off and on, so it fails with the switch off.
"""

from __future__ import annotations

import math

from tests.dice_flags import counts_off_then_on


def test_an_ivory_four_beyond_its_side_face_is_read(monkeypatch):
    """Development ray 4376: an ivory four (91 px) on white paper, tilted 14 degrees; its shaded side
    face is read, doubted by the four's pips beyond it and reported unread at the top face. Off:
    5 right, 1 unread; on: the four read right, nothing else moved."""
    import companion.vision.dice as dice
    from tests.dice_raymarch import render_raymarch

    scene = render_raymarch(4376)
    off, on = counts_off_then_on(monkeypatch, dice, "TOPS_READ_PAST_SIDE_FACES", scene)
    assert (off["right"], off["unread"]) == (5, 1)
    assert (on["right"], on["unread"]) == (6, 0)
    for k in ("wrong", "missed", "extra", "near_wrong"):
        assert on[k] == off[k] == 0
    monkeypatch.setattr(dice, "TOPS_READ_PAST_SIDE_FACES", True)
    found = dice.read_dice(scene.image)
    four = scene.dice[5]
    near = min(found, key=lambda d: math.dist(d.center, four.center))
    assert four.value == near.value == 4


def test_a_fresh_pools_ivory_four_beyond_its_side_face_is_read(monkeypatch):
    """Ray 20135 (helper s26h2's pool, the scene of test_dice_pips_beyond's first test): an ivory
    four whose shaded side face (one dark pip) was read as a one, doubted by the four's pips beyond
    it. Off: the four unread; on: read right, nothing wrong, near-wrong or extra."""
    import companion.vision.dice as dice
    import companion.vision.dice_nested_discs as dice_nested_discs
    from tests.dice_raymarch import render_raymarch

    # (the nested discs read the one beside the four right, its report 0.34 of a side off it, with
    # the rule off: held off, this test's subject is the four's top face read past its side face)
    monkeypatch.setattr(dice_nested_discs, "UNREAD_READ_IN_NESTED_DISCS", False)
    off, on = counts_off_then_on(monkeypatch, dice, "TOPS_READ_PAST_SIDE_FACES", render_raymarch(20135))
    assert on["right"] == off["right"] + 1 and on["unread"] == off["unread"] - 1
    for k in ("wrong", "missed", "extra", "near_wrong"):
        assert on[k] == off[k] == 0
