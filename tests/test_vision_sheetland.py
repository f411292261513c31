"""The land round the loch, measured for sheet fitting (sheetland.py), and the fitter using it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision import coverage as cov
from companion.vision import sheetland
from companion.vision.adjudicate import adjudicate, decode
from companion.vision.render import Scene, encode_jpeg, render
from companion.vision.sheetfit import fit_expedition, prepare_seen
from companion.vision.sheets import SheetPose
from companion.vision.sheetscore import score_sheets, true_masks


@pytest.fixture(scope="module")
def lay(box):
    return cov.layout(box)


def _shore(box):
    shore = np.asarray(box.loch.shore_outline, float)
    return shore[:, 1].min(), shore[:, 1].max(), shore[:, 0].min(), shore[:, 0].max()


def _photo(box, sheets, seed=3, paint=None):
    scene = Scene(sheets=sheets, seed=seed, camera={"tilt_deg": 12.0, "azimuth_deg": 40.0})
    img, _ = render(box, scene)
    if paint is not None:
        paint(img)
    photo = decode(encode_jpeg(img, 90))
    adj = adjudicate(photo, box, fit_sheets=False, workers=1)
    return photo, adj.registration


def _true_on_land(box, lay, sheets, e):
    """The truth's colour of expedition ``e`` on the land grid (2 px/mm)."""
    land = sheetland.land_region(lay, box.loch.shore_outline)[0]
    h, w = land.shape
    m = true_masks(box, sheets, lay.x0, lay.y0, sheetland.LAND_PPM, (h, w)).get(e, np.zeros((h, w), bool))
    return m, land


def test_a_sheets_colour_on_the_land_is_found_where_it_lies(box, lay):
    north, south, west, east = _shore(box)
    # points up the bank, as hands lay them: 12 mm past the northern shore and the southern
    sheets = [SheetPose("british", "sonar", west + 150, north - 12, -10),
              SheetPose("american", "surface_camera", west + 420, south + 12, 175)]
    photo, reg = _photo(box, sheets)
    got = sheetland.measure(photo.bgr, reg, box, lay)
    k = np.ones((5, 5), np.uint8)  # 1 mm either way at 2 px/mm: a sheet's edge is blurred
    for s in sheets:
        truth, land = _true_on_land(box, lay, sheets, s.expedition)
        core = cv2.erode(truth.view(np.uint8), k).view(bool) & land
        near = cv2.dilate(truth.view(np.uint8), k).view(bool)
        assert core.sum() > 40  # the test means something: the sheet lies on the land
        found = got.colour[s.expedition]
        assert (found & core).sum() >= 0.8 * core.sum(), s
        assert (found & ~near).sum() <= 0.002 * land.sum(), s
    for e in ("independent", "japanese"):
        assert not got.colour[e].any(), e
    # the land round it is seen as plain land
    anywhere = np.zeros_like(land)
    for s in sheets:
        anywhere |= _true_on_land(box, lay, sheets, s.expedition)[0]
    free = land & ~cv2.dilate(anywhere.view(np.uint8), k).view(bool)
    assert (got.seen & free).sum() >= 0.95 * free.sum()


def test_a_mark_on_the_land_no_sheet_explains_is_left_unseen(box, lay):
    """A white sticker on the land is not a sheet and not plain land either: left unseen."""
    def paint(img):
        h, w = img.shape[:2]
        cv2.rectangle(img, (w // 2 - 10, 0), (w // 2 + 10, h), (250, 250, 250), -1)

    photo, reg = _photo(box, [], paint=paint)
    got = sheetland.measure(photo.bgr, reg, box, lay)
    land = sheetland.land_region(lay, box.loch.shore_outline)[0]
    for e in cov.EXPEDITIONS:
        assert got.colour[e].sum() <= 0.001 * land.sum(), e
    assert 0.5 * land.sum() < got.seen.sum() < 0.995 * land.sum()  # the stripe left out, the rest seen


def test_land_out_of_view_measures_nothing(box, lay):
    """Bad input loses nothing: a registration that puts the board off the photo gives no land."""
    photo, reg = _photo(box, [])
    tiny = photo.bgr[:300, :300].copy()
    got = sheetland.measure(tiny, reg, box, lay)
    assert not got.seen.any() and not any(m.any() for m in got.colour.values())


def _fit_with_land(box, lay, sheets, e):
    """Fit from perfect masks: the loch's paper as coverage gives it, the land as sheetland would."""
    flat = lay.paper
    mask = true_masks(box, sheets, lay.x0, lay.y0, lay.ppm, lay.shape).get(e, np.zeros(lay.shape, bool)) & flat
    truth, land = _true_on_land(box, lay, sheets, e)
    measured = sheetland.LandMeasure({x: (truth & land) if x == e else np.zeros_like(land) for x in cov.EXPEDITIONS},
                                     land, sheetland.LAND_PPM)
    seen = prepare_seen(box, flat, lay.x0, lay.y0, lay.ppm, measured)
    return fit_expedition(box, e, mask, seen, lay.x0, lay.y0, lay.ppm, unidentified=True)


def test_with_the_land_a_point_up_the_bank_is_found_where_it_lies(box, lay):
    north, south, west, east = _shore(box)
    for truth in (SheetPose("british", "sonar", west + 200, north - 11, 15),
                  SheetPose("british", "eye_witness", west + 330, south + 10, 170)):
        found = _fit_with_land(box, lay, [truth], "british")
        sc = score_sheets(box, [truth], found)
        assert (sc.right, sc.wrong, sc.missed, sc.extra) == (1, 0, 0, 0), (truth, [f.pose for f in found])
        f = found[0].pose
        assert np.hypot(f.x - truth.x, f.y - truth.y) < 1.5, (truth, f)


def test_a_land_measure_on_another_grid_is_refused(box, lay):
    land = sheetland.land_region(lay, box.loch.shore_outline)[0]
    wrong = sheetland.LandMeasure({e: np.zeros_like(land) for e in cov.EXPEDITIONS}, land, 1.0)
    with pytest.raises(ValueError):
        prepare_seen(box, lay.paper, lay.x0, lay.y0, lay.ppm, wrong)
