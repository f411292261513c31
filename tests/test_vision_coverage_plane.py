"""The plane judged coarse, the printed lines and the hexes' decisions on the work grid
(coverage_plane.py, coverage.COARSE_PLANE)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from companion.vision import colourmasks as cm
from companion.vision import coverage as cov
from companion.vision.adjudicate import adjudicate, decode
from companion.vision.coverage_plane import coarser, finer_pixels, onto_fine, plane_step, refined
from companion.vision.render import encode_jpeg, render
from companion.vision.sheets import SheetPose
from companion.vision.transmission import table

from .test_vision_coverage import _quiet_scene


def _tab(box):
    key = tuple(tuple(float(v) for v in box.sheet_colours[e]) for e in cm.EXPEDITIONS)
    return table(key, cov.GREY_LO, cov.GREY_HI)


def test_the_plane_is_coarse_only_where_the_photo_is():
    assert plane_step(3.0) == 2 and plane_step(2.0) == 1


def test_coarse_pixels_average_the_work_grid_and_are_in_view_only_when_wholly():
    img = np.arange(4 * 6, dtype=np.float32).reshape(4, 6)
    valid = np.ones((4, 6), bool)
    valid[0, 5] = False
    small, seen = coarser(img, valid, (2, 3))
    assert small[0, 0] == (0 + 1 + 6 + 7) / 4
    assert seen.tolist() == [[True, True, False], [True, True, True]]


def test_colour_reaching_a_coarse_line_pixel_reaches_the_work_grids_margin():
    """The coarse grid's printed line is wider than the work grid's: a work pixel of paper lying in a
    coarse line pixel takes the colour of the coarse paper beside it, so a sheet running up to the
    line still reaches the line's margin (coverage_lines then carries it onto the line)."""
    coarse_flat = np.ones((4, 8), bool)
    coarse_flat[:, 4] = False  # the coarse line: work columns 8 and 9
    fine_flat = np.ones((8, 16), bool)
    fine_flat[:, 9] = False  # the work grid's line: column 9 alone; column 8 is its margin's paper
    colour = np.zeros((4, 8), bool)
    colour[:, :4] = True  # a sheet up to the line from the left
    got = onto_fine(colour, SimpleNamespace(flat=coarse_flat), SimpleNamespace(flat=fine_flat, shape=(8, 16)))
    assert got[:, :9].all() and not got[:, 9:].any()


def test_part_sheet_pixels_stand_for_every_work_pixel_of_theirs():
    ys, xs, which = finer_pixels((np.array([1]), np.array([2]), np.array([4], np.uint8)), 2)
    assert sorted(zip(ys.tolist(), xs.tolist())) == [(2, 4), (2, 5), (3, 4), (3, 5)] and (which == 4).all()


def test_sheet_edges_are_placed_by_the_work_grids_own_colour(box):
    """The coarse colour's edge a coarse pixel off the sheet's: within the band round it the work
    grid's own colour match places the edge (the sheet's edge on an odd work pixel), away from it
    the coarse answer stands (a noisy pixel inside the sheet keeps its colour)."""
    red = np.log(np.asarray(box.sheet_colours["british"], np.float32) / 255.0)
    L = np.zeros((20, 40, 3), np.float32)
    L[:, :17] = red  # the sheet ends after work column 16
    L[10, 5] = 0.0  # a pixel inside that reads as paper (noise)
    coarse = np.zeros((20, 40), bool)
    coarse[:, :18] = True  # the coarse grid put the edge a work pixel further (its pixel 8 half red)
    seen = np.ones((20, 40), bool)
    got = refined({"british": coarse}, L, _tab(box), seen, cov.DEEP_SHADOW_LOG)["british"]
    assert got[:, :17].all() and not got[:, 17:].any()


def test_coarse_plane_decides_overlapping_sheets_as_the_work_grid(box, monkeypatch):
    """Two expeditions over the same hexes, judged coarse with the lines and decisions on the work
    grid: both are seen there, and the masks come on the output layout."""
    h = box.loch.parse("D3c")
    sheets = [SheetPose("british", "biological_unit", h.center[0] - 8, h.center[1], 0.0),
              SheetPose("american", "biological_unit", h.center[0] + 8, h.center[1], 0.0)]
    scene = _quiet_scene(box, sheets)
    photo, _ = render(box, scene)
    data = encode_jpeg(photo, scene.jpeg_quality)
    got = {}
    for coarse in (False, True):
        monkeypatch.setattr(cov, "COARSE_PLANE", coarse)
        got[coarse] = adjudicate(decode(data), box, fit_sheets=False).coverage
    for e in ("british", "american"):
        assert "D3c" in got[True].covered[e]
        assert set(got[True].covered[e]) == set(got[False].covered[e])
        assert got[True].masks[e].shape == got[False].masks[e].shape == cov.layout(box).shape
        assert got[True].fit_masks[e].shape == cov.layout(box).shape
