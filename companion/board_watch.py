"""Tells live mode what the game did: a piece bought, a piece returned, a turn over.

The table keeps the state after every action; each piece on the board is a ``Piece`` (id,
equipment, the cage's hex) in its expedition's ``pieces``.  Comparing the pieces now with the
pieces seen last time gives the purchases (new ids) and the returns (ids gone: a Return, or an undo
of the Buy) without any hook in the table; a change of (round, stage, step, turn) ends the turn, and
the sheets placed in it are settled; a new game starts live mode afresh, its starting pieces
announced like purchases (they are placed at the setting up).  Pieces already on the board when
watching starts are not announced: nobody saw them placed.

    >>> class Live:
    ...     def __init__(self): self.said = []
    ...     def purchased(self, e, eq, piece, now, hex): self.said.append(("bought", e, eq, piece, hex))
    ...     def returned(self, piece, now): self.said.append(("returned", piece))
    ...     def settle(self, now): self.said.append(("settled",))
    >>> from types import SimpleNamespace as NS
    >>> def state(turn, *pieces):
    ...     return NS(round=1, stage=6, step="purchase", turn=turn,
    ...               expeditions=(NS(name="british", pieces=tuple(NS(id=i, equipment=q, hex=h) for i, q, h in pieces)),))
    >>> live, watch = Live(), PurchaseWatcher()
    >>> watch.poll(state(0, (1, "sonar", None)), live, 0.0); live.said
    []
    >>> watch.poll(state(0, (1, "sonar", None), (2, "cage", "D3c")), live, 1.0); live.said
    [('bought', 'british', 'cage', 2, 'D3c')]
    >>> watch.poll(state(1, (2, "cage", "D3c")), live, 2.0); live.said[1:]
    [('returned', 1), ('settled',)]
    >>> live.new_game = lambda now: live.said.append(("new game",))
    >>> watch.poll(state(1, (1, "eye_witness", None)), live, 3.0, game="another"); live.said[3:]
    [('new game',), ('bought', 'british', 'eye_witness', 1, None)]
"""

from __future__ import annotations


def pieces_on_board(state) -> dict[int, tuple[str, str, str | None]]:
    """piece id -> (expedition, equipment, the cage's noted hex), for every expedition in the game."""
    out: dict[int, tuple[str, str, str | None]] = {}
    for e in getattr(state, "expeditions", None) or ():
        if e is None:
            continue
        for p in e.pieces:
            out[p.id] = (e.name, p.equipment, getattr(p, "hex", None))
    return out


def turn_of(state) -> tuple | None:
    if state is None:
        return None
    return tuple(getattr(state, k, None) for k in ("round", "stage", "step", "turn"))


class PurchaseWatcher:
    """Poll it with the table's state; it calls ``purchased`` / ``returned`` / ``settle`` on live mode."""

    def __init__(self):
        self._pieces: dict[int, tuple[str, str, str | None]] | None = None
        self._turn: tuple | None = None
        self._game: object = None

    def poll(self, state, live, now: float, game: object = None) -> None:
        """``game``: anything that changes when a new game starts (the table's setup action); piece
        numbers start again in a new game, so live mode starts again too."""
        if state is None:
            return
        if game is not self._game:
            first = self._pieces is None and self._game is None
            if not first:  # a new game while watching: its starting pieces are about to be placed
                live.new_game(now)
            self._game, self._pieces = game, (None if first else {})
        pieces, turn = pieces_on_board(state), turn_of(state)
        if self._pieces is not None:
            for piece in sorted(set(self._pieces) - set(pieces)):
                live.returned(piece, now)
            for piece in sorted(set(pieces) - set(self._pieces)):
                expedition, equipment, hex_address = pieces[piece]
                live.purchased(expedition, equipment, piece, now, hex=hex_address)
            if turn != self._turn:
                live.settle(now)
        self._pieces, self._turn = pieces, turn
