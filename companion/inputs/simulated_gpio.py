"""The GPIO button board's twin for the demo: bouncing switches instead of pins, the same board code.

gpiozero's MockFactory is for tests only, so the twin does not use it. :class:`SimulatedGPIOBoard`
is a :class:`~companion.inputs.gpio_board.GPIOBoard` that overrides only how pins are claimed: each
button is a :class:`BouncingSwitch` whose edges go to the board's own ``_edge`` -- the method
gpiozero's edge callbacks call on a Pi -- so debounce, the settle thread, events and health are
exactly the real board's. The LEDs are plain records of their state.

A press is played the way an arcade microswitch or a tact switch behaves: a burst of closing
bounce (2-6 edges 50-300 us apart, under 2 ms in all), the hold, then release chatter (0-6 edges
0.2-1.2 ms apart). The
bounce is drawn from a seeded generator, so a demo or a test replays the same contact noise.

    board = SimulatedGPIOBoard(seed=1)
    board.start(service.handle_input)
    board.press("4")                    # bounces, debounces, and a throw of 4 reaches the table
"""

from __future__ import annotations

import random
import threading
import time
from typing import Mapping

from .gpio_board import PRESS_S, RELEASE_S, GPIOBoard, GPIOBoardError

CLOSING_BOUNCE_S = (0.00005, 0.0003)  # one bounce edge of a closing contact: 50-300 us apart
RELEASE_CHATTER_S = (0.0002, 0.0012)  # release chatter edges: 0.2-1.2 ms apart


class BouncingSwitch:
    """One button: ``press(hold_s)`` plays its contact edges into ``edge(closed)`` on a thread of
    its own (as gpiozero calls back on its own), one press after another."""

    def __init__(self, name: str, pin: int, edge, rng: random.Random):
        self.name, self.pin = name, pin
        self._edge = edge
        self._rng = rng
        self._lock = threading.Lock()  # one press at a time per switch, as with a finger
        self.closed = False
        self.presses = 0
        self._closed_for_good = False

    def press(self, hold_s: float = 0.06, bounce: bool = True) -> threading.Thread:
        """Start a press lasting ``hold_s``; returns its thread (``join()`` waits for the release)."""
        with self._lock:
            closing = self._bursts(CLOSING_BOUNCE_S, self._rng.randint(1, 3)) if bounce else []
            opening = self._bursts(RELEASE_CHATTER_S, self._rng.randint(0, 3)) if bounce else []
        thread = threading.Thread(target=self._play, args=(closing, hold_s, opening),
                                  name=f"twin button {self.name}", daemon=True)
        thread.start()
        return thread

    def _bursts(self, gap_s: tuple[float, float], pairs: int) -> list[float]:
        return [self._rng.uniform(*gap_s) for _ in range(2 * pairs)]

    def _play(self, closing: list[float], hold_s: float, opening: list[float]) -> None:
        with self._lock:
            if self._closed_for_good:
                return
            self.presses += 1
            self._set(True)
            for i, gap in enumerate(closing):  # open, close, open, close ...: ends closed
                time.sleep(gap)
                self._set(i % 2 == 1)
            time.sleep(hold_s)
            self._set(False)
            for i, gap in enumerate(opening):  # close, open, ...: ends open
                time.sleep(gap)
                self._set(i % 2 == 0)
            self._set(False)

    def _set(self, closed: bool) -> None:
        if closed != self.closed and not self._closed_for_good:
            self.closed = closed
            self._edge(closed)

    def close(self) -> None:
        self._closed_for_good = True


class SimulatedLED:
    def __init__(self, pin: int):
        self.pin = pin
        self.value = 0

    @property
    def is_lit(self) -> bool:
        return bool(self.value)

    def close(self) -> None:
        self.value = 0


class SimulatedGPIOBoard(GPIOBoard):
    """The GPIO board with :class:`BouncingSwitch` buttons and :class:`SimulatedLED` LEDs.

    Same pin map, debounce settings and validation as the real board (the BCM numbers are only
    shown); ``seed`` fixes the contact bounce.
    """

    kind = "gpio-board-twin"

    def __init__(self, buttons: Mapping[str, int] | None = None, leds: Mapping[str, int] | None = None,
                 name: str = "gpio board (simulated)", press_s: float = PRESS_S, release_s: float = RELEASE_S,
                 seed: int | None = 0):
        self._rng = random.Random(seed)
        super().__init__(buttons, leds, pin_factory="simulated", name=name, press_s=press_s, release_s=release_s)

    def _claim_pins(self, buttons, leds, pin_factory):
        for n, pin in buttons.items():
            self.buttons[n] = BouncingSwitch(n, pin, lambda closed, n=n: self._edge(n, closed), self._rng)
        for n, pin in leds.items():
            self.leds[n] = SimulatedLED(pin)
        return SimulatedPins()

    def press(self, button: str, hold_s: float = 0.06) -> threading.Thread:
        """Press one of the twin's buttons (with contact bounce); the demo's way to play on it."""
        if button not in self.buttons:
            raise GPIOBoardError(f"this board has no button {button!r}; it has {', '.join(self.buttons)}")
        return self.buttons[button].press(hold_s)

    @property
    def lit(self) -> list[str]:
        return [n for n, led in self.leds.items() if led.is_lit]


class SimulatedPins:
    """Stands where a gpiozero pin factory would (its class name is shown in the health)."""


def gpio_board_from_config(inputs: Mapping) -> GPIOBoard | None:
    """:meth:`GPIOBoard.from_config`, with ``gpio_pin_factory = "simulated"`` giving the twin."""
    if not inputs.get("gpio_board", False):
        return None
    if inputs.get("gpio_pin_factory") != "simulated":
        return GPIOBoard.from_config(inputs)
    return SimulatedGPIOBoard(inputs.get("gpio_buttons") or None, inputs.get("gpio_leds") or None,
                              press_s=inputs.get("gpio_press_ms", PRESS_S * 1000) / 1000,
                              release_s=inputs.get("gpio_release_ms", RELEASE_S * 1000) / 1000)
