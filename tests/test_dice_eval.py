"""The dice reader's scoring: the half-die rule and the near-wrong count beside it."""

from __future__ import annotations

import numpy as np

from companion.vision.dice import Die
from companion.vision.dice_eval import score_scene
from companion.vision.dice_render import DieTruth, Scene


def _scene(*dice: DieTruth) -> Scene:
    return Scene(np.zeros((10, 10, 3), np.uint8), list(dice))


def test_a_side_face_read_beside_the_top_face_is_missed_and_extra_but_near_wrong():
    """A tilted die's side face, read 0.7 side off the top face's centre with the side's value."""
    scene = _scene(DieTruth(6, (100.0, 100.0), "white", 40.0))
    score = score_scene(scene, [Die(5, (100.0, 128.0), 0.9)])
    assert (score.counts["right"], score.counts["wrong"], score.counts["missed"], score.counts["extra"]) == (0, 0, 1, 1)
    assert score.counts["near_wrong"] == 1


def test_near_wrong_takes_the_closest_pairs_first_and_ignores_unread_and_far_readings():
    scene = _scene(DieTruth(2, (100.0, 100.0), "white", 40.0), DieTruth(4, (150.0, 100.0), "white", 40.0))
    found = [Die(2, (101.0, 100.0), 0.9),   # die 1, right
             Die(4, (149.0, 100.0), 0.9),   # die 2, right: both dice taken
             Die(3, (125.0, 100.0), 0.9),   # between them, both already taken by closer readings
             Die(None, (100.0, 120.0), 0.0),  # unread: no value to be wrong
             Die(1, (300.0, 100.0), 0.9)]   # far from every die
    score = score_scene(scene, found)
    assert score.counts["right"] == 2 and score.counts["near_wrong"] == 0
    alone = score_scene(scene, [Die(3, (125.0, 100.0), 0.9)])  # 0.625 side from both: near-wrong once
    assert alone.counts["near_wrong"] == 1 and alone.counts["missed"] == 2
