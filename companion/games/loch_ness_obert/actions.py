"""Loch Ness (Obert) actions, as frozen dataclasses that round-trip through JSON. Pure.

The die and the photo bag are handled at the table; their results come in as data.

    >>> action_to_json(Roll("water", "gpio"))
    {'type': 'roll', 'value': 'water', 'source': 'gpio'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .box import WATER
from companion.games.codec import SOURCES, as_tuple, decode, encode, is_int, is_name

COLOURS = ("yellow", "red", "blue", "black", "green")
#: "12 plastic photographers (3 yellow and red, 2 blue, black and green)"
PHOTOGRAPHERS = {"yellow": 3, "red": 3, "blue": 2, "black": 2, "green": 2}


def _circle(v: Any) -> bool:
    return is_name(v, 16)


@dataclass(frozen=True)
class NewGame:
    """Who plays (colours, in turn order: "The best photographer in the group goes first") and the extended
    rules: ``one_at_a_time`` (draw photos one by one), ``push`` (discard a photo to push or slow Nessie),
    ``dive_no_photos`` (no photos after a dive). ``nessie``: [head, body, tail] at the start (None: the box's)."""

    type: ClassVar[str] = "new-game"
    players: tuple[str, ...]
    one_at_a_time: bool = False
    push: bool = False
    dive_no_photos: bool = False
    nessie: tuple[str, ...] | None = None

    def check(self, need) -> None:
        players = as_tuple(self, "players", need, lambda c: c in COLOURS, f"colours ({', '.join(COLOURS)})", 5)
        need(len(set(players)) == len(players), "each colour plays once")
        for f in ("one_at_a_time", "push", "dive_no_photos"):
            need(isinstance(getattr(self, f), bool), f"{f} must be true or false")
        if self.nessie is not None:
            parts = as_tuple(self, "nessie", need, _circle, "circles [head, body, tail]", 3)
            need(len(parts) == 3, "nessie must be [head, body, tail]")


@dataclass(frozen=True)
class PlacePhotographer:
    """The player whose turn it is puts a photographer on an empty Viewing Area (named by its symbol)."""

    type: ClassVar[str] = "place-photographer"
    area: str

    def check(self, need) -> None:
        need(is_name(self.area), "area must be a Viewing Area's symbol")


@dataclass(frozen=True)
class Roll:
    """The twelve-sided die: a number, or "water" for the water symbol."""

    type: ClassVar[str] = "roll"
    value: int | str
    source: str = "screen"

    def check(self, need) -> None:
        need(self.value == WATER or (is_int(self.value) and 1 <= self.value <= 30),
             f'value must be a number on the die or "water", got {self.value!r}')
        need(self.source in SOURCES, f"source must be one of {', '.join(SOURCES)}")


@dataclass(frozen=True)
class MoveNessie:
    """Nessie's head goes along ``path`` (the circles entered, in order); ``discard``: the value of a photo
    given back to push or slow her (extended rule)."""

    type: ClassVar[str] = "move-nessie"
    path: tuple[str, ...]
    discard: int | None = None

    def check(self, need) -> None:
        path = as_tuple(self, "path", need, _circle, "circles", 40)
        need(len(path) >= 1, "path must name at least one circle")
        need(self.discard is None or (is_int(self.discard) and 1 <= self.discard <= 20),
             "discard must be a photo's value or null")


@dataclass(frozen=True)
class PlaceNessie:
    """After a dive: Nessie's three parts anywhere on the Monster Track, together and in order."""

    type: ClassVar[str] = "place-nessie"
    head: str
    body: str
    tail: str

    def check(self, need) -> None:
        need(all(_circle(v) for v in (self.head, self.body, self.tail)), "head, body and tail must name circles")


@dataclass(frozen=True)
class Photos:
    """The photographer whose turn it is keeps the photo worth ``keep``; ``drawn``: all the values drawn,
    in order (optional: when given it is checked against the bag and the draws allowed)."""

    type: ClassVar[str] = "photos"
    keep: int
    drawn: tuple[int, ...] | None = None

    def check(self, need) -> None:
        need(is_int(self.keep) and 1 <= self.keep <= 20, f"keep must be a photo's value, got {self.keep!r}")
        if self.drawn is not None:
            drawn = as_tuple(self, "drawn", need, lambda v: is_int(v) and 1 <= v <= 20, "photo values", 3)
            need(self.keep in drawn, "the photo kept must be one of those drawn")


@dataclass(frozen=True)
class MovePhotographer:
    """Instead of rolling: one of your photographers from ``origin`` to the empty Viewing Area ``to``."""

    type: ClassVar[str] = "move-photographer"
    origin: str
    to: str

    def check(self, need) -> None:
        need(is_name(self.origin) and is_name(self.to), "origin and to must be Viewing Areas' symbols")


Action = NewGame | PlacePhotographer | Roll | MoveNessie | PlaceNessie | Photos | MovePhotographer
ACTION_TYPES: dict[str, type] = {c.type: c for c in (NewGame, PlacePhotographer, Roll, MoveNessie, PlaceNessie,
                                                     Photos, MovePhotographer)}


def action_to_json(action: Action) -> dict[str, Any]:
    return encode(action)


def action_from_json(data: Any) -> Action:
    return decode(data, ACTION_TYPES)
