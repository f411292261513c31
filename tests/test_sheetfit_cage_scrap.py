"""A fitted cage that is the seen scrap of a bigger sheet whose rest lies under another film
(sheetfit.CAGE_SCRAP_LEADER, sheetfit_cage_scrap.py): the overlap of two films is darker than either
film alone (the filters multiply), so a cage fit whose evidence leader's unseen part reads darker than
the cage's own colour gives way to the leader; a scrap whose rest is lost to glare (brighter) does not."""

from __future__ import annotations

import numpy as np

from companion.vision import sheetfit
from companion.vision.sheetfit_cage_scrap import STACK_DARKER_LOG, cage_scrap
from companion.vision.sheetgrid import FitGrid
from companion.vision.sheetlayers import PhotoColour
from tests.coverage_helpers import assert_fitter_rule_names_more, raycast_photo


def _drawn(box, hidden_level: int, other_film: bool = True):
    """A drawn fine grid (2 px/mm): an underwater camera (point at (40, 10) mm, wide end at y 105-112)
    crossed by a film band (y 20-95 mm, x 0-80 mm) over it.  The camera's colour shows at its point
    and its wide end; its part under the band is unseen to the fitter and reads ``hidden_level``
    (grey, 0..255) in the photo against the camera's own 120; the band's part off the camera is
    another expedition's colour (``other_film``) or plain paper (a film of the camera's own
    expedition over it, read with it).  Returns (grid, cage shape and pose, camera shape and pose,
    photo, other colour)."""
    import cv2

    from companion.vision.sheets import place

    ppm, h, w = 2.0, 240, 160
    cam = tuple(map(tuple, box.equipment["underwater_camera"].shape))
    cage_shape = tuple(map(tuple, box.equipment["cage"].shape))
    pose = (40.0, 10.0, 0.0)
    inside = np.zeros((h, w), np.uint8)
    cv2.fillPoly(inside, [np.round(place(cam, *pose) * ppm * 16).astype(np.int32)], 1, shift=4)
    inside = inside > 0
    ys, xs = np.mgrid[:h, :w]
    band = (ys >= 20 * ppm) & (ys < 95 * ppm) & (xs < 80 * ppm)
    hidden = inside & band
    C = (inside & ~band).astype(np.float32)
    other = (band & ~inside).astype(np.float32) if other_film else np.zeros((h, w), np.float32)
    B = (~inside & (other == 0)).astype(np.float32)  # paper; the overlap unseen
    grid = FitGrid(C, B, 0.0, 0.0, ppm, 4)
    warped = np.full((h, w, 3), 230, np.uint8)
    warped[inside] = 120
    warped[band & ~inside] = 150
    warped[hidden] = hidden_level
    photo = PhotoColour(warped, np.ones((h, w), bool), np.zeros((h, w, 3), np.float32), {})
    return grid, cage_shape, (40.0, 103.0, 0.0), cam, pose, photo, other


def test_a_scrap_whose_rest_reads_as_under_another_film_is_the_bigger_sheets(box):
    """The camera's unseen part at grey 50 against its seen colour's 120 (0.88 log darker: two
    filters) beside the other film's colour: the cage on its wide end is the camera's scrap.  Not
    when the unseen part reads brighter (230: glare), nor just under the threshold's darkness, nor
    when no other expedition's colour lies beside it (a stack of the camera's own films)."""
    def scrap(level, other_film=True):
        grid, cs, cp, ls, lp, photo, other = _drawn(box, level, other_film)
        return cage_scrap(grid, cs, cp, ls, lp, photo, 0, 0, other)

    assert scrap(50)
    assert not scrap(230)
    assert not scrap(int(120 * np.exp(-STACK_DARKER_LOG)) + 3)
    assert not scrap(50, other_film=False)


def test_development_photo_0_names_the_camera_under_the_british_eye_witness(box, monkeypatch):
    """Second generator, development 0 (tungsten): the American underwater camera (178, 332) lies
    half under a British eye witness; the overlap is unseen to the fitter and its seen wide end is
    fitted as a cage, unsure (confidence 0: the camera leads on evidence).  With the rule on the
    photo names 12 of 13 sheets right, off 11 (the camera missed), with no wrong type or typed extra
    more and coverage's decisions unchanged.  Fails with the switch off."""
    photo, scene = raycast_photo(box, 0)

    def read():
        from companion.vision.adjudicate import adjudicate
        from companion.vision.sheetscore import score_sheets
        adj = adjudicate(photo, box)
        found = [f for fits in adj.sheets.values() for f in fits]
        return score_sheets(box, scene.sheets, found), adj.coverage

    assert_fitter_rule_names_more(read, monkeypatch, sheetfit, "CAGE_SCRAP_LEADER", gain=1, before_most=11)
