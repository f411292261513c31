"""Webcam frames of white dice on a wooden desk (issue 4), through a webcam's own pipeline
(tests/dice_raymarch_webcam.py): the renderer's option, a textured desk's spots never read as a
die (companion/vision/dice_table_texture.py), and a burnt-out top face beside its tinted side face
(companion/vision/dice_side_shade.py, BURNT_OUT_FACES_HAVE_NO_HUE), and a one's pip with a side face's
pip squeezed more is no two (companion/vision/dice_one_face.py, SIDE_FACE_PIP_AMONG). Each reading
test fails with its rule off. Seeds 8000-8119 are development seeds of this work."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from companion.vision import dice, dice_one_face, dice_side_shade
from companion.vision.dice_pip_finding import Pip
from companion.vision.dice_table_texture import PIPS_OVER_TABLE, pips_over_table
from tests.dice_flags import counts_off_then_on
from tests.dice_raymarch import render_raymarch


@pytest.fixture(scope="module")
def frames():
    return {seed: render_raymarch(seed, "webcam", webcam_pipeline=True) for seed in (8055, 8058, 8092)}


def test_the_pipeline_is_an_option_and_leaves_the_plain_webcam_frames_alone():
    plain, again = render_raymarch(8003, "webcam"), render_raymarch(8003, "webcam", webcam_pipeline=False)
    assert np.array_equal(plain.image, again.image)
    piped = render_raymarch(8003, "webcam", webcam_pipeline=True)
    assert [(d.value, d.center) for d in piped.dice] == [(d.value, d.center) for d in plain.dice]
    assert not np.array_equal(piped.image, plain.image)
    assert piped.params["webcam_pipeline"] and piped.params["gain"] > 0 and "webcam_pipeline" not in plain.params
    # (a phone photo ignores the option)
    assert np.array_equal(render_raymarch(1, "phone").image, render_raymarch(1, "phone", webcam_pipeline=True).image)


class _Read:
    def __init__(self, value, center, side):
        self.value, self.center, self.side_px = value, center, side


def _spotted_table(rng, n_spots):
    img = np.full((200, 200, 3), 120, np.uint8)
    for x, y in rng.uniform(5, 195, (n_spots, 2)):
        cv2.circle(img, (int(x), int(y)), 2, (60, 60, 60), -1)
    return img


def test_a_die_on_a_smooth_table_stands_out_and_two_spots_of_a_spotted_table_do_not():
    rng = np.random.default_rng(3)
    die = np.full((200, 200, 3), 120, np.uint8)
    cv2.rectangle(die, (85, 85), (115, 115), (235, 235, 235), -1)
    for p in ((92, 92), (108, 108)):
        cv2.circle(die, p, 3, (25, 25, 25), -1)
    assert pips_over_table(die, _Read(2, (100.0, 100.0), 30.0), []) >= PIPS_OVER_TABLE
    table = _spotted_table(rng, 400)  # as many spots round it as on its "face"
    assert pips_over_table(table, _Read(2, (100.0, 100.0), 30.0), []) < PIPS_OVER_TABLE


def test_a_grained_desks_spots_are_not_read_as_a_two(monkeypatch, frames):
    """8058: a two read pips-alone on the bare desk at the frame's top edge; 8055: a two read pips
    first on the desk beside a six. Both extras go, and no die is read wrong for it."""
    # (SIDE_FACES_BY_PIPS_BEYOND, session 26, takes 8055's extra two away too -- which marks, not
    # traced: the test failed with it on -- off here, to test this rule alone; so does
    # PARTS_OF_FACES_RUN_ON, session 28: which mark it found beyond the two, not traced)
    monkeypatch.setattr(dice, "SIDE_FACES_BY_PIPS_BEYOND", False)
    monkeypatch.setattr(dice, "PARTS_OF_FACES_RUN_ON", False)
    for seed in (8058, 8055):
        off, on = counts_off_then_on(monkeypatch, dice, "PIPS_ABOVE_THE_TABLE", frames[seed])
        assert on["extra"] == off["extra"] - 1, seed
        assert on["right"] == off["right"] and on["wrong"] <= off["wrong"], seed


def test_a_burnt_out_top_face_beside_its_tinted_side_face_is_one_die(monkeypatch, frames):
    """8092: a white one tilted 30 degrees, its top face clipped white, its side face blue from the
    white balance and read as a two: with the rule, the side face's two is not reported."""
    scene = frames[8092]
    die = scene.dice[0]
    for on in (False, True):
        monkeypatch.setattr(dice_side_shade, "BURNT_OUT_FACES_HAVE_NO_HUE", on)
        found = dice.read_dice(scene.image)
        near = [d for d in found if math.dist(d.center, die.center) < 1.2 * die.side_px]
        if on:
            assert all(d.value in (None, die.value) for d in near)
        else:
            assert any(d.value not in (None, die.value) for d in near)


def test_burnt_out_faces_are_compared_by_lightness_alone_only_between_light_faces():
    top, side = np.array([250.0, 0.0, 0.0]), np.array([203.0, -6.0, -29.0])
    a, b = object(), object()
    assert dice_side_shade._darker_of_one_colour(a, top, b, side) is b
    blue_die = np.array([100.0, 10.0, -45.0])  # a blue die beside a burnt-out white one: two dice
    assert dice_side_shade._darker_of_one_colour(a, top, b, blue_die) is None
    grey_top = np.array([230.0, 0.0, 0.0])  # not burnt out: its hue still counts
    assert dice_side_shade._darker_of_one_colour(a, grey_top, b, side) is None


def test_a_faint_part_of_a_die_that_fails_the_spot_test_stays_reported(monkeypatch):
    """Light 3235 (development): a cream three's part read pips first as a small two (then doubted
    for its size) stands out from the paper only 1.7 times. Judged so it is reported unreadable
    at its place -- dropped, the die was missed. (Since session 20's whole-face check
    (dice_small_whole) spares some size-doubted twos, this part's two would be kept without the
    rule -- a wrong value -- so the rule is now also what keeps it from being read.)"""
    from tests.dice_raymarch_light import render_light

    off, on = counts_off_then_on(monkeypatch, dice, "PIPS_ABOVE_THE_TABLE", render_light(3235))
    assert on["wrong"] == on["near_wrong"] == on["missed"] == 0
    assert on["unread"] == 1 and on["right"] == off["right"]


def test_a_pip_squeezed_more_on_another_shade_is_a_side_faces():
    """As measured on 8055's one (crop pixels): its pip round-ish (aspect 1.35), a side face's pip
    squeezed more (1.63) on a ring 22 L darker, contrast about 80 (a face's shades allow 16). The
    same pips on one shade, or squeezed alike (motion blur), are left to the other checks."""
    filled = np.full((200, 220), 255, np.uint8)
    dl = np.zeros((200, 220, 3), np.float32)
    dl[:, 130:, 0] = -22.0  # the side face, right of x = 130
    pips = [Pip(95, 110, 310, 0.8, 101.0, aspect=1.35), Pip(155, 98, 169, 0.8, 60.0, aspect=1.63)]
    assert dice_one_face.a_side_face_pip_among(pips, filled, dl)
    assert not dice_one_face.a_side_face_pip_among(pips, filled, np.zeros_like(dl))
    alike = [Pip(95, 110, 310, 0.8, 101.0, aspect=1.55), Pip(155, 98, 169, 0.8, 60.0, aspect=1.63)]
    assert not dice_one_face.a_side_face_pip_among(alike, filled, dl)


def test_a_small_blurred_ones_pip_with_its_side_faces_pip_is_no_two(monkeypatch, frames):
    """8055: a 28 px white one under motion blur, its pip and one pip of its blue side face read as
    a two (wrong, and near-wrong) by the first look and, that refused, by the look at the pips'
    cores: with the rule, the die is reported unreadable and nothing else changes."""
    scene = frames[8055]
    off, on = counts_off_then_on(monkeypatch, dice_one_face, "SIDE_FACE_PIP_AMONG", scene)
    assert off["wrong"] == 1 and on["wrong"] == 0 and on["unread"] == off["unread"] + 1
    assert on["right"] == off["right"] and on["extra"] == off["extra"]
