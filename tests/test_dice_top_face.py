"""A one whose face region holds a side face of its colour too (companion/vision/dice_top_face.py):
the top face told from the side face by its shade.

Lab offsets from the face colour are drawn directly (no scene renderer): a top face with a large
middle pip, a side face below it a shade darker with two small squeezed pips, a table round both.
"""

from __future__ import annotations

import cv2
import numpy as np

import companion.vision.dice_pips as pips


def _die_with_side_face(corner_step=0.0, side_shade=-15.0, noise=2.0, seed=0):
    """(face mask, colour distance, Lab offsets); ``corner_step``: the four corner places of a five
    marked this much darker (0: a one)."""
    size, x0, y0, s = 240, 70, 40, 90
    dl = np.zeros((size, size, 3), np.float32)
    dl[:] = (-40, -10, -40)
    dl[y0:y0 + s, x0:x0 + s] = 0
    dl[y0 + s:y0 + s + 60, x0:x0 + s] = (side_shade, 0, 0)
    cv2.circle(dl, (x0 + s // 2, y0 + s // 2), 14, (-100, 0, 0), -1)
    for cx in (x0 + 25, x0 + s - 25):
        cv2.ellipse(dl, (cx, y0 + s + 30), (8, 4), 0, 0, 360, (-100, 0, 0), -1)
    if corner_step:
        for cx in (x0 + 22, x0 + s - 22):
            for cy in (y0 + 22, y0 + s - 22):
                cv2.circle(dl, (cx, cy), 11, (corner_step, 0, 0), -1)
    dl = cv2.GaussianBlur(dl, (0, 0), 1.0) + np.random.default_rng(seed).normal(0, noise, dl.shape).astype(np.float32)
    dist = np.sqrt(0.6 * dl[..., 0] ** 2 + dl[..., 1] ** 2 + dl[..., 2] ** 2).astype(np.float32)
    face = cv2.morphologyEx((dist < 20).astype(np.uint8) * 255, cv2.MORPH_OPEN,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    return face, dist, dl


def test_a_one_with_its_side_face_joined_is_read_on_the_top_face_by_its_shade(monkeypatch):
    """The side face's pips beside the one's pip leave the whole region unread (measured: "a lone
    pip with other marks beside it"); the top face cut out by its shade reads the one."""
    monkeypatch.setattr(pips, "ACE_BY_SHADE_LOOK", False)
    assert pips.read_face(*_die_with_side_face()).value is None
    monkeypatch.setattr(pips, "ACE_BY_SHADE_LOOK", True)
    got = pips.read_face(*_die_with_side_face())
    assert got.value == 1
    assert abs(got.center[0] - 115) < 4 and abs(got.center[1] - 85) < 4  # (the top face's middle)


def test_faint_corner_marks_keep_the_top_face_look_from_reading_a_one(monkeypatch):
    """A five whose corner pips are faint marks (a defocused or glared five): the top face found
    by its shade still has marks on a five's corners, so no one is read there."""
    monkeypatch.setattr(pips, "ACE_BY_SHADE_LOOK", True)
    assert pips.read_face(*_die_with_side_face(corner_step=-20.0)).value != 1


def test_a_top_face_the_shade_cannot_tell_from_its_side_face_is_left_unread(monkeypatch):
    """Side face lit like the top face: the shade cuts nothing off, and the look reads nothing."""
    monkeypatch.setattr(pips, "ACE_BY_SHADE_LOOK", True)
    assert pips.read_face(*_die_with_side_face(side_shade=0.0)).value is None
