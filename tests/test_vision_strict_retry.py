"""A blob's colour left without a plausible sheet is searched once more, the coarse match paying
the full cost for paper and every shape at least twice the scrap's colour refined, before it is
given up (sheetgroups.STRICT_RETRY): the scrap may be the seen part of a sheet mostly under its
own expedition's other sheet, whose outline shows no paper but which the mild coarse cost never
put forward.  Coverage's decisions are untouched (a fitter rule)."""

from __future__ import annotations

import numpy as np

from tests.coverage_helpers import assert_fitter_rule_names_more, broad_photo_reader


def test_a_sheet_seen_as_the_scrap_its_neighbour_leaves_is_found(box, monkeypatch):
    """Development seed 511 (broadened) through the first phone: a Japanese eye witness lies half
    under a Japanese surface camera; the camera explains the merged blob's first sheet and the eye
    witness's 320 mm^2 left over was given up (the mild coarse match refined only eye witness
    poses spilling 180-260 mm^2 over paper), so it was missed.  With the retry the eye witness is
    found at its pose and named right, no wrong type or typed extra added, coverage unchanged.
    Right 10 -> 11 of 11.  Fails with the switch off (checked, with the retry's search taken out:
    right 10 both ways, the eye witness missed).  Held without sheetfit.FILTER_PRODUCTS (session
    34): with the overlap read as products the eye witness is found without the retry (unidentified)."""
    from companion.vision import sheetfit, sheetgroups
    from tests.phone_pipeline import phone_pipeline

    monkeypatch.setattr(sheetfit, "FILTER_PRODUCTS", False)

    read = broad_photo_reader(box, 511, phone_pipeline)
    assert_fitter_rule_names_more(read, monkeypatch, sheetgroups, "STRICT_RETRY", gain=1)


def test_the_strict_retry_tries_only_shapes_at_least_twice_the_scraps_colour():
    """strict_search leaves out a shape that fits inside the scrap twice over (it was matched
    fairly the first time; on a scrap it is a phantom), and returns None when no shape is left."""
    from companion.vision.sheetgrid import FitGrid
    from companion.vision.sheetgroups import strict_search

    colour = np.zeros((80, 80), np.float32)
    colour[30:40, 30:40] = 1.0  # a 100 mm^2 scrap at 1 px/mm
    grid = FitGrid(colour, 1.0 - colour, 0.0, 0.0, 1.0, 2)
    small = ((-5, -5), (5, -5), (5, 5), (-5, 5))  # 100 mm^2: not twice the scrap
    big = ((-10, -10), (10, -10), (10, 10), (-10, 10))  # 400 mm^2
    blob = grid.largest_blob()
    assert strict_search(grid, {"small": small}, blob) is None
    refined, best = strict_search(grid, {"small": small, "big": big}, blob)
    assert set(refined) == {"big"} and best == "big"
