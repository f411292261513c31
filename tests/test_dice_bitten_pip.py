"""A corner pip bitten out of the face region's edge (companion/vision/dice_bitten_pip.py): the
face's rounded edge lit at one corner runs, blurred, into the corner pip there, which then opens to
the outside of the face region and is never found; the other pips make no layout.

Dice are drawn with OpenCV: a square face turned 20 degrees, round pips at the usual places, a band
of lit rim (lighter than the face) round one corner, Gaussian defocus, noise.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import companion.vision.dice_pips as dice_pips
from companion.vision.dice import read_dice
from tests.test_dice_pip_blobs import PLACES

BLACK_RED = ((30, 28, 30), (45, 40, 190))
BLACK_WHITE = ((28, 28, 30), (235, 235, 235))
BLUE = ((165, 85, 25), (238, 238, 238))


def die_with_a_lit_corner(value, colours, blur, side=64.0, angle=20.0, place=0.6, pip_r=0.11, rim=0.13, seed=0):
    """A 640x480 photo of one die on a light grey table: face ``side`` px, pips ``pip_r`` sides
    across at ``place`` of the half-side, the rim ``rim`` sides wide lit grey round the corner at
    +u, -v (a light beyond it), defocused by a Gaussian of ``blur`` px, noise 3."""
    body, pip = colours
    h, w = 480, 640
    img = np.full((h, w, 3), (200, 200, 200), np.float32)
    c = np.array([w / 2, h / 2])
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u = ((xx - c[0]) * rot[0, 0] + (yy - c[1]) * rot[1, 0]) / side  # (the face's own axes, in sides)
    v = ((xx - c[0]) * rot[0, 1] + (yy - c[1]) * rot[1, 1]) / side
    face = ((np.abs(u) <= 0.5) & (np.abs(v) <= 0.5)).astype(np.float32)
    band = face * ((np.maximum(np.abs(u), np.abs(v)) > 0.5 - rim) & (u > 0.1) & (v < -0.1)).astype(np.float32)
    pips = np.zeros((h, w), np.float32)
    for p in PLACES[value]:
        x, y = c + rot @ (np.array(p) * place * side)
        cv2.circle(pips, (int(round(x)), int(round(y))), int(round(pip_r * side)), 1.0, -1, cv2.LINE_AA)
    body_px = np.array(body, np.float32) * (1 - band[..., None]) + np.float32(150) * band[..., None]
    die = body_px * (1 - pips[..., None]) + np.array(pip, np.float32) * pips[..., None]
    img = img * (1 - face[..., None]) + die * face[..., None]
    img = cv2.GaussianBlur(img, (0, 0), blur) + np.random.default_rng(seed).normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def values_read(img, look: bool, monkeypatch) -> list:
    monkeypatch.setattr(dice_pips, "BITTEN_PIP_LOOK", look)
    return [d.value for d in read_dice(img)]


@pytest.mark.parametrize("value,colours,blur", [(4, BLUE, 2.5), (4, BLACK_RED, 2.5), (5, BLACK_RED, 1.5)])
def test_a_corner_pip_run_into_the_lit_rim_completes_its_layout(value, colours, blur, monkeypatch):
    """Measured: unread without the look (the other pips make no layout), read with it."""
    img = die_with_a_lit_corner(value, colours, blur, seed=value)
    assert values_read(img, False, monkeypatch) == [None]
    assert values_read(img, True, monkeypatch) == [value]


@pytest.mark.parametrize("colours", [BLACK_RED, BLACK_WHITE, BLUE])
@pytest.mark.parametrize("blur", [1.5, 2.5, 3.5])
def test_dice_with_a_lit_corner_are_read_right_or_not_at_all(colours, blur, monkeypatch):
    """Every value, 1.5-3.5 px of defocus: read right or left unread with the look (measured: no
    wrong value; fours and fives read that were unread)."""
    for value in range(1, 7):
        values = values_read(die_with_a_lit_corner(value, colours, blur, seed=value), True, monkeypatch)
        assert values in ([value], [None], []), (value, values)
