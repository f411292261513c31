"""Colour that runs to the shore (coverage_shore.py): the land beyond the shore line is not judged,
so where a colour reaches it, the shore line within reach is doubtful for that expedition."""

from __future__ import annotations

import numpy as np

from companion.vision import coverage as cov
from companion.vision import coverage_shore as cs


def _paper_of(lay, addr):
    j = lay.addresses.index(addr)
    ends = np.r_[lay.offsets[1:], len(lay.index)]
    mask = np.zeros(lay.shape[0] * lay.shape[1], bool)
    mask[lay.index[lay.offsets[j]:ends[j]]] = True
    return mask.reshape(lay.shape) & lay.paper


def test_colour_run_to_the_shore_leaves_the_shore_line_beside_it_doubtful(box, monkeypatch):
    lay = cov.layout(box, cov.WORK_PPM)
    touch, line = cs._shore(lay)
    # a shore hex: its paper comes within SHORE_TOUCH_MM of the unjudged land
    shore = next(a for a in lay.addresses if (_paper_of(lay, a) & touch).any())
    colour = _paper_of(lay, shore)
    doubt = cs.shore_doubt(lay, colour)
    assert doubt is not None
    assert not (doubt & colour).any() and (doubt <= line).all()
    # within reach of the colour only
    ys, xs = np.nonzero(doubt)
    cy, cx = np.nonzero(colour & touch)
    reach = (cs.SHORE_REACH_MM * lay.ppm + 1) * np.sqrt(2)
    d2 = (ys[:, None] - cy[None, :]) ** 2 + (xs[:, None] - cx[None, :]) ** 2 if len(ys) * len(cy) < 4e7 else None
    if d2 is not None:
        assert (np.sqrt(d2.min(1)) <= reach).all()
    # colour in the loch, far from the land: nothing doubtful
    inner = next(a for a in lay.addresses if _paper_of(lay, a).any()
                 and not cv2_grown(_paper_of(lay, a), int(3 * cs.SHORE_REACH_MM * lay.ppm)).__and__(line).any())
    assert cs.shore_doubt(lay, _paper_of(lay, inner)) is None
    monkeypatch.setattr(cs, "SHORE_DOUBT", False)
    assert cs.shore_doubt(lay, colour) is None


def cv2_grown(mask, r):
    import cv2
    return cv2.dilate(mask.view(np.uint8), np.ones((2 * r + 1, 2 * r + 1), np.uint8)) > 0


def test_a_sheets_tip_crossing_a_shore_hexs_corner_from_the_land_is_undecided(box, monkeypatch):
    """End to end through the second phone (development seed 43001): a yellow sheet lying on the
    land crosses the corner of shore hex C5a (0.6 mm past its outer border line); its colour shows
    only on the next hex, run up to the shore line.  C5a was called uncovered; now undecided."""
    from companion.vision.adjudicate import adjudicate, decode
    from companion.vision.evaluate import score_coverage
    from companion.vision.render import random_scene, render
    from tests.phone_pipeline import second_phone

    scene = random_scene(box, 43001, 1600, 1200, broad=True)
    image, truth = render(box, scene)
    data = second_phone(image, np.random.default_rng(43001))

    def result():
        adj = adjudicate(decode(data), box, fit_sheets=False)
        return adj.coverage, score_coverage(box, truth, adj.coverage.covered, adj.coverage.unknown)

    res, now = result()
    assert "C5a" in res.unknown["japanese"]
    assert not any(h == "C5a" for _, h, _ in now.error_list), now.error_list
    monkeypatch.setattr(cs, "SHORE_DOUBT", False)
    res, old = result()
    assert "C5a" not in res.unknown["japanese"] and "C5a" not in res.covered["japanese"]  # what the rule is for
    assert any(h == "C5a" for _, h, _ in old.error_list)
