"""Skirmish actions: the monster player's actions, the ambush with its dice, the humans' turn. Pure.

The dice are thrown at the table (read by the camera or entered on buttons) and come in as data.

    >>> action_to_json(Move("C1", "D2"))
    {'type': 'move', 'origin': 'C1', 'to': 'D2'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from companion.games.codec import SOURCES, as_tuple, decode, encode, is_int

HEX_TEXT = "a hex name such as 'E4'"


def _hex(value: Any) -> bool:
    return isinstance(value, str) and 2 <= len(value) <= 4 and value[0].isalpha() and value[1:].isdigit()


def _die(value: Any) -> bool:
    return is_int(value) and 1 <= value <= 6


@dataclass(frozen=True)
class NewGame:
    """A new skirmish. ``actions_per_turn``: the monster player's actions each turn (None: the box's, 3)."""

    type: ClassVar[str] = "new-game"
    actions_per_turn: int | None = None

    def check(self, need) -> None:
        need(self.actions_per_turn is None or (is_int(self.actions_per_turn) and 1 <= self.actions_per_turn <= 20),
             "actions_per_turn must be a whole number 1-20 or null")


@dataclass(frozen=True)
class NewStack:
    """Action 1: two monster tokens on the end of a path, or on the ship's hex."""

    type: ClassVar[str] = "new-stack"
    hex: str

    def check(self, need) -> None:
        need(_hex(self.hex), f"hex must be {HEX_TEXT}")


@dataclass(frozen=True)
class Grow:
    """Action 2: two monster tokens added to a stack."""

    type: ClassVar[str] = "grow"
    hex: str

    def check(self, need) -> None:
        need(_hex(self.hex), f"hex must be {HEX_TEXT}")


@dataclass(frozen=True)
class Move:
    """Action 3: a stack moves from ``origin`` to ``to``, one token fewer for every hex passed."""

    type: ClassVar[str] = "move"
    origin: str
    to: str

    def check(self, need) -> None:
        need(_hex(self.origin) and _hex(self.to), f"origin and to must be {HEX_TEXT}")


@dataclass(frozen=True)
class EndActions:
    """The monster player has done their actions (3 or fewer); ambushes may follow."""

    type: ClassVar[str] = "end-actions"


@dataclass(frozen=True)
class Ambush:
    """The stack on ``hex`` attacks the soldiers there; the dice as thrown.

    monster_die: the monster player's die. human_dice: the human player's two dice.
    soldiers: soldiers on the hex; sergeant: a Sergeant is among them; grenadier: the hex is in a
    grenadier's view.
    """

    type: ClassVar[str] = "ambush"
    hex: str
    monster_die: int
    human_dice: tuple[int, int]
    soldiers: int
    sergeant: bool = False
    grenadier: bool = False
    source: str = "screen"

    def check(self, need) -> None:
        need(_hex(self.hex), f"hex must be {HEX_TEXT}")
        need(_die(self.monster_die), f"monster_die must be a whole number 1-6, got {self.monster_die!r}")
        dice = as_tuple(self, "human_dice", need, _die, "two dice, each 1-6", 2)
        need(len(dice) == 2, "human_dice must be two dice, each 1-6 ('Игрок-человек кидает два кубика')")
        need(is_int(self.soldiers) and 1 <= self.soldiers <= 30, "soldiers must be a whole number 1-30")
        need(isinstance(self.sergeant, bool) and isinstance(self.grenadier, bool), "sergeant and grenadier are true/false")
        need(self.source in SOURCES, f"source must be one of {', '.join(SOURCES)}")


@dataclass(frozen=True)
class Retreat:
    """After losing an ambush the surviving monsters fall back one hex, to ``to``."""

    type: ClassVar[str] = "retreat"
    to: str

    def check(self, need) -> None:
        need(_hex(self.to), f"to must be {HEX_TEXT}")


@dataclass(frozen=True)
class EndTurn:
    """The monster player's turn ends: stacks above six are cut back to six."""

    type: ClassVar[str] = "end-turn"


@dataclass(frozen=True)
class Killed:
    """During the humans' turn, ``count`` monsters on ``hex`` were killed (their tokens go back to the pool)."""

    type: ClassVar[str] = "killed"
    hex: str
    count: int = 1

    def check(self, need) -> None:
        need(_hex(self.hex), f"hex must be {HEX_TEXT}")
        need(is_int(self.count) and 1 <= self.count <= 50, "count must be a whole number 1-50")


@dataclass(frozen=True)
class HumansDone:
    """The human player's turn is over; the monsters move again."""

    type: ClassVar[str] = "humans-done"


for _cls in (EndActions, EndTurn, HumansDone):
    _cls.check = lambda self, need: None  # type: ignore[attr-defined]

Action = NewGame | NewStack | Grow | Move | EndActions | Ambush | Retreat | EndTurn | Killed | HumansDone
ACTION_TYPES: dict[str, type] = {c.type: c for c in (NewGame, NewStack, Grow, Move, EndActions, Ambush, Retreat,
                                                     EndTurn, Killed, HumansDone)}


def action_to_json(action: Action) -> dict[str, Any]:
    return encode(action)


def action_from_json(data: Any) -> Action:
    return decode(data, ACTION_TYPES)
