"""The one interface every dice or button source implements.

A source is started with a callback; it calls it with an :class:`InputEvent` for each throw,
Undo or Next it sees, from its own thread. A throw is any face a source can report -- 1-12 or the
water symbol of the children's game's d12 -- and the game it reaches decides whether its die has
that face (``companion/inputs/routing.py``): a d6 game refuses a 9 with a clear message. It keeps a :class:`Health` record the dashboard and
``nessie-companion doctor`` show. A source must (override ``start``/``close``) and may (add
``describe``) -- the gpiozero Pin/Factory pattern, kept small.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable


WATER = "water"  # the water symbol on the d12 of the Loch Ness children's game
#: every face a source may report; which of them a game's die has is the game's business
FACES: tuple = (*range(1, 13), WATER)
D6_FACES = tuple(range(1, 7))


def is_face(value) -> bool:
    """True for 1-12 (a plain int, not a bool) or ``"water"``."""
    return value == WATER or (type(value) is int and 1 <= value <= 12)


@dataclass(frozen=True)
class InputEvent:
    kind: str  # "throw", "undo" or "next"
    value: int | str | None = None  # for a throw: the pips 1-12, or WATER
    source: str = "screen"

    def __post_init__(self):
        if self.kind not in ("throw", "undo", "next"):
            raise ValueError(f"unknown input event {self.kind!r}")
        if self.kind == "throw" and not is_face(self.value):
            raise ValueError(f"a throw needs a value 1-12 or {WATER!r}, got {self.value!r}")
        if self.kind != "throw" and self.value is not None:
            raise ValueError(f"{self.kind} carries no value, got {self.value!r}")


@dataclass
class Health:
    connected: bool = False
    last_event: str | None = None
    last_event_at: float | None = None  # wall-clock seconds
    last_error: str | None = None
    details: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "connected": self.connected,
            "last_event": self.last_event,
            "last_event_at": self.last_event_at,
            "last_error": self.last_error,
            **({"details": self.details} if self.details else {}),
        }


class DiceSource:
    """Base of every input device. Subclasses override :meth:`start` and :meth:`close`."""

    kind = "abstract"

    def __init__(self, name: str):
        self.name = name
        self.health = Health()
        self._lock = threading.Lock()
        self._callback: Callable[[InputEvent], None] | None = None

    def start(self, callback: Callable[[InputEvent], None]) -> None:
        self._callback = callback
        self.health.connected = True

    def close(self) -> None:
        self._callback = None
        self.health.connected = False

    def emit(self, event: InputEvent) -> None:
        """Report an event (from the source's own thread) and note it in the health record."""
        with self._lock:
            self.health.last_event = event.kind if event.value is None else f"{event.kind} {event.value}"
            self.health.last_event_at = time.time()
        if self._callback is not None:
            self._callback(event)

    def fail(self, message: str) -> None:
        with self._lock:
            self.health.last_error = message

    def refused(self, message: str) -> None:
        """The game refused this source's event (a 9 for a six-sided die, Undo with nothing to
        undo): shown as the last error and counted in ``health.details["refused"]``."""
        with self._lock:
            self.health.last_error = message
            self.health.details["refused"] = self.health.details.get("refused", 0) + 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
