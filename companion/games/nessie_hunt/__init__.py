"""Nessie Hunt (Searchglen, 1986): board, tracks, box profile, actions, rules and the table view.

Everything in this package is pure (no I/O, no clock, no randomness); ``tests/test_purity.py``
checks its imports.
"""

from .actions import (Action, Advance, Buy, ClaimTrump, Coverage, EndTurn, EvidenceCard, LogisticsDealt, NewGame,
                      PlayTrump, RepayLoan, Return, Throw, action_from_json, action_to_json)
from .board import Hex, HexGrid, Loch, Submerged
from .box import BoxProfile, parse_box
from .rules import NessieHunt
from .state import NessieState, Step
from .variants import VARIANTS, Variant
from .view import table_view

__all__ = [
    "Action", "Advance", "Buy", "ClaimTrump", "Coverage", "EndTurn", "EvidenceCard", "LogisticsDealt", "NewGame",
    "PlayTrump", "RepayLoan", "Return", "Throw", "action_from_json", "action_to_json",
    "Hex", "HexGrid", "Loch", "Submerged", "BoxProfile", "parse_box", "NessieHunt", "NessieState", "Step", "VARIANTS", "Variant",
    "table_view",
]


def make_game(box_path=None) -> NessieHunt:
    """Nessie Hunt on the box profile at ``box_path`` (the house default when None)."""
    from companion.box_profiles import load_box  # the only file access, kept out of the rules

    return NessieHunt(load_box(box_path))
