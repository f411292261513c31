"""The yellow film a fluorescent tube moved into the middle band, beside the red film on its profile
colour: the band read on the photo's own two films (coverage_photo_middle.PHOTO_MIDDLE) and the moved
film seen by the fitter (coverage_photo_middle.MOVED_FILM_SEEN_BY_FITTER), on a photo of the second
generator (the synthetic planes are in tests/test_coverage_fluorescent.py)."""

import pytest

from companion.box_profiles import load_box
from companion.vision import coverage_photo_middle as pm
from companion.vision.adjudicate import adjudicate, decode
from companion.vision.evaluate import score_coverage
from companion.vision.sheetscore import score_sheets
from tests import board_raycast as rc


@pytest.fixture(scope="module")
def box():
    return load_box()


@pytest.fixture(scope="module")
def moved_yellow_photo(box):
    """The second generator's development photo 146 (fluorescent, 1600 x 1200): its two yellow sheets
    at green -0.55 with red +0.03 (0.55 of the way to the red film, which lies on its profile colour),
    blue -4.5; uncalibrated, the middle band gave both to neither and both were missed."""
    data, truth, scene = rc.render_scene(box, 146)
    return decode(data), truth, scene


def _read(box, photo, truth, scene):
    adj = adjudicate(photo, box)
    found = [f for fits in adj.sheets.values() for f in fits]
    return (score_sheets(box, scene.sheets, found),
            score_coverage(box, truth, adj.coverage.covered, adj.coverage.unknown), adj.coverage.covered)


def test_moved_yellow_films_named_and_covered(box, moved_yellow_photo, monkeypatch):
    photo, truth, scene = moved_yellow_photo
    s_on, c_on, cov_on = _read(box, photo, truth, scene)
    assert s_on.wrong == 0 and s_on.extra_named == 0
    assert s_on.right >= 9  # measured 9 of 10
    assert c_on.errors == 0
    monkeypatch.setattr(pm, "MOVED_FILM_SEEN_BY_FITTER", False)
    s_mv, c_mv, _ = _read(box, photo, truth, scene)
    assert s_mv.right <= s_on.right - 2  # measured 7: the two yellow sheets unidentified
    monkeypatch.setattr(pm, "PHOTO_MIDDLE", False)
    s_off, c_off, cov_off = _read(box, photo, truth, scene)
    assert s_off.right <= s_on.right - 2  # measured 7: both missed
    # the yellow films' hexes are decided (covered) only with the band read on the photo's scale
    assert len(cov_on.get("japanese", [])) >= len(cov_off.get("japanese", [])) + 10
    assert c_off.decisions < c_on.decisions and c_off.errors == 0
