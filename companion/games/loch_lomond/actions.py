"""Monsters of Loch Lomond actions: what is told to the companion, as frozen dataclasses. Pure.

The card game itself is played with the cards in hand; the companion is told who calls
FREEDOM!!, which Tokens are played, and what lies in every clan when the round is counted.

    >>> action_to_json(Freedom("Ann"))
    {'type': 'freedom', 'player': 'Ann'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .box import CARDS
from companion.games.codec import as_tuple, decode, encode, is_name

#: A played Baby Monster Token lies in a clan "as an additional Monster card".
TOKEN_CARD = "baby-monster-token"
CLAN_CARDS = CARDS + (TOKEN_CARD,)
TOKENS = ("seer-stone", "baby-monster")


@dataclass(frozen=True)
class NewGame:
    """Who plays, in clockwise order; the first named is "the oldest and wisest player" who starts."""

    type: ClassVar[str] = "new-game"
    players: tuple[str, ...]

    def check(self, need) -> None:
        players = as_tuple(self, "players", need, is_name, "names (text up to 32 characters)", 10)
        need(len(set(players)) == len(players), "players must have different names")


@dataclass(frozen=True)
class Freedom:
    """A player calls "FREEDOM!!": every other player takes one last turn."""

    type: ClassVar[str] = "freedom"
    player: str

    def check(self, need) -> None:
        need(is_name(self.player), "player must be a player's name")


@dataclass(frozen=True)
class PlayToken:
    """A saved Token is played: a Seer Stone (see one card) or a Baby Monster into a rival's clan (``target``)."""

    type: ClassVar[str] = "play-token"
    player: str
    token: str
    target: str | None = None

    def check(self, need) -> None:
        need(is_name(self.player), "player must be a player's name")
        need(self.token in TOKENS, f"token must be one of {', '.join(TOKENS)}, got {self.token!r}")
        need(self.target is None or is_name(self.target), "target must be a player's name or null")


@dataclass(frozen=True)
class ScoreRound:
    """The cards in every clan when the last round is over: {player: [card, ...]}."""

    type: ClassVar[str] = "score-round"
    clans: dict[str, tuple[str, ...]]

    def check(self, need) -> None:
        need(isinstance(self.clans, dict) and 0 < len(self.clans) <= 10 and all(is_name(k) for k in self.clans),
             "clans must be an object {player: [card, ...]}")
        out = {}
        for player, cards in self.clans.items():
            need(isinstance(cards, (list, tuple)) and len(cards) <= 52 and all(c in CLAN_CARDS for c in cards),
                 f"clan of {player!r} must be a list of cards, each one of {', '.join(CLAN_CARDS)}")
            out[player] = tuple(cards)
        object.__setattr__(self, "clans", out)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.clans.items())))


Action = NewGame | Freedom | PlayToken | ScoreRound
ACTION_TYPES: dict[str, type] = {c.type: c for c in (NewGame, Freedom, PlayToken, ScoreRound)}


def action_to_json(action: Action) -> dict[str, Any]:
    return encode(action)


def action_from_json(data: Any) -> Action:
    """An action from its JSON form, or :class:`MalformedAction` saying what is wrong."""
    return decode(data, ACTION_TYPES)
