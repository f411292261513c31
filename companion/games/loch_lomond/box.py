"""The Monsters of Loch Lomond "box profile": the card values, as data. Pure.

``parse_box(data, source)`` turns the decoded TOML into a :class:`CardValues` or raises
:class:`BoxProfileError` naming the file, the key and the reason. Reading the file is
``make_game``'s job. Schema ``loch-lomond-box/1``; ``default_box.toml`` documents every key.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from companion.errors import BoxProfileError
from companion.games.box_header import document_name

SCHEMA = "loch-lomond-box/1"
#: The fifteen characters of the rulebook's Card Overview (52 cards).
CARDS = ("mercenary", "peasant", "missionary", "brahan-seer", "monster-egg", "baby-monster", "loch-monster",
         "red-cap", "ghostly-piper", "priest-of-forvie", "witch", "broonie", "baobhan-sith", "kelpie", "selkie")


@dataclass(frozen=True)
class Card:
    id: str
    label: str
    count: int
    value: int
    printed: bool


@dataclass(frozen=True)
class CardValues:
    name: str
    source: str
    digest: str
    cards: dict[str, Card]
    victory_tokens: tuple[int, ...]
    wrong_freedom_penalty: int
    monster_from: int
    converted_priest_value: int
    rounds: int
    min_players: int
    max_players: int

    def to_json(self) -> dict:
        return {
            "name": self.name, "digest": self.digest,
            "cards": {c.id: {"label": c.label, "count": c.count, "value": c.value, "printed": c.printed}
                      for c in self.cards.values()},
            "victory_tokens": list(self.victory_tokens), "wrong_freedom_penalty": self.wrong_freedom_penalty,
            "monster_from": self.monster_from, "converted_priest_value": self.converted_priest_value,
            "rounds": self.rounds, "players": [self.min_players, self.max_players],
        }


def _int(source: str, table: Any, key: str, path: str, lo: int = -99, hi: int = 99) -> int:
    full = f"{path}.{key}" if path else key
    if not isinstance(table, dict):
        raise BoxProfileError(source, path or "(document)", "expected a table")
    if key not in table:
        raise BoxProfileError(source, full, "missing")
    v = table[key]
    if not isinstance(v, int) or isinstance(v, bool):
        raise BoxProfileError(source, full, f"expected a whole number, got {type(v).__name__}")
    if not lo <= v <= hi:
        raise BoxProfileError(source, full, f"must be between {lo} and {hi}, got {v}")
    return v


def parse_box(data: Any, source: str = "<card values>") -> CardValues:
    def fail(key: str, reason: str) -> BoxProfileError:
        return BoxProfileError(source, key, reason)

    name = document_name(data, SCHEMA, source)
    known = {"schema", "name", "victory_tokens", "wrong_freedom_penalty", "monster_from", "converted_priest_value",
             "rounds", "min_players", "max_players", "cards"}
    unknown = set(data) - known
    if unknown:
        raise fail(sorted(unknown)[0], "unknown key")
    rounds = _int(source, data, "rounds", "", 1, 20)
    tokens = data.get("victory_tokens")
    if not isinstance(tokens, list) or not all(isinstance(t, int) and not isinstance(t, bool) for t in tokens):
        raise fail("victory_tokens", "expected a list of whole numbers")
    if len(tokens) != rounds:
        raise fail("victory_tokens", f"one Victory Token per round: expected {rounds}, got {len(tokens)}")
    penalty = _int(source, data, "wrong_freedom_penalty", "", 0, 99)
    monster_from = _int(source, data, "monster_from", "")
    converted = _int(source, data, "converted_priest_value", "")
    lo = _int(source, data, "min_players", "", 2, 10)
    hi = _int(source, data, "max_players", "", lo, 10)
    raw = data.get("cards")
    if not isinstance(raw, dict):
        raise fail("cards", "expected a table of cards")
    extra = set(raw) - set(CARDS)
    if extra:
        raise fail(f"cards.{sorted(extra)[0]}", f"unknown card; one of {', '.join(CARDS)}")
    cards = {}
    for cid in CARDS:
        path = f"cards.{cid}"
        if cid not in raw:
            raise fail(path, "missing")
        c = raw[cid]
        label = c.get("label") if isinstance(c, dict) else None
        if not isinstance(label, str) or not label:
            raise fail(f"{path}.label", "expected text")
        printed = c.get("printed", False)
        if not isinstance(printed, bool):
            raise fail(f"{path}.printed", "expected true/false")
        cards[cid] = Card(cid, label, _int(source, c, "count", path, 0, 20), _int(source, c, "value", path), printed)
    if sum(c.count for c in cards.values()) < 4 * hi:
        raise fail("cards", f"{hi} players need at least {4 * hi} cards")
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return CardValues(name, source, digest, cards, tuple(tokens), penalty, monster_from, converted, rounds, lo, hi)
