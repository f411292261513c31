"""A small light die on a white table read by the blurred-layout fit, its face found by its chroma
(``dice_blur_fit.LIGHT_DIE_FACE_BY_CHROMA``; docs/dice-camera.md, fortieth round, h2).

Drawn dice: a pastel face with dark pips on a white table, a grey shadow beside it (the table dimmed,
larger in colour distance than the face: the distance silhouette is the die with its shadow, not a
square), turned, blurred, noisy, 46 px across in a 4000x3000 photo, reported unreadable: with the
switch on the report takes the face's value; off it stays unreadable. A white die on white (no
chroma) stays unreadable either way. Rendered: development light 3322 (a defocused pink five, 54 px,
reported "2 pips off layout")."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import companion.vision.dice_blur_fit as bf
from companion.vision.dice import Die, ReaderSettings

LAY = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
       4: [(-1, -1), (1, 1), (-1, 1), (1, -1)], 5: [(-1, -1), (1, 1), (-1, 1), (1, -1), (0, 0)],
       6: [(-1, -1), (1, 1), (-1, 1), (1, -1), (-1, 0), (1, 0)]}
CX, CY, SIDE = 2000.0, 1500.0, 46.0
WHITE = (250, 250, 250)


def _photo(value, face=(215, 190, 245), pip=(90, 80, 110), sigma_sides=0.09, turn=20.0, seed=0):
    """A 4000x3000 photo, a white table, one die (a pink face, dark pips) at CX, CY with its shadow
    (the table at 0.55 of its brightness) cast 0.45 of a side left and down, blurred, noisy."""
    rng = np.random.default_rng(seed)
    h, w = 400, 400  # (drawn in a patch round the die, 4x supersampled, pasted into the photo)
    k = 4
    big = np.zeros((h * k, w * k, 3), np.float32)
    big[:] = WHITE
    c = (w * k / 2, h * k / 2)
    s = SIDE * k
    shadow = cv2.boxPoints(((c[0] - 0.45 * s, c[1] + 0.3 * s), (1.15 * s, 1.15 * s), turn)).astype(np.int32)
    cv2.fillConvexPoly(big, shadow, tuple(0.55 * v for v in WHITE))
    box = cv2.boxPoints((c, (s, s), turn)).astype(np.int32)
    cv2.fillConvexPoly(big, box, face)
    a = math.radians(turn)
    for pu, pv in ([] if value is None else LAY[value]):
        u, v = pu * 0.27 * s, pv * 0.27 * s
        x = c[0] + u * math.cos(a) - v * math.sin(a)
        y = c[1] + u * math.sin(a) + v * math.cos(a)
        cv2.circle(big, (int(x), int(y)), int(0.085 * s), pip, -1)
    patch = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    patch = cv2.GaussianBlur(patch, (0, 0), sigma_sides * SIDE)
    patch += rng.normal(0, 2.0, patch.shape).astype(np.float32)
    img = np.empty((3000, 4000, 3), np.uint8)
    img[:] = WHITE  # (the table far from the die: only the patch is looked at)
    img[int(CY) - h // 2:int(CY) + h // 2, int(CX) - w // 2:int(CX) + w // 2] = np.clip(patch, 0, 255)
    return img


def _read(img, report_side=70.0):
    # (reported as the reader does such a die: its blob, the shadow in it, about 1.5 of its side)
    st = ReaderSettings()
    d = Die(None, (CX - 6.0, CY + 4.0), 0.0, report_side, "no pips")
    return bf.read_blurred_unread(img, [d], st.work_px, st.min_die_frac)[0]


@pytest.mark.parametrize("value", [2, 3, 4, 5, 6])
def test_a_light_face_beside_its_shadow_takes_its_value(monkeypatch, value):
    img = _photo(value, seed=value)  # (the switch at its default)
    got = _read(img)
    assert got.value == value
    assert math.dist(got.center, (CX, CY)) < 0.2 * SIDE
    monkeypatch.setattr(bf, "LIGHT_DIE_FACE_BY_CHROMA", False)
    assert _read(img).value is None  # (the distance silhouette is the die with its shadow)


def test_a_white_die_on_white_stays_unreadable(monkeypatch):
    # (no chroma to find its face by; its distance silhouette is the die with its shadow)
    monkeypatch.setattr(bf, "LIGHT_DIE_FACE_BY_CHROMA", True)
    img = _photo(5, face=(245, 245, 245), seed=11)
    assert bf._chroma_silhouette(img[1416:1584, 1916:2084].astype(np.float32)) is None
    assert _read(img).value is None


def test_rendered_light_3322_pink_five_read_right_none_wrong(monkeypatch):
    from companion.vision.dice import read_dice
    from companion.vision.dice_eval import score_scene
    from tests.dice_raymarch_light import render_light

    scene = render_light(3322)
    on = score_scene(scene, read_dice(scene.image)).counts  # (the switch at its default)
    monkeypatch.setattr(bf, "LIGHT_DIE_FACE_BY_CHROMA", False)
    off = score_scene(scene, read_dice(scene.image)).counts
    assert on["right"] == off["right"] + 1  # (the pink five)
    assert on["unread"] == off["unread"] - 1
    assert on["wrong"] == off["wrong"] == 0
    assert on["extra"] == off["extra"] and on["missed"] == off["missed"]
    assert on.get("near_wrong", 0) == off.get("near_wrong", 0)
