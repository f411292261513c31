"""A film's own colour beside clipped glare shown to the sheet fitter
(coverage_glare_rim.GLARE_RIM_SEEN_BY_FITTER): drawn planes for what is freed and what stays unseen,
and the second generator's development photo 76, whose green sheet is half clipped by glare."""

import numpy as np
import pytest

from companion.box_profiles import load_box
from companion.vision import coverage_glare_rim as gr
from companion.vision.transmission import MISFIT
from tests.coverage_helpers import raycast_photo, sheets_and_covered


def _planes():
    """A 60 x 60 patch: a clipped core (columns 0-19), glare's fade over columns 0-39, a film named
    expedition 1 alone over columns 20-59, with a misfit strip (rows 0-9), a two-expedition strip
    (rows 10-19) and a dark overlap strip (rows 20-29) inside the fade."""
    h, w = 60, 60
    fit_glare = np.zeros((h, w), bool)
    fit_glare[:, :40] = True
    clipped = np.zeros((h, w), bool)
    clipped[:, :20] = True
    bright = np.zeros((h, w), bool)
    haze = np.zeros((h, w), bool)
    code = np.zeros((h, w), np.uint8)
    code[:, 20:] = 2  # expedition 1 alone
    code[0:10, 20:] |= MISFIT
    code[10:20, 20:] = 2 | 4  # two expeditions
    L = np.full((h, w), -0.5, np.float32)
    L[20:30, 20:] = -1.6  # under two films: too dark
    bits = code & 15
    one = (bits != 0) & ((bits & (bits - 1)) == 0)
    return fit_glare, bright, haze, clipped, code, [L, L, L], one


def test_rim_freed_core_and_doubtful_kept_unseen():
    fit_glare, bright, haze, clipped, code, Lc, one = _planes()
    rim = gr.rim_seen_by_fitter(fit_glare, bright, haze, clipped, code, Lc, -0.9, one, MISFIT)
    assert rim is not None
    assert rim[30:, 20:40].all()  # the film's own colour in the fade: seen
    assert not rim[:, :20].any()  # the clipped core: never
    assert not rim[:, 40:].any()  # outside the fitter's glare nothing changes
    assert not rim[0:20].any()  # misfit, or named two expeditions: still unseen
    if gr.OVERLAP_UNSEEN:
        assert not rim[20:30].any()
    # glare (too bright) and haze stay unseen too
    bright2 = np.zeros_like(bright)
    bright2[30:, 20:40] = True
    for b, hz in ((bright2, haze), (bright, bright2)):
        again = gr.rim_seen_by_fitter(fit_glare, b, hz, clipped, code, Lc, -0.9, one, MISFIT)
        assert again is None or not again[30:, 20:40].any()


@pytest.fixture(scope="module")
def box():
    return load_box()


@pytest.fixture(scope="module")
def glare_photo(box):
    """Development photo 76 (second generator): the Independent surface camera's upper half clipped
    white by the film's reflection, its lower half green; coverage's glare (the core grown by its
    fade) covered the green too, and the fitter, given the same mask, missed the sheet."""
    return raycast_photo(box, 76)


def _green_camera_missed(score):
    return any(t is not None and t.expedition == "independent" and t.equipment == "surface_camera"
               for _e, what, t, _f in score.errors if what in ("missed", "unidentified", "wrong"))


def test_half_clipped_green_sheet_named(box, glare_photo, monkeypatch):
    photo, scene = glare_photo
    monkeypatch.setattr(gr, "GLARE_RIM_SEEN_BY_FITTER", True)  # (set on: the test holds if it is committed off)
    monkeypatch.setattr(gr, "CAGE_ON_RIM_UNNAMED", True)
    s_on, cov_on = sheets_and_covered(box, photo, scene)
    assert not _green_camera_missed(s_on)
    assert s_on.wrong == 0 and s_on.extra_named == 0
    monkeypatch.setattr(gr, "GLARE_RIM_SEEN_BY_FITTER", False)
    s_off, cov_off = sheets_and_covered(box, photo, scene)
    assert _green_camera_missed(s_off)
    assert s_off.right == s_on.right - 1
    # the fitter's view only: coverage's hexes the same both ways
    assert {e: sorted(v) for e, v in cov_on.items()} == {e: sorted(v) for e, v in cov_off.items()}


def test_one_clipped_channel_stays_unseen(monkeypatch):
    """A film lifted by glare until one channel clips no longer keeps its hue (the clipped channel
    stops rising, the others do not): those pixels stay unseen to the fitter."""
    fit_glare, bright, haze, clipped, code, Lc, one = _planes()
    monkeypatch.setattr(gr, "ANY_CLIPPED", True)
    wmin = np.full(code.shape, 120, np.uint8)
    wmin[:, :20] = 240  # the clipped core: the photo's top is 240 (a phone's white balance under 255)
    wmax = np.full(code.shape, 200, np.uint8)
    wmax[45:, 20:40] = 238  # one channel at the top
    rim = gr.rim_seen_by_fitter(fit_glare, bright, haze, clipped, code, Lc, -0.9, one, MISFIT, 3.0, wmin, wmax)
    assert rim is not None and rim[30:45, 20:40].all()
    assert not rim[45:, 20:40].any()


def test_cage_on_the_fade_unnamed(box, monkeypatch):
    """A cage fitted on colour the fade of glare showed is reported unidentified; one on colour seen
    plainly is not; with CAGE_ON_RIM_UNNAMED off both stay named."""
    from companion.vision.sheetfit import FittedSheet
    from companion.vision.sheets import SheetPose

    monkeypatch.setattr(gr, "CAGE_ON_RIM_UNNAMED", True)
    ppm, x0, y0 = 3.0, 0.0, 0.0
    shape = (int(200 * ppm), int(200 * ppm))
    colour = np.zeros(shape, bool)
    colour[int(30 * ppm):int(70 * ppm), int(30 * ppm):int(70 * ppm)] = True
    colour[int(130 * ppm):int(170 * ppm), int(130 * ppm):int(170 * ppm)] = True
    rim = np.zeros(shape, bool)
    rim[: int(100 * ppm), : int(100 * ppm)] = True  # the fade over the first patch only
    cages = [FittedSheet(SheetPose("british", "cage", 50.0, 50.0, 0.0), 1.0, 90.0),
             FittedSheet(SheetPose("british", "cage", 150.0, 150.0, 0.0), 1.0, 90.0)]
    out = gr.cages_on_rim(box, {"british": cages}, rim, {"british": colour}, x0, y0, ppm)
    assert [f.identified for f in out["british"]] == [False, True]
    monkeypatch.setattr(gr, "CAGE_ON_RIM_UNNAMED", False)
    out = gr.cages_on_rim(box, {"british": cages}, rim, {"british": colour}, x0, y0, ppm)
    assert [f.identified for f in out["british"]] == [True, True]
