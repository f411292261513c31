"""A colour between two expeditions' colours, under a light that moves films' colours, is given to
neither (companion/vision/coverage_between.py, coverage.BETWEEN_NEITHER)."""

import numpy as np
import pytest

from companion.box_profiles import load_box
from companion.vision import coverage as cov
from companion.vision import coverage_between as cb
from companion.vision import gridfit
from companion.vision.adjudicate import decode, registered
from companion.vision.evaluate import score_coverage
from companion.vision.transmission import MISFIT
from tests import board_raycast as rc

EX = cov.EXPEDITIONS
J, B = 1 << EX.index("japanese"), 1 << EX.index("british")


@pytest.fixture(scope="module")
def box():
    return load_box()


def _log(rgb):
    return np.log(np.asarray(rgb, np.float32) / 255.0)


def _plane(box, yellow_blue: float):
    """A 3 px/mm plane: a Japanese film (its blue at ``yellow_blue``, log) and an orange film
    (log (-0.11, -0.75, -3.1): a British film under a warm LED) each 30 mm square, coded as the
    colour match codes them (Japanese, and Japanese over part of a British sheet)."""
    L = np.zeros((150, 300, 3), np.float32)
    code = np.zeros((150, 300), np.uint8)
    jap = _log(box.sheet_colours["japanese"])
    jap[2] = yellow_blue
    L[30:120, 20:110], code[30:120, 20:110] = jap, J
    L[30:120, 180:270], code[30:120, 180:270] = (-0.11, -0.75, -3.1), J | B
    return L, code


def test_pairs_judged_on_the_channel_they_differ_in(box):
    """Japanese (yellow) and British (red) both pass red best and differ in green."""
    axes = {(i, j): (ref, axis) for i, j, ref, axis, _, _ in cb.pair_axes(box.sheet_colours, EX)}
    assert axes[(EX.index("japanese"), EX.index("british"))] == (0, 1)


def test_orange_film_given_to_neither_when_the_light_is_doubted(box):
    """The yellow film's blue 2.8 log units under the profile's (a warm LED): the orange film,
    between yellow and red, is given to neither; the yellow film keeps its colour."""
    L, code = _plane(box, -4.2)
    between = cb.between_colours(L, code, box.sheet_colours, EX, 3.0)
    assert between is not None
    assert between[75, 225] and not between[75, 65]
    cb.given_to_neither(code, between)
    assert code[75, 225] == MISFIT and code[75, 65] == J


def test_orange_film_kept_when_the_films_show_their_profile_colours(box):
    """The yellow film at the profile's colour (daylight) and the same orange film, coded as
    before: no film seen alone lies off its profile colour, nothing says the light moved the
    films, so the colour match's reading stands (the rule is off for this photo).  (An orange
    film coded British alone would itself say so: its green brighter than the profile's.)"""
    L, code = _plane(box, float(_log(box.sheet_colours["japanese"])[2]))
    assert not cb.light_doubted(L, code, box.sheet_colours, EX)
    assert cb.between_colours(L, code, box.sheet_colours, EX, 3.0) is None


@pytest.fixture(scope="module")
def warm_led_photo(box):
    """The second generator's development photo 6: warm LED, a British film photographed orange
    that the colour match called Japanese on 29 hexes before this rule."""
    data, truth, scene = rc.render_scene(box, 6)
    assert scene.light["kind"] == "warm_led"
    photo = decode(data)
    reg = gridfit.refine(registered(photo, box), photo.gray, box)
    return photo, reg, truth


def _false_covered(box, warm_led_photo) -> int:
    """Hexes called covered by an expedition whose sheet does not cover them."""
    photo, reg, truth = warm_led_photo
    res = cov.measure(photo.bgr, reg, box, bgr=True)
    return score_coverage(box, truth, res.covered, res.unknown).false_covered


def test_warm_led_orange_british_film_not_called_japanese(box, warm_led_photo):
    """No hex of the warm-LED photo is called covered where it is not.  Fails with the switch off
    (coverage.BETWEEN_NEITHER = False: checked, 29 hexes called covered by Japanese on the British
    film)."""
    assert _false_covered(box, warm_led_photo) == 0
