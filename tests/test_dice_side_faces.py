"""Tilted dice, side faces and blur: the pieces of the still reader that tell a side face's pips
from the top face's, a two or three from a part of a larger face, a pip from a die's face in its
blur halo, and a hidden pip from a face darkening to its edges.

The marks are drawn with OpenCV (ellipses, discs) and measured by the reader's own find_pips, so
each test goes through the real measurement, not through hand-made numbers alone.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.vision.dice_marks import _local_step, plain_mark
from companion.vision.dice_pips import Pip, fill_holes, find_pips
from companion.vision.dice_side_faces import (alike_marks_beside, beyond_the_face, pips_alike, side_face_pips,
                                              side_face_readings)


def _face_with_marks(marks, size=200):
    """A face region (255) with elliptical holes ``(x, y, long, short, angle_deg)``, and the colour
    distance from the face (60 in the holes)."""
    face = np.zeros((size, size), np.uint8)
    cv2.rectangle(face, (10, 10), (size - 10, size - 10), 255, -1)
    for x, y, a, b, ang in marks:
        cv2.ellipse(face, (x, y), (a, b), ang, 0, 360, 0, -1)
    dist = np.where(face > 0, 2.0, 60.0).astype(np.float32)
    return face, dist


def _measured(marks):
    face, dist = _face_with_marks(marks)
    return find_pips(fill_holes(face), face, dist, 180.0)


def test_find_pips_measures_the_short_axis_of_a_squeezed_pip():
    for angle in (0, 30, 75, 120):
        (pip,) = _measured([(100, 100, 13, 8, angle)])  # (a mark over 1.8 times longer is no pip)
        assert pip.aspect > 1.5
        # the short axis is square to the long one (an axis has no sign: compare modulo 180)
        short = math.degrees(pip.minor) % 180
        expected = (angle + 90) % 180
        assert min(abs(short - expected), 180 - abs(short - expected)) < 6


def test_a_side_face_pip_is_the_squeezed_smaller_one_beside_round_ones():
    # a one on top (a big round pip) and two squeezed, smaller pips of a side face beside it
    pips = _measured([(100, 100, 12, 12, 0), (100, 170, 10, 6, 0), (60, 170, 10, 6, 0)])
    side = side_face_pips(pips)
    assert len(side) == 2 and all(abs(p.y - 170) < 3 for p in side)  # (not the one at y=100)


def test_motion_blur_stretching_every_pip_alike_makes_no_side_face():
    # every pip is stretched the same way: none is more foreshortened than the others
    pips = _measured([(60, 60, 12, 7, 20), (140, 140, 12, 7, 20), (100, 100, 12, 7, 20)])
    assert side_face_pips(pips) == []
    assert pips_alike(pips)


def test_a_squeezed_pip_on_the_face_the_others_fit_is_not_beyond_it():
    # a three (face from 40 to 160) and a squeezed mark on its face, where a five has a pip
    kept = _measured([(70, 70, 10, 10, 0), (100, 100, 10, 10, 0), (130, 130, 10, 10, 0)])
    on_face = _measured([(70, 130, 9, 6, 45)])
    assert not beyond_the_face(on_face, kept, 3)
    # a side face's pip lies past the face's edge
    past = _measured([(100, 178, 9, 6, 0)])
    assert beyond_the_face(past, kept, 3)
    assert not beyond_the_face(past, kept, 2)  # (a reading of other pips than those fitted here)


def _pip(x, y, area=100.0, aspect=1.05, contrast=60.0):
    return Pip(x, y, area, 0.9, contrast, aspect=aspect, peak=contrast)


def test_a_two_with_a_pip_like_its_own_just_beside_it_is_part_of_a_larger_face():
    # the middle and a corner of a three (or five): as a two its face is half the die's, and the
    # die's other corner pip lies just past that face, alike in size and shape
    middle, corner, other = _pip(100, 100), _pip(120, 120), _pip(80, 80)
    beta = complex(110, 110)
    alpha = complex(20, 0)  # the two's frame: pips at beta + alpha * (+-0.5 +-0.5j)
    assert alike_marks_beside([middle, corner, other], [middle, corner], beta, alpha)
    # a side face's squeezed pip there is no such mark, nor is a speck far smaller
    assert not alike_marks_beside([middle, corner, _pip(80, 80, aspect=2.0)], [middle, corner], beta, alpha)
    # ... but a squeezed mark as big as the pips is one when looked at loosely (blur and the face's
    # edge squeeze the larger face's pips; a side face's pips are shrunk as well)
    assert alike_marks_beside([middle, corner, _pip(80, 80, aspect=2.0)], [middle, corner], beta, alpha, loose=True)
    assert not alike_marks_beside([middle, corner, _pip(80, 80, area=55, aspect=2.0)], [middle, corner], beta, alpha,
                                  loose=True)
    assert not alike_marks_beside([middle, corner, _pip(80, 80, area=20)], [middle, corner], beta, alpha)
    # nor a pip a whole die away (a neighbour's)
    assert not alike_marks_beside([middle, corner, _pip(30, 30)], [middle, corner], beta, alpha)


def test_a_lone_mark_is_plain_but_a_die_face_in_its_halo_is_not():
    size = 160
    lab = np.zeros((size, size, 3), np.float32)  # offset from the "face" (here the blur halo)
    filled = np.zeros((size, size), np.uint8)
    cv2.circle(filled, (80, 80), 75, 255, -1)
    face = filled.copy()
    cv2.circle(face, (80, 80), 35, 0, -1)  # the lone mark
    mark = (filled > 0) & (face == 0)
    lab[mark] = (40.0, 30.0, 10.0)  # a mark unlike the halo
    assert plain_mark(face, filled, lab, (80, 80))
    # a die's face as the mark: its own pips (light dots) inside
    for x, y in ((68, 68), (92, 92), (80, 80)):
        cv2.circle(lab, (x, y), 6, (90.0, 0.0, 0.0), -1)
    lab[~mark] = 0
    assert not plain_mark(face, filled, lab, (80, 80))


def test_a_place_lighter_than_the_face_darkening_around_it_hides_no_dark_pip():
    size = 81
    yy, xx = np.mgrid[:size, :size].astype(np.float32)
    r2 = (xx - 40) ** 2 + (yy - 40) ** 2
    dl = np.zeros((size, size, 3), np.float32)
    dl[..., 0] = -0.05 * r2  # the face darkens away from the place (an over-exposed middle)
    dark_pips = np.array([-40.0, 0.0, 0.0], np.float32)
    assert _local_step(dl, 40, 40, 5, towards=dark_pips) == 0.0
    assert _local_step(dl, 40, 40, 5) > 5  # (without the direction the step looks like a mark)
    # a dimmed dark pip there is still darker than the face around it: a mark
    dl[r2 <= 25, 0] -= 30
    assert _local_step(dl, 40, 40, 5, towards=dark_pips) > 5


def _faint_three(ramp: float):
    """A face FACE_PX across with a three of blurred, faint dark pips, the face's colour running
    across it by ``ramp`` Lab units a pixel (0: a face of one colour)."""
    from companion.vision.dice_pips import FACE_PX

    size = 160
    filled = np.zeros((size, size), np.uint8)
    cv2.rectangle(filled, (32, 32), (32 + FACE_PX, 32 + FACE_PX), 255, -1)
    dl = np.zeros((size, size, 3), np.float32)
    dl[..., 0] = ramp * (np.arange(size, dtype=np.float32)[None, :] - 80)
    c = 32 + FACE_PX / 2
    for k in (-0.25, 0.0, 0.25):
        cv2.circle(dl, (int(c + k * FACE_PX), int(c + k * FACE_PX)), 8, (-20.0, 0.0, 0.0), -1)
    dl = cv2.GaussianBlur(dl, (0, 0), 3)
    dist = np.sqrt(0.6 * dl[..., 0] ** 2 + dl[..., 1] ** 2 + dl[..., 2] ** 2).astype(np.float32)
    return filled, dist, dl


def test_faint_pips_are_looked_for_only_on_a_face_of_one_colour():
    from companion.vision.dice_pips import FAINT_FLAT, _read_faint_pips

    filled, dist, dl = _faint_three(0.0)
    assert _read_faint_pips(filled, dist, dl).value == 3
    # the same marks on a region whose colour runs across it (a blurred die's halo taken for its
    # face): no faint look at all, so no guess
    filled, dist, dl = _faint_three(1.0)
    assert float(np.median(dist[filled > 0])) > FAINT_FLAT
    assert _read_faint_pips(filled, dist, dl) is None


def _reading(value, centre, marks):
    """A FaceReading of ``value`` at ``centre`` whose pips are ``marks`` as find_pips measures them."""
    from companion.vision.dice_face_reading import FaceReading

    pips = _measured(marks)
    assert len(pips) == len(marks)
    return FaceReading(value, centre, 0.9, 90.0, "", None, pips)


def test_of_a_top_face_and_a_side_face_read_apart_the_more_squeezed_is_the_side_face():
    # a four on top (pips squeezed a little along y, the tilt's direction), and below it a one
    # whose pip is squeezed much more, across the edge between the two faces (along y too)
    top = _reading(4, (100.0, 60.0), [(70, 40, 10, 9, 0), (130, 40, 10, 9, 0), (70, 80, 10, 9, 0), (130, 80, 10, 9, 0)])
    side = _reading(1, (100.0, 130.0), [(100, 130, 11, 7, 0)])
    assert side_face_readings([top, side]) == [side]
    # the same squeeze along the edge (the pip's short axis square to the line between the
    # centres) is no side face's: a side face is squeezed across its edge with the top face
    along = _reading(1, (100.0, 130.0), [(100, 130, 11, 7, 90)])
    assert side_face_readings([top, along]) == []
    # squeezed alike (two parts of one face, or motion blur): neither is taken for a side face
    alike = _reading(1, (100.0, 130.0), [(100, 130, 10, 8, 0)])
    assert side_face_readings([top, alike]) == []
    # two dice side by side (centres a die apart) are no top and side faces of one die
    apart = _reading(1, (100.0, 160.0), [(100, 160, 11, 7, 0)])
    assert side_face_readings([top, apart]) == []


def test_tilted_webcam_dice_read_by_their_top_face_not_left_unread_for_their_side_face():
    """Ray-marched webcam frames (dev seeds 1050, 1060: a white die tilted 21-30 degrees whose
    grey side face, with a pip, reads as a one beside its top face): the top face is read."""
    from companion.vision.dice import read_dice
    from companion.vision.dice_eval import score_scene
    from tests.dice_raymarch import render_raymarch

    for seed in (1050, 1060):
        scene = render_raymarch(seed)
        counts = score_scene(scene, read_dice(scene.image)).counts
        assert counts["wrong"] == 0 and counts["right"] >= 2, (seed, counts)
