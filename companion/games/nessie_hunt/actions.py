"""Actions: what can happen at the table, as small frozen dataclasses that round-trip through JSON.

Every action has a ``type`` tag. ``action_from_json`` refuses anything malformed with
:class:`MalformedAction` naming the field; whether a well-formed action is *legal now* is the
rules' business (``rules.apply``). The README's "Actions" section documents every type.

    >>> action_to_json(Throw(4, "camera"))
    {'type': 'throw', 'value': 4, 'source': 'camera'}
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

from companion.errors import MalformedAction

from .tracks import EXPEDITIONS

#: Where a throw came from; the dashboard shows it beside the last throw.
SOURCES = ("screen", "keyboard", "virtual-die", "autoplay", "camera", "gpio", "serial", "import", "simulator")
MONSTERS = ("surface", "left", "right", "up", "down")


@dataclass(frozen=True)
class NewGame:
    """The first action of every game: who plays and how.

    players: how many people play (1 = solitaire, 2, 3, 4 or 5).
    expeditions: the expeditions people play, e.g. ("british", "american").
    sponsor: who acts as Sponsor (banker): "companion" (the default: nobody has to), or as the rulebook
        has it: "independent" with 4 players, "fifth-player" with 5, one of the expeditions with 2 or 3.
    variant: "basic", "introductory" or "junior".
    target: points that prove the monster exists (0: the variant's, 750 or 400; 600 in shortened games).
    rounds: a shortened game's fixed number of rounds (0: play to the target).
    win_rule: "reach" (at least the target) or "exceed" (more than the target).
    cards_per_piece: "per-monster" (a piece covering two monsters earns two cards) or "per-piece".
    """

    type: ClassVar[str] = "new-game"
    players: int
    expeditions: tuple[str, ...]
    sponsor: str = "companion"
    variant: str = "basic"
    target: int = 0
    rounds: int = 0
    win_rule: str = "reach"
    cards_per_piece: str = "per-monster"


@dataclass(frozen=True)
class Throw:
    """The die, thrown for whoever must throw now (a token's move, a card's gamble, a trump die-off)."""

    type: ClassVar[str] = "throw"
    value: int
    source: str = "screen"


@dataclass(frozen=True)
class LogisticsDealt:
    """The LOGISTICS card taken on a star: its id in the box profile's deck, or null when the card is not
    in the companion's deck (it is then read and settled at the table)."""

    type: ClassVar[str] = "logistics-dealt"
    card: str | None = None


@dataclass(frozen=True)
class Coverage:
    """Stage three, step 1: the pieces of the expedition whose turn it is that cover monsters.

    covers: [[piece_id, monster], ...], monster one of surface, left, right, up, down. An empty list:
    nothing covered. Entered on the dashboard, or sent by the vision module.
    """

    type: ClassVar[str] = "coverage"
    covers: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class EvidenceCard:
    """The points printed on the evidence card just drawn (from the pack the companion named)."""

    type: ClassVar[str] = "evidence-card"
    points: int


@dataclass(frozen=True)
class Buy:
    """Stage six: buy one piece of equipment (``hex``: the cage's hexagon)."""

    type: ClassVar[str] = "buy"
    equipment: str
    hex: str | None = None


@dataclass(frozen=True)
class Return:
    """Stage six: hand a piece back to the Sponsor (no refund)."""

    type: ClassVar[str] = "return"
    piece: int


@dataclass(frozen=True)
class RepayLoan:
    """Stage six: repay (part of) the Sponsor loan."""

    type: ClassVar[str] = "repay-loan"
    amount: int


@dataclass(frozen=True)
class EndTurn:
    """Stage six: this expedition has finished buying and returning."""

    type: ClassVar[str] = "end-turn"


@dataclass(frozen=True)
class ClaimTrump:
    """Stage nine: an expedition holding a trump card wants to play it."""

    type: ClassVar[str] = "claim-trump"
    expedition: str


@dataclass(frozen=True)
class PlayTrump:
    """Stage nine: the chosen holder names its part of next round's monster address (e.g. "D", "3", "b")."""

    type: ClassVar[str] = "play-trump"
    symbol: str


@dataclass(frozen=True)
class Advance:
    """Go on to the next step (the dashboard's and the button board's Next)."""

    type: ClassVar[str] = "advance"


Action = (NewGame | Throw | LogisticsDealt | Coverage | EvidenceCard | Buy | Return | RepayLoan | EndTurn
          | ClaimTrump | PlayTrump | Advance)
ACTION_TYPES: dict[str, type] = {cls.type: cls for cls in (NewGame, Throw, LogisticsDealt, Coverage, EvidenceCard, Buy,
                                                           Return, RepayLoan, EndTurn, ClaimTrump, PlayTrump, Advance)}


def action_to_json(action: Action) -> dict[str, Any]:
    out: dict[str, Any] = {"type": action.type}
    for f in fields(action):
        value = getattr(action, f.name)
        if isinstance(value, tuple):
            value = [list(v) if isinstance(v, tuple) else v for v in value]
        out[f.name] = value
    return out


#: Per action type: (all field names, the required ones), read once (replaying a log parses thousands).
_SHAPES = {kind: (frozenset(f.name for f in fields(cls)), tuple(f.name for f in fields(cls) if f.default is MISSING))
           for kind, cls in ACTION_TYPES.items()}


def action_from_json(data: Any) -> Action:
    """Build an action from its JSON form, or raise :class:`MalformedAction` saying what is wrong."""
    if not isinstance(data, dict):
        raise MalformedAction("an action is a JSON object with a 'type'")
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedAction(f"unknown action type {kind!r}; one of {', '.join(ACTION_TYPES)}")
    names, required = _SHAPES[kind]
    extra = data.keys() - names - {"type"}
    if extra:
        raise MalformedAction(f"{kind}: unknown field(s) {', '.join(sorted(extra))}")
    missing = [n for n in required if n not in data]
    if missing:
        raise MalformedAction(f"{kind}: missing field(s) {', '.join(missing)}")
    action = cls(**{k: v for k, v in data.items() if k != "type"})
    _check_fields(action)
    return action


def _check_fields(action: Action) -> None:
    def need(cond: bool, msg: str) -> None:
        if not cond:
            raise MalformedAction(f"{action.type}: {msg}")

    if isinstance(action, Throw):
        need(_is_int(action.value) and 1 <= action.value <= 6, f"value must be a whole number 1-6, got {action.value!r}")
        need(action.source in SOURCES, f"source must be one of {', '.join(SOURCES)}, got {action.source!r}")
    elif isinstance(action, LogisticsDealt):
        need(action.card is None or (isinstance(action.card, str) and 0 < len(action.card) <= 64),
             "card must be a card id (text up to 64 characters) or null")
    elif isinstance(action, NewGame):
        need(_is_int(action.players), f"players must be a whole number, got {action.players!r}")
        need(isinstance(action.expeditions, (list, tuple)) and all(e in EXPEDITIONS for e in action.expeditions),
             f"expeditions must be a list drawn from {', '.join(EXPEDITIONS)}")
        object.__setattr__(action, "expeditions", tuple(action.expeditions))
        need(isinstance(action.sponsor, str), "sponsor must be text")
        need(isinstance(action.variant, str), "variant must be text")
        need(_is_int(action.target) and 0 <= action.target <= 100_000, f"target must be a whole number of points, got {action.target!r}")
        need(_is_int(action.rounds) and 0 <= action.rounds <= 1000, f"rounds must be a whole number 0-1000, got {action.rounds!r}")
        need(action.win_rule in ("reach", "exceed"), f"win_rule must be 'reach' or 'exceed', got {action.win_rule!r}")
        need(action.cards_per_piece in ("per-monster", "per-piece"),
             f"cards_per_piece must be 'per-monster' or 'per-piece', got {action.cards_per_piece!r}")
    elif isinstance(action, Coverage):
        ok = isinstance(action.covers, (list, tuple)) and all(
            isinstance(c, (list, tuple)) and len(c) == 2 and _is_int(c[0]) and c[1] in MONSTERS for c in action.covers)
        need(ok, "covers must be a list of [piece_id, monster] pairs, monster one of " + ", ".join(MONSTERS))
        object.__setattr__(action, "covers", tuple((c[0], c[1]) for c in action.covers))
    elif isinstance(action, EvidenceCard):
        need(_is_int(action.points) and 0 <= action.points <= 10_000, f"points must be a whole number, got {action.points!r}")
    elif isinstance(action, Buy):
        need(isinstance(action.equipment, str), "equipment must be text")
        need(action.hex is None or isinstance(action.hex, str), "hex must be an address such as 'D3b' or null")
    elif isinstance(action, Return):
        need(_is_int(action.piece), f"piece must be a piece id, got {action.piece!r}")
    elif isinstance(action, RepayLoan):
        need(_is_int(action.amount) and action.amount > 0, f"amount must be a whole number of pounds above 0, got {action.amount!r}")
    elif isinstance(action, ClaimTrump):
        need(action.expedition in EXPEDITIONS, f"expedition must be one of {', '.join(EXPEDITIONS)}")
    elif isinstance(action, PlayTrump):
        need(isinstance(action.symbol, str) and 0 < len(action.symbol) <= 2, "symbol must be a letter or number")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
