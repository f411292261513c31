"""Sheet geometry and the placement rules: pure functions on poses, no images."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.placement import (check_all, check_placement, cage_in_one_hex, clip_convex,
                                        pointed_end_on_shore, three_own_overlap)
from companion.vision.sheets import (CLOSE_MM, LINE_MM, SheetPose, erode_convex, hex_coverage, outline,
                                     polygon_area, polygon_distance, reaches)

HALF = LINE_MM / 2


def square(x, y, s=10.0):
    return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], float)


def test_polygon_distance_overlap_touch_and_gap():
    a = square(0, 0)
    assert polygon_distance(a, square(5, 5)) == 0.0
    assert polygon_distance(a, square(10, 0)) == 0.0  # touching edges
    assert polygon_distance(a, square(12.5, 0)) == pytest.approx(2.5)
    assert polygon_distance(a, square(13, 14)) == pytest.approx(5.0)  # corner to corner
    assert polygon_distance(square(0, 0, 30), square(10, 10, 2)) == 0.0  # one inside the other


def test_erode_convex_and_reaches():
    a = square(0, 0)
    e = erode_convex(a, 1.0)
    assert polygon_area(e) == pytest.approx(64.0)
    assert erode_convex(a, 6.0) is None
    b = square(10.3, 0)  # 0.3 mm gap
    assert reaches(b, a, 0.4) and not reaches(b, a, 0.2)
    c = square(9.7, 0)  # 0.3 mm inside
    assert reaches(c, a, -0.2) and not reaches(c, a, -0.4)


def test_outline_pose_convention(box):
    eq = box.equipment["eye_witness"]
    far = max(eq.shape, key=lambda p: p[1])  # the far end of the sheet, straight along +y
    poly = outline(box, SheetPose("british", "eye_witness", 100.0, 200.0, 0.0))
    assert tuple(poly[0]) == pytest.approx((100.0, 200.0))  # the pointed end at the pose
    assert poly[:, 1].max() == pytest.approx(200.0 + far[1])
    turned = outline(box, SheetPose("british", "eye_witness", 100.0, 200.0, 90.0))
    assert turned[:, 0].min() == pytest.approx(100.0 - far[1])  # +90 degrees: body towards -x


def _cage_beside(box, address, gap_mm):
    """A cage in the hex left of ``address``'s right-hand neighbour... placed so its right-most corner
    lies ``gap_mm`` outside the *outer* border line of ``address`` (negative: inside)."""
    h = box.loch.parse(address)
    poly = np.asarray(h.polygon)
    left_vertex = poly[0]  # left-most corner of the hex
    cage = box.equipment["cage"]
    right_extent = max(p[0] for p in cage.shape)
    x = left_vertex[0] - HALF - gap_mm - right_extent
    return SheetPose("japanese", "cage", float(x), float(left_vertex[1]), 0.0)


@pytest.mark.parametrize("gap,covered,close", [
    (1.0, False, False), (0.6, False, False), (0.3, False, True), (-0.3, True, True),
    (-0.6, True, False), (-1.0, True, False),
])
def test_hex_coverage_at_the_border_line(box, gap, covered, close):
    pose = _cage_beside(box, "D3c", gap)
    d = hex_coverage(box, [pose])["japanese"].get("D3c")
    if d is None:
        assert not covered and not close
    else:
        assert (d.covered, d.close) == (covered, close)


def test_close_margin_is_half_a_millimetre():
    assert CLOSE_MM == 0.5


def test_pointed_end_on_shore(box):
    north = min(p[1] for p in box.loch.shore_outline)
    ok = SheetPose("american", "sonar", 300.0, north - 2.0, 0.0)
    assert pointed_end_on_shore(box, ok) == []
    on_line = SheetPose("american", "sonar", 302.0, north + 0.5, 0.0)
    assert pointed_end_on_shore(box, on_line) == []
    bad = SheetPose("american", "sonar", 300.0, north + 20.0, 0.0)
    [v] = pointed_end_on_shore(box, bad)
    assert v.rule == "pointed end on shore" and "on the loch" in v.message
    # the biological unit and the cage have no pointed end
    assert pointed_end_on_shore(box, SheetPose("american", "biological_unit", 300.0, 280.0, 0.0)) == []


def test_never_three_of_ones_own_overlapping(box):
    north = min(p[1] for p in box.loch.shore_outline)
    a = SheetPose("british", "surface_camera", 300.0, north - 1, 0.0)
    b = SheetPose("british", "surface_camera", 320.0, north - 1, 0.0)
    c = SheetPose("british", "surface_camera", 310.0, north - 1, 10.0)
    far = SheetPose("british", "surface_camera", 500.0, north - 1, 0.0)
    assert three_own_overlap(box, [a, b, far]) == []
    [v] = three_own_overlap(box, [a, b, c])
    assert v.rule == "three own sheets overlap" and v.sheets == (0, 1, 2)
    # an opponent's sheet does not count
    c_other = SheetPose("japanese", "surface_camera", 310.0, north - 1, 10.0)
    assert three_own_overlap(box, [a, b, c_other]) == []
    assert check_placement(box, c_other, [a, b]) == []
    assert [v.rule for v in check_placement(box, c, [a, b])] == ["three own sheets overlap"]


def test_three_sheets_touching_pairwise_only_are_legal(box):
    # A-B overlap and B-C overlap, but A and C are apart: no point under three
    north = min(p[1] for p in box.loch.shore_outline)
    width = 2 * max(p[0] for p in box.equipment["eye_witness"].shape)
    step = 0.6 * width
    a, b, c = (SheetPose("british", "eye_witness", 300.0 + i * step, north - 1, 0.0) for i in range(3))
    assert polygon_distance(outline(box, a), outline(box, b)) == 0.0
    assert polygon_distance(outline(box, a), outline(box, c)) > 0.0
    assert three_own_overlap(box, [a, b, c]) == []


def test_clip_convex():
    inter = clip_convex(square(0, 0), square(5, 5))
    assert polygon_area(inter) == pytest.approx(25.0)
    assert len(clip_convex(square(0, 0), square(20, 20))) == 0


def test_cage_in_exactly_one_hex(box):
    h = box.loch.parse("D3c")
    inside = SheetPose("independent", "cage", h.center[0], h.center[1], 0.0)
    assert cage_in_one_hex(box, inside) == []
    across = SheetPose("independent", "cage", h.center[0] + 9.0, h.center[1], 0.0)
    [v] = cage_in_one_hex(box, across)
    assert v.rule == "cage in one hex" and "D3c" in v.message
    assert cage_in_one_hex(box, SheetPose("independent", "sonar", 0, 0, 0)) == []


def test_check_all_reports_every_rule(box):
    north = min(p[1] for p in box.loch.shore_outline)
    h = box.loch.parse("E2d")
    poses = [
        SheetPose("british", "surface_camera", 300.0, north - 1, 0.0),
        SheetPose("british", "surface_camera", 320.0, north - 1, 0.0),
        SheetPose("british", "surface_camera", 310.0, north - 1, 10.0),
        SheetPose("american", "underwater_camera", 500.0, north + 30, 0.0),
        SheetPose("japanese", "cage", h.center[0] + 9.5, h.center[1], 0.0),
    ]
    rules = sorted(v.rule for v in check_all(box, poses))
    assert rules == ["cage in one hex", "pointed end on shore", "three own sheets overlap"]
