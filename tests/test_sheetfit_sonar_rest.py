"""A pointed fit nested in a sonar whose rest the photo does not refute is not named
(sheetfit.SONAR_REST_UNNAMED, sheetfit_sonar_rest.py): the sonar's rest outside the fit holds more
of the fit's colour that no fit explains than plain paper, by a sheet's worth -- another
expedition's colour reading darker there than that colour alone (two filters' product) is no
paper."""

from __future__ import annotations

import numpy as np

from companion.vision import sheetfit
from companion.vision.sheetfit_sonar_rest import sonar_unrefuted
from companion.vision.sheetgrid import FitGrid
from companion.vision.sheetlayers import PhotoColour
from tests.coverage_helpers import assert_no_coverage_change, raycast_photo

PPM, N = 2.0, 240  # a drawn fine grid: 2 px/mm, 120 x 120 mm
POSE = (60.0, 15.0, 0.0)  # the sonar's point on (60, 15) mm, the sheet running down the grid
CAMERA = (60.0, 27.0, 0.0)  # a surface camera 12 mm further along: wholly inside the sonar


def _fill(shape, pose):
    import cv2

    from companion.vision.sheets import place
    m = np.zeros((N, N), np.uint8)
    cv2.fillPoly(m, [np.round((place(shape, *pose) * PPM - 0.5) * 16).astype(np.int32)], 1, shift=4)
    return m > 0


def _drawn(box, rest: str, own_tip: bool = True):
    """A surface camera's colour (grey 120) fitted at CAMERA, inside a sonar at POSE.  The
    sonar's far tip past 82 mm (224 mm^2) shows the colour too (``own_tip``); the rest of the sonar's
    part outside the camera is ``rest``: "unseen" (glare, another film the fitter cannot read),
    "paper" (plain paper, 230), "other_dark" (another expedition's colour, coded alone -- paper to
    this fitter -- at grey 50 where it lies on the sonar, 150 alone beside it: darker there by 1.1
    log) or "other_light" (the same at 140: no darker than alone, another film on paper).  Returns
    (grid, shapes, refined, photo, other)."""
    import cv2

    shapes = {t: tuple(map(tuple, box.equipment[t].shape)) for t in ("surface_camera", "sonar")}
    F = _fill(shapes["surface_camera"], CAMERA)
    G = _fill(shapes["sonar"], POSE)
    R = G & ~F
    ys, _xs = np.mgrid[:N, :N]
    tip = R & (ys > (POSE[1] + 82.0) * PPM) if own_tip else np.zeros((N, N), bool)
    rest_part = R & ~tip
    k = 2 * int(round(5.0 * PPM)) + 1
    beside = (cv2.dilate(G.view(np.uint8), np.ones((k, k), np.uint8)) > 0) & ~G
    C = (F | tip).astype(np.float32)
    B = (~G).astype(np.float32)
    other = np.zeros((N, N), np.float32)
    warped = np.full((N, N, 3), 230, np.uint8)
    warped[F | tip] = 120
    if rest == "paper":
        B[rest_part] = 1.0
    elif rest in ("other_dark", "other_light"):
        B[rest_part] = 1.0  # the colour match names the other film alone: paper to this fitter
        other[rest_part] = 1.0
        other[beside] = 1.0
        warped[beside] = 150
        warped[rest_part] = 50 if rest == "other_dark" else 140
    grid = FitGrid(C, B, 0.0, 0.0, PPM, 4)
    photo = PhotoColour(warped, np.ones((N, N), bool), np.zeros((N, N, 3), np.float32), {})
    refined = {"surface_camera": (0.0, CAMERA), "sonar": (0.0, POSE)}
    return grid, shapes, refined, photo, other


def test_a_camera_in_a_sonar_whose_rest_shows_no_paper_is_not_shown_to_end(box):
    """The sonar's rest unseen, or another film darker there than beside it, with the camera's colour
    in the sonar's tip: the photo cannot tell the camera from the sonar.  Not when the rest is plain
    paper, nor another film no darker than alone (it lies on paper), nor when the tip shows no colour
    (unseen alone supports nothing: glare)."""
    min_px = sheetfit.MIN_SHEET_MM2 * PPM ** 2

    def unrefuted(rest, own_tip=True):
        grid, shapes, refined, photo, other = _drawn(box, rest, own_tip)
        return sonar_unrefuted(grid, shapes, refined, "surface_camera", CAMERA, photo, 0, 0, other,
                               sheetfit.NESTED_SHARE, min_px)

    assert unrefuted("unseen")
    assert unrefuted("other_dark")
    assert not unrefuted("paper")
    assert not unrefuted("other_light")
    assert not unrefuted("unseen", own_tip=False)


def test_development_15_an_american_sonar_under_the_independent_not_named_a_camera(box, monkeypatch):
    """Second generator, development 15 (warm LED, no glare): an American sonar lies under an
    Independent sonar; the overlap reads dark and unseen to the American fit, which names a surface
    camera inside the sonar (confidence 0.50): a wrong type.  The sonar's rest holds 90 mm^2 of
    American colour no fit explains against 26 mm^2 of plain paper (a lead of 64 mm^2, over a sheet's
worth): with SONAR_REST_UNNAMED the
    camera is unnamed.  No right sheet lost, no typed extra more, coverage unchanged.  Fails with
    the switch off."""
    photo, scene = raycast_photo(box, 15)

    def read():
        from companion.vision.adjudicate import adjudicate
        from companion.vision.sheetscore import score_sheets
        adj = adjudicate(photo, box)
        found = [f for fits in adj.sheets.values() for f in fits]
        return score_sheets(box, scene.sheets, found), adj.coverage

    now, cov_now = read()
    monkeypatch.setattr(sheetfit, "SONAR_REST_UNNAMED", False)
    before, cov_before = read()
    assert before.wrong >= 1  # what the rule is for
    assert now.wrong == before.wrong - 1
    assert now.right == before.right and now.extra_named <= before.extra_named
    assert_no_coverage_change(cov_now, cov_before)
