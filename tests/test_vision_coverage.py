"""Coverage on rendered photos with known truth: many seeded scenes, borders, glare, hands, noise."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.adjudicate import adjudicate, decode
from companion.vision.evaluate import CoverageScore, near_border_hexes, score_coverage
from companion.vision.render import Scene, encode_jpeg, random_scene, render
from companion.vision.sheets import LINE_MM, SheetPose

W, H = 1600, 1200
HALF = LINE_MM / 2


def _measure(box, scene):
    photo, truth = render(box, scene)
    adj = adjudicate(decode(encode_jpeg(photo, scene.jpeg_quality)), box, fit_sheets=False)
    return adj, truth


@pytest.fixture(scope="module")
def random_results(box):
    """Eight seeded random scenes: tilt up to 35 degrees, lens distortion, light, glare, shadow, JPEG."""
    total = CoverageScore()
    per_scene = []
    for seed in range(1000, 1008):
        scene = random_scene(box, seed, W, H)
        adj, truth = _measure(box, scene)
        s = score_coverage(box, truth, adj.coverage.covered, adj.coverage.unknown,
                           near_border_hexes(box, scene.sheets))
        total.add(s)
        per_scene.append((scene, truth, adj, s))
    return total, per_scene


def test_random_scenes_coverage_accuracy(random_results):
    total, _ = random_results
    assert total.decisions > 8 * 4 * 250  # nearly every (hex, expedition) decided
    assert total.error_rate < 0.008, (total.errors, total.decisions, total.error_list[:20])
    # decisions with a sheet edge 0.5-2 mm from the border line
    assert total.near_border > 40
    assert total.near_border_error_rate < 0.12, (total.near_border_errors, total.near_border)


def test_glare_never_makes_a_hex_covered_or_uncovered(random_results):
    total, per_scene = random_results
    # Known weakness: strong glare over two overlapping sheets washes their mix towards another
    # expedition's hue at the edge of the glare; a hex or two per eight scenes (docs/board-vision.md).
    assert total.glare_false_covered <= 2
    glared = 0
    for scene, truth, adj, _ in per_scene:
        for e, per in truth["coverage"].items():
            for a, d in per.items():
                if truth["hidden"].get(a) == "glare" and d["covered"] and not d["close"]:
                    glared += 1
                    # a covered hex under glare is seen covered or left unknown, never called uncovered
                    assert a in adj.coverage.covered[e] or a in adj.coverage.unknown[e], (scene.seed, e, a)
    assert any(r["reason"].startswith("glare") for _, _, adj, _ in per_scene for r in adj.coverage.unknown_regions)


def _quiet_scene(box, sheets, **kw) -> Scene:
    scene = random_scene(box, 5, W, H, glare=False, shadows=False)
    scene.sheets = sheets
    for k, v in kw.items():
        setattr(scene, k, v)
    return scene


def _cage_left_of(box, address, expedition, gap_mm):
    """A cage whose right-most corner lies ``gap_mm`` outside the hex's outer border line (negative: over it)."""
    poly = np.asarray(box.loch.parse(address).polygon)
    left = poly[0]
    right_extent = max(p[0] for p in box.equipment["cage"].shape)
    return SheetPose(expedition, "cage", float(left[0] - HALF - gap_mm - right_extent), float(left[1]), 0.0)


@pytest.mark.parametrize("gap", [1.0, 0.7, -0.7, -1.0])
def test_a_sheet_touching_the_border_line(box, gap):
    """A corner just over the hex's border line covers it; just short of it does not."""
    targets = {"japanese": "B3c", "british": "D3d", "american": "F2c", "independent": "G4b"}
    sheets = [_cage_left_of(box, a, e, gap) for e, a in targets.items()]
    adj, truth = _measure(box, _quiet_scene(box, sheets))
    for e, a in targets.items():
        assert truth["coverage"][e].get(a, {"covered": False})["covered"] == (gap < 0)
        assert (a in adj.coverage.covered[e]) == (gap < 0), (e, a, gap)
        assert a not in adj.coverage.unknown[e]


def test_no_sheets_no_coverage_despite_noise(box):
    scene = _quiet_scene(box, [], noise=0.03, jpeg_quality=70)
    adj, truth = _measure(box, scene)
    assert all(not v for v in adj.coverage.covered.values())
    assert len(adj.coverage.unknown_hexes) < 5


def test_a_hand_over_the_loch_is_unknown_not_uncovered(box):
    scene = random_scene(box, 2, W, H, hands=True, glare=False)
    adj, truth = _measure(box, scene)
    hand = [a for a, r in truth["hidden"].items() if r == "hand"]
    assert len(hand) > 5
    unknown = set(adj.coverage.unknown_hexes)
    assert len(set(hand) & unknown) >= 0.8 * len(hand)
    for e in adj.coverage.covered:
        wrongly = [a for a in adj.coverage.covered[e] if a in hand
                   and not truth["coverage"].get(e, {}).get(a, {}).get("covered")]
        assert not wrongly, (e, wrongly)
    assert any("hand" in r["reason"] for r in adj.coverage.unknown_regions)


def test_a_deep_shadow_is_unknown(box):
    h = box.loch.parse("E3c")
    x, y = h.center
    shadow = {"polygon_mm": [[x - 30, y - 30], [x + 30, y - 30], [x + 30, y + 30], [x - 30, y + 30]],
              "depth": 0.9, "softness_mm": 2.0}
    sheets = [SheetPose("british", "biological_unit", x, y, 0.0)]
    adj, truth = _measure(box, _quiet_scene(box, sheets, shadows=[shadow]))
    assert "E3c" in adj.coverage.unknown_hexes
    assert "E3c" not in adj.coverage.covered["independent"]


def test_overlapping_sheets_multiply(box):
    """Two expeditions over the same hexes: both are seen there."""
    h = box.loch.parse("D3c")
    sheets = [SheetPose("british", "biological_unit", h.center[0] - 8, h.center[1], 0.0),
              SheetPose("american", "biological_unit", h.center[0] + 8, h.center[1], 0.0)]
    adj, truth = _measure(box, _quiet_scene(box, sheets))
    for e in ("british", "american"):
        assert "D3c" in adj.coverage.covered[e]
    score = score_coverage(box, truth, adj.coverage.covered, adj.coverage.unknown)
    # Known weakness: a corner hidden under another expedition's sheet is judged by hue alone on
    # the printed lines, and the mix can fall short (docs/board-vision.md); a few per thousand.
    assert score.errors <= 0.005 * score.decisions, score.error_list
