"""Loch Ness (Wettering) box profile: water ring, lurking areas and spots, score track, card values. Pure.

Each water space has two front lurking spots (``w4a``, ``w4b``) and one back spot (``w4c``) whose
cameras point at it; a lurking area of 3 water spaces has 9 spots, one of 2 has 6.
``parse_box(data, source)`` raises :class:`BoxProfileError` naming the file, the key and the reason.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from companion.errors import BoxProfileError
from companion.games.box_header import document_name

SCHEMA = "loch-ness-wettering-box/1"
KINDS = ("head", "body", "tail")


@dataclass(frozen=True)
class Spot:
    id: str
    target: str  # the water space its camera points at
    front: bool
    area: int


@dataclass(frozen=True)
class Area:
    index: int
    name: str
    water: tuple[str, ...]
    spots: tuple[str, ...]

    @property
    def photos_per_camera(self) -> int:
        """'v oblasti s 9 poli číhání ... 1 kartu ... v oblasti s 6 poli číhání ... 2 karty fotografie'"""
        return 1 if len(self.spots) == 9 else 2


@dataclass(frozen=True)
class WetteringBox:
    name: str
    source: str
    digest: str
    water: tuple[str, ...]  # clockwise
    areas: tuple[Area, ...]
    spots: dict[str, Spot]
    score_end: int
    auction_spaces: tuple[int, ...]
    player_cards: tuple[int, ...]
    neutral_cards: tuple[int, ...]
    start_cameras: tuple[int, ...]
    storm_camera: int
    neutral_camera: int
    shop_camera: int
    shop_value: int
    photos: dict[str, int]

    def area_of(self, water: str) -> Area:
        return next(a for a in self.areas if water in a.water)

    def ahead(self, water: str, steps: int) -> str:
        return self.water[(self.water.index(water) + steps) % len(self.water)]

    def to_json(self) -> dict:
        return {"name": self.name, "digest": self.digest, "water": list(self.water),
                "areas": [{"name": a.name, "water": list(a.water), "spots": list(a.spots)} for a in self.areas],
                "score_end": self.score_end, "auction_spaces": list(self.auction_spaces),
                "player_cards": list(self.player_cards), "neutral_cards": list(self.neutral_cards),
                "photos": self.photos}


def parse_box(data: Any, source: str = "<Loch Ness board>") -> WetteringBox:
    def fail(key: str, reason: str) -> BoxProfileError:
        return BoxProfileError(source, key, reason)

    def whole(key: str, lo: int, hi: int) -> int:
        v = data.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise fail(key, f"expected a whole number {lo}-{hi}, got {v!r}")
        return v

    def numbers(key: str, lo: int, hi: int) -> tuple[int, ...]:
        v = data.get(key)
        if (not isinstance(v, list) or not v
                or not all(isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi for x in v)):
            raise fail(key, f"expected a non-empty list of whole numbers {lo}-{hi}")
        return tuple(v)

    name = document_name(data, SCHEMA, source)
    score_end = whole("score_end", 1, 999)
    auctions = numbers("auction_spaces", 1, 999)
    player_cards = numbers("player_cards", 0, 20)
    neutral_cards = numbers("neutral_cards", 0, 20)
    if len(neutral_cards) < 3:
        raise fail("neutral_cards", "the two-player game turns up to three neutral cards before reshuffling")
    start_cameras = numbers("start_cameras", 1, 20)
    cams = {k: whole(k, 1, 20) for k in ("storm_camera", "neutral_camera", "shop_camera", "shop_value")}
    photos = data.get("photos")
    if not isinstance(photos, dict) or set(photos) != set(KINDS):
        raise fail("photos", "expected head, body and tail = how many cards")
    for k in KINDS:
        n = photos[k]
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 100:
            raise fail(f"photos.{k}", f"expected a whole number 1-100, got {n!r}")
    board = data.get("board")
    if not isinstance(board, dict):
        raise fail("board", "expected a table")
    water = board.get("water")
    if not isinstance(water, list) or len(water) < 3 or not all(isinstance(w, str) and w for w in water) \
            or len(set(water)) != len(water):
        raise fail("board.water", "expected the water spaces clockwise, at least 3, all different")
    raw = board.get("area")
    if not isinstance(raw, list) or not raw:
        raise fail("board.area", "expected [[board.area]] tables")
    areas, spots, seen = [], {}, set()
    for i, a in enumerate(raw):
        path = f"board.area[{i}]"
        if not isinstance(a, dict) or not isinstance(a.get("name"), str):
            raise fail(f"{path}.name", "expected text")
        ws = a.get("water")
        if not isinstance(ws, list) or not ws or not all(w in water for w in ws):
            raise fail(f"{path}.water", "expected a list of the board's water spaces")
        if len(ws) not in (2, 3):
            raise fail(f"{path}.water", "a lurking area has 6 or 9 spots: 2 or 3 water spaces")
        if seen & set(ws):
            raise fail(f"{path}.water", f"{sorted(seen & set(ws))[0]} already belongs to another area")
        seen |= set(ws)
        ids = []
        for w in ws:
            for suffix, front in (("a", True), ("b", True), ("c", False)):
                spots[w + suffix] = Spot(w + suffix, w, front, i)
                ids.append(w + suffix)
        areas.append(Area(i, a["name"], tuple(ws), tuple(ids)))
    if seen != set(water):
        raise fail("board.area", f"water space {sorted(set(water) - seen)[0]} is in no lurking area")
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return WetteringBox(name, source, digest, tuple(water), tuple(areas), spots, score_end, auctions, player_cards,
                        neutral_cards, start_cameras, cams["storm_camera"], cams["neutral_camera"],
                        cams["shop_camera"], cams["shop_value"], dict(photos))
