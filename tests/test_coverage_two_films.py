"""Two films seen apart in one photo under a light that moves films' colours: a pixel named by one
on the other's side of the photo's own middle is given to neither
(companion/vision/coverage_two_films.py, coverage.TWO_FILMS_APART)."""

import numpy as np
import pytest

from companion.box_profiles import load_box
from companion.vision import coverage as cov
from companion.vision import coverage_between as cb
from companion.vision import coverage_two_films as tf
from companion.vision import gridfit
from companion.vision.adjudicate import decode, registered
from companion.vision.evaluate import score_coverage
from tests import board_raycast as rc

EX = cov.EXPEDITIONS
I, J, B, A = (1 << EX.index(e) for e in ("independent", "japanese", "british", "american"))


@pytest.fixture(scope="module")
def box():
    return load_box()


def _plane(with_yellow: bool = True):
    """A 3 px/mm plane as a warm LED shows it (development photo 178): a yellow film whose green
    sank against its red (0.45 of the way towards red's ratio the other way: log (-0.45, -0.145,
    -3.7)), coded as the colour match coded it there (yellow over green), though it passes far more
    red than the green film beside it (log (-1.3, -0.3, -1.2), coded green); a red film
    photographed where the profile puts yellow (0.19 of the way: log (-0.2, -0.51, -1.6)), coded
    yellow alone; a blue film whose green sank (log (-1.3, -3.6, -0.2)), coded blue: the light is
    doubted."""
    L = np.zeros((150, 560, 3), np.float32)
    code = np.zeros((150, 560), np.uint8)
    if with_yellow:
        L[30:120, 20:110], code[30:120, 20:110] = (-0.45, -0.145, -3.7), I | J
    L[30:120, 160:250], code[30:120, 160:250] = (-0.2, -0.51, -1.6), J
    L[30:120, 300:390], code[30:120, 300:390] = (-1.3, -3.6, -0.2), A
    L[30:120, 440:530], code[30:120, 440:530] = (-1.3, -0.3, -1.2), I
    return L, code


def test_red_film_named_yellow_beside_the_yellow_film_is_given_to_neither(box):
    L, code = _plane()
    assert cb.light_doubted(L, code, box.sheet_colours, EX)
    across = tf.named_across(L, code, box.sheet_colours, EX, 3.0)
    assert across is not None
    assert across[75, 205] and not across[75, 65] and not across[75, 345] and not across[75, 485]
    tf.given_to_neither(code, across)
    assert code[75, 205] == tf.MISFIT and code[75, 65] == I | J


def test_one_film_alone_is_left_as_it_is(box):
    """With no yellow film beside it the photo shows one cluster: nothing to tell it from."""
    L, code = _plane(with_yellow=False)
    assert tf.named_across(L, code, box.sheet_colours, EX, 3.0) is None


def test_overlap_with_the_green_film_is_no_yellow_film(box, monkeypatch):
    """Daylight-like colours (development 142, tungsten): yellow films at the profile's colour,
    coded yellow, and overlaps of yellow and green film (passing no more red than the green film
    alone), coded yellow over green, lower along the ratio: the overlaps are not taken for the
    photo's yellow film, so the yellow films are not given to neither."""
    L, code = _plane()
    jap = np.log(np.asarray(box.sheet_colours["japanese"], np.float32) / 255.0)
    L[30:120, 160:250], code[30:120, 160:250] = jap, J
    L[30:120, 20:110], code[30:120, 20:110] = (-1.3, -0.8, -2.6), I | J
    assert cb.light_doubted(L, code, box.sheet_colours, EX)
    assert tf.named_across(L, code, box.sheet_colours, EX, 3.0) is None
    # (the same plane with every overlap counted: they made the lower cluster, the yellow films the upper)
    monkeypatch.setattr(tf, "ALSO_BRIGHTER", -9.0)
    assert tf.named_across(L, code, box.sheet_colours, EX, 3.0) is not None


def test_two_clusters_that_run_into_each_other_are_left(box):
    """Film colours spread between the two clusters (no gap): not split."""
    rng = np.random.default_rng(0)
    t = np.r_[rng.uniform(-0.3, 0.9, 3000), rng.normal(-0.2, 0.05, 1000), rng.normal(0.8, 0.05, 1000)]
    assert tf._clusters(t) is None
    assert tf._clusters(np.r_[rng.normal(-0.45, 0.08, 1000), rng.normal(0.2, 0.05, 3000)]) is not None


@pytest.fixture(scope="module")
def warm_led_photo(box):
    """The second generator's development photo 67: warm LED, the British film photographed at
    0.19 of the way from the Japanese profile colour to the British one, the Japanese film at
    -0.28; main's tree called Japanese covered on 9 hexes of the British film."""
    data, truth, scene = rc.render_scene(box, 67)
    assert scene.light["kind"] == "warm_led"
    photo = decode(data)
    reg = gridfit.refine(registered(photo, box), photo.gray, box)
    return photo, reg, truth


def _false_covered(box, warm_led_photo) -> int:
    photo, reg, truth = warm_led_photo
    res = cov.measure(photo.bgr, reg, box, bgr=True)
    return score_coverage(box, truth, res.covered, res.unknown).false_covered


def test_warm_led_red_film_beside_yellow_not_called_yellow(box, warm_led_photo):
    """At most one hex of photo 67 called covered where it is not.  Fails with the switch off
    (coverage.TWO_FILMS_APART = False)."""
    assert _false_covered(box, warm_led_photo) <= 1
