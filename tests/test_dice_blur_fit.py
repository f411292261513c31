"""A small defocused die read by fitting each layout's pips, blurred as its face's edge is, to its face
(``dice_blur_fit.UNREAD_READ_BY_BLURRED_LAYOUT``; docs/dice-camera.md, thirty-ninth round, h1).

Drawn dice: a face with its pips on felt, turned, blurred (a Gaussian as the renderer's defocus and
about as a lens's) with noise, 46 px across in a 4000x3000 photo, reported unreadable: with the rule
on the report takes the face's value; off it stays unreadable. A face with no pips, and one blurred so
far that its dips are gone, stay unreadable (the contract: no value when no layout fits clearly best).
Rendered: development ray 3229 (its four defocused 43-49 px dice reported "no pips" by the reader)."""

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


def _photo(value, sigma_sides=0.12, turn=23.0, seed=0, face=(40, 200, 220), pip=(20, 20, 20)):
    """A 4000x3000 photo, green felt, one die (yellow face, black pips) at CX, CY, blurred, noisy."""
    rng = np.random.default_rng(seed)
    h, w = 400, 400  # (drawn in a patch round the die, 4x supersampled, pasted into the photo)
    k = 4
    big = np.zeros((h * k, w * k, 3), np.float32)
    big[:] = (40, 120, 30)
    c = (w * k / 2, h * k / 2)
    s = SIDE * k
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
    patch += rng.normal(0, 3.0, patch.shape).astype(np.float32)
    img = np.empty((3000, 4000, 3), np.uint8)
    img[:] = (40, 120, 30)  # (the felt far from the die: only the patch is looked at)
    img[int(CY) - h // 2:int(CY) + h // 2, int(CX) - w // 2:int(CX) + w // 2] = np.clip(patch, 0, 255)
    return img


def _read(img, report_side=50.0):
    st = ReaderSettings()
    d = Die(None, (CX + 2.0, CY - 3.0), 0.0, report_side, "no pips")
    return bf.read_blurred_unread(img, [d], st.work_px, st.min_die_frac)[0]


@pytest.mark.parametrize("value", [2, 3, 4, 5, 6])
def test_a_defocused_face_takes_the_value_its_dips_fit(monkeypatch, value):
    img = _photo(value, seed=value)
    got = _read(img)
    assert got.value == value
    assert math.dist(got.center, (CX, CY)) < 0.2 * SIDE
    monkeypatch.setattr(bf, "UNREAD_READ_BY_BLURRED_LAYOUT", False)
    assert _read(img).value is None


def test_no_pips_or_blurred_past_the_dips_stays_unreadable():
    assert _read(_photo(None, seed=7)).value is None  # (a face and no dips: no layout explains it)
    assert _read(_photo(4, sigma_sides=0.45, seed=8)).value is None  # (the dips smeared flat)


def test_a_small_report_in_a_webcam_frame_is_not_asked():
    # (640x480: read at full resolution already -- the face reader saw the pips it could)
    img = cv2.resize(_photo(5, seed=9)[1300:1700, 1800:2200], (640, 640))[:480]
    st = ReaderSettings()
    d = Die(None, (320.0, 200.0), 0.0, 60.0, "no pips")
    assert bf.read_blurred_unread(img, [d], st.work_px, st.min_die_frac)[0].value is None


def test_rendered_ray_3229_defocused_sixes_read_right_none_wrong(monkeypatch):
    from companion.vision.dice import read_dice
    from companion.vision.dice_eval import score_scene
    from tests.dice_raymarch import render_raymarch

    scene = render_raymarch(3229)
    default = bf.UNREAD_READ_BY_BLURRED_LAYOUT  # (the rule as the reader has it: on)
    monkeypatch.setattr(bf, "UNREAD_READ_BY_BLURRED_LAYOUT", False)
    off = read_dice(scene.image)
    st = ReaderSettings()
    monkeypatch.setattr(bf, "UNREAD_READ_BY_BLURRED_LAYOUT", default)
    on = bf.read_blurred_unread(scene.image, off, st.work_px, st.min_die_frac)
    c_off, c_on = score_scene(scene, off).counts, score_scene(scene, on).counts
    assert c_on["right"] >= c_off["right"] + 2  # (the yellow and the marbled blue six)
    assert c_on["wrong"] == c_off["wrong"] == 0
    assert c_on["extra"] == c_off["extra"] and c_on["missed"] == c_off["missed"]
    assert c_on.get("near_wrong", 0) == c_off.get("near_wrong", 0)
