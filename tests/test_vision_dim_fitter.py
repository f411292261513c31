"""One sheet's dim channels seen by the sheet fitter only (coverage.DIM_SEEN_BY_FITTER, on): a
phone's tone curve and saturation boost stretch a sheet's dim channels under coverage.DIM_LOG,
which left whole sheets unseen to the fitter; coverage's own hex decisions keep the test."""

from __future__ import annotations

import numpy as np


def test_the_fitter_sees_sheets_whose_dim_channels_a_phone_stretched(box, monkeypatch):
    """Development seed 523 (broadened) through the first phone (gamma 1.19, S-curve 0.23,
    saturation boost 1.25): its British sheets' green and blue read -2.3 against -1.3 as rendered
    and a third of each fell under the dim-channels test; the fitter named 3 of its 13 sheets
    right.  Seen by the fitter where the colour match names one expedition and a channel still
    passes most of the light: 9, with no wrong type and no typed extra more, and coverage's
    decisions (covered and unknown hexes) unchanged.  Fails without the rule (switch off: 3 right)."""
    from companion.vision import coverage as cov
    from companion.vision.adjudicate import adjudicate, decode
    from companion.vision.render import random_scene, render
    from companion.vision.sheetscore import score_sheets
    from tests.phone_pipeline import phone_pipeline

    scene = random_scene(box, 523, 1600, 1200, broad=True)
    image, _truth = render(box, scene)
    photo = decode(phone_pipeline(image, np.random.default_rng(523)))

    def read():
        adj = adjudicate(photo, box)
        found = [f for fits in adj.sheets.values() for f in fits]
        return score_sheets(box, scene.sheets, found), adj.coverage

    monkeypatch.setattr(cov, "DIM_SEEN_BY_FITTER", True)
    now, cov_now = read()
    monkeypatch.setattr(cov, "DIM_SEEN_BY_FITTER", False)
    before, cov_before = read()

    assert before.right <= 4  # what the rule is for
    assert now.right >= before.right + 4
    assert now.wrong <= before.wrong and now.extra_named <= before.extra_named
    assert cov_now.covered == cov_before.covered and cov_now.unknown == cov_before.unknown
