"""The last colour rules (coverage_coarse.py: _drop_unlike_sheets judged on every other pixel, DRIFT
on the work grid): the same parts taken out as on the work grid, the edges of what stays placed by
the work grid's own pixels."""

from __future__ import annotations

import numpy as np

from companion.vision import colourmasks as cm
from companion.vision import coverage as cov
from companion.vision.coverage_coarse import coarse_late_rules, rules_step
from companion.vision.transmission import packed_bins, table

BIT = {e: 1 << i for i, e in enumerate(cm.EXPEDITIONS)}


def _logs(box):
    return {e: np.log(np.asarray(box.sheet_colours[e], np.float32) / 255.0) for e in cm.EXPEDITIONS}


def _codes(box, L):
    key = tuple(tuple(float(v) for v in box.sheet_colours[e]) for e in cm.EXPEDITIONS)
    tab = table(key, cov.GREY_LO, cov.GREY_HI)
    pb = packed_bins(L)
    return tab.lookup_packed(pb, cov.DEEP_SHADOW_LOG) & ~np.uint8(32), pb, tab


def test_drifting_colour_goes_and_sheet_edges_stay_on_the_coarse_grid(box):
    """test_vision_colour_doubts' drifting red sheet with every edge on an odd pixel (the coarse
    grid steps over them): with the coarse rules the yellow drifting across the red sheet goes, the
    real yellow sheets stay, and every expedition's mask is the work grid's own, pixel for pixel."""
    assert rules_step(3.0) == 2
    a = _logs(box)
    L = np.zeros((91, 521, 3), np.float32)
    L[15:75, 21:241] = a["british"]  # the drifting red sheet
    L[15:75, 21:241, 2] += np.linspace(0.0, -1.0, 220, dtype=np.float32)
    L[15:75, 241:271] = a["japanese"]  # a yellow sheet beside it
    L[15:75, 331:461] = a["british"]  # a red sheet ...
    L[15:75, 401:511] += a["japanese"]  # ... with a yellow one over its right half and beyond
    code, pb, tab = _codes(box, L)
    seen = np.zeros(code.shape, bool)
    seen[5:85, 5:515] = True
    args = (code, seen, ~seen, None, 3.0, box.sheet_colours, None, None, (pb, tab))
    fine_gone: dict = {}
    coarse_gone: dict = {}
    fine, fine_dropped, _ = cm._colour_masks(*args, fine_gone)
    coarse, coarse_dropped, _ = cm._colour_masks(*args, coarse_gone, coarse_late_rules)
    assert not coarse["japanese"][15:75, 21:241].any() and coarse_dropped["japanese"][15:75, 171:241].all()
    assert coarse["japanese"][15:75, 241:271].all() and coarse["japanese"][15:75, 401:511].all()
    for e in cm.EXPEDITIONS:
        assert np.array_equal(fine[e], coarse[e]), e
        # true bools, a 0 or a 1 a byte: cv2 and the sheet fitter read the masks' bytes
        assert coarse[e].view(np.uint8).max(initial=0) <= 1
    assert set(coarse_gone) == set(fine_gone) == {"japanese"}
    assert coarse_gone["japanese"][20:70, 171:235].all()


def test_shade_nobody_sees_goes_on_the_coarse_grid_too(box):
    """test_vision_colour_doubts' yellow needing shade no seen pixel shows (odd edges): taken out
    judged coarse as on the work grid; the yellow sheets in a shadow seen round them and in full
    light stay, their masks the work grid's own -- a strip of yellow one pixel wide between the
    coarse grid's samples too (lifting the whole mask lost it)."""
    a = _logs(box)
    L = np.zeros((61, 401, 3), np.float32)
    L[:, 21:101] = (-0.99, -1.09, -2.2)  # the overlap as the phone showed it, unseen all round
    L[:, 151:251] = -0.8  # a shadow over paper ...
    L[:, 181:221] += a["japanese"]  # ... and over a yellow sheet
    L[:, 301:381] = a["japanese"]  # yellow in full light, unseen all round
    code, pb, tab = _codes(box, L)
    yellow = (code & BIT["japanese"]) > 0
    seen = np.zeros(code.shape, bool)
    seen[:, 151:251] = True
    for x0, x1 in ((21, 101), (181, 221), (301, 381)):
        seen[:, x0:x1] = yellow[:, x0:x1]
    strip = np.zeros(code.shape, bool)
    strip[10:50, 225] = True  # beside the sheet in the shadow, no coarse sample on it
    empty = np.zeros(code.shape, bool)
    got = []
    for rules in (cm._late_rules, coarse_late_rules):
        masks = {e: yellow & seen | strip if e == "japanese" else empty for e in cm.EXPEDITIONS}
        dropped: dict = {e: None for e in cm.EXPEDITIONS}
        rules(masks, dropped, (pb, tab), seen, box.sheet_colours, 3.0, {})
        got.append((masks, dropped))
    (fine, _), (coarse, dropped) = got
    assert not coarse["japanese"][:, 21:101].any() and dropped["japanese"][:, 30:90].all()
    assert coarse["japanese"][:, 185:215].all() and coarse["japanese"][:, 310:370].all()
    assert coarse["japanese"][10:50, 225].all()
    assert np.array_equal(fine["japanese"], coarse["japanese"])
