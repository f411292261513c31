"""The box profile: the board (and later prices and cards) as data, validated on load.

``parse_box(data, source)`` turns the already-decoded TOML/JSON document into a :class:`BoxProfile`
or raises :class:`BoxProfileError` naming the file, the key and the reason. Reading the file is
the caller's job (``companion.box_profiles``), so this module stays pure.

Schema ``nessie-hunt-box/1`` (the README's "Box profile" section documents every key).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any

from companion.errors import BoxProfileError, InvalidAddress

from .board import HexGrid, Loch, Point
from .tracks import EXPEDITIONS, REVEALS, Track, TrackSpace

SCHEMA = "nessie-hunt-box/1"
EQUIPMENT = ("eye_witness", "surface_camera", "underwater_camera", "sonar", "biological_unit", "cage")
ARUCO_DICTIONARIES = ("DICT_4X4_50", "DICT_4X4_100", "DICT_5X5_50", "DICT_5X5_100", "DICT_6X6_50", "DICT_6X6_250")


@dataclass(frozen=True)
class Marker:
    id: int
    corners: tuple[Point, Point, Point, Point]  # top-left, top-right, bottom-right, bottom-left


@dataclass(frozen=True)
class EvidencePack:
    equipment: str
    label: str
    rect: tuple[float, float, float, float]  # x, y, width, height in mm
    values: tuple[int, ...]  # the points of every card in the pack


#: The effect vocabulary of LOGISTICS cards and the fields each kind needs (see default_box.toml).
EFFECTS: dict[str, dict[str, type]] = {
    "receive": {"amount": int},
    "pay": {"amount": int},
    "pay_per_piece": {"amount": int},
    "miss_turns": {"turns": int},
    "trump": {"part": str},
    "bank_loan": {"amount": int, "repay": int, "rounds": int},
    "gamble": {"win_on": list, "win": int, "lose": int},
    "lose_equipment": {"equipment": str},
    "evidence": {"pack": str},
    "nothing": {},
}


@dataclass(frozen=True)
class LogisticsCard:
    id: str
    colour: str  # "green" or "red", as printed
    text: str
    effect: tuple[tuple[str, object], ...]  # (("kind", "pay"), ("amount", 20)): hashable, read with .get

    def get(self, key: str, default=None):
        return dict(self.effect).get(key, default)

    @property
    def kind(self) -> str:
        return self.get("kind")


@dataclass(frozen=True)
class EquipmentType:
    """One of the six transparencies: prices, stock and shape (house defaults in the profile)."""

    id: str
    label: str
    price: int
    running_cost: int
    per_colour: int
    sees: str  # "surface" or "both"
    pointed: bool  # the pointed end must touch the shore
    shape: tuple[Point, ...]  # outline in the sheet's own frame, mm (pointed end at the origin)

    @property
    def sees_submerged(self) -> bool:
        return self.sees == "both"


@dataclass(frozen=True)
class BoxProfile:
    name: str
    source: str
    digest: str  # sha256 of the canonical JSON of the document, to tell boxes apart in exports
    width: float
    height: float
    loch: Loch
    markers_dictionary: str
    markers: tuple[Marker, ...]
    tracks: dict[str, Track]
    evidence_packs: tuple[EvidencePack, ...]
    equipment: dict[str, EquipmentType]
    sheet_colours: dict[str, tuple[int, int, int]]
    logistics: tuple[LogisticsCard, ...] = ()
    green_under_red: int = 15

    def pack(self, equipment: str) -> EvidencePack:
        return next(p for p in self.evidence_packs if p.equipment == equipment)

    def card(self, card_id: str) -> LogisticsCard | None:
        return next((c for c in self.logistics if c.id == card_id), None)

    def to_json(self) -> dict:
        """The ``board --json`` document."""
        return {
            "name": self.name,
            "digest": self.digest,
            "board_mm": [self.width, self.height],
            "hexes": [
                {"address": h.address, "column": h.column, "row": h.row, "center_mm": list(h.center),
                 "polygon_mm": [list(p) for p in h.polygon]}
                for h in self.loch.hexes
            ],
            "shore_outline_mm": [list(p) for p in self.loch.shore_outline],
            "markers": {
                "dictionary": self.markers_dictionary,
                "markers": [{"id": m.id, "corners_mm": [list(c) for c in m.corners]} for m in self.markers],
            },
            "tracks": [self.tracks[e].to_json() for e in EXPEDITIONS],
            "evidence_packs": [
                {"equipment": p.equipment, "label": p.label, "rect_mm": list(p.rect), "values": list(p.values)}
                for p in self.evidence_packs
            ],
            "equipment": {
                e.id: {"label": e.label, "price": e.price, "running_cost": e.running_cost, "per_colour": e.per_colour,
                       "sees": e.sees, "pointed": e.pointed, "shape_mm": [list(p) for p in e.shape]}
                for e in self.equipment.values()
            },
            "sheet_colours": {k: list(v) for k, v in self.sheet_colours.items()},
            "logistics": {
                "green_under_red": self.green_under_red,
                "cards": [{"id": c.id, "colour": c.colour, "text": c.text, "effect": dict(c.effect)} for c in self.logistics],
            },
        }


class _Reader:
    """Walks the document, remembering the key path so every error names it."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, key: str, reason: str) -> BoxProfileError:
        return BoxProfileError(self.source, key, reason)

    def get(self, table: Any, key: str, path: str, kind: type | tuple, default: Any = ...) -> Any:
        if not isinstance(table, dict):
            raise self.fail(path, "expected a table")
        if key not in table:
            if default is ...:
                raise self.fail(f"{path}.{key}" if path else key, "missing")
            return default
        value = table[key]
        full = f"{path}.{key}" if path else key
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if isinstance(value, bool) and kind is not bool:
            raise self.fail(full, f"expected {_kind_name(kind)}, got true/false")
        if not isinstance(value, kind):
            raise self.fail(full, f"expected {_kind_name(kind)}, got {type(value).__name__}")
        if isinstance(value, float) and not math.isfinite(value):
            raise self.fail(full, "must be a finite number")
        return value

    def point(self, value: Any, path: str) -> Point:
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
        ):
            raise self.fail(path, "expected a point [x_mm, y_mm]")
        return (float(value[0]), float(value[1]))

    def positive(self, table: dict, key: str, path: str) -> float:
        value = self.get(table, key, path, float)
        if value <= 0:
            raise self.fail(f"{path}.{key}", f"must be greater than 0, got {value:g}")
        return value


def _kind_name(kind: type | tuple) -> str:
    names = {str: "text", float: "a number", int: "a whole number", list: "a list", dict: "a table", bool: "true/false"}
    if isinstance(kind, tuple):
        return " or ".join(names.get(k, k.__name__) for k in kind)
    return names.get(kind, kind.__name__)


def parse_box(data: Any, source: str = "<box profile>") -> BoxProfile:
    """Validate a decoded box-profile document and build the board from it."""
    r = _Reader(source)
    if not isinstance(data, dict):
        raise r.fail("(document)", "expected a table at the top level")
    schema = r.get(data, "schema", "", str)
    if schema != SCHEMA:
        raise r.fail("schema", f"unknown schema {schema!r}; this companion reads {SCHEMA!r}")
    name = r.get(data, "name", "", str)

    board = r.get(data, "board", "", dict)
    width = r.positive(board, "width_mm", "board")
    height = r.positive(board, "height_mm", "board")

    loch = _parse_loch(r, r.get(data, "loch", "", dict), width, height)
    dictionary, markers = _parse_markers(r, r.get(data, "markers", "", dict), width, height)
    tracks = _parse_tracks(r, r.get(data, "tracks", "", list), loch)
    packs = _parse_packs(r, r.get(data, "evidence_packs", "", list))
    equipment = _parse_equipment(r, r.get(data, "equipment", "", dict))
    colours = _parse_colours(r, r.get(data, "sheet_colours", "", dict))
    cards, green_under_red = _parse_logistics(r, r.get(data, "logistics", "", dict), equipment)

    digest = hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return BoxProfile(name, source, digest, width, height, loch, dictionary, markers, tracks, packs, equipment, colours,
                      cards, green_under_red)


def _parse_loch(r: _Reader, t: dict, width: float, height: float) -> Loch:
    origin = r.point(r.get(t, "origin_mm", "loch", list), "loch.origin_mm")
    hex_width = r.positive(t, "hex_width_mm", "loch")
    hex_height = r.positive(t, "hex_height_mm", "loch")
    sectors = r.get(t, "sectors", "loch", str, "ABCDEFGH")
    rows = r.get(t, "rows", "loch", str, "abcdef")
    per_sector = r.get(t, "columns_per_sector", "loch", int, 6)
    if not sectors or not sectors.isalpha() or not sectors.isupper() or len(set(sectors)) != len(sectors):
        raise r.fail("loch.sectors", "expected distinct capital letters, e.g. 'ABCDEFGH'")
    if not rows or not rows.isalpha() or not rows.islower() or len(set(rows)) != len(rows):
        raise r.fail("loch.rows", "expected distinct small letters, e.g. 'abcdef'")
    if not 1 <= per_sector <= 9:
        raise r.fail("loch.columns_per_sector", f"must be 1 to 9 (one digit), got {per_sector}")
    grid = HexGrid(origin, hex_width, hex_height, sectors, per_sector, rows)

    hexes = t.get("hexes", "all")
    if hexes == "all":
        addresses = None
    elif isinstance(hexes, list) and all(isinstance(a, str) for a in hexes) and hexes:
        addresses = hexes
    else:
        raise r.fail("loch.hexes", 'expected "all" or a non-empty list of addresses such as ["A1a", "A1b"]')
    outline = None
    if "shore_outline_mm" in t:
        raw = r.get(t, "shore_outline_mm", "loch", list)
        if len(raw) < 3:
            raise r.fail("loch.shore_outline_mm", "a shore outline needs at least 3 points")
        outline = [r.point(p, f"loch.shore_outline_mm[{i}]") for i, p in enumerate(raw)]
    try:
        loch = Loch.from_grid(grid, addresses, outline)
    except InvalidAddress as exc:
        raise r.fail("loch.hexes", str(exc)) from None
    for h in loch.hexes:
        for x, y in h.polygon:
            if not (0 <= x <= width and 0 <= y <= height):
                raise r.fail("loch", f"hex {h.address} reaches off the board ({x:g}, {y:g}) mm")
    return loch


def _parse_markers(r: _Reader, t: dict, width: float, height: float) -> tuple[str, tuple[Marker, ...]]:
    dictionary = r.get(t, "dictionary", "markers", str)
    if dictionary not in ARUCO_DICTIONARIES:
        raise r.fail("markers.dictionary", f"unknown ArUco dictionary {dictionary!r}; one of {', '.join(ARUCO_DICTIONARIES)}")
    raw = r.get(t, "marker", "markers", list)
    if len(raw) != 4:
        raise r.fail("markers.marker", f"expected 4 markers, got {len(raw)}")
    markers = []
    for i, m in enumerate(raw):
        path = f"markers.marker[{i}]"
        mid = r.get(m, "id", path, int)
        corners = r.get(m, "corners_mm", path, list)
        if len(corners) != 4:
            raise r.fail(f"{path}.corners_mm", "expected four corners: top-left, top-right, bottom-right, bottom-left")
        pts = tuple(r.point(c, f"{path}.corners_mm[{j}]") for j, c in enumerate(corners))
        for x, y in pts:
            if not (0 <= x <= width and 0 <= y <= height):
                raise r.fail(f"{path}.corners_mm", f"corner ({x:g}, {y:g}) mm lies off the board")
        markers.append(Marker(mid, pts))  # type: ignore[arg-type]
    ids = [m.id for m in markers]
    if len(set(ids)) != len(ids):
        raise r.fail("markers.marker", f"marker ids must differ, got {ids}")
    return dictionary, tuple(markers)


def _parse_tracks(r: _Reader, raw: list, loch: Loch) -> dict[str, Track]:
    grid = loch.grid
    allowed = {
        "sector": set(grid.sectors),
        "column": {str(n) for n in range(1, grid.columns_per_sector + 1)},
        "row": set(grid.rows),
        "none": set(),
    }
    tracks: dict[str, Track] = {}
    for i, t in enumerate(raw):
        path = f"tracks[{i}]"
        expedition = r.get(t, "expedition", path, str)
        if expedition not in EXPEDITIONS:
            raise r.fail(f"{path}.expedition", f"unknown expedition {expedition!r}; one of {', '.join(EXPEDITIONS)}")
        if expedition in tracks:
            raise r.fail(f"{path}.expedition", f"a second track for {expedition}")
        colour = r.get(t, "colour", path, str)
        reveals = r.get(t, "reveals", path, str)
        if reveals not in REVEALS:
            raise r.fail(f"{path}.reveals", f"expected one of {', '.join(REVEALS)}, got {reveals!r}")
        diameter = r.positive(t, "space_diameter_mm", path)
        raw_spaces = r.get(t, "spaces", path, list)
        if len(raw_spaces) < 7:
            raise r.fail(f"{path}.spaces", f"a track needs at least 7 spaces (one throw must not lap it), got {len(raw_spaces)}")
        spaces = []
        for j, s in enumerate(raw_spaces):
            sp = f"{path}.spaces[{j}]"
            at = r.point(r.get(s, "at_mm", sp, list), f"{sp}.at_mm")
            symbol = r.get(s, "symbol", sp, str, None)
            star = r.get(s, "star", sp, bool, False)
            start = r.get(s, "start", sp, str, None)
            unknown = set(s) - {"at_mm", "symbol", "star", "start"}
            if unknown:
                raise r.fail(sp, f"unknown key(s) {', '.join(sorted(unknown))}")
            if (start is not None) != (j == 0):
                raise r.fail(sp, "the first space, and only the first, is the start space (start = NAME)")
            if start is not None and symbol is not None:
                raise r.fail(sp, "the start space shows the expedition's name and hides no symbol")
            if symbol is not None and symbol not in allowed[reveals]:
                expect = "no symbols" if reveals == "none" else "one of " + " ".join(sorted(allowed[reveals]))
                raise r.fail(f"{sp}.symbol", f"{symbol!r} cannot hide on a '{reveals}' track ({expect})")
            spaces.append(TrackSpace(j, at, symbol, star, start))
        tracks[expedition] = Track(expedition, colour, reveals, diameter, tuple(spaces))
    missing = [e for e in EXPEDITIONS if e not in tracks]
    if missing:
        raise r.fail("tracks", f"missing the track of {', '.join(missing)}")
    reveal_of = {t.reveals for t in tracks.values()}
    for needed in ("sector", "column", "row"):
        if needed not in reveal_of:
            raise r.fail("tracks", f"no track reveals the {needed} of the monster's address")
    return tracks


def _parse_packs(r: _Reader, raw: list) -> tuple[EvidencePack, ...]:
    packs = []
    for i, p in enumerate(raw):
        path = f"evidence_packs[{i}]"
        equipment = r.get(p, "equipment", path, str)
        if equipment not in EQUIPMENT:
            raise r.fail(f"{path}.equipment", f"unknown equipment {equipment!r}; one of {', '.join(EQUIPMENT)}")
        label = r.get(p, "label", path, str)
        rect = r.get(p, "rect_mm", path, list)
        if len(rect) != 4 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in rect):
            raise r.fail(f"{path}.rect_mm", "expected [x, y, width, height] in mm")
        values = r.get(p, "values", path, list)
        if not values or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
            raise r.fail(f"{path}.values", "expected a non-empty list of card points (whole numbers, 0 or more)")
        packs.append(EvidencePack(equipment, label, tuple(float(v) for v in rect), tuple(values)))  # type: ignore[arg-type]
    if sorted(p.equipment for p in packs) != sorted(EQUIPMENT):
        raise r.fail("evidence_packs", f"expected one pack space for each of {', '.join(EQUIPMENT)}")
    return tuple(packs)


def _parse_equipment(r: _Reader, t: dict) -> dict[str, EquipmentType]:
    unknown = set(t) - set(EQUIPMENT)
    if unknown:
        raise r.fail("equipment", f"unknown equipment {', '.join(sorted(unknown))}; one of {', '.join(EQUIPMENT)}")
    out = {}
    for eq in EQUIPMENT:
        path = f"equipment.{eq}"
        e = r.get(t, eq, "equipment", dict)
        label = r.get(e, "label", path, str)
        numbers = {}
        for key in ("price", "running_cost", "per_colour"):
            value = r.get(e, key, path, int)
            if value < 0:
                raise r.fail(f"{path}.{key}", f"must not be negative, got {value}")
            numbers[key] = value
        sees = r.get(e, "sees", path, str)
        if sees not in ("surface", "both"):
            raise r.fail(f"{path}.sees", f'expected "surface" or "both", got {sees!r}')
        pointed = r.get(e, "pointed", path, bool)
        raw = r.get(e, "shape_mm", path, list)
        if len(raw) < 3:
            raise r.fail(f"{path}.shape_mm", "a shape needs at least 3 points")
        shape = tuple(r.point(p, f"{path}.shape_mm[{i}]") for i, p in enumerate(raw))
        if _area(shape) <= 0:
            raise r.fail(f"{path}.shape_mm", "the outline encloses no area")
        out[eq] = EquipmentType(eq, label, numbers["price"], numbers["running_cost"], numbers["per_colour"],
                                sees, pointed, shape)
    return out


def _area(poly: tuple[Point, ...]) -> float:
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]))) / 2


def _parse_colours(r: _Reader, t: dict) -> dict[str, tuple[int, int, int]]:
    out = {}
    for e in EXPEDITIONS:
        raw = r.get(t, e, "sheet_colours", list)
        if len(raw) != 3 or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255 for v in raw):
            raise r.fail(f"sheet_colours.{e}", "expected [red, green, blue], each 0-255")
        out[e] = (raw[0], raw[1], raw[2])
    return out


def _parse_logistics(r: _Reader, t: dict, equipment: dict) -> tuple[tuple[LogisticsCard, ...], int]:
    green_under_red = r.get(t, "green_under_red", "logistics", int)
    raw = r.get(t, "card", "logistics", list)
    cards, seen = [], set()
    for i, c in enumerate(raw):
        path = f"logistics.card[{i}]"
        cid = r.get(c, "id", path, str)
        if cid in seen:
            raise r.fail(f"{path}.id", f"a second card with id {cid!r}")
        seen.add(cid)
        colour = r.get(c, "colour", path, str)
        if colour not in ("green", "red"):
            raise r.fail(f"{path}.colour", f'expected "green" or "red", got {colour!r}')
        text = r.get(c, "text", path, str)
        effect = r.get(c, "effect", path, dict)
        kind = effect.get("kind")
        if kind not in EFFECTS:
            raise r.fail(f"{path}.effect.kind", f"unknown effect {kind!r}; one of {', '.join(EFFECTS)}")
        wanted = EFFECTS[kind]
        extra = set(effect) - set(wanted) - {"kind"}
        if extra:
            raise r.fail(f"{path}.effect", f"{kind} takes no {', '.join(sorted(extra))}")
        for key, kind_type in wanted.items():
            r.get(effect, key, f"{path}.effect", kind_type)
        _check_effect(r, f"{path}.effect", effect, equipment)
        cards.append(LogisticsCard(cid, colour, text, tuple((k, tuple(v) if isinstance(v, list) else v)
                                                            for k, v in sorted(effect.items()))))
    greens = sum(1 for c in cards if c.colour == "green")
    if not 0 <= green_under_red <= greens:
        raise r.fail("logistics.green_under_red", f"must be 0 to the number of green cards ({greens}), got {green_under_red}")
    if not cards:
        raise r.fail("logistics.card", "the deck needs at least one card")
    return tuple(cards), green_under_red


def _check_effect(r: _Reader, path: str, e: dict, equipment: dict) -> None:
    kind = e["kind"]
    for key in ("amount", "repay", "rounds"):
        if key in e and e[key] < 0:
            raise r.fail(f"{path}.{key}", f"must not be negative, got {e[key]}")
    if kind == "miss_turns" and e["turns"] not in (1, 2):
        raise r.fail(f"{path}.turns", f"a card makes you miss 1 or 2 turns, not {e['turns']}")
    if kind == "trump" and e["part"] not in ("sector", "column", "row"):
        raise r.fail(f"{path}.part", f'expected "sector", "column" or "row", got {e["part"]!r}')
    if kind == "gamble" and not (e["win_on"] and all(isinstance(v, int) and 1 <= v <= 6 for v in e["win_on"])):
        raise r.fail(f"{path}.win_on", "expected the die faces (1-6) that win")
    if kind == "lose_equipment" and e["equipment"] not in equipment:
        raise r.fail(f"{path}.equipment", f"unknown equipment {e['equipment']!r}")
    if kind == "evidence" and e["pack"] not in equipment:
        raise r.fail(f"{path}.pack", f"unknown pack {e['pack']!r}")
    if kind == "bank_loan" and e["rounds"] < 1:
        raise r.fail(f"{path}.rounds", "a bank loan runs for at least one round")
