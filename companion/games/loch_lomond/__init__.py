"""Monsters of Loch Lomond (Key Card Games, 2023): the four-round score keeper.

Pure rules (``rules``, ``actions``, ``box``); the only file access is :func:`load_box`, which reads
the card values (``default_box.toml``: printed values, and documented house defaults for the rest).
"""

from __future__ import annotations

from .actions import Action, Freedom, NewGame, PlayToken, ScoreRound, action_from_json, action_to_json
from .box import CARDS, CardValues, parse_box
from .rules import LochLomond, LomondState

__all__ = ["Action", "Freedom", "NewGame", "PlayToken", "ScoreRound", "action_from_json", "action_to_json", "CARDS",
           "CardValues", "parse_box", "LochLomond", "LomondState", "load_box", "make_game"]

DEFAULT_BOX = "default_box.toml"


def load_box(path=None) -> CardValues:
    """The card values at ``path`` (TOML or JSON), or the house default when None."""
    from companion.box_profiles import load_document

    data, source = load_document(__name__, DEFAULT_BOX, path)
    return parse_box(data, source)


def make_game(box_path=None) -> LochLomond:
    return LochLomond(load_box(box_path))
