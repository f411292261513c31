"""The skirmish's box profile: the hex map (path ends, the ship) and the token counts. Pure.

Hexes are named by column letter and row number ("E4") on a rectangle of flat-topped hexes
standing in columns, odd columns (B, D, ...) half a hex lower. ``parse_box(data, source)``
raises :class:`BoxProfileError` naming the file, the key and the reason.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from companion.errors import BoxProfileError
from companion.games.box_header import document_name

SCHEMA = "monster-ambush-box/1"


@dataclass(frozen=True)
class HexMap:
    columns: str
    rows: int
    hexes: tuple[str, ...]
    path_ends: tuple[str, ...]
    ship: str

    def coords(self, name: str) -> tuple[int, int]:
        return self.columns.index(name[0]), int(name[1:]) - 1

    def _cube(self, name: str) -> tuple[int, int, int]:
        col, row = self.coords(name)
        x = col
        z = row - (col - (col & 1)) // 2  # odd columns shoved down ("odd-q")
        return x, -x - z, z

    def distance(self, a: str, b: str) -> int:
        """Hexes passed going from ``a`` to ``b`` (each one costs a monster token)."""
        ax, ay, az = self._cube(a)
        bx, by, bz = self._cube(b)
        return max(abs(ax - bx), abs(ay - by), abs(az - bz))

    def neighbours(self, name: str) -> list[str]:
        return [h for h in self.hexes if self.distance(name, h) == 1]

    def __contains__(self, name: object) -> bool:
        return name in self.hexes


@dataclass(frozen=True)
class AmbushBox:
    name: str
    source: str
    digest: str
    tokens: int
    stack_limit: int
    actions_per_turn: int
    map: HexMap

    def to_json(self) -> dict:
        return {"name": self.name, "digest": self.digest, "tokens": self.tokens, "stack_limit": self.stack_limit,
                "actions_per_turn": self.actions_per_turn,
                "map": {"columns": self.map.columns, "rows": self.map.rows, "hexes": list(self.map.hexes),
                        "path_ends": list(self.map.path_ends), "ship": self.map.ship}}


def parse_box(data: Any, source: str = "<skirmish box>") -> AmbushBox:
    def fail(key: str, reason: str) -> BoxProfileError:
        return BoxProfileError(source, key, reason)

    def whole(t: dict, key: str, path: str, lo: int, hi: int) -> int:
        full = f"{path}.{key}" if path else key
        if key not in t:
            raise fail(full, "missing")
        v = t[key]
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise fail(full, f"expected a whole number {lo}-{hi}, got {v!r}")
        return v

    name = document_name(data, SCHEMA, source)
    tokens = whole(data, "tokens", "", 2, 200)
    limit = whole(data, "stack_limit", "", 1, 50)
    per_turn = whole(data, "actions_per_turn", "", 1, 20)
    m = data.get("map")
    if not isinstance(m, dict):
        raise fail("map", "expected a table")
    columns = m.get("columns")
    if not isinstance(columns, str) or not columns.isalpha() or not columns.isupper() or len(set(columns)) != len(columns):
        raise fail("map.columns", "expected distinct capital letters, e.g. 'ABCDEFGHI'")
    rows = whole(m, "rows", "map", 1, 99)
    every = [f"{c}{r}" for c in columns for r in range(1, rows + 1)]
    missing = m.get("missing", [])
    if not isinstance(missing, list) or not all(h in every for h in missing):
        raise fail("map.missing", "expected a list of hexes of the rectangle, e.g. ['A1']")
    hexes = tuple(h for h in every if h not in missing)

    def hex_list(key: str) -> tuple[str, ...]:
        raw = m.get(key)
        if not isinstance(raw, list) or not raw:
            raise fail(f"map.{key}", "expected a non-empty list of hexes")
        for h in raw:
            if h not in hexes:
                raise fail(f"map.{key}", f"{h!r} is not a hex of this map")
        return tuple(raw)

    path_ends = hex_list("path_ends")
    ship = m.get("ship")
    if ship not in hexes:
        raise fail("map.ship", f"{ship!r} is not a hex of this map")
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return AmbushBox(name, source, digest, tokens, limit, per_turn, HexMap(columns, rows, hexes, path_ends, ship))
