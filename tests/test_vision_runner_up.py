"""A fit is not named when its runner-up's own part shows colour the fit leaves unexplained, at
least as much as the fit leads by (sheetfit.RUNNER_UP_CHECK): the photo does not refute the
runner-up there, and the lead says only which shape explains more of a blob neither explains
alone (two sheets merged, a sheet half unseen).  Coverage's decisions are untouched (a naming rule)."""

from __future__ import annotations

import numpy as np

from tests.coverage_helpers import assert_no_coverage_change, broad_photo_reader, read_on_and_off

import pytest


@pytest.fixture(autouse=True)
def _fit_reach_held_off(monkeypatch):
    # (coverage_fit_reach.FIT_REACH_UNDECIDED, session 42, makes a hex undecided where a named fit
    # reaches across its line with no colour seen there: its decisions follow the fits, which this
    # file's rule moves, so it is held off -- these tests compare coverage with their own rule off and
    # on; assertions unchanged)
    from companion.vision import coverage_fit_reach
    monkeypatch.setattr(coverage_fit_reach, "FIT_REACH_UNDECIDED", False)


def test_two_fits_leading_their_unrefuted_runner_up_are_left_unnamed(box, monkeypatch):
    """Development seed 559 (broadened) as rendered: with the rule off two of its 14 sheets are
    named a wrong type -- an Independent eye witness fitted as a surface camera (confidence 0.43;
    its runner-up, the eye witness, explains 133 mm^2 of colour outside the camera's outline
    against a lead of 54) and an American biological unit's scrap fitted as an eye witness (0.32;
    the biological unit's own part 46 mm^2 against a lead of 25).  With it on both are
    unidentified, every right sheet stays right, no typed extra is added and coverage's decisions
    are unchanged.  Fails with the switch off (two wrong types, not none).  Held without
    sheetfit.SONAR_REST_UNNAMED (session 42): with the runner-up check off, that rule unnames one of
    the two by itself (a camera inside a sonar whose rest holds unexplained colour), so this rule's
    premise (two wrong types without it) would not hold."""
    from companion.vision import sheetfit

    monkeypatch.setattr(sheetfit, "SONAR_REST_UNNAMED", False)
    read = broad_photo_reader(box, 559)  # as rendered
    (now, cov_now), (before, cov_before) = read_on_and_off(read, monkeypatch, sheetfit, "RUNNER_UP_CHECK")
    assert before.wrong == 2  # what the rule is for
    assert now.wrong == 0 and now.unidentified == before.unidentified + 2
    assert now.right == before.right and now.extra_named <= before.extra_named
    assert_no_coverage_change(cov_now, cov_before)


def test_colour_outside_counts_unexplained_colour_in_one_outline_only():
    """FitGrid.colour_outside: the unexplained colour inside the first outline and outside the
    second (a 20 mm square round a 10 mm one on full colour: 300 mm^2 at 1 px/mm), none once the
    second covers the first."""
    from companion.vision.sheetgrid import FitGrid

    colour = np.ones((60, 60), np.float32)
    grid = FitGrid(colour, np.zeros_like(colour), 0.0, 0.0, 1.0, 4)
    big = ((-10, -10), (10, -10), (10, 10), (-10, 10))
    small = ((-5, -5), (5, -5), (5, 5), (-5, 5))
    assert abs(grid.colour_outside(big, (30, 30, 0), small, (30, 30, 0)) - 300) <= 25
    assert grid.colour_outside(small, (30, 30, 0), big, (30, 30, 0)) == 0
