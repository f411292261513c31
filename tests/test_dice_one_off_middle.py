"""A one read from a corner pip of a two or three whose other pips were lost: the pip is off its
face's middle (dice_one_middle.off_its_face_middle, ``dice_pips.ONES_OFF_THEIR_FACES_MIDDLE_DOUBTED``;
docs/dice-camera.md, twenty-sixth round, "Wrong values: parts of a top face (h1)"). Scenes of helper
s26h2's fresh pool (light 6000-6099), read with the switch off -- the one, a wrong value within half
a side of the die -- and on -- no wrong value, the die read right by a later look. Each test fails
with the switch off (it checks both).
"""

from __future__ import annotations

import pytest


def _counts(monkeypatch, scene, on):
    import companion.vision.dice as dice
    import companion.vision.dice_pips as dice_pips
    from companion.vision.dice_eval import score_scene

    monkeypatch.setattr(dice_pips, "ONES_OFF_THEIR_FACES_MIDDLE_DOUBTED", on)
    return score_scene(scene, dice.read_dice(scene.image)).counts


@pytest.mark.parametrize("seed", [
    6091,  # a pastel pink three on white paper, defocused: its corner pip read as a one (108 px)
    6034,  # a white two: one pip read as a one in a region of the die and its shadow (272 px)
])
def test_one_off_its_face_middle_is_doubted(monkeypatch, seed):
    from tests.dice_raymarch_light import render_light

    scene = render_light(seed)
    off = _counts(monkeypatch, scene, False)
    assert off["wrong"] == 1  # (the corner pip's one, switch off)
    on = _counts(monkeypatch, scene, True)
    assert on["wrong"] == on["near_wrong"] == on["extra"] == 0
    assert on["right"] == off["right"] + 1
