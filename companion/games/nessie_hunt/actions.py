"""Actions: what can happen at the table, as small frozen dataclasses that round-trip through JSON.

Every action has a ``type`` tag. ``action_from_json`` refuses anything malformed with
:class:`MalformedAction` naming the field; whether a well-formed action is *legal now* is the
rules' business (``rules.apply``).

    >>> action_to_json(Throw(4, "camera"))
    {'type': 'throw', 'value': 4, 'source': 'camera'}
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

from companion.errors import MalformedAction

from .tracks import EXPEDITIONS

#: Where a throw came from; the dashboard shows it beside the last throw.
SOURCES = ("screen", "keyboard", "virtual-die", "autoplay", "camera", "gpio", "serial", "import")


@dataclass(frozen=True)
class NewGame:
    """The first action of every game: who plays and how.

    players: how many people play (1 = solitaire, 2, 3, 4 or 5).
    expeditions: the expeditions people play, e.g. ("british", "american").
    sponsor: who acts as Sponsor (banker): "independent" with 4 players, "fifth-player" with 5,
        one of the expeditions with 2 or 3 players, the solo player in solitaire. With 2 players the
        banker also throws for the non-participating token.
    variant: "basic" (the rules issue adds the others).
    target: points that prove the monster exists (750; 600 in shortened games).
    """

    type: ClassVar[str] = "new-game"
    players: int
    expeditions: tuple[str, ...]
    sponsor: str
    variant: str = "basic"
    target: int = 750


@dataclass(frozen=True)
class Throw:
    """The die, thrown for the token whose turn it is."""

    type: ClassVar[str] = "throw"
    value: int
    source: str = "screen"


@dataclass(frozen=True)
class LogisticsDealt:
    """The LOGISTICS card taken on a star has been read aloud and dealt with (``card``: its id, if known)."""

    type: ClassVar[str] = "logistics-dealt"
    card: str | None = None


@dataclass(frozen=True)
class Advance:
    """Go on to the next step (the dashboard's and the button board's Next)."""

    type: ClassVar[str] = "advance"


Action = NewGame | Throw | LogisticsDealt | Advance
ACTION_TYPES: dict[str, type] = {cls.type: cls for cls in (NewGame, Throw, LogisticsDealt, Advance)}


def action_to_json(action: Action) -> dict[str, Any]:
    out: dict[str, Any] = {"type": action.type}
    for f in fields(action):
        value = getattr(action, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def action_from_json(data: Any) -> Action:
    """Build an action from its JSON form, or raise :class:`MalformedAction` saying what is wrong."""
    if not isinstance(data, dict):
        raise MalformedAction("an action is a JSON object with a 'type'")
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedAction(f"unknown action type {kind!r}; one of {', '.join(ACTION_TYPES)}")
    names = {f.name for f in fields(cls)}
    extra = set(data) - names - {"type"}
    if extra:
        raise MalformedAction(f"{kind}: unknown field(s) {', '.join(sorted(extra))}")
    kwargs = {}
    for f in fields(cls):
        if f.name in data:
            kwargs[f.name] = data[f.name]
    try:
        action = cls(**kwargs)
    except TypeError:
        missing = [f.name for f in fields(cls) if f.name not in data and f.default is MISSING]
        raise MalformedAction(f"{kind}: missing field(s) {', '.join(missing)}") from None
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
        need(_is_int(action.target) and 1 <= action.target <= 100_000, f"target must be a whole number of points, got {action.target!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
