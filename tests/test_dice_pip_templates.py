"""The blurred-face look: a face whose pips the blob finders cannot separate, matched against the
six layouts drawn as blurred pips (companion/vision/dice_pip_templates.py).

Dice are drawn with OpenCV (``drawn_die`` of test_dice_pip_blobs: a square face lit from one side,
round pips, Gaussian defocus, noise), motion blur added as a line kernel.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import companion.vision.dice_pips as dice_pips
from companion.vision import dice
from companion.vision.dice import read_dice
from companion.vision.dice_pip_templates import match_layouts, read_blurred_face
from tests.test_dice_pip_blobs import PLACES, RED, WHITE, drawn_die


def motion_blurred(img: np.ndarray, length: int, degrees: float) -> np.ndarray:
    """``img`` smeared along a line ``length`` px long at ``degrees`` (a die moving in the exposure)."""
    k = np.zeros((length, length), np.float32)
    k[length // 2] = 1.0
    m = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), degrees, 1.0)
    k = cv2.warpAffine(k, m, (length, length))
    return cv2.filter2D(img, -1, k / k.sum())


def values_read(img: np.ndarray, look: bool, monkeypatch) -> list:
    # (the sharpened look of dice.DEFOCUSED_DICE_SHARPENED reads the smeared three right without the
    # templates too: switched off, to test the templates alone)
    monkeypatch.setattr(dice, "DEFOCUSED_DICE_SHARPENED", False)
    monkeypatch.setattr(dice_pips, "TEMPLATE_LOOK", look)
    return [d.value for d in read_dice(img)]


@pytest.mark.parametrize("value,colours,table,length", [(6, WHITE, (90, 130, 170), 13), (3, WHITE, (90, 130, 170), 17),
                                                        (6, RED, (60, 100, 40), 13)])
def test_a_motion_blurred_face_is_read_by_its_blurred_layout(value, colours, table, length, monkeypatch):
    """A 60 px die smeared 13-17 px (a fifth to a quarter of its side): the pips run into streaks
    that no blob finder separates (measured: unread without the look), the blurred layouts read it."""
    img = motion_blurred(drawn_die(value, colours, table, 1.5, seed=value), length, 60)
    assert values_read(img, False, monkeypatch) == [None]
    assert values_read(img, True, monkeypatch) == [value]


def test_a_defocused_two_is_read_by_its_blurred_layout(monkeypatch):
    """6 px of defocus on a 60 px white die: unread without the look, read with it."""
    img = drawn_die(2, WHITE, (90, 130, 170), 6.0, seed=2)
    assert values_read(img, False, monkeypatch) == [None]
    assert values_read(img, True, monkeypatch) == [2]


@pytest.mark.parametrize("blur", [6.0, 7.0, 8.0])
@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_a_face_blurred_past_its_layout_is_never_read_wrong(value, blur, monkeypatch):
    """Defocus of a tenth to an eighth of the die: a five's or a three's corner pips melt into the
    face's rim and the middle pip is left, as a one's; the look leaves such a face unread."""
    values = values_read(drawn_die(value, RED, (60, 100, 40), blur, seed=value), True, monkeypatch)
    assert values in ([value], [None], []), values


def drawn_face(value: int, blur: float, glare: float = 0.0):
    """A crop as the reader makes it (the die FACE_PX across): the face region's mask and the
    lightness offset from the face's colour, dark pips defocused by ``blur`` px, and a glare spot
    ``glare`` lighter than the face beside the middle."""
    size, side = 160, 96
    light = np.zeros((size, size), np.float32)
    for u, v in PLACES[value]:
        cv2.circle(light, (int(80 + u * side * 0.56), int(80 + v * side * 0.56)), 9, -60.0, -1, cv2.LINE_AA)
    if glare:
        cv2.circle(light, (96, 70), 8, glare, -1, cv2.LINE_AA)
    light = cv2.GaussianBlur(light, (0, 0), blur)
    outside = np.ones((size, size), np.uint8)
    outside[32:128, 32:128] = 0
    light[outside > 0] = -40.0  # (a darker table round the face)
    dl = np.zeros((size, size, 3), np.float32)
    dl[..., 0] = light
    face = ((outside == 0) & (light > -15)).astype(np.uint8) * 255
    return face, dl


def test_a_face_with_glare_is_left_to_the_other_looks():
    """Marks both darker and lighter than the face (glare beside dark pips) are no clear contrast:
    no match is made. Without the glare the same face is matched."""
    face, dl = drawn_face(5, 6.0)
    assert match_layouts(face, dl) is not None
    face, dl = drawn_face(5, 6.0, glare=60.0)
    assert match_layouts(face, dl) is None
    assert read_blurred_face(face, dl) is None


def test_a_defocused_die_inside_its_halo_is_no_face():
    """A defocused die's halo (the crop's commonest colour round it) makes a region with a die-sized
    hole, the die, which blurred matches a one's pip better than any other layout (development:
    the ones so read were nearly all wrong). No match is made on such a region."""
    size = 160
    light = np.zeros((size, size), np.float32)
    light[58:102, 58:102] = -50.0  # (the die, darker than its halo)
    light = cv2.GaussianBlur(light, (0, 0), 4.0)
    dl = np.zeros((size, size, 3), np.float32)
    dl[..., 0] = light
    face = np.zeros((size, size), np.uint8)
    face[32:128, 32:128] = 255
    face[light < -15] = 0
    assert match_layouts(face, dl) is None


def test_the_stream_draws_the_templates_before_its_first_frame(monkeypatch):
    """The templates are drawn on first use (~40 ms in one go, more than a frame may lend): the
    streaming reader's warm-up, run when a source is made, draws them (held-out stream seed 7951's
    black die met them first inside a read: frames of 14-30 ms and a report 16 frames after rest)."""
    from companion.vision import dice_pip_templates, tray_rest_read

    monkeypatch.setattr(dice_pip_templates, "_templates", None)
    tray_rest_read.warm_up()
    assert dice_pip_templates._templates is not None
