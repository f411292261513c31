"""Buttons and turn LEDs on the Pi's own GPIO header, through gpiozero.

Wiring (BCM numbers, the default map; any free pins can be configured)::

    button 1 .. 6   BCM 5, 6, 13, 19, 26, 16   each button between the pin and GND
    Undo, Next      BCM 20, 21                  (the Pi's internal pull-ups are used)
    LEDs            BCM 17 independent, 27 japanese, 22 british, 23 american
                    each LED's anode to the pin, its cathode through 330 ohm to GND

Example (on a laptop, gpiozero's MockFactory stands in for the header)::

    >>> from gpiozero.pins.mock import MockFactory
    >>> got = []
    >>> board = GPIOBoard(pin_factory=MockFactory())
    >>> board.start(got.append)
    >>> board.show_turn("british")
    >>> board.leds["british"].is_lit
    True
    >>> board.close()

Debounce is our own, not gpiozero's ``bounce_time``: that one is ignored by MockFactory (so it
cannot be tested) and means different things per backend. See :class:`Debouncer`.
"""

from __future__ import annotations

import heapq
import logging
import threading
import time
from typing import Callable, Mapping

from companion.errors import CompanionError

from .base import WATER, DiceSource, InputEvent

log = logging.getLogger(__name__)

DEFAULT_BUTTONS = {"1": 5, "2": 6, "3": 13, "4": 19, "5": 26, "6": 16, "undo": 20, "next": 21}
#: every button a pin map may name: the d12 of the children's game needs 7-12 and the water symbol
KNOWN_BUTTONS = (*DEFAULT_BUTTONS, "7", "8", "9", "10", "11", "12", "water")
DEFAULT_LEDS = {"independent": 17, "japanese": 27, "british": 22, "american": 23}
BCM_PINS = range(2, 28)  # the 40-pin header's GPIO2 .. GPIO27

# A press counts once the contact has read closed for PRESS_S. Arcade microswitches and 6 mm tact
# switches bounce for well under 3 ms when closing, and EMI spikes on a short cable last
# microseconds, so 3 ms rejects both while keeping press-to-action inside the 5 ms budget.
# A press is over only after the contact has read open for RELEASE_S: releases chatter longer
# than presses, and a long window there costs no latency (nothing waits on a release), only
# limits a player to about 30 presses a second.
PRESS_S = 0.003
RELEASE_S = 0.025


class GPIOBoardError(CompanionError, ValueError):
    """A pin map that cannot work, or a GPIO backend that cannot be had; the text says which."""


def validate_pins(buttons: Mapping[str, int], leds: Mapping[str, int]) -> None:
    """Raise :class:`GPIOBoardError` unless every name is known and every pin a distinct BCM GPIO."""
    for name in buttons:
        if name not in KNOWN_BUTTONS:
            raise GPIOBoardError(f"unknown button {name!r}; buttons are {', '.join(KNOWN_BUTTONS)}")
    for name in leds:
        if name not in DEFAULT_LEDS:
            raise GPIOBoardError(f"unknown LED {name!r}; LEDs are {', '.join(DEFAULT_LEDS)}")
    seen: dict[int, str] = {}
    for name, pin in [*buttons.items(), *leds.items()]:
        if isinstance(pin, bool) or not isinstance(pin, int) or pin not in BCM_PINS:
            raise GPIOBoardError(f"{name}: pin must be a BCM GPIO number 2-27, got {pin!r}")
        if pin in seen:
            raise GPIOBoardError(f"BCM {pin} given to both {seen[pin]} and {name}")
        seen[pin] = name


def make_pin_factory(name: str = "lgpio"):
    """The gpiozero pin factory to use: ``"lgpio"`` (every Pi, the only one for a Pi 5), ``"mock"``
    (gpiozero's MockFactory, for tests only: the demo's twin is ``simulated_gpio.SimulatedGPIOBoard``)
    or ``"default"`` (gpiozero's own choice).

    lgpio is imported here, not at module import, so a laptop without it still imports this module.
    """
    if name == "lgpio":
        try:
            from gpiozero.pins.lgpio import LGPIOFactory
        except ImportError as exc:
            raise GPIOBoardError(f"lgpio is not installed ({exc}); on the Pi: sudo apt install python3-lgpio") from None
        try:
            return LGPIOFactory()
        except Exception as exc:  # no /dev/gpiochip*, no permission, not a Pi
            raise GPIOBoardError(f"lgpio cannot open the GPIO chip: {exc}") from None
    if name == "mock":
        from gpiozero.pins.mock import MockFactory

        return MockFactory()
    if name == "default":
        from gpiozero import Device

        try:
            return Device._default_pin_factory()
        except Exception as exc:
            raise GPIOBoardError(f"no GPIO pin factory works here: {exc}") from None
    raise GPIOBoardError(f"unknown pin factory {name!r}; use lgpio, mock or default")


class Debouncer:
    """Edges in, presses out, for one button; pure and clock-free so it is tested edge by edge.

    Feed every raw edge with :meth:`edge`; call :meth:`settle` at :meth:`due` (or later). A press is
    reported once the contact has stayed closed ``press_s``; it ends once open for ``release_s``.
    Contact bounce and glitches shorter than ``press_s`` give nothing; a held button gives one press.
    """

    def __init__(self, press_s: float = PRESS_S, release_s: float = RELEASE_S):
        self.press_s, self.release_s = press_s, release_s
        self.closed = False  # the raw contact
        self.since = 0.0  # when the raw contact last changed
        self.pressed = False  # the debounced state

    def edge(self, closed: bool, now: float) -> bool:
        """Note a raw edge; True when the time before it already completed a press that
        :meth:`settle` had not been called for yet (a late timer thread)."""
        if closed == self.closed:
            return False
        pressed = self.settle(now)
        self.closed, self.since = closed, now
        return pressed

    def due(self) -> float | None:
        """When :meth:`settle` could next change something, or None when the state is steady."""
        if self.closed and not self.pressed:
            return self.since + self.press_s
        if not self.closed and self.pressed:
            return self.since + self.release_s
        return None

    def settle(self, now: float) -> bool:
        """Apply the time passed; True when this call completes a new press."""
        at = self.due()
        if at is None or now < at:
            return False
        self.pressed = self.closed
        return self.pressed


class GPIOBoard(DiceSource):
    """Buttons 1-6, Undo and Next (and, if the pin map names them, 7-12 and the water symbol), and
    one LED per expedition on the Pi's GPIO header.

    ``buttons``/``leds`` map names to BCM numbers (defaults above); ``pin_factory`` is a gpiozero
    factory or one of the names :func:`make_pin_factory` takes. Button edges arrive on gpiozero's
    thread; one timer thread here settles them and calls the callback.
    """

    kind = "gpio-board"

    def __init__(self, buttons: Mapping[str, int] | None = None, leds: Mapping[str, int] | None = None,
                 pin_factory="lgpio", name: str = "gpio board", press_s: float = PRESS_S,
                 release_s: float = RELEASE_S):
        super().__init__(name)
        buttons = dict(DEFAULT_BUTTONS if buttons is None else buttons)
        leds = dict(DEFAULT_LEDS if leds is None else leds)
        validate_pins(buttons, leds)
        if not (0 < press_s <= 1 and 0 < release_s <= 1):
            raise GPIOBoardError(f"debounce times must be in (0, 1] s, got {press_s}, {release_s}")
        self.buttons: dict = {}
        self.leds: dict = {}
        self._debouncers = {n: Debouncer(press_s, release_s) for n in buttons}
        self._wake = threading.Condition()
        self._heap: list[tuple[float, str]] = []
        self._stop = False
        self._thread: threading.Thread | None = None
        try:
            self.pin_factory = self._claim_pins(buttons, leds, pin_factory)
        except GPIOBoardError:
            self._close_devices()
            raise
        except Exception as exc:
            self._close_devices()
            raise GPIOBoardError(f"cannot claim the GPIO pins: {exc}") from None
        self.health.details = {"pin_factory": type(self.pin_factory).__name__, "buttons": buttons, "leds": leds,
                               "turn": None}

    def _claim_pins(self, buttons: Mapping[str, int], leds: Mapping[str, int], pin_factory):
        """Fill :attr:`buttons` and :attr:`leds` with gpiozero devices whose edges reach
        :meth:`_edge`; returns the pin factory. (The twin overrides only this.)"""
        from gpiozero import LED, DigitalInputDevice

        factory = make_pin_factory(pin_factory) if isinstance(pin_factory, str) else pin_factory
        for n, pin in buttons.items():
            # DigitalInputDevice, not Button: Button adds a hold thread per button we do not use
            button = DigitalInputDevice(pin, pull_up=True, bounce_time=None, pin_factory=factory)
            button.when_activated = lambda n=n: self._edge(n, True)
            button.when_deactivated = lambda n=n: self._edge(n, False)
            self.buttons[n] = button
        for n, pin in leds.items():
            self.leds[n] = LED(pin, pin_factory=factory)
        return factory

    @classmethod
    def from_config(cls, inputs: Mapping) -> "GPIOBoard | None":
        """The board an ``[inputs]`` config section asks for (docs/button-boards.md), or None.

        Keys: ``gpio_board`` (bool), ``gpio_pin_factory``, ``gpio_buttons``, ``gpio_leds`` (name ->
        BCM; empty: the default map), ``gpio_press_ms``, ``gpio_release_ms``.
        """
        if not inputs.get("gpio_board", False):
            return None
        return cls(inputs.get("gpio_buttons") or None, inputs.get("gpio_leds") or None,
                   pin_factory=inputs.get("gpio_pin_factory", "lgpio"),
                   press_s=inputs.get("gpio_press_ms", PRESS_S * 1000) / 1000,
                   release_s=inputs.get("gpio_release_ms", RELEASE_S * 1000) / 1000)

    # -- DiceSource ----------------------------------------------------------------------------
    def start(self, callback: Callable[[InputEvent], None]) -> None:
        super().start(callback)
        self._stop = False
        self._thread = threading.Thread(target=self._run, name=f"{self.name} debounce", daemon=True)
        self._thread.start()

    def close(self) -> None:
        with self._wake:
            self._stop = True
            self._wake.notify()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        self._close_devices()
        super().close()

    def show_turn(self, expedition: str | None) -> None:
        """Light the LED of the expedition whose turn it is; ``None`` (or no such LED): all out."""
        for n, led in self.leds.items():
            led.value = 1 if n == expedition else 0
        self.health.details["turn"] = expedition

    # -- inside --------------------------------------------------------------------------------
    def _close_devices(self) -> None:
        for device in [*self.buttons.values(), *self.leds.values()]:
            device.close()

    def _edge(self, name: str, closed: bool) -> None:
        now = time.monotonic()
        with self._wake:
            debouncer = self._debouncers[name]
            late_press = debouncer.edge(closed, now)
            at = debouncer.due()
            if at is not None:
                heapq.heappush(self._heap, (at, name))
                self._wake.notify()
        if late_press:
            self._press(name)

    def _run(self) -> None:
        while True:
            presses = []
            with self._wake:
                if self._stop:
                    return
                now = time.monotonic()
                while self._heap and self._heap[0][0] <= now:
                    _, name = heapq.heappop(self._heap)
                    if self._debouncers[name].settle(now):
                        presses.append(name)
                if not presses:
                    timeout = self._heap[0][0] - now if self._heap else None
                    self._wake.wait(timeout)
                    continue
            for name in presses:
                self._press(name)

    def _press(self, name: str) -> None:
        if name in ("undo", "next"):
            event = InputEvent(name, None, self.name)
        else:
            event = InputEvent("throw", name if name == WATER else int(name), self.name)
        try:
            self.emit(event)
        except Exception as exc:  # the callback's trouble must not kill the debounce thread
            log.exception("gpio board: callback failed for %s", event)
            self.fail(f"callback failed: {exc}")
