"""The quick read of a clean face (companion/vision/dice_quick_face.py), the stream's 48 px first
look: a clean drawn face of each value reads the quick way with the full reading's value; a face
with a faint mark, a pip cut by the rim or a side face joined on is left to the full reading; the
still reader (no quick look) never reads the quick way."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import companion.vision.dice_crop as dice_crop
import companion.vision.dice_quick_face as quick
from companion.vision.dice_crop import read_crop
from companion.vision.dice_face_reading import at_face_px
from companion.vision.dice_layouts import LAYOUTS

PX = 48


def _face(value: int, turn: float = 20.0, mark: tuple[float, float, int] | None = None,
          cut: bool = False, side_face: bool = False, rim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A light die's face ``PX`` across with dark pips, turned by ``turn`` degrees, on a grey tray
    (drawn 4x larger, then shrunk and blurred as a camera's die is). ``mark``: (x, y, level) a faint
    dark mark at a layout place (half-sides); ``cut``: a corner pip pushed out over the face's rim;
    ``side_face``: a darker side face joined along one edge; ``rim``: the lit rim of the die's rounded
    edge along two sides, of the face's colour, beyond a dark groove."""
    k = 4
    size = 96 * k
    img = np.full((size, size, 3), 90, np.uint8)
    c = complex(size / 2, size / 2)
    rot = complex(math.cos(math.radians(turn)), math.sin(math.radians(turn)))
    half = PX * k / 2

    def at(z: complex) -> tuple[int, int]:
        p = c + half * rot * z
        return int(round(p.real)), int(round(p.imag))

    if side_face:
        pts = np.array([at(z) for z in (complex(-1, 1), complex(1, 1), complex(0.9, 1.5), complex(-1.1, 1.5))])
        cv2.fillConvexPoly(img, pts, (215, 215, 215))  # (near the face colour: joined to its region)
    if rim:  # (an L of face colour round two sides, a groove's width off the face)
        for a, b in ((complex(-1.25, -1.25), complex(1.1, -1.1)), (complex(-1.25, -1.25), complex(-1.1, 1.1))):
            pts = np.array([at(a), at(complex(b.real, a.imag) if b.imag < 0 else complex(a.real, b.imag)), at(b),
                            at(complex(b.real, -1.1) if b.imag < 0 else complex(-1.1, -1.1))])
            cv2.fillConvexPoly(img, pts, (235, 235, 235))
    square = np.array([at(complex(x, y)) for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    cv2.fillConvexPoly(img, square, (235, 235, 235))
    r = int(0.16 * half)
    for i, z in enumerate(LAYOUTS[value]):
        z = z * 2 * 0.5 if value != 1 else z  # (layout places in half-sides, here: a quarter of the side)
        if cut and i == 0:
            z = complex(-0.98, -0.98)
        cv2.circle(img, at(z), r, (25, 25, 25), -1)
    if mark is not None:
        x, y, level = mark
        cv2.circle(img, at(complex(x, y)), r, (level, level, level), -1)
    img = cv2.resize(img, (96, 96), interpolation=cv2.INTER_AREA)
    img = cv2.GaussianBlur(img, (0, 0), 0.7)
    return img, np.full((96, 96), 255, np.uint8)


def _read(img, mask, quick_faces: bool = True):
    before = dice_crop.QUICK_FACES
    dice_crop.QUICK_FACES = quick_faces
    try:
        with at_face_px(PX, quick=True):
            return read_crop(img, mask)
    finally:
        dice_crop.QUICK_FACES = before


def _spy(monkeypatch) -> list:
    """The quick reads' answers, as they are made."""
    answers = []
    real = dice_crop.quick_face

    def spy(*args):
        got = real(*args)
        answers.append(None if got is None else got.value)
        return got

    monkeypatch.setattr(dice_crop, "quick_face", spy)
    return answers


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("turn", [0.0, 20.0, 40.0])
def test_a_clean_face_reads_the_quick_way_with_the_full_readings_value(monkeypatch, value, turn):
    img, mask = _face(value, turn)
    full = _read(img, mask, quick_faces=False)
    assert [r.value for r in full] == [value]
    answers = _spy(monkeypatch)
    got = _read(img, mask)
    assert answers[-1] == value and set(answers) <= {None, value}  # (the face read the quick way; the
    # tray round it, a region of its own colour, is no face either way)
    assert [r.value for r in got] == [value]
    # where and how big: as the full reading measures them, within a pixel or two
    assert math.dist(got[0].center, full[0].center) < 1.5
    assert abs(got[0].side - full[0].side) < 0.1 * PX


@pytest.mark.parametrize("value", [1, 3, 6])
def test_a_face_with_its_rim_beside_it_reads_the_quick_way_too(monkeypatch, value):
    img, mask = _face(value, 15.0, rim=True)
    full = _read(img, mask, quick_faces=False)
    answers = _spy(monkeypatch)
    got = _read(img, mask)
    assert answers[-1] == value and [r.value for r in got] == [r.value for r in full] == [value]
    assert got[0].center == full[0].center and got[0].side == full[0].side


@pytest.mark.parametrize("case", [dict(value=4, mark=(0.0, 0.0, 150)),  # a faint mark in a four's middle
                                  dict(value=3, mark=(-0.5, 0.5, 150)),  # ... on a three's empty corner
                                  dict(value=4, cut=True),  # a pip cut by the face's rim: a notch
                                  dict(value=5, side_face=True)])  # a side face joined on
def test_a_face_not_clearly_clean_is_left_to_the_full_reading(monkeypatch, case):
    img, mask = _face(**case)
    answers = _spy(monkeypatch)
    full = _read(img, mask, quick_faces=False)
    got = _read(img, mask)
    assert answers and not any(answers)  # (every face region refused the quick way)
    assert [r.value for r in got] == [r.value for r in full]


def test_the_still_reader_never_reads_the_quick_way(monkeypatch):
    def refuse(*args):
        raise AssertionError("a quick read outside a quick look")

    monkeypatch.setattr(dice_crop, "quick_face", refuse)
    img, mask = _face(5)
    big = cv2.resize(img, (192, 192), interpolation=cv2.INTER_LINEAR)
    assert [r.value for r in read_crop(big, cv2.resize(mask, (192, 192)))] == [5]  # (at FACE_PX, no quick look)
    with at_face_px(PX):  # a crop read at 48 that is no quick look reads the full way too
        assert [r.value for r in read_crop(img, mask)] == [5]


def test_every_threshold_is_stricter_than_the_full_readings():
    assert quick.FIT_RMS < 0.1 and quick.ACE_OFF < 0.18 and quick.ACE_SIZE[1] < 0.36
