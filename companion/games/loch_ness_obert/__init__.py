"""Loch Ness (Walter Obert; Granna/Red Glove/Elfinwerks, 2011): the d12 with the water symbol,
Nessie in three parts on the Monster Track, photographers on the Viewing Areas, photos from a bag.

Pure rules (``rules``, ``actions``, ``box``); the only file access is :func:`load_box`.
"""

from __future__ import annotations

from .actions import (COLOURS, Action, MoveNessie, MovePhotographer, NewGame, PlaceNessie, PlacePhotographer,
                      Photos, Roll, action_from_json, action_to_json)
from .box import WATER, ObertBox, parse_box
from .rules import LochNessObert, ObertState

__all__ = ["COLOURS", "Action", "MoveNessie", "MovePhotographer", "NewGame", "PlaceNessie", "PlacePhotographer",
           "Photos", "Roll", "action_from_json", "action_to_json", "WATER", "ObertBox", "parse_box", "LochNessObert",
           "ObertState", "load_box", "make_game"]

DEFAULT_BOX = "default_box.toml"


def load_box(path=None) -> ObertBox:
    from companion.box_profiles import load_document

    data, source = load_document(__name__, DEFAULT_BOX, path)
    return parse_box(data, source)


def make_game(box_path=None) -> LochNessObert:
    return LochNessObert(load_box(box_path))
