"""The state of a Nessie Hunt game: plain frozen data, rebuilt by folding the action log.

Pure: no I/O. ``rules.apply`` makes each new state from the last one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .tracks import EXPEDITIONS

#: Equipment that "sees" submerged monsters: all but eye witnesses and surface cameras
#: ("ALL EQUIPMENT SEES UNDERWATER EXCEPT EYE-WITNESS AND SURFACE CAMERAS", stage two, step four).
UNDERWATER_EQUIPMENT = frozenset({"underwater_camera", "sonar", "biological_unit", "cage"})


class Step(str, Enum):
    THROW = "throw"  # stage one, steps 1-2: throw the die and move the leader
    LOGISTICS = "logistics"  # stage one, step 3: a LOGISTICS card is being dealt with
    MONSTER = "monster"  # stage two: the monsters are placed


@dataclass(frozen=True, slots=True)
class Seating:
    """Who plays, derived from the NewGame action: which tokens move and who throws for each."""

    players: int
    expeditions: tuple[str, ...]  # played by people, in seating order
    sponsor: str
    variant: str
    target: int
    tokens: tuple[str, ...]  # the leaders that move every round, in order of play
    throwers: tuple[str, ...]  # who throws for each of ``tokens``

    def thrower(self, token: str) -> str:
        return self.throwers[self.tokens.index(token)]

    def takes_logistics(self, token: str) -> bool:
        """Only a token played by its own expedition takes LOGISTICS cards (two-player and solitaire rules)."""
        return token in self.expeditions


@dataclass(frozen=True, slots=True)
class Monster:
    """Stage two's outcome for one round."""

    surface: str | None  # the head-and-neck's hex, None when no monster appears
    reason: str | None  # why no monster appears
    submerged: tuple[tuple[str, str | None], ...]  # (direction, hex or None off the loch)
    submerged_in_play: bool  # some expedition has underwater equipment in use

    @property
    def placed_submerged(self) -> dict[str, str]:
        if not self.submerged_in_play:
            return {}
        return {d: a for d, a in self.submerged if a is not None}


@dataclass(frozen=True, slots=True)
class LastThrow:
    token: str
    value: int
    source: str
    from_space: int
    to_space: int


@dataclass(frozen=True, slots=True)
class NessieState:
    seating: Seating
    round: int
    stage: int
    step: Step
    turn: int  # index into seating.tokens during stage one
    positions: tuple[int, ...]  # each leader's space, indexed like EXPEDITIONS
    equipment: tuple[tuple[str, ...], ...]  # each expedition's equipment in use, indexed like EXPEDITIONS
    missing_turns: tuple[int, ...]  # turns each expedition still has to miss
    last_throw: LastThrow | None
    monster: Monster | None
    logistics_taken: int  # LOGISTICS cards taken so far this game
    history: tuple[Monster, ...] = ()  # the monsters of earlier rounds

    def position(self, expedition: str) -> int:
        return self.positions[EXPEDITIONS.index(expedition)]

    def equipment_of(self, expedition: str) -> tuple[str, ...]:
        return self.equipment[EXPEDITIONS.index(expedition)]

    def is_missing_turn(self, expedition: str) -> bool:
        return self.missing_turns[EXPEDITIONS.index(expedition)] > 0

    @property
    def token_to_throw(self) -> str | None:
        if self.stage == 1 and self.step is Step.THROW:
            return self.seating.tokens[self.turn]
        return None
