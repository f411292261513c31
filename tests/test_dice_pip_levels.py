"""The pips-first look reads each face on its own terms, not the crop's (dice_pip_squares).

A crop round one blob holds its neighbours too. The look reads it at two levels (Otsu's, and one
set by the table's spread, under which faint pips still show) and kept the level that read more
faces, for the whole crop (LEVELS_BY_PLACE); and it held the marks alike in size and contrast over
the whole crop (PIPS_ALIKE_BY_GROUP). Either way a die unlike its neighbour was lost (light 3178, a
cream two with faint small pips beside a white three)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import companion.vision.dice_pip_squares as pip_squares
from companion.vision.dice import read_dice
from companion.vision.dice_eval import score_scene
from companion.vision.dice_pip_squares import read_by_pip_squares
from companion.vision.dice_pips import FACE_PX
from tests.dice_raymarch_light import render_light

_LAYOUT = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
           4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
           6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}
PAPER = 236


def _two_faces(rng: np.random.Generator, left: int, right: int, right_face: int = PAPER, right_pip: int = 205,
               right_radius: float = 0.085) -> tuple[np.ndarray, list]:
    """Two faces a crop's die apart, at the look's own scale (FACE_PX) on white paper: the left one
    a little darker than the paper (218) with black pips, seen only at Otsu's level (at the paper's
    spread its face is no face, its pips no holes in it); the right one the paper's colour with
    faint grey pips (205), seen only at the paper's spread. Returns the image and (value, centre)."""
    h, w = 220, 420
    img = np.full((h, w, 3), PAPER, np.float32) + rng.normal(0, 1.5, (h, w, 3)).astype(np.float32)
    truth = []
    for cx, face, pip, value, radius in ((110, 218, 35, left, 0.085), (310, right_face, right_pip, right, right_radius)):
        c = complex(cx, h / 2)
        turn = rng.uniform(0, math.pi / 2)
        half = complex(math.cos(turn), math.sin(turn)) * FACE_PX / 2
        square = [c + half * complex(x, y) for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        cv2.fillConvexPoly(img, np.int32([[z.real, z.imag] for z in square]), (face, face, face))
        for gx, gy in _LAYOUT[value]:
            p = c + half * complex(gx, gy) * 0.5
            cv2.circle(img, (int(p.real), int(p.imag)), int(FACE_PX * radius), (pip, pip, pip), -1, cv2.LINE_AA)
        truth.append((value, (c.real, c.imag)))
    return np.clip(cv2.GaussianBlur(img, (0, 0), 0.8), 0, 255).astype(np.uint8), truth


def _values_at(readings, truth) -> list:
    """Per drawn face, the value read within half a face of its centre (None: nothing there)."""
    out = []
    for _, (x, y) in truth:
        near = [r for r in readings if math.hypot(r.center[0] - x, r.center[1] - y) < FACE_PX / 2]
        out.append(near[0].value if near else None)
    return out


def _the_two_lost_then_read(monkeypatch, img, truth, switch):
    """With both per-face rules off the three alone is read; with `switch` on, the two as well."""
    whole = np.full(img.shape[:2], 255, np.uint8)
    monkeypatch.setattr(pip_squares, "LEVELS_BY_PLACE", False)
    monkeypatch.setattr(pip_squares, "PIPS_ALIKE_BY_GROUP", False)
    assert _values_at(read_by_pip_squares(img, whole), truth) == [3, None]
    monkeypatch.setattr(pip_squares, switch, True)
    assert _values_at(read_by_pip_squares(img, whole), truth) == [3, 2]


@pytest.mark.parametrize("seed", range(3))
def test_each_face_is_read_at_its_own_level(monkeypatch, seed):
    """A black-pipped three read at Otsu's level and a faint two at the paper's spread, in one crop:
    both are read; with one level for the whole crop, the two was lost."""
    img, truth = _two_faces(np.random.default_rng(seed), 3, 2)
    _the_two_lost_then_read(monkeypatch, img, truth, "LEVELS_BY_PLACE")


@pytest.mark.parametrize("seed", range(3))
def test_small_pips_beside_large_ones_are_held_alike_face_by_face(monkeypatch, seed):
    """A three with black pips and a two whose pips are half their width, both seen at one level:
    held alike over the whole crop, the two's pips were dropped as too small (a quarter of the
    three's area); held alike within each face's group, both are read."""
    img, truth = _two_faces(np.random.default_rng(seed), 3, 2, right_face=218, right_pip=35, right_radius=0.045)
    _the_two_lost_then_read(monkeypatch, img, truth, "PIPS_ALIKE_BY_GROUP")


@pytest.mark.parametrize("left,right", [(5, 4), (6, 3), (4, 6), (2, 5), (1, 6)])
def test_faces_read_at_either_level_are_read_right_or_not_at_all(left, right):
    """Other values, either way round: a face taken from the other level is its own value, and no
    reading lies off the two faces (a part of a face read at the other level)."""
    for seed in range(2):
        img, truth = _two_faces(np.random.default_rng(10 + seed), left, right)
        got = read_by_pip_squares(img, np.full(img.shape[:2], 255, np.uint8))
        assert all(v in (None, t) for v, (t, _) in zip(_values_at(got, truth), truth))
        assert len([r for r in got if r.value is not None]) == len([v for v in _values_at(got, truth) if v])


def test_rendered_cream_two_beside_a_white_three_is_read(monkeypatch):
    """Development light 3178 (a 1600 px phone photo, tilted 21 degrees): a cream two on white paper,
    its pips faint and small, its crop holding a white three's pips. One level and one pip size for
    the crop lost the two (each rule alone reads it: checked when written, each read 7 of 7); face by
    face it is read, and nothing is read wrong."""
    scene = render_light(3178)
    counts = []
    for on in (False, True):
        monkeypatch.setattr(pip_squares, "LEVELS_BY_PLACE", on)
        monkeypatch.setattr(pip_squares, "PIPS_ALIKE_BY_GROUP", on)
        counts.append(score_scene(scene, read_dice(scene.image)).counts)
    off, on = counts
    assert on["right"] == off["right"] + 1 and on["missed"] == off["missed"] - 1
    assert on["wrong"] == 0 and on["near_wrong"] == 0 and on["extra"] == 0
