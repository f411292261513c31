"""The veil of added light judged in the photo's own units (coverage.VEIL_IN_PHOTO_UNITS, off by
default: it named more sheets right through the second phone on development and check photos, but
made one wrong type more on the never-tuned check set): a shadow-lifting phone's tone gain (about
1.4-1.9) multiplies the paper's small cell-to-cell spread as well, which read as light added over
whole sheets and left them unseen."""

from __future__ import annotations

import cv2
import numpy as np


def _unseen_on_sheets(box, res, sheets) -> float:
    from companion.vision import coverage as cov
    from companion.vision.sheets import outline

    lay = cov.layout(box, cov.WORK_PPM)
    m = np.zeros(lay.shape, np.uint8)
    for sh in sheets:
        poly = (outline(box, sh) - [lay.x0, lay.y0]) * lay.ppm - 0.5
        cv2.fillPoly(m, [np.round(poly * 16).astype(np.int32)], 1, shift=4)
    return float(res.unknown_work[m > 0].mean())


def test_a_shadow_lifting_phones_paper_is_no_veil(box, monkeypatch):
    """Development seed 601 (broadened) through the second phone: read after the tone gain, the
    veil left 31 % of the sheets' area unknown; in the photo's own units 22 % (round the scene's
    glare spot it is read as before), with no coverage error more and no glare called covered."""
    from companion.vision import coverage as cov
    from companion.vision.evaluate import near_border_hexes, score_coverage
    from companion.vision.render import random_scene, render
    from tests.bench.bench_coverage import _registered
    from tests.phone_pipeline import second_phone

    scene = random_scene(box, 601, 1600, 1200, broad=True)
    image, truth = render(box, scene)
    photo, reg = _registered(box, second_phone(image, np.random.default_rng(601)))
    near = near_border_hexes(box, scene.sheets)

    monkeypatch.setattr(cov, "VEIL_IN_PHOTO_UNITS", True)  # off by default (see coverage.py)
    now = cov.measure(photo.bgr, reg, box, bgr=True)
    monkeypatch.setattr(cov, "VEIL_IN_PHOTO_UNITS", False)
    before = cov.measure(photo.bgr, reg, box, bgr=True)

    assert _unseen_on_sheets(box, now, scene.sheets) < 0.25
    assert _unseen_on_sheets(box, before, scene.sheets) > 0.28  # what the rule is for
    s_now, s_before = (score_coverage(box, truth, r.covered, r.unknown, near) for r in (now, before))
    assert s_now.errors <= s_before.errors and s_now.glare_false_covered == 0
    assert s_now.unknown_visible < s_before.unknown_visible


def test_round_real_glare_the_veil_is_read_as_before(box, monkeypatch):
    """The same photo: 16-24 mm from the glare spot's centre, scraps of a washed-out green sheet
    fitted three named cages when the veil there was read in the photo's own units too
    (coverage.VEIL_NEAR_GLARE_AS_BEFORE off); read as before there, none."""
    from companion.vision import coverage as cov
    from companion.vision.adjudicate import adjudicate, decode
    from companion.vision.render import random_scene, render
    from companion.vision.sheetscore import score_sheets
    from tests.phone_pipeline import second_phone

    scene = random_scene(box, 601, 1600, 1200, broad=True)
    image, _truth = render(box, scene)
    photo = decode(second_phone(image, np.random.default_rng(601)))

    def named_extras() -> int:
        adj = adjudicate(photo, box)
        return score_sheets(box, scene.sheets, [f for fits in adj.sheets.values() for f in fits]).extra_named

    monkeypatch.setattr(cov, "VEIL_IN_PHOTO_UNITS", True)  # off by default (see coverage.py)
    assert named_extras() == 0
    monkeypatch.setattr(cov, "VEIL_NEAR_GLARE_AS_BEFORE", False)
    assert named_extras() >= 2  # what the rule is for
