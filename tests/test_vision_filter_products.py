"""Overlaps coverage left unread, read as two filters' product (sheetfit.FILTER_PRODUCTS,
sheetproducts.py): a sheet under or over another expedition's shows the fitter its overlap as its
colour, not as unseen.  Coverage's decisions are untouched (a fitter rule)."""

from __future__ import annotations

import numpy as np

from tests.coverage_helpers import assert_fitter_rule_names_more, broad_photo_reader


def test_a_sheet_under_another_expeditions_sheet_is_found(box, monkeypatch):
    """Development seed 520 (broadened) as rendered: a Japanese eye witness lies two thirds under an
    American surface camera; the overlap (yellow under blue: a dark grey-green coverage reads as no
    colour) was unseen to the fitter, the eye witness showed it 160 mm^2 of yellow in scraps, was
    missed and its scraps named a cage (a typed extra).  With the products read, the eye witness is
    found and named right: right 8 -> 9 of 9, no wrong type or typed extra added, coverage
    unchanged.  Fails with the switch off (checked: right 8 both ways)."""
    from companion.vision import sheetfit

    read = broad_photo_reader(box, 520)
    assert_fitter_rule_names_more(read, monkeypatch, sheetfit, "FILTER_PRODUCTS", gain=1)


def _photo(colours: dict, paint: list, shape=(120, 160)):
    """A PhotoColour on a white board (the drawn board's log colour 0 everywhere): ``paint`` is a
    list of (slice rows, slice cols, RGB) rectangles."""
    from companion.vision.sheetlayers import PhotoColour

    img = np.full(shape + (3,), 255, np.uint8)
    for rows, cols, rgb in paint:
        img[rows, cols] = np.asarray(rgb, np.uint8)[::-1]  # BGR
    return PhotoColour(img, np.ones(shape, bool), np.zeros(shape + (3,), np.float32), colours)


def test_the_product_of_two_filters_reads_as_both_and_another_colour_as_neither():
    """Blue (80, 120, 225) over yellow (245, 215, 60): their overlap is the channels' product over
    255.  The fitter sees the single layers (masks, seen) but not the overlap, a green patch beside
    the blue (a colour no product of these explains) nor a dark grey patch (near the product's
    colour: a shadow) touching neither colour.  The overlap reads as both expeditions' colour, the
    two patches as neither, and the single layers are left as they were (only unseen pixels are
    read)."""
    from companion.vision.sheetproducts import read_products

    blue, yellow = (80, 120, 225), (245, 215, 60)
    both = tuple(int(round(a * b / 255)) for a, b in zip(blue, yellow))
    colours = {"american": blue, "japanese": yellow}
    photo = _photo(colours, [(slice(10, 60), slice(10, 80), blue), (slice(40, 100), slice(50, 130), yellow),
                             (slice(40, 60), slice(50, 80), both), (slice(100, 115), slice(10, 40), (90, 90, 90)),
                             (slice(10, 30), slice(82, 100), (40, 200, 40))])
    h, w = photo.valid.shape
    amer, jap = np.zeros((h, w), np.float32), np.zeros((h, w), np.float32)
    amer[10:60, 10:80] = 1
    jap[40:100, 50:130] = 1
    amer[40:60, 50:80] = jap[40:60, 50:80] = 0  # the overlap: neither colour to coverage ...
    seen = np.ones((h, w), np.float32)
    seen[40:60, 50:80] = 0  # ... and unseen to the fitter
    seen[100:115, 10:40] = seen[10:30, 82:100] = 0  # the two patches: unseen too
    colour, _double = read_products(photo, {"american": amer, "japanese": jap}, seen, 2.0)
    for e in ("american", "japanese"):
        assert colour[e][42:58, 52:78].all()  # the overlap (less its opened edge)
        assert not colour[e][100:115, 10:40].any() and not colour[e][10:30, 82:100].any()  # the patches
        assert not colour[e][seen > 0].any()  # what the fitter sees is left alone
