"""The two checks of companion/vision/dice_top_clean.py: a top face's reading kept alone beside its
side face must not be a part of a larger face (a two's pip by the edge read as a one; a six's two
rows read as a four, its third row on the edge). Faces drawn by hand: a lit top face 100 px square
at (100..200, 60..160) and the die's side face in shade below it, on a grey table."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import companion.vision.dice_side_shade as shade
from companion.vision.dice import Die
from companion.vision.dice_side_shade import drop_side_faces

WHITE, SHADED = (235, 235, 235), (170, 170, 170)


def _picture(top_pips, edge_y=160, pip_r=10, top_bgr=WHITE):
    """The top face down to ``edge_y``, the side face below it to y 240 with two squeezed pips."""
    img = np.full((300, 300, 3), 120, np.uint8)
    cv2.rectangle(img, (100, 60), (200, edge_y), top_bgr, -1)
    cv2.rectangle(img, (100, edge_y), (200, 240), SHADED, -1)
    for x, y in top_pips:
        cv2.circle(img, (x, y), pip_r, (20, 20, 20), -1)
    for x in (125, 175):
        cv2.ellipse(img, (x, 205), (9, 5), 0, 0, 360, (20, 20, 20), -1)
    return img


SIDE = Die(2, (150.0, 180.0), 0.9, 100.0, pips=((125.0, 205.0, 7.0), (175.0, 205.0, 7.0)))


def _side():
    return Die(SIDE.value, SIDE.center, SIDE.confidence, SIDE.side_px, pips=SIDE.pips)


def _kept(top, img, monkeypatch, flag, on):
    monkeypatch.setattr(shade, flag, on)
    return [d.value for d in drop_side_faces([top, _side()], img)]


@pytest.mark.parametrize("on", [False, True])
def test_a_one_off_its_faces_middle_is_not_kept_alone(monkeypatch, on):
    """A two whose upper pip is too faint to find: its other pip, by the edge with the side face,
    read as a one (a small square round it: its margin toward the side face is on the top face,
    so the older checks pass). The face's region reaches twice as far above the pip as below it,
    and farther to its left than right: the pip is not the face's middle."""
    img = _picture([(170, 130)])
    top = Die(1, (170.0, 130.0), 0.9, 50.0, pips=((170.0, 130.0, 10.0),))
    assert _kept(top, img, monkeypatch, "ONE_AT_THE_MIDDLE", on) == ([1, 2] if on else [1])


@pytest.mark.parametrize("on", [False, True])
def test_a_one_with_other_marks_on_its_face_is_not_kept_alone(monkeypatch, on):
    """A three whose corner pips are grey (a translucent die's, blurred): the reader found its
    middle pip alone and read a one, at the face's middle. Marks like the pip on the face round
    it say it is no one."""
    img = _picture([(150, 110)])
    for x, y in ((122, 82), (178, 138)):
        cv2.circle(img, (x, y), 10, (110, 110, 110), -1)
    top = Die(1, (150.0, 110.0), 0.9, 100.0, pips=((150.0, 110.0, 10.0),))
    assert _kept(top, img, monkeypatch, "ONE_AT_THE_MIDDLE", on) == ([1, 2] if on else [1])


def test_a_one_at_its_faces_middle_is_kept_alone(monkeypatch):
    """The same face with its one in the middle: the side face is dropped."""
    img = _picture([(150, 110)])
    top = Die(1, (150.0, 110.0), 0.9, 100.0, pips=((150.0, 110.0, 12.0),))
    assert _kept(top, img, monkeypatch, "ONE_AT_THE_MIDDLE", True) == [1]


def test_a_one_on_a_face_open_to_a_table_like_it_is_not_kept_alone(monkeypatch):
    """A white die on a white table: the top face ends nowhere but at its side face, so where its
    middle is cannot be told (left to the overlap doubt)."""
    img = _picture([(150, 110)])
    img[:, :][(img == 120).all(axis=2)] = WHITE
    top = Die(1, (150.0, 110.0), 0.9, 100.0, pips=((150.0, 110.0, 12.0),))
    assert _kept(top, img, monkeypatch, "ONE_AT_THE_MIDDLE", True) == [1, 2]


SIX_ROWS = [(125, 80), (175, 80), (125, 110), (175, 110)]
FOUR_READ = Die(4, (150.0, 95.0), 0.9, 60.0, pips=tuple((float(x), float(y), 10.0) for x, y in SIX_ROWS))


@pytest.mark.parametrize("edge_y", [160, 148])
@pytest.mark.parametrize("on", [False, True])
def test_a_four_with_a_row_of_pips_beyond_it_is_not_kept_alone(monkeypatch, on, edge_y):
    """A six's two rows read as a four, its third row 30 px on (the rows' pitch): on the top face,
    or on its edge with the side face (the face ending at y 148, the row's pips half in shade)."""
    img = _picture(SIX_ROWS + [(125, 140), (175, 140)], edge_y=edge_y)
    top = Die(FOUR_READ.value, FOUR_READ.center, 0.9, FOUR_READ.side_px, pips=FOUR_READ.pips)
    assert _kept(top, img, monkeypatch, "LINES_BEYOND", on) == ([4, 2] if on else [4])


def test_a_four_with_its_side_faces_pips_beyond_it_is_kept_alone(monkeypatch):
    """A four whose side face's pips lie where its rows would go on (in the side face's shade):
    no part of a larger face, kept alone."""
    pips = [(125, 85), (175, 85), (125, 135), (175, 135)]
    img = _picture(pips)
    cv2.rectangle(img, (100, 161), (200, 240), SHADED, -1)
    for x in (125, 175):  # (the side face's pips one pitch below the four's lower row)
        cv2.ellipse(img, (x, 185), (9, 6), 0, 0, 360, (20, 20, 20), -1)
    top = Die(4, (150.0, 110.0), 0.9, 100.0, pips=tuple((float(x), float(y), 10.0) for x, y in pips))
    assert _kept(top, img, monkeypatch, "LINES_BEYOND", True) == [4]
