"""A two or three read far smaller than its neighbours keeps its value when the photo shows a whole
face (companion/vision/dice_small_whole.py); a part of a larger die read small stays doubted.
Faces drawn by hand: a light die's face (100 px, centre 200, 200) lighter than the table round it,
dark pips at quarter-side steps from its centre. And development light 3255 rendered: two threes
read right at 0.63-0.66 of their neighbours' read size."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import companion.vision.dice as dice_mod
from companion.vision.dice import Die
from companion.vision.dice_sizes import doubt_odd_sizes
import companion.vision.dice_small_whole as small_whole
from companion.vision.dice_small_whole import whole_small_face

TWO, THREE = [(-1, -1), (1, 1)], [(-1, -1), (0, 0), (1, 1)]
SIX = [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]
COLUMN = [(-1, -1), (-1, 0), (-1, 1)]  # a six's column, read as a three


def _face(pips, pip_r=6):
    img = np.full((400, 400, 3), 205, np.uint8)
    cv2.rectangle(img, (150, 150), (250, 250), (245, 245, 245), -1)
    for qx, qy in pips:
        cv2.circle(img, (200 + 25 * qx, 200 + 25 * qy), pip_r, (30, 30, 30), -1, cv2.LINE_AA)
    return cv2.GaussianBlur(img, (0, 0), 1.2)


def _reading(value, pips, side, pip_r=6.0):
    pts = tuple((200.0 + 25 * qx, 200.0 + 25 * qy, pip_r) for qx, qy in pips)
    centre = (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))
    return Die(value, centre, 0.9, side, "", pts)


def _among_large_neighbours(d):
    """``d`` with three neighbours read at 170 px: ``d`` at 100 px is 0.59 of them."""
    return [d, Die(6, (400.0, 200.0), 0.9, 170.0), Die(5, (200.0, 400.0), 0.9, 170.0),
            Die(4, (400.0, 400.0), 0.9, 170.0)]


@pytest.mark.parametrize("pips", [TWO, THREE])
def test_a_whole_two_or_three_read_small_keeps_its_value(pips):
    img = _face(pips)
    d = _reading(len(pips), pips, 100.0)
    assert whole_small_face(d, img, 0.63)
    assert doubt_odd_sizes(_among_large_neighbours(d), lambda x, s: whole_small_face(x, img, s))[0].value == len(pips)
    # without the check (the old rule) it is doubted
    assert doubt_odd_sizes(_among_large_neighbours(_reading(len(pips), pips, 100.0)))[0].value is None


def test_a_six_column_read_as_a_three_stays_doubted(monkeypatch):
    """The other column's pips lie on the face round it: a part. (Without that check it passes.)"""
    img = _face(SIX)
    part = _reading(3, COLUMN, 71.0)
    assert not whole_small_face(part, img, 0.55)
    assert doubt_odd_sizes(_among_large_neighbours(part), lambda x, s: whole_small_face(x, img, s))[0].value is None
    monkeypatch.setattr(small_whole, "alone_on_its_face", lambda *a: True)
    assert whole_small_face(_reading(3, COLUMN, 71.0), img, 0.55)


def test_pips_large_for_the_square_or_a_far_smaller_reading_stay_doubted():
    img = _face(TWO, pip_r=14)
    assert not whole_small_face(_reading(2, TWO, 100.0, pip_r=14.0), img, 0.63)  # pips 28 % of the side across
    img = _face(TWO)
    assert not whole_small_face(_reading(2, TWO, 100.0), img, 0.3)  # under SPARED_LEAST
    assert not whole_small_face(Die(2, (200.0, 200.0), 0.9, 100.0, "", None), img, 0.63)  # no pips to check
    assert not whole_small_face(_reading(1, [(0, 0)], 100.0), _face([(0, 0)]), 0.55)  # ones are not spared


def test_a_face_open_to_a_table_like_it_is_not_spared():
    """A white face on a white table whose colour ends nowhere round it: its square is not known."""
    img = np.full((400, 400, 3), 245, np.uint8)
    for qx, qy in THREE:
        cv2.circle(img, (200 + 25 * qx, 200 + 25 * qy), 6, (30, 30, 30), -1, cv2.LINE_AA)
    assert not whole_small_face(_reading(3, THREE, 100.0), cv2.GaussianBlur(img, (0, 0), 1.2), 0.63)


def test_rendered_light_threes_read_small_beside_larger_dice(monkeypatch):
    """Light 3255 (development): a mint and a clear three, 150 and 126 px beside dice of 177-202 px,
    read at 0.63-0.66 of their neighbours' read size; doubted by the size rule alone."""
    from tests.dice_raymarch_light import render_light
    from companion.vision.dice_eval import score_scene

    scene = render_light(3255)
    # (with dice_mod.UNREAD_SMALL_READ_CLOSER one of the doubted threes is read right in a window at
    # full resolution with this switch off too: held off, so the test measures this switch alone;
    # session 37)
    monkeypatch.setattr(dice_mod, "UNREAD_SMALL_READ_CLOSER", False)
    on = score_scene(scene, dice_mod.read_dice(scene.image)).counts
    monkeypatch.setattr(dice_mod, "SMALL_WHOLE_FACES_SPARED", False)
    off = score_scene(scene, dice_mod.read_dice(scene.image)).counts
    assert on["right"] == off["right"] + 2
    assert on["wrong"] == off["wrong"] == 0 and on["near_wrong"] == 0 and on["extra"] == off["extra"]


def test_rendered_white_two_outlined_by_its_side_faces(monkeypatch):
    """Light 3238 (development): a white two on grey paper, its top face out of the foreground, the
    blob its side faces' outline; the hollow and loose looks read the two right and refused it as a
    possible part of a larger face (a one to three in a filled outline) until the photo's whole-face
    checks vouched for it."""
    from tests.dice_raymarch_light import render_light
    from companion.vision.dice_eval import score_scene

    scene = render_light(3238)
    # (session 41's lone-blob read also reads this two with WHOLE_FACES_IN_OUTLINES off: held off, as
    # this test is of that rule alone -- tests/test_dice_lone_blobs.py has it)
    from companion.vision import dice_lone_blobs
    monkeypatch.setattr(dice_lone_blobs, "LONE_BLOBS_READ", False)
    on = score_scene(scene, dice_mod.read_dice(scene.image)).counts
    monkeypatch.setattr(dice_mod, "WHOLE_FACES_IN_OUTLINES", False)
    off = score_scene(scene, dice_mod.read_dice(scene.image)).counts
    assert on["right"] == off["right"] + 1 and on["missed"] == off["missed"] - 1
    assert on["wrong"] == off["wrong"] == 0 and on["near_wrong"] == 0 and on["extra"] == off["extra"]
