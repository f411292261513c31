"""A one read small beside larger dice, spared when its pip lies at the middle of a whole face
(``dice.WHOLE_ONES_SPARED``, :mod:`companion.vision.dice_whole_one`). Drawn faces test the checks;
development light 3144 rendered is the case that fails with the switch off (its pink one,
132 px across, read at 105 px beside dice read at 183 px: unread with the switch off, a one with it on).
"""

from __future__ import annotations

import cv2
import numpy as np

import companion.vision.dice as dice_mod
from companion.vision.dice import Die
from companion.vision.dice_sizes import doubt_odd_sizes
from companion.vision.dice_whole_one import whole_one_face


def _face(pips, table=205, face=(140, 260)):
    """A light face (``face``: its first and last pixel) on a darker table, dark pips of radius 7."""
    img = np.full((400, 400, 3), table, np.uint8)
    cv2.rectangle(img, (face[0], face[0]), (face[1], face[1]), (245, 245, 245), -1)
    for x, y in pips:
        cv2.circle(img, (x, y), 7, (30, 30, 30), -1, cv2.LINE_AA)
    return cv2.GaussianBlur(img, (0, 0), 1.2)


def _one(x=200.0, y=200.0, side=95.0):
    return Die(1, (x, y), 0.9, side, "", ((x, y, 7.0),))


def _among_large_neighbours(d):
    """``d`` with three neighbours read at 160 px: a one at 95 px is 0.59 of them."""
    return [d, Die(6, (400.0, 200.0), 0.9, 160.0), Die(5, (200.0, 400.0), 0.9, 160.0),
            Die(4, (400.0, 400.0), 0.9, 160.0)]


def test_a_one_at_the_middle_of_a_whole_face_keeps_its_value():
    img = _face([(200, 200)])
    assert whole_one_face(_one(), img, 95 / 160)
    kept = doubt_odd_sizes(_among_large_neighbours(_one()), lambda d, s: whole_one_face(d, img, s))
    assert kept[0].value == 1
    # without the check (the old rule) it is doubted
    assert doubt_odd_sizes(_among_large_neighbours(_one()))[0].value is None


def test_a_one_on_a_face_open_to_a_table_like_it_is_not_spared():
    """A white face on a white table: its colour ends nowhere round the pip, its middle is not known."""
    img = _face([(200, 200)], table=245)
    assert not whole_one_face(_one(), img, 95 / 160)


def test_a_corner_pip_or_a_pip_among_others_is_not_spared():
    img = _face([(165, 165)])  # a pip near the face's corner: off its middle
    assert not whole_one_face(_one(165.0, 165.0), img, 95 / 160)
    img = _face([(170, 170), (200, 200), (230, 230)])  # a three's middle pip, read as a one
    assert not whole_one_face(_one(), img, 95 / 160)


def test_a_small_face_or_a_far_smaller_reading_is_not_spared():
    img = _face([(200, 200)], face=(170, 230))  # a face 60 px across beside dice read at 160
    assert not whole_one_face(_one(), img, 95 / 160)  # (its diagonals span 85 px, under 0.6 x 160)
    img = _face([(200, 200)])
    assert not whole_one_face(_one(), img, 0.3)  # under SPARED_LEAST
    assert not whole_one_face(Die(1, (200.0, 200.0), 0.9, 95.0, "", None), img, 95 / 160)  # no pip given


def test_rendered_light_one_read_small_beside_larger_dice(monkeypatch):
    """Light 3144 (development): a pink (translucent clear) one 132 px across, read at 105 px
    beside dice read at 183 px, made unreadable by the size rule. Fails with the switch off."""
    from tests.dice_raymarch_light import render_light
    from companion.vision.dice_eval import score_scene

    scene = render_light(3144)
    monkeypatch.setattr(dice_mod, "WHOLE_ONES_SPARED", True)
    on = score_scene(scene, dice_mod.read_dice(scene.image)).counts
    monkeypatch.setattr(dice_mod, "WHOLE_ONES_SPARED", False)
    off = score_scene(scene, dice_mod.read_dice(scene.image)).counts
    assert on["right"] == off["right"] + 1
    assert on["wrong"] == off["wrong"] == 0 and on["near_wrong"] == 0 and on["extra"] == off["extra"]
