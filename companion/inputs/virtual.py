"""The simulated die: a seeded random die, the twin of the real one for the demo.

Chance comes from here, never from the rules. The same seed gives the same throws.

    >>> a, b = VirtualDie(seed=7), VirtualDie(seed=7)
    >>> [a.roll() for _ in range(5)] == [b.roll() for _ in range(5)]
    True
"""

from __future__ import annotations

import random

from .base import DiceSource, InputEvent


class VirtualDie(DiceSource):
    kind = "virtual"

    def __init__(self, seed: int | None = None, name: str = "virtual die"):
        super().__init__(name)
        self.seed = seed
        self._rng = random.Random(seed)

    def roll(self) -> int:
        return self._rng.randint(1, 6)

    def throw(self, source: str = "virtual-die") -> InputEvent:
        """Roll and report the throw to the service, like a real die coming to rest."""
        event = InputEvent("throw", self.roll(), source)
        self.emit(event)
        return event
