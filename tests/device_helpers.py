"""Helpers for tests of device threads (boards, kiosk buttons): wait for a condition, tap a pin."""

from __future__ import annotations

import time


def wait_for(predicate, timeout: float = 3.0) -> bool:
    """Poll ``predicate`` until it holds or ``timeout`` seconds pass; its last answer."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.002)
    return predicate()


def tap(pin, hold: float = 0.02, after: float = 0.04) -> None:
    """Press a gpiozero mock pin (active low) for ``hold`` seconds, then leave it open ``after``."""
    pin.drive_low()
    time.sleep(hold)
    pin.drive_high()
    time.sleep(after)
