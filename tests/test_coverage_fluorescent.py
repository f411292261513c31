"""Films a fluorescent tube moved, read uncalibrated (session 39, h4): the yellow film moved into the
middle band beside the red film on its profile colour (coverage_photo_middle.PHOTO_MIDDLE), a sunk
film's dim channels judged against the profile's unshaded level (coverage_ray.DIM_AGAINST_UNSHADED)
and its pixels the match named with another expedition (coverage_ray.SUNK_NAMED_WITH_OTHERS)."""

import numpy as np
import pytest

from companion.box_profiles import load_box
from companion.vision import coverage as cov
from companion.vision import coverage_between as cb
from companion.vision import coverage_photo_middle as pm
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


def _pair_plane(box, red_at: float = 1.0, yellow_at: float = 0.5):
    """A 3 px/mm plane: a yellow film whose green sank half-way to the red film's ratio (development
    146: green -0.55 with red 0.03), named yellow; a red film at ``red_at`` of the way (1: the profile's
    colour), named red; plain paper between."""
    yellow, red = _log(box, "japanese"), _log(box, "british")
    L = np.zeros((150, 600, 3), np.float32)
    code = np.zeros((150, 600), np.uint8)
    xi, xj = yellow[1] - yellow[0], red[1] - red[0]
    moved = yellow.copy()
    moved[1] = moved[0] + xi + yellow_at * (xj - xi)  # 0.5: inside the band (0.3-0.8)
    moved[2] = -4.2
    L[10:140, 20:280], code[10:140, 20:280] = moved, J | MISFIT
    r = red.copy()
    r[1] = r[0] + xi + red_at * (xj - xi)
    L[10:140, 320:580], code[10:140, 320:580] = r, B
    rng = np.random.default_rng(0)
    L += rng.normal(0, 0.02, L.shape).astype(np.float32)  # a little noise: clusters one bin wide
    return L, code


def test_yellow_film_moved_into_the_band_keeps_its_name(box, monkeypatch):
    L, code = _pair_plane(box)
    between = cb.between_colours(L, code, box.sheet_colours, EX, 3.0, doubted=True)
    assert between is None or not between[10:140, 20:280].any()
    monkeypatch.setattr(pm, "PHOTO_MIDDLE", False)
    off = cb.between_colours(L, code, box.sheet_colours, EX, 3.0, doubted=True)
    assert off is not None and off[30:120, 40:260].all()  # the old reading: the whole film to neither


def test_red_film_moved_is_not_the_yellow_one(box):
    """Two clusters but the upper one off the red film's profile place (a warm LED moves the red film
    down; development 35): the band stays the profile's."""
    L, code = _pair_plane(box, red_at=1.4)
    between = cb.between_colours(L, code, box.sheet_colours, EX, 3.0, doubted=True)
    assert between is not None and between[30:120, 40:260].all()


def test_moved_yellow_film_seen_by_the_fitter(box, monkeypatch):
    """The yellow film the photo shows at 0.55 of the way to the red one, its blue sunk (misfit): judged
    against its colour as the photo shows it, the fitter sees it; against the profile's it does not
    (its green 0.53 darker than its red: the bright channels disagree)."""
    L, code = _pair_plane(box, red_at=0.97, yellow_at=0.55)
    moved = pm.moved_films(L, code, box.sheet_colours, EX, cb.BAND)
    assert list(moved) == [EX.index("japanese")]
    where = (code & MISFIT) > 0
    out = cr.dim_darker_hue(L, code, where, box.sheet_colours, EX, 3.0, plain=~where, moved=moved)
    assert out[10:140, 20:280].mean() > 0.95 and not out[:, 300:].any()
    assert not cr.dim_darker_hue(L, code, where, box.sheet_colours, EX, 3.0, plain=~where)[10:140, 20:280].any()
    # a red film off its profile place (a warm LED): no film is taken as moved
    L2, code2 = _pair_plane(box, red_at=1.37, yellow_at=0.55)
    assert pm.moved_films(L2, code2, box.sheet_colours, EX, cb.BAND) == {}


def test_sunk_blue_film_with_its_blue_sunk_too(box, monkeypatch):
    """A fluorescent tube's 436 nm line lowers a blue film's own blue a little (development 16: the
    pool's median -1.18, -3.22, -0.35 against the profile's -1.16, -0.75, -0.13)."""
    blue = _log(box, "american")
    m = np.array([[-1.18, -3.22, -0.35]])
    assert cr._dim_darker(m, blue).all()
    # a blend of the blue film with paper is still refused, in shade too
    blend = np.log(0.5 + 0.5 * np.exp(blue))
    assert not cr._dim_darker(blend[None], blue).any()
    assert not cr._dim_darker((blend - 0.3)[None], blue).any()
    monkeypatch.setattr(cr, "DIM_AGAINST_UNSHADED", False)
    assert not cr._dim_darker(m, blue).any()


def test_sunk_film_named_with_another_is_freed(box, monkeypatch):
    """Half the sunk blue film named "American and British" by the match: freed with the rest once
    the film's own pool says it sank; an overlap of the blue and the red film is not."""
    L = np.zeros((120, 420, 3), np.float32)
    code = np.zeros((120, 420), np.uint8)
    L[20:100, 20:200] = (-1.18, -3.6, -0.35)
    code[20:100, 20:200] = A | MISFIT
    code[20:100, 20:200:2] = A | B | MISFIT  # every other column named with the red film
    L[20:100, 240:400], code[20:100, 240:400] = _log(box, "american") + _log(box, "british"), A | B | MISFIT
    where = (code & MISFIT) > 0
    out = cr.dim_darker_hue(L, code, where, box.sheet_colours, EX, 3.0, plain=~where)
    assert out[20:100, 20:200].all()
    assert not out[:, 220:].any()
    monkeypatch.setattr(cr, "SUNK_NAMED_WITH_OTHERS", False)
    off = cr.dim_darker_hue(L, code, where, box.sheet_colours, EX, 3.0, plain=~where)
    assert not off[20:100, 20:200:2].any() and off[20:100, 21:200:2].all()


@pytest.fixture(scope="module")
def fluorescent_photo(box):
    """The second generator's development photo 16 (fluorescent, 1600 x 1200): six blue sheets whose
    green sank to -3 .. -4.6 and whose blue sank 0.2-0.3; uncalibrated, all six missed."""
    return raycast_photo(box, 16)



def test_fluorescent_blue_films_named(box, fluorescent_photo, monkeypatch):
    photo, scene = fluorescent_photo
    on, covered_on = sheets_and_covered(box, photo, scene)
    monkeypatch.setattr(cr, "DIM_AGAINST_UNSHADED", False)
    monkeypatch.setattr(cr, "SUNK_NAMED_WITH_OTHERS", False)
    off, covered_off = sheets_and_covered(box, photo, scene)
    assert on.wrong == 0 and on.extra_named == 0
    assert on.right >= off.right + 3  # measured 7 against 4
