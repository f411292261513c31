"""Dice and button sources behind one small interface (``base.DiceSource``).

Every source turns something physical (or simulated) into :class:`InputEvent`s: a throw, Undo or
Next. The service feeds them to the table exactly as the on-screen buttons do.
"""

from .base import DiceSource, Health, InputEvent
from .virtual import VirtualDie

__all__ = ["DiceSource", "Health", "InputEvent", "VirtualDie"]
