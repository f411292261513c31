"""Loch Ness (Ronald Wettering; Hans im Glück / Rio Grande, 2010): reporters, hidden movement cards whose
sum moves both Nessies, cameras on lurking spots, photo cards, the score track to 65, the action
spaces and the variants Storm! and Free hotel.

Pure rules (``rules``, ``actions``, ``box``); the only file access is :func:`load_box`.
"""

from __future__ import annotations

from .actions import (COLOURS, SPACES, Action, Auction, Bagpipes, Camera, NewGame, Pass, PlaceDummy, Reporter,
                      Reveal, TakePhoto, action_from_json, action_to_json)
from .box import KINDS, WetteringBox, parse_box
from .rules import LochNessWettering, WState, set_points

__all__ = ["COLOURS", "SPACES", "Action", "Auction", "Bagpipes", "Camera", "NewGame", "Pass", "PlaceDummy", "Reporter",
           "Reveal", "TakePhoto", "action_from_json", "action_to_json", "KINDS", "WetteringBox", "parse_box",
           "LochNessWettering", "WState", "set_points", "load_box", "make_game"]

DEFAULT_BOX = "default_box.toml"


def load_box(path=None) -> WetteringBox:
    from companion.box_profiles import load_document

    data, source = load_document(__name__, DEFAULT_BOX, path)
    return parse_box(data, source)


def make_game(box_path=None) -> LochNessWettering:
    return LochNessWettering(load_box(box_path))
