"""The state of a Nessie Hunt game: plain frozen data, rebuilt by folding the action log.

Pure: no I/O. ``rules.apply`` makes each new state from the last one.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum

from .tracks import EXPEDITIONS

_REPLACERS: dict[type, object] = {}


def replace(obj, **changes):
    """``dataclasses.replace`` for our frozen state classes, about three times faster: a copier is
    generated once per class (a new object, every field set directly; these classes have no
    ``__post_init__``). Replaying and simulating games is dominated by it."""
    copier = _REPLACERS.get(type(obj))
    if copier is None:
        copier = _REPLACERS[type(obj)] = _make_copier(type(obj))
    return copier(obj, changes)


def _make_copier(cls):
    names = [f.name for f in fields(cls)]
    body = "".join(f"    S(n, {x!r}, c[{x!r}] if {x!r} in c else o.{x})\n" for x in names)
    unknown = "    if not c.keys() <= F: raise TypeError(f'{C.__name__} has no field(s) {sorted(c.keys() - F)}')\n"
    source = f"def copy(o, c):\n{unknown}    n = N(C)\n{body}    return n\n"
    namespace = {"C": cls, "N": object.__new__, "S": object.__setattr__, "F": frozenset(names)}
    exec(source, namespace)  # noqa: S102 - generated from the dataclass's own field names
    return namespace["copy"]


#: Equipment that "sees" submerged monsters: all but eye witnesses and surface cameras
#: ("ALL EQUIPMENT SEES UNDERWATER EXCEPT EYE-WITNESS AND SURFACE CAMERAS", stage two, step four).
UNDERWATER_EQUIPMENT = frozenset({"underwater_camera", "sonar", "biological_unit", "cage"})
SURFACE_ONLY = frozenset({"eye_witness", "surface_camera"})


class Step(str, Enum):
    THROW = "throw"  # stage one, steps 1-2: throw the die and move the leader
    LOGISTICS = "logistics"  # stage one, step 3: take a LOGISTICS card and act on it
    LOGISTICS_THROW = "logistics-throw"  # a card asks for a further throw
    CARD_EVIDENCE = "card-evidence"  # a card (or a throw of 5/6 in the introductory game) gives an evidence card
    MONSTER = "monster"  # stage two: the monsters are placed
    COVERAGE = "coverage"  # stage three, step 1: which equipment covers which monster
    DRAW = "draw"  # stage three, steps 2-3: take the cards, enter their points
    PURCHASE = "purchase"  # stage six: buy one piece, return pieces, repay a loan
    TOTALS = "totals"  # stage seven: the Sponsor reads out the totals
    TRUMP = "trump"  # stage nine: who wants to play a trump card
    TRUMP_DIE_OFF = "trump-die-off"  # several claimants throw; the highest plays
    TRUMP_PLAY = "trump-play"  # the chosen holder names the part of next round's monster
    OVER = "over"  # the hunt is over


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
    rounds: int = 0  # a shortened game's fixed number of rounds (0: none)
    win_rule: str = "reach"  # "reach": at least the target; "exceed": more than the target
    cards_per_piece: str = "per-monster"  # a piece covering several monsters: a card for each, or one

    def thrower(self, token: str) -> str:
        return self.throwers[self.tokens.index(token)]

    def takes_logistics(self, token: str) -> bool:
        """Only a token played by its own expedition takes LOGISTICS cards (two-player and solitaire rules)."""
        return token in self.expeditions


@dataclass(frozen=True, slots=True)
class Piece:
    """One transparency on the board."""

    id: int
    equipment: str
    bought_round: int
    hex: str | None = None  # the cage's hexagon ("the sponsor must keep a note of the hexagon reference")


@dataclass(frozen=True, slots=True)
class Card:
    """An evidence card kept by an expedition."""

    pack: str
    points: int
    round: int


@dataclass(frozen=True, slots=True)
class Loan:
    kind: str  # "sponsor" (blocks evidence, 50% interest, four rounds) or "bank" (the Bank Loan card)
    owed: int
    due_round: int
    borrowed: int


@dataclass(frozen=True, slots=True)
class Expedition:
    name: str
    cash: int
    pieces: tuple[Piece, ...] = ()
    cards: tuple[Card, ...] = ()
    missing_turns: int = 0
    loans: tuple[Loan, ...] = ()
    held: tuple[str, ...] = ()  # LOGISTICS cards kept: trumps, missed-turn cards
    returned: tuple[tuple[str, int], ...] = ()  # (equipment, round it was returned)
    out: str | None = None  # why the expedition is out of the game
    had_all_cameras: bool = False  # introductory game: after three surface cameras, any order

    @property
    def points(self) -> int:
        return sum(c.points for c in self.cards)

    @property
    def best_card(self) -> int:
        return max((c.points for c in self.cards), default=0)

    @property
    def sponsor_debt(self) -> int:
        return sum(l.owed for l in self.loans if l.kind == "sponsor")

    def count(self, equipment: str) -> int:
        return sum(1 for p in self.pieces if p.equipment == equipment)

    def piece(self, piece_id: int) -> Piece | None:
        return next((p for p in self.pieces if p.id == piece_id), None)


@dataclass(frozen=True, slots=True)
class Monster:
    """Stage two's outcome for one round."""

    surface: str | None  # the head-and-neck's hex, None when no monster appears
    reason: str | None  # why no monster appears
    submerged: tuple[tuple[str, str | None], ...]  # (direction, hex or None off the loch)
    submerged_in_play: bool  # some expedition has underwater equipment in use
    trump: str | None = None  # "BRITISH chose the small letter c"

    @property
    def placed_submerged(self) -> dict[str, str]:
        if not self.submerged_in_play:
            return {}
        return {d: a for d, a in self.submerged if a is not None}

    def hexes(self) -> dict[str, str]:
        """Every monster on the board: "surface" and the placed submerged ones, by label."""
        if self.surface is None:
            return {}
        return {"surface": self.surface, **self.placed_submerged}


@dataclass(frozen=True, slots=True)
class LastThrow:
    token: str
    value: int
    source: str
    from_space: int
    to_space: int


@dataclass(frozen=True, slots=True)
class Outcome:
    winner: str | None
    reason: str
    points: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class NessieState:
    seating: Seating
    round: int
    stage: int
    step: Step
    turn: int  # whose turn within the current stage (an index into the stage's order)
    positions: tuple[int, ...]  # each leader's space, indexed like EXPEDITIONS
    expeditions: tuple[Expedition | None, ...]  # indexed like EXPEDITIONS; None: not played by anyone
    bank: int  # the Sponsor's balance: money in minus money out (sum(cash) + bank == 0 always)
    last_throw: LastThrow | None
    monster: Monster | None
    logistics_taken: int  # LOGISTICS cards taken so far this game
    history: tuple[Monster, ...] = ()  # the monsters of earlier rounds
    next_piece: int = 1
    incomes: int = 0  # how many times stage five has been reached
    pending_card: str | None = None  # the LOGISTICS card waiting for a throw or an evidence card
    pending_pack: str | None = None  # the pack an evidence card is due from (card evidence)
    entitlement: tuple[tuple[int, str, str], ...] = ()  # stage three: (piece, monster, pack) still to draw
    bought: bool = False  # stage six: this expedition has bought its one piece this turn
    claims: tuple[str, ...] = ()  # stage nine: expeditions that want to play a trump card
    die_off: tuple[tuple[str, int], ...] = ()  # stage nine: throws so far
    trump: tuple[str, str, str, str] | None = None  # (expedition, card, part, symbol) for next round's monster
    report: tuple[str, ...] = ()  # what the Sponsor just did automatically (income, loans), read out
    outcome: Outcome | None = None

    # -- reading -------------------------------------------------------------------------------

    def position(self, expedition: str) -> int:
        return self.positions[EXPEDITIONS.index(expedition)]

    def expedition(self, name: str) -> Expedition | None:
        return self.expeditions[EXPEDITIONS.index(name)]

    def equipment_of(self, expedition: str) -> tuple[str, ...]:
        e = self.expedition(expedition)
        return tuple(p.equipment for p in e.pieces) if e else ()

    def is_missing_turn(self, expedition: str) -> bool:
        e = self.expedition(expedition)
        return bool(e and e.missing_turns > 0)

    @property
    def missing_turns(self) -> tuple[int, ...]:
        return tuple(e.missing_turns if e else 0 for e in self.expeditions)

    @property
    def playing(self) -> tuple[str, ...]:
        """Expeditions still in the game, in seating order."""
        return tuple(e.name for e in self.expeditions if e is not None and e.out is None)

    @property
    def token_to_throw(self) -> str | None:
        if self.stage == 1 and self.step is Step.THROW:
            return self.seating.tokens[self.turn]
        return None

    def with_expedition(self, exp: Expedition, **changes) -> "NessieState":
        i = EXPEDITIONS.index(exp.name)
        new = replace(exp, **changes) if changes else exp
        return replace(self, expeditions=self.expeditions[:i] + (new,) + self.expeditions[i + 1:])
