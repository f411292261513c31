"""A humans-versus-monsters hex skirmish (seeds/004_27c800e34d0c540b.txt, in Russian): the monster
player's actions, the 18-token pool, stacks cut to six, and ambushes resolved from real dice.

Pure rules (``rules``, ``actions``, ``box``); the only file access is :func:`load_box`.
"""

from __future__ import annotations

from .actions import (Action, Ambush, EndActions, EndTurn, Grow, HumansDone, Killed, Move, NewGame, NewStack,
                      Retreat, action_from_json, action_to_json)
from .box import AmbushBox, HexMap, parse_box
from .rules import MonsterAmbush, SkirmishState, human_strength, monster_strength

__all__ = ["Action", "Ambush", "EndActions", "EndTurn", "Grow", "HumansDone", "Killed", "Move", "NewGame", "NewStack",
           "Retreat", "action_from_json", "action_to_json", "AmbushBox", "HexMap", "parse_box", "MonsterAmbush",
           "SkirmishState", "human_strength", "monster_strength", "load_box", "make_game"]

DEFAULT_BOX = "default_box.toml"


def load_box(path=None) -> AmbushBox:
    from companion.box_profiles import load_document

    data, source = load_document(__name__, DEFAULT_BOX, path)
    return parse_box(data, source)


def make_game(box_path=None) -> MonsterAmbush:
    return MonsterAmbush(load_box(box_path))
