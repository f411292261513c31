"""A one, two or three read on a part of a larger face: the face runs on past the reading, with no
edge, to a pip like its own (dice_face_runs_on, ``dice.PARTS_OF_FACES_RUN_ON``; docs/dice-camera.md,
twenty-seventh round, "Wrong values: light dice on a light table (h1)"). Scenes of the earlier
fresh pools (light 6000-6199), read with the switch off -- a wrong value within half a side of the
die -- and on -- no wrong value: that die unreadable, nothing else changed. Each test fails with the
switch off (it checks both).
"""

from __future__ import annotations

import pytest


def _counts(monkeypatch, scene, on):
    import companion.vision.dice as dice
    from companion.vision.dice_eval import score_scene

    monkeypatch.setattr(dice, "PARTS_OF_FACES_RUN_ON", on)
    return score_scene(scene, dice.read_dice(scene.image)).counts


@pytest.mark.parametrize("seed", [
    6198,  # a translucent clear two on white paper, defocused: its lower pip read as a one (99 px, die 179)
    6008,  # a pastel pink four on white paper, defocused: its upper two pips read as a two (44 px, die 66)
])
def test_a_part_of_a_face_that_runs_on_is_doubted(monkeypatch, seed):
    from tests.dice_raymarch_light import render_light

    scene = render_light(seed)
    off = _counts(monkeypatch, scene, False)
    assert off["wrong"] == 1  # (the part's value, switch off)
    on = _counts(monkeypatch, scene, True)
    assert on["wrong"] == on["near_wrong"] == on["extra"] == 0
    assert on["right"] == off["right"]
    assert on["unread"] == off["unread"] + 1
