"""Stage three: which pieces earn which evidence cards. Pure.

How many cards a piece earns when it covers several monsters: the rulebook says "see if any part of
any of your transparencies covers the monsters' locations ... Take the evidence card or cards, to
which you are entitled, from the top of the appropriate packs", and the introductory rules "Take
and retain appropriate EVIDENCE CARDS for any of their EQUIPMENT TRANSPARENCIES even touching the
MONSTER HEXES". Each monster is a separate sighting, so the house reading is one card per piece
per monster it covers ("per-monster"); the setting ``cards_per_piece = "per-piece"`` gives one card
per covering piece instead.
"""

from __future__ import annotations

from companion.errors import IllegalAction

from .actions import MONSTERS
from .economy import sees, title
from .state import NessieState

RULE_SEES = "Stage Three, step 1: EYE WITNESSES AND SURFACE CAMERAS CAN ONLY 'SEE' THE (surface) HEAD AND NECK MONSTER"


def entitlement(game, s: NessieState, name: str, covers) -> tuple[tuple[int, str, str], ...]:
    """Check the coverage entered for ``name`` and list the cards it earns: (piece, monster, pack)."""
    e = s.expedition(name)
    on_board = s.monster.hexes()
    seen: set[tuple[int, str]] = set()
    for piece_id, monster in covers:
        piece = e.piece(piece_id)
        if piece is None:
            raise IllegalAction(f"{title(name)} has no piece number {piece_id} on the board", "Stage Three, step 1")
        if monster not in on_board:
            raise IllegalAction(f"there is no {monster} monster on the board this round", "Stage Two")
        label = game.box.equipment[piece.equipment].label.lower()
        if not sees(piece.equipment, monster):
            raise IllegalAction(f"a {label} cannot see a submerged monster", RULE_SEES)
        if piece.equipment == "cage" and piece.hex != on_board[monster]:
            raise IllegalAction(f"the cage on {piece.hex} obtains evidence only in that hexagon, not on {on_board[monster]}",
                                "Stage Six, step 4: Cages ... can only obtain evidence IN that hexagon")
        if (piece_id, monster) in seen:
            raise IllegalAction(f"piece {piece_id} is listed twice for the {monster} monster", "Stage Three, step 1")
        seen.add((piece_id, monster))
    # The cage's hexagon is on the tally sheet, so the companion knows when it scores.
    for piece in e.pieces:
        if piece.equipment == "cage":
            for monster, hex in on_board.items():
                if hex == piece.hex:
                    seen.add((piece.id, monster))
    order = {m: i for i, m in enumerate(MONSTERS)}
    owed = sorted(seen, key=lambda pm: (pm[0], order[pm[1]]))
    if s.seating.cards_per_piece == "per-piece":
        first: dict[int, str] = {}
        for piece_id, monster in owed:
            first.setdefault(piece_id, monster)
        owed = sorted(first.items())
    return tuple((pid, monster, e.piece(pid).equipment) for pid, monster in owed)
