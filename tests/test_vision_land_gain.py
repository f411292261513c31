"""The land round the loch read at the loch's tone gain (sheetland.LAND_TONE_GAIN,
sheetland.with_tone_gain).  A phone's tone curve compresses the land's log-contrast as it does the
loch's, but the land is read against the plain land's own colour in the photo's units: through the
second phone (its shadow lift) a sheet lying over the land past a loch's end read too pale for
any sheet's colour, the land under it unseen, and the fitter saw only its loch part."""

from __future__ import annotations

from tests.coverage_helpers import assert_fitter_rule_names_more, broad_photo_reader
from tests.phone_pipeline import second_phone


def test_a_sheet_over_the_land_past_the_loch_end_is_named_through_the_second_phone(box, monkeypatch):
    """Development seed 618 (broadened) through the second phone (white balance 1.03 / 0.94 / 1.02,
    shadow lift a = 5.1; coverage's tone gain on the loch 1.75): its American sonar at the loch's
    west end lies two thirds over the land, which the phone lifts from (135, 160, 134) to (186,
    195, 185) (BGR); the land under the sonar read as its colour over 0 % with the rule off (95 %
    as rendered), and the fitter left an unidentified eye witness on its loch part.  With the rule
    off 8 of the photo's 9 sheets are named right, with it on all 9, with no wrong type or typed
    extra more and coverage's decisions unchanged (the rule reads the land after coverage).  Fails
    with the switch off (8 right, not 9)."""
    from companion.vision import sheetland

    read = broad_photo_reader(box, 618, second_phone)
    assert_fitter_rule_names_more(read, monkeypatch, sheetland, "LAND_TONE_GAIN", gain=1, before_most=8)


def test_no_tone_gain_leaves_the_land_as_read(box):
    """A photo whose loch reads at gain 1 (as rendered), or the switch off: the land measure is
    returned as it was, the same object (renders read exactly as before)."""
    import numpy as np

    from companion.vision import sheetland

    shape = (4, 4)
    land = sheetland.LandMeasure({e: np.zeros(shape, bool) for e in sheetland.EXPEDITIONS}, np.zeros(shape, bool),
                                 sheetland.LAND_PPM, pixels=(np.zeros((1, 3), np.float32), np.ones(1, bool),
                                                             np.zeros(1, np.int64), shape, box.sheet_colours, 0))
    assert sheetland.with_tone_gain(land, 1.0) is land
    assert sheetland.with_tone_gain(None, 1.6) is None
