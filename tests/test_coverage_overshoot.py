"""A saturated film's bright channel over the paper is no glare to the sheet fitter
(coverage_overshoot.OVERSHOOT_NOT_GLARE_FOR_FITTER; session 41, h4)."""

import numpy as np
import pytest

from companion.box_profiles import load_box
from companion.vision import coverage as cov
from companion.vision import coverage_overshoot as co
from tests.coverage_helpers import raycast_photo, sheets_and_covered


@pytest.fixture(scope="module")
def box():
    return load_box()


def test_overshoot_is_a_dark_channel_under_a_bright_one(monkeypatch):
    """Development 9's blue film (-3.1, -5.2, +0.3 at its brightest) is no reflection; white light added
    over a film (its darkest channel lifted to -0.5) and over paper is."""
    Lmin = np.array([[-5.2, -0.5, 0.25, -1.3]], np.float32)
    bright = np.ones(Lmin.shape, bool)
    got = co.overshoot(bright, Lmin)
    assert got is not None and got.tolist() == [[True, False, False, False]]
    assert co.overshoot(np.zeros_like(bright), Lmin) is None
    monkeypatch.setattr(co, "OVERSHOOT_NOT_GLARE_FOR_FITTER", False)
    assert co.overshoot(bright, Lmin) is None


@pytest.fixture(scope="module")
def warm_led_photo(box):
    """The second generator's development photo 9 (warm LED, mixed white balance): three blue sheets
    and a yellow one whose bright channel reads over the paper's, a quarter or more of each "glare"."""
    return raycast_photo(box, 9)


def test_warm_led_blue_films_named(box, warm_led_photo, monkeypatch):
    """Measured 6 of 11 named with the rule, 4 without; no wrong type or typed extra either way."""
    photo, scene = warm_led_photo
    on, covered_on = sheets_and_covered(box, photo, scene)
    monkeypatch.setattr(co, "OVERSHOOT_NOT_GLARE_FOR_FITTER", False)
    off, covered_off = sheets_and_covered(box, photo, scene)
    assert on.wrong == 0 and on.extra_named == 0
    assert on.right >= off.right + 2
    assert covered_on == covered_off  # the fitter's view only


def test_cage_on_what_was_freed_unnamed(box, warm_led_photo, monkeypatch):
    """Without the cage guard an American cage is named on the rim of a biological unit whose middle
    overshoots (development 9)."""
    photo, scene = warm_led_photo
    monkeypatch.setattr(co, "CAGE_ON_FREED_UNNAMED", False)
    off, _ = sheets_and_covered(box, photo, scene)
    monkeypatch.setattr(co, "CAGE_ON_FREED_UNNAMED", True)
    on, _ = sheets_and_covered(box, photo, scene)
    assert on.extra_named == 0 and off.extra_named >= 1
    assert on.right == off.right
