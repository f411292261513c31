"""Purchases, returns, turns and new games read from the table's state (board_watch.py), and the
examples in live mode's small modules."""

from __future__ import annotations

import doctest

import companion.board_watch
import companion.vision.stillness
from companion.board_watch import PurchaseWatcher, pieces_on_board
from companion.games.nessie_hunt import Buy, Return


class Recorder:
    def __init__(self):
        self.said = []

    def purchased(self, expedition, equipment, piece, now, hex=None):
        self.said.append(("bought", expedition, equipment, piece, hex))

    def returned(self, piece, now):
        self.said.append(("returned", piece))

    def settle(self, now):
        self.said.append(("settled",))

    def new_game(self, now):
        self.said.append(("new game",))


def test_the_examples_hold():
    for module in (companion.board_watch, companion.vision.stillness):
        assert doctest.testmod(module).failed == 0


def test_a_real_purchase_and_return_on_the_table(service):
    from tests.test_vision_live import _to_purchase

    table, live, watch = service.table, Recorder(), PurchaseWatcher()
    watch.poll(table.state, live, 0.0, table.setup)
    assert live.said == []  # what was there before watching is not announced
    _to_purchase(table)
    watch.poll(table.state, live, 1.0, table.setup)  # turns went by: settled, nothing bought
    assert set(live.said) <= {("settled",)}
    live.said.clear()
    table.submit(Buy("surface_camera"))
    watch.poll(table.state, live, 2.0, table.setup)
    [(kind, expedition, equipment, piece, hex_)] = live.said
    assert (kind, equipment, hex_) == ("bought", "surface_camera", None)
    assert pieces_on_board(table.state)[piece][:2] == (expedition, "surface_camera")
    table.submit(Return(piece))
    watch.poll(table.state, live, 3.0, table.setup)
    assert live.said[-1] == ("returned", piece)


def test_a_new_game_announces_its_starting_pieces(service):
    from companion.simulator import default_setup

    table, live, watch = service.table, Recorder(), PurchaseWatcher()
    watch.poll(table.state, live, 0.0, table.setup)
    table.new_game(default_setup(4))
    watch.poll(table.state, live, 1.0, table.setup)
    assert live.said[0] == ("new game",)
    bought = [s for s in live.said if s[0] == "bought"]
    assert len(bought) == len(pieces_on_board(table.state)) > 0
