"""A side face read as the die, its top face's pips beyond it (dice_pips_beyond,
``SIDE_FACES_BY_PIPS_BEYOND``; docs/dice-camera.md, twenty-fifth round, "Wrong values on a fresh
pool (h2)"). Scenes of helper s26h2's fresh development pool (ray 20000-20149), read with the
switch off -- the side face's value, 0.75 sides inward of the top face: a near-wrong extra -- and
on -- that reading unreadable, nothing wrong, near-wrong or extra. Each test fails with the switch
off (it checks both).
"""

from __future__ import annotations

import pytest


def _counts(monkeypatch, scene, on):
    import companion.vision.dice as dice
    from companion.vision.dice_eval import score_scene

    monkeypatch.setattr(dice, "SIDE_FACES_BY_PIPS_BEYOND", on)
    return score_scene(scene, dice.read_dice(scene.image)).counts


@pytest.mark.parametrize("seed, right", [
    (20135, 2),  # an ivory four, its shaded side face (one dark pip) read as a one: dark pips beyond
    (20077, 5),  # a dark red three, its side face read as a one: the top face's white pips beyond
])
def test_side_face_with_top_pips_beyond_is_unread(monkeypatch, seed, right):
    from tests.dice_raymarch import render_raymarch

    scene = render_raymarch(seed)
    off = _counts(monkeypatch, scene, False)
    assert off["near_wrong"] == 1 and off["extra"] == 1  # (the side face's value, switch off)
    on = _counts(monkeypatch, scene, True)
    assert on["wrong"] == on["near_wrong"] == on["extra"] == 0
    assert on["right"] == right == off["right"]


@pytest.mark.parametrize("seed, wide", [
    (5100, False),  # a translucent red five on dark wood: the wood's grain beyond it
    (6068, True),  # a dark red six on red-brown wood, a touching neighbour beside it
])
def test_a_tables_grain_beyond_a_die_is_no_top_face(monkeypatch, seed, wide):
    """The first renderer's dice on wood (``dice_render``, development seeds): an elongated mark on
    a surface of another hue than the die's face is a table's grain, not a top face's pip
    (``dice_pips_beyond.ROUND_OR_SAME_HUE_MARKS``, session 33). With the switch off the die's right
    reading is made unreadable (the test fails); on, it is kept, and the ray-marched side faces
    above are still caught (the tests above run with it on)."""
    import companion.vision.dice_pips_beyond as beyond
    from companion.vision.dice_render import render_scene

    scene = render_scene(seed, wide=wide)
    monkeypatch.setattr(beyond, "ROUND_OR_SAME_HUE_MARKS", False)
    off = _counts(monkeypatch, scene, True)
    monkeypatch.setattr(beyond, "ROUND_OR_SAME_HUE_MARKS", True)
    on = _counts(monkeypatch, scene, True)
    assert on["right"] == off["right"] + 1
    assert on["wrong"] == on["near_wrong"] == on["extra"] == 0
