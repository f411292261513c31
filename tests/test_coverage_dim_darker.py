"""A film whose dim channels a light with narrow peaks sank, seen by the sheet fitter
(companion/vision/coverage_ray.py, "a film's dim channels darker"; coverage.DIM_DARKER_SEEN_BY_FITTER)."""

import numpy as np
import pytest

from companion.box_profiles import load_box
from companion.vision import coverage as cov
from companion.vision import coverage_ray as cr
from companion.vision.transmission import MISFIT
from tests.coverage_helpers import raycast_photo, sheets_and_covered

EX = cov.EXPEDITIONS
I, J, B, A = (1 << EX.index(e) for e in ("independent", "japanese", "british", "american"))


@pytest.fixture(scope="module")
def box():
    return load_box()


def _log(box, e):
    return np.log(np.asarray(box.sheet_colours[e], float) / 255.0)


def test_dim_channels_darker_is_the_film_an_overlap_is_not(box):
    blue, yellow, red = _log(box, "american"), _log(box, "japanese"), _log(box, "british")
    sunk_blue = np.array([[-1.4, -2.2, -0.1], [-3.05, -4.6, 0.15]])  # fluorescent / warm LED (development 18, 9)
    assert cr._dim_darker(sunk_blue, blue).all()
    assert cr._dim_darker(np.array([[-0.1, -0.3, -4.5]]), yellow).all()  # a yellow film's blue sunk (14)
    # a yellow film over a blue one darkens the blue film's blue: not a blue film
    assert not cr._dim_darker((blue + yellow)[None], blue).any()
    # a blue film over a yellow one darkens its red and green: not a yellow film
    assert not cr._dim_darker((blue + yellow)[None], yellow).any()
    # a blend of the blue film and paper at its edge: dim channels lighter than the film's
    assert not cr._dim_darker(np.log(0.5 + 0.5 * np.exp(blue))[None], blue).any()
    # a red film passes one channel: a yellow film over it passes it too (named the pair by the
    # match, it never enters the pool; the test alone cannot tell it)
    assert cr._dim_darker((red + yellow)[None], red).all()


def _plane(box, plain_blue: bool = False):
    """A 3 px/mm plane: a blue film whose green sank (coded blue, misfit), a yellow film whose blue
    sank (coded yellow, misfit), a green film at the profile's colour (coded green)."""
    L = np.zeros((120, 420, 3), np.float32)
    code = np.zeros((120, 420), np.uint8)
    L[20:100, 20:110], code[20:100, 20:110] = (-1.45, -2.3, -0.15), A | MISFIT
    L[20:100, 160:250], code[20:100, 160:250] = (-0.1, -0.25, -4.2), J | MISFIT
    L[20:100, 300:390], code[20:100, 300:390] = _log(box, "independent"), I
    if plain_blue:  # the same blue film elsewhere at the profile's colour
        L[100:120, 0:420], code[100:120, 0:420] = _log(box, "american"), A
    return L, code


def test_sunk_films_freed_for_the_fitter(box):
    L, code = _plane(box)
    where = (code & MISFIT) > 0
    out = cr.dim_darker_hue(L, code, where, box.sheet_colours, EX, 3.0, plain=~where)
    assert out[20:100, 20:110].all() and out[20:100, 160:250].all()
    assert not out[:, 280:].any()


def test_film_seen_plainly_elsewhere_is_not_freed(box):
    """One light, one film: a blue film at the profile's colour elsewhere says the darker blue is no
    light's doing (two blue sheets stacked, development 12)."""
    L, code = _plane(box, plain_blue=True)
    where = (code & MISFIT) > 0
    out = cr.dim_darker_hue(L, code, where, box.sheet_colours, EX, 3.0, plain=~where)
    assert not out[20:100, 20:110].any()
    assert out[20:100, 160:250].all()  # the yellow film is still freed
    cr.PLAIN_FILM_GUARD = False
    try:
        assert cr.dim_darker_hue(L, code, where, box.sheet_colours, EX, 3.0, plain=~where)[20:100, 20:110].all()
    finally:
        cr.PLAIN_FILM_GUARD = True


@pytest.fixture(scope="module")
def warm_led_photo(box):
    """The second generator's development photo 15 (warm LED, 1600 x 1200): its blue films' red at
    -2.7 .. -2.9 against the profile's -1.16 (green -1.4 against -0.75), misfit; uncalibrated, the
    fitter saw too little of them to name one."""
    return raycast_photo(box, 15)



def test_warm_led_blue_films_named(box, warm_led_photo, monkeypatch):
    photo, scene = warm_led_photo
    # measured without session 38's red-film rules (coverage_red_film.py), which name this photo's
    # two British sheets whichever way this rule is switched (and leave two others unidentified)
    monkeypatch.setattr(cov, "RED_FILM_SEEN_BY_FITTER", False)
    monkeypatch.setattr(cov, "RED_FILM_NEITHER", False)
    on, covered_on = sheets_and_covered(box, photo, scene)
    monkeypatch.setattr(cov, "DIM_DARKER_SEEN_BY_FITTER", False)
    off, covered_off = sheets_and_covered(box, photo, scene)
    assert covered_on == covered_off  # the fitter's view only: coverage's decisions do not move
    assert on.wrong == 0 and on.extra_named == 0
    assert on.right >= off.right + 3  # measured 9 against 5
    assert on.right >= 8
