"""Coverage under warm light that clips the paper's red channel: that channel's gain on
log-contrast is measured and undone (channel_gain.py), and never invented where no channel clips
or the sheets need none."""

from __future__ import annotations

from functools import partial

import numpy as np

from companion.vision import coverage as cov
from companion.vision.channel_gain import NO_GAIN, channel_gains
from companion.vision.colourmasks import EXPEDITIONS
from companion.vision.render import encode_jpeg, random_scene, render
from tests.coverage_helpers import coverage_score, scored_with_and_without
from tests.test_vision_tone import _field, _named

S_LO, S_HI = cov.GREY_LO, cov.GREY_HI


def _gains(box, L, paper_level, usable=None):
    """channel_gains on log-transmissions ``L`` whose paper the camera put at ``paper_level`` (RGB)."""
    h, w = L.shape[:2]
    photo = np.empty((h, w, 3), np.uint8)
    photo[:] = np.asarray(paper_level, np.uint8)
    everywhere = np.ones((h, w), bool)
    return channel_gains(L, photo, everywhere, everywhere if usable is None else usable,
                         box.sheet_colours, EXPEDITIONS, S_LO, S_HI)


def _red_compressed(L, k):
    seen = L.copy()
    seen[..., 0] *= np.float32(k)
    return seen


def test_no_gain_for_the_profiles_own_colours_plain_paper_or_nothing_seen(box):
    L, _ = _field(box)
    assert _gains(box, L, (252, 240, 190)) == NO_GAIN  # clipped red, but the sheets need nothing
    assert _gains(box, L, (230, 225, 210)) == NO_GAIN
    paper = np.random.default_rng(3).normal(0.0, 0.02, L.shape).astype(np.float32)
    assert _gains(box, paper, (252, 240, 190)) == NO_GAIN
    assert _gains(box, L, (252, 240, 190), np.zeros(L.shape[:2], bool)) == NO_GAIN


def test_a_clipped_red_channel_is_measured_and_undone(box):
    """Red log-contrast about halved (the independent sheets' red at log 0.57 instead of 0.35):
    the red gain found undoes it, and the colour match names the sheets again."""
    L, bits = _field(box)
    seen = _red_compressed(L, 0.55)
    g = _gains(box, seen, (250, 240, 190))
    assert g[1:] == (1.0, 1.0) and abs(g[0] - 1 / 0.55) < 0.25, g
    single = np.isin(bits, [1, 2, 4, 8])
    right = np.mean(_named(box, seen * np.float32(g))[single] == bits[single])
    assert right > 0.9, right
    assert np.mean(_named(box, seen)[single] == bits[single]) < right - 0.1  # what the gain is for


def test_no_gain_when_the_paper_is_not_at_the_top_of_the_range(box):
    """The same sheets with the paper's red well below clipping: no channel is searched (a hue
    change of the camera's is the colour map's, colour_adapt.colour_correction)."""
    L, _ = _field(box)
    assert _gains(box, _red_compressed(L, 0.55), (225, 240, 190)) == NO_GAIN


def _warm_scene(box, seed):
    """random_scene's broad scene ``seed`` under forced warm light (3500-3800 K, exposure 1.0-1.1):
    the paper's red clips (the development stress set's lighting)."""
    scene = random_scene(box, seed, 1600, 1200, broad=True)
    rng = np.random.default_rng([seed, 3])
    scene.lighting = dict(scene.lighting, colour_temperature_k=float(rng.uniform(3500, 3800)),
                          exposure=float(rng.uniform(1.0, 1.1)))
    return scene


def test_a_warm_photo_whose_red_clips_keeps_its_sheets(box, monkeypatch):
    """End to end, as rendered: warm light clips the paper's red (a tenth of the photo at 254-255), so
    the sheets' red contrast shrinks; without the red gain two hexes under blue sheets are missed."""
    scene = _warm_scene(box, 62012)
    image, truth = render(box, scene)
    assert np.mean(image[..., 0] >= 254) > 0.05  # the paper's red is clipped (about a tenth of the photo)
    data = encode_jpeg(image, scene.jpeg_quality)

    with_gain, without = scored_with_and_without(box, data, truth, monkeypatch, cov, "CHANNEL_GAIN")
    assert with_gain.errors == 0, with_gain.error_list
    assert without.false_uncovered >= 2, without.error_list  # what the gain is for


def test_the_unseen_tests_read_the_photo_as_taken_not_through_the_gain(box, monkeypatch):
    """The second phone's dev seed 43040, ordinary light: its shadow lift puts the paper's red at the
    top, and the red gain found is 1.2.  The gain darkens the sheets' red for the colour match;
    read through it, they passed too little light for the glare veil measured beside them and about
    a hundred more decisions were left undecided (coverage.UNSEEN_AS_TAKEN)."""
    from tests.phone_pipeline import second_phone

    scene = random_scene(box, 43040, 1600, 1200, broad=True)
    image, truth = render(box, scene)
    data = second_phone(image, np.random.default_rng(43040))
    gains = []
    real = cov.channel_gains
    monkeypatch.setattr(cov, "channel_gains", lambda *a: gains.append(real(*a)) or gains[-1])

    score = partial(coverage_score, box, data, truth)

    as_taken = score()
    assert gains[-1][0] > 1.0, gains  # the red gain this test is about
    assert as_taken.errors == 0, as_taken.error_list
    monkeypatch.setattr(cov, "UNSEEN_AS_TAKEN", False)
    through_gain = score()
    assert through_gain.errors == 0, through_gain.error_list
    assert through_gain.unknown_visible >= as_taken.unknown_visible + 50, (through_gain.unknown_visible,
                                                                         as_taken.unknown_visible)
