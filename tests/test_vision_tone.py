"""Coverage through a phone's tone curve: the gain on log-contrast is measured and undone
(colour_adapt.tone_gain), and never invented for a photo that needs none."""

from __future__ import annotations


import numpy as np
import pytest

from companion.vision import coverage as cov
from companion.vision.colour_adapt import tone_gain
from companion.vision.colourmasks import EXPEDITIONS
from companion.vision.render import encode_jpeg, random_scene, render
from companion.vision.sheets import SheetPose
from companion.vision.transmission import packed_bins, table
from tests.coverage_helpers import scored_with_and_without

S_LO, S_HI = cov.GREY_LO, cov.GREY_HI


def _field(box, shape=(240, 720)):
    """Plain paper with a band of each expedition's sheet, two overlaps, shade and noise
    (log-transmission), and each pixel's expedition bits as the profile names them."""
    rng = np.random.default_rng(11)
    h, w = shape
    a = {e: np.log(np.asarray(box.sheet_colours[e], np.float32) / 255.0) for e in EXPEDITIONS}
    bands = [(1 << i, a[e]) for i, e in enumerate(EXPEDITIONS)]
    bands += [(1 | 4, a["independent"] + a["british"]), (2 | 8, a["japanese"] + a["american"])]
    L = np.zeros((h, w, 3), np.float32)
    bits = np.zeros((h, w), np.uint8)
    step = w // (len(bands) + 1)  # the last band is plain paper
    for k, (b, v) in enumerate(bands):
        L[:, k * step:(k + 1) * step] += v
        bits[:, k * step:(k + 1) * step] = b
    L += np.linspace(-0.15, 0.0, h, dtype=np.float32)[:, None, None]
    L += rng.normal(0.0, 0.02, L.shape).astype(np.float32)
    return L, bits


def _named(box, L):
    key = tuple(tuple(float(v) for v in box.sheet_colours[e]) for e in EXPEDITIONS)
    return table(key, S_LO, S_HI).lookup_packed(packed_bins(L), -0.9) & 15


def _shadow_lift(L, a: float, white: float = 0.85):
    """A phone's shadow-lifting tone curve, log(1 + a x) / log(1 + a), on paper ``white`` bright
    and divided by what it makes of the paper (the lighting fit does that)."""
    f = lambda x: np.log1p(a * x) / np.log1p(a)  # noqa: E731
    return (np.log(f(white * np.exp(L))) - np.log(f(white))).astype(np.float32)


def test_no_gain_for_the_profiles_own_colours_or_plain_paper(box):
    L, _ = _field(box)
    usable = np.ones(L.shape[:2], bool)
    assert tone_gain(L, usable, box.sheet_colours, EXPEDITIONS, S_LO, S_HI) == 1.0
    paper = np.random.default_rng(3).normal(0.0, 0.02, L.shape).astype(np.float32)
    assert tone_gain(paper, usable, box.sheet_colours, EXPEDITIONS, S_LO, S_HI) == 1.0
    assert tone_gain(L, np.zeros(L.shape[:2], bool), box.sheet_colours, EXPEDITIONS, S_LO, S_HI) == 1.0


@pytest.mark.parametrize("factor, within", [(0.55, 0.12), (0.7, 0.12), (1.5, 0.1), (1.7, 0.1)])
def test_a_gamma_or_a_stretched_contrast_is_measured_and_undone(box, factor, within):
    """A gamma multiplies every log-transmission by itself (0.55, 0.7); a phone's S-curve and gamma
    can stretch log-contrast instead (1.5, 1.7: the first phone of tests/phone_pipeline), every
    sheet then reading as one and a half or two of its kind. The gain found is the factor's inverse
    (under 1 for a stretch), and with it the colour match names the bands as on the profile's own
    colours."""
    L, bits = _field(box)
    seen = L * np.float32(factor)
    g = tone_gain(seen, np.ones(L.shape[:2], bool), box.sheet_colours, EXPEDITIONS, S_LO, S_HI)
    assert abs(g - 1 / factor) < within, g
    sheet = bits > 0
    right = np.mean(_named(box, seen * np.float32(g))[sheet] == bits[sheet])
    assert right > 0.9, right
    assert np.mean(_named(box, seen)[sheet] == bits[sheet]) < right - 0.08  # what the gain is for


def test_a_shadow_lift_is_undone_near_enough(box):
    """A shadow lift compresses light sheets more than dark overlaps (0.46-0.64 for a = 6): one
    gain still brings the single sheets back to their names."""
    L, bits = _field(box)
    seen = _shadow_lift(L, 5.0)
    g = tone_gain(seen, np.ones(L.shape[:2], bool), box.sheet_colours, EXPEDITIONS, S_LO, S_HI)
    assert 1.4 < g < 2.2, g
    single = np.isin(bits, [1, 2, 4, 8])
    assert np.mean(_named(box, seen * np.float32(g))[single] == bits[single]) > 0.9


def test_a_second_phones_photo_keeps_its_sheets(box, monkeypatch):
    """End to end: a random scene through the second phone (tests/phone_pipeline.second_phone:
    soft lens, white balance, shadow lift, colour denoising, sharpening, noise, JPEG).  Without
    the gain its blue sheets read too pale and are missed (13 hexes wrong in this scene)."""
    from tests.phone_pipeline import second_phone

    scene = random_scene(box, 37000, 1600, 1200, broad=True)
    image, truth = render(box, scene)
    data = second_phone(image, np.random.default_rng(37000))

    with_gain, without = scored_with_and_without(box, data, truth, monkeypatch, cov, "TONE_GAIN")
    assert with_gain.errors <= 1, with_gain.error_list
    assert without.false_uncovered >= 5, without.error_list  # what the gain is for


