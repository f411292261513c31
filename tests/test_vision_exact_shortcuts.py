"""Session 38 (h2): shortcuts in board vision that must give the very same pixels as what they replace."""

import cv2
import numpy as np

from companion.vision import unseen
from companion.vision.colourmasks import _disc_rectangles, _eroded_by_disc
from companion.vision.coverage import layout
from companion.box_profiles import load_box
from companion.vision.maskparts import _bbox


def test_disc_erosion_by_rectangles_is_opencvs_ellipse_erosion():
    rng = np.random.default_rng(38)
    for k in range(1, 40, 2):
        assert _disc_rectangles(k), k  # OpenCV's ellipses are all unions of centred rectangles
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        for p in (0.5, 0.9, 0.99, None):
            h, w = rng.integers(1, 90, 2)
            img = (rng.random((h, w)) < p).astype(np.uint8) if p else rng.integers(0, 256, (h, w)).astype(np.uint8)
            assert np.array_equal(_eroded_by_disc(img, k), cv2.erode(img, disc)), (k, p)


def test_disc_rectangles_refused_for_a_shape_they_cannot_make():
    # (even sizes: OpenCV's ellipse has no centre row; the disc itself is used)
    img = np.random.default_rng(1).integers(0, 2, (30, 30)).astype(np.uint8)
    assert np.array_equal(_eroded_by_disc(img, 8), cv2.erode(img, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (8, 8))))


def test_one_pass_divide_is_the_float_copies_divide_for_every_pair():
    a, b = np.meshgrid(np.arange(256, dtype=np.uint8), np.arange(256, dtype=np.uint8))
    bg = cv2.max(b, 8)
    assert np.array_equal(cv2.divide(a, bg, dtype=cv2.CV_32F),
                          cv2.divide(a.astype(np.float32), bg.astype(np.float32)))


def _bbox_by_maximum(mask, pad):  # main's _bbox before session 38
    m = mask.view(np.uint8) if mask.dtype == bool else mask
    rows = np.flatnonzero(m.max(1))
    if len(rows) == 0:
        return None
    y, y1 = int(rows[0]), int(rows[-1]) + 1
    cols = np.flatnonzero(np.bitwise_or.reduce(m[y:y1], 0))
    x, x1 = int(cols[0]), int(cols[-1]) + 1
    h, w = mask.shape
    return (max(0, y - pad), min(h, y1 + pad), max(0, x - pad), min(w, x1 + pad))


def test_bbox_rows_by_or_are_the_rows_by_maximum():
    rng = np.random.default_rng(5)
    for _ in range(200):
        h, w = rng.integers(1, 60, 2)
        m = rng.random((h, w)) < rng.choice([0.0, 0.001, 0.02, 0.5])
        for mask in (m, m.astype(np.uint8) * rng.integers(1, 256)):
            assert _bbox(mask, 3) == _bbox_by_maximum(mask, 3)
    big = np.zeros((100, 300), np.uint8)
    assert _bbox(big[10:90, 20:280], 0) is None  # a strided view, empty


def test_occluded_without_lost_lines_is_all_false_of_the_grid():
    lay = layout(load_box(), 1.0)
    h, w = lay.shape
    warped = np.full((h, w, 3), 200, np.uint8)
    warped[lay.printed] = 40  # every printed line plainly visible: no block lost its lines
    valid = np.ones((h, w), bool)
    got = unseen._occluded(warped, lay, valid)
    assert got.shape == (h, w) and got.dtype == bool and not got.any()
    warped[: h // 2, : w // 2] = 200  # a quarter of the loch's lines gone (a hand)
    assert unseen._occluded(warped, lay, valid).any()
