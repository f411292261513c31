"""The self-playing table (``--autoplay``): makes whatever move is legal next, with the virtual die.

It steps aside while people play: after any action that did not come from it, it waits
``pause_after_human_s`` before moving again.
"""

from __future__ import annotations

import logging
import threading
import time

from companion.errors import CompanionError
from companion.games.nessie_hunt import NewGame, Throw

log = logging.getLogger(__name__)


def default_setup(players: int = 4, expeditions=(), sponsor: str = "") -> NewGame:
    """The rulebook's default seating for a player count, with the companion as Sponsor."""
    if players in (4, 5):
        exps = ("independent", "japanese", "british", "american")
        return NewGame(players, exps, sponsor or "companion")
    defaults = {1: ("american",), 2: ("british", "american"), 3: ("japanese", "british", "american")}
    exps = tuple(expeditions) or defaults.get(players, ())
    return NewGame(players, exps, sponsor or "companion")


class Autoplayer:
    def __init__(self, table, die, interval_s: float = 1.5, pause_after_human_s: float = 20.0):
        self.table, self.die = table, die
        self.interval_s, self.pause_after_human_s = interval_s, pause_after_human_s
        self._last_human = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="autoplay", daemon=True)
        self._players = None
        self._idle = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def noticed(self, origin: str) -> None:
        """Called by the service after every change; a person's action pauses the autoplay."""
        if origin not in ("autoplay", "resume"):
            self._last_human = time.monotonic()

    def step(self) -> dict | None:
        """Make the next legal move; returns the new view (None if nothing could be done)."""
        state = self.table.state
        if state is None:
            return self.table.submit(default_setup(), origin="autoplay")
        if state.step.value == "over":
            # Let the table read the result for a while, then start a new game (the demo never stops).
            self._idle += 1
            if self._idle < 20:
                return None
            self._idle = 0
            return self.table.submit(default_setup(), origin="autoplay")
        if self._players is None or self._players.setup is not self.table.setup:
            self._players = self._new_players()
        action = self._players.next_action(state)
        if isinstance(action, Throw):
            action = Throw(self.die.roll(), "autoplay")  # the demo's own seeded die
        return self.table.submit(action, origin="autoplay")

    def _new_players(self):
        """Simulated players for every seat of the current game (strategies as in the simulator)."""
        from companion.sim.runner import Simulation
        from companion.sim.strategies import STRATEGIES

        setup = self.table.setup
        names = ("prudent", "greedy")
        strategies = {n: STRATEGIES[names[i % 2]]() for i, n in enumerate(setup.expeditions)}
        return Simulation(self.table.game, setup, strategies, seed=self.die.seed or 0)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            if time.monotonic() - self._last_human < self.pause_after_human_s:
                continue
            try:
                self.step()
            except CompanionError as exc:  # a person moved first; try again next tick
                log.info("autoplay skipped a move: %s", exc)
