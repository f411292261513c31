"""Stacked films on a calibrated read (session 36): a calibration measures each film alone, and
under real (spectral) light two films' channel values do not multiply where both pass little of
a channel's band (transmission.STACKS_CENSORED)."""

import dataclasses

import numpy as np
import pytest

from companion.box_profiles import load_box
from companion.vision import calibrate, coverage as cov, gridfit, transmission
from companion.vision.adjudicate import decode, registered
from companion.vision.sheets import SheetPose
from tests import board_raycast as rc


@pytest.fixture(scope="module")
def box():
    return load_box()


def _shoot(box, scene) -> object:
    """The scene through the second generator's sensor and JPEG, decoded as a photo."""
    return decode(rc.jpeg_of(box, scene))


@pytest.fixture(scope="module")
def overlap(box):
    """The second generator's scene 0 (tungsten, 1600 x 1200): the calibration (an empty board,
    one British and one American biological unit mid-loch, measured as `calibrate` does) and a
    game photo of a British and an American unit overlapping by half their width."""
    scene = rc.random_scene(box, 0)
    empty = dataclasses.replace(scene, sheets=[], heights=[], curls=[], hand=None, phone_shadow=None)
    cx, cy = np.asarray(box.loch.shore_outline, float).mean(0)

    def with_sheets(*poses):
        return dataclasses.replace(empty, sheets=list(poses), heights=[0.2] * len(poses), curls=[None] * len(poses))

    reference, _ = calibrate.reference_from(_shoot(box, empty), box)
    colours = dict(box.sheet_colours)
    for e in ("british", "american"):
        colours[e] = tuple(calibrate.measure_colour(
            _shoot(box, with_sheets(SheetPose(e, "biological_unit", float(cx), float(cy), 0.0))), box, reference)[0])
    game = with_sheets(SheetPose("british", "biological_unit", float(cx) - 15, float(cy), 0.0),
                       SheetPose("american", "biological_unit", float(cx) + 15, float(cy), 0.0))
    photo = _shoot(box, game)
    reg = gridfit.refine(registered(photo, box), photo.gray, box)  # as adjudicate registers a game photo
    return photo, reg, reference, colours, rc.truth_of(box, game)["coverage"]


def _read(box, overlap):
    photo, reg, reference, colours, truth = overlap
    res = cov.measure(photo.bgr, reg, box, reference=reference, colours=colours, bgr=True)
    covered = {e: {a for a, d in truth[e].items() if d["covered"]} for e in truth}
    either = {e: covered[e] | {a for a, d in truth[e].items() if d["close"]} for e in truth}
    return res, covered, either


def test_a_calibrated_read_sees_two_stacked_films(box, overlap):
    """Where the British and the American unit overlap (their hexes covered by both), both are
    called covered, and neither expedition is called anywhere its sheet is not.

    Fails with STACKS_CENSORED off (checked): the overlap's green, where the red film and the
    blue one both pass little, is ~1 log unit darker than the two films' calibrated greens added
    (-3.0 against -2.0 in development photo 0, the same light), the overlap fits no candidate and
    its hexes are unknown for both."""
    res, covered, either = _read(box, overlap)
    both = covered["british"] & covered["american"]
    assert len(both) >= 4
    for e in ("british", "american"):
        called = set(res.covered[e])
        assert called <= either[e]
        assert len(both - called) <= 1


def test_stacks_censored_only_on_a_calibrated_read(box):
    """The table an uncalibrated read asks for matches as before: no channel censored."""
    key = tuple(tuple(float(v) for v in box.sheet_colours[e]) for e in cov.EXPEDITIONS)
    assert transmission.table(key, cov.GREY_LO, cov.GREY_HI).cens is None
    assert transmission.table(key, cov.GREY_LO, cov.GREY_HI, calibrated=True).cens.any()
