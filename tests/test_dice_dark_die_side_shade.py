"""A dark die's top face and its side face deep in shade, both read as dice: the side face is
dropped although it keeps less than SHADE_RATIO_LEAST of the top face's lightness
(companion/vision/dice_side_shade.py, DARK_DIE_SIDE_DEEP_IN_SHADE). Faces drawn by hand as in
test_dice_side_shade, and the development scene that showed it (ray 4313)."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision import dice_side_shade
from companion.vision.dice import Die
from companion.vision.dice_side_shade import drop_side_faces


def _picture(top_bgr, lower_bgr):
    """A 100 px face at (100..200, 60..160) with a light one pip, and a second face below it
    (160..240) with a light two, squeezed, on a dark felt."""
    img = np.full((300, 300, 3), 25, np.uint8)
    cv2.rectangle(img, (100, 60), (200, 160), top_bgr, -1)
    cv2.rectangle(img, (100, 160), (200, 240), lower_bgr, -1)
    cv2.circle(img, (150, 110), 12, (235, 235, 235), -1)
    for x in (125, 175):
        cv2.ellipse(img, (x, 200), (9, 5), 0, 0, 360, (200, 200, 200), -1)
    return img


def _readings():
    # (read 0.8 of a side apart: closer than two dice lying on a table can be)
    return [Die(1, (150.0, 110.0), 0.9, 100.0, pips=((150.0, 110.0, 12.0),)),
            Die(2, (150.0, 190.0), 0.9, 100.0, pips=((125.0, 200.0, 7.0), (175.0, 200.0, 7.0)))]


def _lightness(bgr) -> float:
    return float(cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2LAB)[0, 0, 0])


# a black die's top face lit by the lamp's gloss, and its side face in deep shade (ray 4313: Lab L
# 80 and 10)
DARK_TOP, DARK_SIDE = (72, 72, 72), (6, 6, 6)


def test_the_drawn_faces_are_those_of_the_case():
    top, side = _lightness(DARK_TOP), _lightness(DARK_SIDE)
    assert top < dice_side_shade.DARK_DIE_TOP
    assert side < dice_side_shade.SHADE_RATIO_LEAST * top and top - side >= dice_side_shade.SHADE_GAP


def test_a_dark_dies_side_face_deep_in_shade_is_dropped_by_default():
    """With the switch at its default (True) the side face's two is dropped, the top face's one
    stands. (Fails with the default False: both are kept.)"""
    assert [d.value for d in drop_side_faces(_readings(), _picture(DARK_TOP, DARK_SIDE))] == [1]


def test_with_the_switch_off_the_shade_ratio_bound_keeps_both(monkeypatch):
    monkeypatch.setattr(dice_side_shade, "DARK_DIE_SIDE_DEEP_IN_SHADE", False)
    assert [d.value for d in drop_side_faces(_readings(), _picture(DARK_TOP, DARK_SIDE))] == [1, 2]


def test_a_black_face_beside_a_white_one_is_still_two_dice():
    """The bound's own case: the lighter face is a light die's (over DARK_DIE_TOP), so a face under
    SHADE_RATIO_LEAST of it is another, black die, whatever the switch says."""
    img = _picture((235, 235, 235), DARK_SIDE)
    assert [d.value for d in drop_side_faces(_readings(), img)] == [1, 2]


def test_ray_4313_a_black_dies_side_face_read_as_a_one_beside_its_three(monkeypatch):
    """Dev scene ray 4313 (a phone photo tilted 24 degrees, black felt): a black die with white pips,
    its three read right and its side face in shade (Lab L 10 against the top face's 80, 0.86 of a
    side apart) read as a one: an extra die. With the switch on the one is dropped, nothing else
    read otherwise."""
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    before, after = counts_off_then_on(monkeypatch, dice_side_shade, "DARK_DIE_SIDE_DEEP_IN_SHADE", render_raymarch(4313))
    assert before["extra"] == 1 and after["extra"] == 0
    assert after["right"] == before["right"] and after["wrong"] == before["wrong"] == 0
    assert after["unread"] == before["unread"] and after["missed"] == before["missed"]


def test_a_dark_dies_top_face_lit_by_a_flash_still_counts_as_a_dark_die():
    """Light 3815 (a black-red die under a flash): its top face Lab L 136, its side face 24, read as
    a six beside its five. A top face that light is still under DARK_DIE_TOP: the side face is
    dropped. (Fails with DARK_DIE_TOP at 128, the first bound tried.)"""
    top, side = (126, 126, 126), (20, 20, 20)
    assert 128 < _lightness(top) < 150 and _lightness(side) < 0.3 * _lightness(top)  # (the case measured)
    assert [d.value for d in drop_side_faces(_readings(), _picture(top, side))] == [1]
