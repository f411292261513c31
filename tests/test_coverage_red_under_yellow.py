"""A red film whose dim channels a fluorescent tube sank, named "red and yellow" by the colour match:
shown to the red fitter, unseen to the yellow one (coverage_ray.RED_UNDER_YELLOW_FOR_RED; session 41, h4)."""

import numpy as np
import pytest

from companion.box_profiles import load_box
from companion.vision import coverage as cov
from companion.vision import coverage_ray as cr
from companion.vision.transmission import MISFIT
from tests.coverage_helpers import raycast_photo, sheets_and_covered

EX = cov.EXPEDITIONS
I, J, B, A = (1 << EX.index(e) for e in ("independent", "japanese", "british", "american"))
SUNK_RED = (-0.14, -2.4, -3.5)  # development 2 (fluorescent): the British films' median, red on the profile's
SUNK_LESS = (-0.14, -2.0, -2.6)  # ... its pixels the match names British alone, less sunk


@pytest.fixture(scope="module")
def box():
    return load_box()


def _plane(box):
    """A sunk red film: its left part less sunk and named British alone, its right part "British and
    Japanese" (the match's least-bad reading of it; at the photo's median the pair's ray fits best); beside it a yellow film whose green sank 0.6 (the most a light
    moves it, session 39), named the pair too; every pixel misfit."""
    L = np.zeros((120, 560, 3), np.float32)
    code = np.zeros((120, 560), np.uint8)
    L[20:100, 20:200] = SUNK_LESS
    L[20:100, 200:380] = SUNK_RED
    code[20:100, 20:200] = B | MISFIT
    code[20:100, 200:380] = B | J | MISFIT
    yellow = np.log(np.asarray(box.sheet_colours["japanese"], float) / 255.0)
    L[20:100, 420:540] = yellow + (0.0, -0.6, -2.0)
    code[20:100, 420:540] = B | J | MISFIT
    return L, code, (code & MISFIT) > 0


def test_sunk_red_film_named_with_yellow_shown_to_red_unseen_to_yellow(box, monkeypatch):
    monkeypatch.setattr(cr, "RED_UNDER_YELLOW_FOR_RED", True)  # (off by default since session 41's held-out read)
    L, code, where = _plane(box)
    alone = np.zeros(code.shape, np.uint8)
    unseen_to = {}
    out = cr.dim_darker_hue(L, code, where, box.sheet_colours, EX, 3.0, plain=~where, alone=alone,
                            unseen_to=unseen_to)
    assert out[20:100, 20:380].all()  # the whole red film, both parts
    assert (alone[20:100, 200:380] == B).all()  # the pair's part shown to the fitter as red alone
    assert unseen_to["japanese"][20:100, 200:380].all()  # ... and unseen (not paper) to the yellow fit
    assert not unseen_to["japanese"][20:100, 20:200].any()
    assert not out[:, 400:].any() and not unseen_to["japanese"][:, 400:].any()  # the yellow film alone: no
    # the yellow film alone beside the pair's patch: it may be their overlap, left as it was
    L2, code2 = L.copy(), code.copy()
    L2[20:100, 380:400] = np.log(np.asarray(box.sheet_colours["japanese"], float) / 255.0)
    code2[20:100, 380:400] = J
    unseen2 = {}
    beside = cr.dim_darker_hue(L2, code2, (code2 & MISFIT) > 0, box.sheet_colours, EX, 3.0, plain=(code2 & MISFIT) == 0,
                               alone=np.zeros(code.shape, np.uint8), unseen_to=unseen2)
    assert beside[20:100, 20:200].all() and not beside[20:100, 200:380].any()
    assert "japanese" not in unseen2 or not unseen2["japanese"].any()
    # called without ``unseen_to`` (the yellow fit could not be told): the pair's pixels stay unseen
    without = cr.dim_darker_hue(L, code, where, box.sheet_colours, EX, 3.0, plain=~where,
                                alone=np.zeros(code.shape, np.uint8))
    assert not without[20:100, 200:380].any()
    monkeypatch.setattr(cr, "RED_UNDER_YELLOW_FOR_RED", False)
    alone[:] = 0
    unseen_off = {}
    off = cr.dim_darker_hue(L, code, where, box.sheet_colours, EX, 3.0, plain=~where, alone=alone,
                            unseen_to=unseen_off)
    assert off[20:100, 20:200].all() and not off[20:100, 200:380].any() and not unseen_off


def test_fluorescent_red_films_named(box, monkeypatch):
    """The second generator's development photo 2 (fluorescent): three British sheets whose green and
    blue sank (-2.3 .. -2.5, -3.5), named British and Japanese on 0.4-0.7 of their pixels, no yellow
    film on the photo; uncalibrated, measured 6 of 7 named with the rule, 4 without."""
    photo, scene = raycast_photo(box, 2)
    monkeypatch.setattr(cr, "RED_UNDER_YELLOW_FOR_RED", True)  # (off by default since session 41's held-out read)
    on, covered_on = sheets_and_covered(box, photo, scene)
    monkeypatch.setattr(cr, "RED_UNDER_YELLOW_FOR_RED", False)
    off, covered_off = sheets_and_covered(box, photo, scene)
    assert on.wrong == 0 and on.extra_named == 0
    assert on.right >= off.right + 2
    assert covered_on == covered_off  # the fitter's view only
