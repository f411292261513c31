"""The loch: all 288 addresses, the submerged-monster rule and the board's geometry."""

from __future__ import annotations

import itertools
import math

import pytest

from companion.errors import InvalidAddress

SECTORS, NUMBERS, ROWS = "ABCDEFGH", "123456", "abcdef"
ALL = ["".join(p) for p in itertools.product(SECTORS, NUMBERS, ROWS)]


def spec_submerged(address: str) -> dict:
    """The issue's formula, written independently of board.py."""
    c = 6 * (ord(address[0]) - ord("A")) + int(address[1]) - 1
    r = ord(address[2]) - ord("a")

    def name(col, row):
        if 0 <= col < 48 and 0 <= row < 6:
            return f"{SECTORS[col // 6]}{col % 6 + 1}{ROWS[row]}"
        return None

    return {"left": name(c - 4, r), "right": name(c + 4, r), "up": name(c, r - 4), "down": name(c, r + 4)}


def test_every_address_is_a_loch_hex(box):
    assert len(box.loch) == 288
    assert sorted(h.address for h in box.loch.hexes) == sorted(ALL)
    for address in ALL:
        assert box.loch.parse(address).address == address


def test_worked_example_from_the_issue(box):
    assert box.loch.locate("D3b") == {
        "surface": "D3b",
        "submerged": {"left": "C5b", "right": "E1b", "up": None, "down": "D3f"},
    }


@pytest.mark.parametrize("address", ALL)
def test_submerged_rule_for_every_address(box, address):
    assert box.loch.submerged(address).as_dict() == spec_submerged(address)


def test_submerged_monsters_lie_four_hexes_away_in_straight_lines(box):
    """'counting four hexagons in each direction left and right ... up and down' (stage two, step 4):
    checked on the drawn geometry, not on the address arithmetic."""
    g = box.loch.grid
    for h in box.loch.hexes:
        for direction, other in box.loch.submerged(h.address).placed().items():
            o = box.loch.parse(other)
            dx, dy = o.center[0] - h.center[0], o.center[1] - h.center[1]
            if direction in ("left", "right"):
                assert dy == pytest.approx(0)
                assert abs(dx) == pytest.approx(4 * 0.75 * g.hex_width)
                assert (dx < 0) == (direction == "left")
            else:
                assert dx == pytest.approx(0)
                assert abs(dy) == pytest.approx(4 * g.hex_height)
                assert (dy < 0) == (direction == "up")


def test_some_hexes_have_fewer_than_four_submerged_monsters(box):
    """'due to the shape of the playing area there may often be only one or two underwater monsters'."""
    counts = {len(box.loch.submerged(a).placed()) for a in ALL}
    # With 6 rows, at most one of up/down lies on the loch (none from rows c and d), and the four
    # columns at each end lose left or right: so 1 to 3, never all four.
    assert counts == {1, 2, 3}


@pytest.mark.parametrize("text", ["", "D3", "d3b", "D3B", "I1a", "A7a", "A0a", "A1g", "AA1a", "D 3b", "D3bb", "3Db"])
def test_invalid_addresses_are_refused_with_a_reason(box, text):
    with pytest.raises(InvalidAddress) as err:
        box.loch.parse(text)
    assert "D3b" in str(err.value)  # says what an address looks like


def test_non_text_address_is_refused(box):
    with pytest.raises(InvalidAddress):
        box.loch.parse(42)  # type: ignore[arg-type]


def test_hexes_are_slightly_elongated_along_the_loch(box):
    g = box.loch.grid
    regular_width = g.hex_height * 2 / math.sqrt(3)
    assert 1.0 < g.hex_width / regular_width < 1.3


def polygon_area(poly):
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]))) / 2


def test_hexes_tile_the_loch_exactly_inside_the_shore_outline(box):
    """The shore outline encloses every hex, and the hexes fill it without gaps or overlaps."""
    outline = list(box.loch.shore_outline)
    hex_area = sum(polygon_area(list(h.polygon)) for h in box.loch.hexes)
    assert polygon_area(outline) == pytest.approx(hex_area, rel=1e-9)
    xs = [p[0] for p in outline]
    ys = [p[1] for p in outline]
    for h in box.loch.hexes:
        for x, y in h.polygon:
            assert min(xs) - 1e-9 <= x <= max(xs) + 1e-9 and min(ys) - 1e-9 <= y <= max(ys) + 1e-9


def test_a_sector_is_at_the_fort_augustus_end_and_row_a_on_the_north_west_shore(box):
    a1a, h6f = box.loch.parse("A1a"), box.loch.parse("H6f")
    assert a1a.center[0] < h6f.center[0]  # A at the left (Fort Augustus) end
    assert a1a.center[1] < h6f.center[1]  # row a at the top (north-west shore)


def test_board_json_lists_every_hex_marker_and_track(box):
    doc = box.to_json()
    assert len(doc["hexes"]) == 288 and all(len(h["polygon_mm"]) == 6 for h in doc["hexes"])
    assert [m["id"] for m in doc["markers"]["markers"]] == [0, 1, 2, 3]
    assert {t["expedition"] for t in doc["tracks"]} == {"independent", "japanese", "british", "american"}
    for t in doc["tracks"]:
        assert t["spaces"][0]["start"] == t["expedition"].upper()
    assert len(doc["evidence_packs"]) == 6
