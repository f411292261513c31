"""The cage's noted hex, and how check_placement combines the rules (pure: poses, no images)."""

from __future__ import annotations

from companion.vision.placement import cage_in_noted_hex, check_placement
from companion.vision.sheets import SheetPose


def cage_at(box, address, dx=0.0, dy=0.0):
    h = box.loch.parse(address)
    return SheetPose("american", "cage", h.center[0] + dx, h.center[1] + dy, 0.0)


def test_a_cage_in_the_hex_noted_at_its_purchase_is_legal(box):
    assert cage_in_noted_hex(box, cage_at(box, "D3c"), "D3c") == []
    assert check_placement(box, cage_at(box, "D3c"), [], "D3c") == []


def test_a_cage_in_another_hex_than_the_noted_one_is_reported(box):
    [v] = cage_in_noted_hex(box, cage_at(box, "D3d"), "D3c", 4)
    assert v.rule == "cage in its noted hex" and v.sheets == (4,)
    assert "D3d" in v.message and "D3c" in v.message
    assert [x.rule for x in check_placement(box, cage_at(box, "D3d"), [], "D3c")] == ["cage in its noted hex"]


def test_no_noted_hex_or_another_sheet_is_not_checked(box):
    assert cage_in_noted_hex(box, cage_at(box, "D3d"), None) == []
    sonar = SheetPose("american", "sonar", 300.0, 230.0, 0.0)
    assert cage_in_noted_hex(box, sonar, "D3c") == []


def test_a_cage_over_two_hexes_gets_one_message_not_two(box):
    between = cage_at(box, "D3c", dy=7.5)  # on the border with D3d
    assert [v.rule for v in check_placement(box, between, [], "D3c")] == ["cage in one hex"]
