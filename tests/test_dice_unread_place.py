"""An unreadable die reported at its top face, found beyond the report away from the photo's
middle (companion/vision/dice_unread_place.py): the rule on drawn silhouettes, and development
ray 2020 rendered (a blurred tilted die, reported unreadable 0.54 sides off its top face)."""

from __future__ import annotations

import math

import cv2
import numpy as np

SIDE = 40.0
MIDDLE = (400.0, 300.0)  # the photo's middle (an 800 x 600 photo)
DIAGONAL = 1000.0


def _die(value, x, y, side=SIDE):
    from companion.vision.dice import Die

    return Die(value, (float(x), float(y)), 0.0 if value is None else 0.9, side, "" if value else "no pips")


def _tilted_die(shadow: bool = False):
    """A photo, and its foreground, of a green die right of the middle: its top face a square at
    (700, 300), a side face 0.5 sides wide on its inner (left) side; with ``shadow``, a grey patch
    of the table's tint beyond it instead, on the outer side."""
    img = np.full((600, 800, 3), 200, np.uint8)
    top = (680, 280, 720, 320)
    cv2.rectangle(img, top[:2], (top[2] - 1, top[3] - 1), (60, 170, 60), -1)
    cv2.rectangle(img, (660, 280), (679, 319), (40, 110, 40), -1)  # the side face, darker
    if shadow:
        cv2.rectangle(img, (720, 280), (759, 319), (150, 150, 150), -1)
    mask = (np.abs(img.astype(int) - 200).sum(axis=2) > 0).astype(np.uint8) * 255
    return img, mask


def test_a_report_on_the_whole_silhouette_moves_to_the_top_face():
    from companion.vision.dice_unread_place import at_top_faces

    img, mask = _tilted_die()
    report = _die(None, 670, 300)  # on the side face, 0.75 sides off the top face's centre
    (moved,) = at_top_faces([report], img, mask, 1.0, MIDDLE, DIAGONAL)
    assert 680 < moved.center[0] < 700 and moved.center[1] == 300  # onto the top face, within 0.5 sides
    assert math.dist(moved.center, (700, 300)) < 0.35 * SIDE
    assert moved.value is None and moved.reason == report.reason


def test_a_report_at_its_top_face_a_read_die_and_one_near_the_middle_stay():
    from companion.vision.dice_unread_place import at_top_faces

    img, mask = _tilted_die()
    on_top = _die(None, 700, 300)
    assert at_top_faces([on_top], img, mask, 1.0, MIDDLE, DIAGONAL)[0].center == on_top.center
    read = _die(5, 690, 300)
    assert at_top_faces([read], img, mask, 1.0, MIDDLE, DIAGONAL)[0].center == read.center
    # the same die with the photo's middle just beside it: its side faces may show any way
    near = _die(None, 690, 300)
    assert at_top_faces([near], img, mask, 1.0, (640.0, 300.0), DIAGONAL)[0].center == near.center


def test_the_tables_shadow_beyond_the_die_is_no_part_of_it():
    from companion.vision.dice_unread_place import at_top_faces

    img, mask = _tilted_die(shadow=True)
    (moved,) = at_top_faces([_die(None, 690, 300)], img, mask, 1.0, MIDDLE, DIAGONAL)
    assert moved.center[0] < 700  # not carried on past the top face's centre toward the shadow


def test_a_move_onto_another_report_is_not_made():
    from companion.vision.dice_unread_place import at_top_faces

    img, mask = _tilted_die()
    other = _die(3, 700, 300)
    report = _die(None, 670, 300)
    out = at_top_faces([report, other], img, mask, 1.0, MIDDLE, DIAGONAL)
    assert out[0].center == report.center


def test_ray_2020s_blurred_tilted_die_is_reported_unread_at_its_top_face(monkeypatch):
    from companion.vision import dice, dice_nested_discs
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    # (its unread die, a defocused translucent three, reads right with a ring's hole read at its
    # own scale, session 24: off here, to test where an unread die is reported)
    monkeypatch.setattr(dice, "RING_HOLES_READ", False)
    # (the nested discs read the three right once its report lies at its top face: held off, this
    # test's subject is where an unread die is reported)
    monkeypatch.setattr(dice_nested_discs, "UNREAD_READ_IN_NESTED_DISCS", False)
    off, on = counts_off_then_on(monkeypatch, dice, "UNREAD_DICE_AT_TOP_FACES", render_raymarch(2020))
    assert (off["missed"], off["unread"]) == (1, 0)
    assert (on["missed"], on["unread"], on["right"]) == (0, 1, off["right"])
    assert on["wrong"] == on["extra"] == on["near_wrong"] == 0
