"""Overlaps of one expedition's sheets read from the photo (sheetlayers.py), and the fitter using them."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.vision import coverage as cov
from companion.vision import sheetland
from companion.vision.adjudicate import adjudicate, decode
from companion.vision.render import Scene, encode_jpeg, render
from companion.vision.sheetfit import fit_expedition, prepare_seen
from companion.vision.sheetlayers import second_layer
from companion.vision.sheets import SheetPose
from companion.vision.sheetscore import score_sheets, true_masks

E = "american"
# a surface camera and a sonar from nearly one point on the north shore: their union is one blob,
# which a single shape (the sonar) explains nearly whole, and the camera was lost under it
PAIR = [SheetPose(E, "surface_camera", 274.845, 231.309, -16.624), SheetPose(E, "sonar", 286.858, 229.82, -6.214)]


@pytest.fixture(scope="module")
def lay(box):
    return cov.layout(box)


def _layers(box, lay, sheets, ppm, shape):
    """How many of the sheets lie over each pixel of a grid at ``ppm`` from the layout's corner."""
    out = np.zeros(shape, np.uint8)
    for s in sheets:
        out += true_masks(box, [s], lay.x0, lay.y0, ppm, shape)[s.expedition]
    return out


def _land(box, lay, sheets):
    scene = Scene(sheets=sheets, seed=5, camera={"tilt_deg": 10.0, "azimuth_deg": 30.0})
    img, _ = render(box, scene)
    photo = decode(encode_jpeg(img, 90))
    adj = adjudicate(photo, box, fit_sheets=False, workers=1)
    return sheetland.measure(photo.bgr, adj.registration, box, lay)


def test_the_overlap_of_two_sheets_of_one_colour_is_read_darker(box, lay):
    land = _land(box, lay, PAIR)
    shape = land.photo.valid.shape
    count = _layers(box, lay, PAIR, sheetland.LAND_PPM, shape)
    colour = (count > 0).astype(np.float32)
    got = second_layer(land.photo, E, colour, 0, 0, sheetland.LAND_PPM)
    assert got is not None
    k = np.ones((5, 5), np.uint8)  # 1 mm either way: edges blur
    overlap = count > 1
    core = cv2.erode(overlap.view(np.uint8), k).view(bool) & land.photo.valid
    near = cv2.dilate(overlap.view(np.uint8), k).view(bool)
    assert core.sum() > 400  # the test means something: a wide overlap in view
    read = got > 0
    assert (read & core).sum() >= 0.5 * core.sum(), "most of the overlap is read as two layers"
    assert (read & ~near).sum() <= 0.01 * read.sum(), "nothing outside the overlap is"


def test_one_sheet_alone_shows_no_second_layer(box, lay):
    alone = [SheetPose(E, "sonar", 286.858, 229.82, -6.214), SheetPose("british", "surface_camera", 500, 231, 10)]
    land = _land(box, lay, alone)
    for s in alone:
        colour = (_layers(box, lay, [s], sheetland.LAND_PPM, land.photo.valid.shape) > 0).astype(np.float32)
        got = second_layer(land.photo, s.expedition, colour, 0, 0, sheetland.LAND_PPM)
        assert got is None or got.sum() < 0.01 * colour.sum(), s


def test_a_sheet_under_its_own_kind_is_found_from_the_second_layer(box, lay):
    flat = lay.paper | lay.land
    count = _layers(box, lay, PAIR, lay.ppm, lay.shape)
    colour = (count > 0) & flat
    without = score_sheets(box, PAIR, fit_expedition(box, E, colour, flat, lay.x0, lay.y0, lay.ppm, unidentified=True))
    assert without.right < 2, "the test means something: the merged blob alone loses a sheet"
    found = fit_expedition(box, E, colour, flat, lay.x0, lay.y0, lay.ppm, unidentified=True, double=(count > 1) & flat)
    sc = score_sheets(box, PAIR, found)
    assert (sc.right, sc.wrong, sc.extra) == (2, 0, 0), [(f.pose, f.identified) for f in found]


def test_the_fitter_reads_the_second_layer_from_the_photo(box, lay):
    # a biological unit half under a surface camera and an eye witness from one point on the
    # south shore: from the colour alone the unit is lost
    trio = [SheetPose("independent", "surface_camera", 395.502, 334.336, 164.994),
            SheetPose("independent", "eye_witness", 415.571, 334.141, 188.202),
            SheetPose("independent", "biological_unit", 394.166, 291.867, 171.374)]
    land = _land(box, lay, trio)
    flat = lay.paper | lay.land
    colour = true_masks(box, trio, lay.x0, lay.y0, lay.ppm, lay.shape)["independent"] & flat
    scores = []
    for measured in (replace(land, photo=None), land):
        seen = prepare_seen(box, flat, lay.x0, lay.y0, lay.ppm, measured)
        found = fit_expedition(box, "independent", colour, seen, lay.x0, lay.y0, lay.ppm, unidentified=True)
        scores.append(score_sheets(box, trio, found))
    assert scores[0].right < 3, "the test means something: without the photo's overlap a sheet is lost"
    assert (scores[1].right, scores[1].wrong, scores[1].extra_named) == (3, 0, 0)


def test_channel_sums_by_column_are_numpys_reductions_bit_for_bit():
    """sheetlayers (and sheetland) sum an (n, 3) array's channels column by column, ten times
    faster than numpy's reduction along the last axis: the same numbers (the row [1e30, -1e30, 1]
    tells the order of the additions apart)."""
    from companion.vision.sheetlayers import _channel_mean, _channel_norm

    rng = np.random.default_rng(7)
    a = (rng.normal(0, 1, (5000, 3)) * rng.choice([1e-6, 1.0, 1e3], (5000, 1))).astype(np.float32)
    a[:3] = [[0.0, -0.0, 0.0], [-0.0, -0.0, -0.0], [1e30, -1e30, 1.0]]
    assert np.array_equal(_channel_mean(a), a.mean(1)) and _channel_mean(a).dtype == np.float32
    with np.errstate(over="ignore"):  # the 1e30 row's squares overflow float32 to inf in both: intended
        assert np.array_equal(_channel_norm(a), np.linalg.norm(a, axis=1))
    b = a.reshape(-1, 10, 3)[:, :, :]
    assert np.array_equal(b[..., 0] + b[..., 1] + b[..., 2], b.sum(-1))


def test_the_photos_colour_read_by_flat_index_is_the_same_as_by_rows_and_columns():
    """PhotoColour gathers pixels by flat index (np.take) and may be handed the pixels its caller
    read already: the same log colours as numpy's (rows, columns) indexing of the images."""
    from companion.vision.sheetlayers import _LOG8, PhotoColour, _channel_mean

    rng = np.random.default_rng(3)
    warped = rng.integers(0, 256, (40, 70, 3), dtype=np.uint8)
    ref = rng.normal(-0.3, 0.2, (40, 70, 3)).astype(np.float32)
    photo = PhotoColour(warped, rng.random((40, 70)) > 0.3, ref, {})
    ys, xs = np.nonzero(rng.random((40, 70)) > 0.6)
    L = _LOG8[warped[ys, xs]] - ref[ys, xs]
    expected = L - _channel_mean(L)[:, None]
    assert np.array_equal(photo._grey_free(ys, xs), expected)
    assert np.array_equal(photo._grey_free(ys, xs, warped[ys, xs]), expected)
    assert np.array_equal(photo.chroma(ys, xs), photo.chroma(ys, xs, warped[ys, xs]))
