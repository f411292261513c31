"""One exception tree for the whole companion.

Each class also subclasses the matching built-in (gpiozero's habit), so callers that only know
``ValueError`` still catch a malformed address or box profile.
"""

from __future__ import annotations


class CompanionError(Exception):
    """Base of every error the companion raises on purpose."""


class InvalidAddress(CompanionError, ValueError):
    """Text that does not name a loch hex."""


class BoxProfileError(CompanionError, ValueError):
    """A box profile that cannot be used; names the file, the key and the reason."""

    def __init__(self, source: str, key: str, reason: str):
        self.source, self.key, self.reason = source, key, reason
        super().__init__(f"{source}: {key}: {reason}")


class MalformedAction(CompanionError, ValueError):
    """An action that is not well formed (unknown type, missing or wrong field)."""


class IllegalAction(CompanionError):
    """A well-formed action the rules forbid now; ``rule`` quotes or names the rule it breaks."""

    def __init__(self, reason: str, rule: str | None = None):
        self.reason, self.rule = reason, rule
        super().__init__(reason if rule is None else f"{reason} ({rule})")


class NothingToUndo(IllegalAction):
    """Undo asked for with only the game's setup in the log."""


class StaleRequest(CompanionError):
    """An action sent against an older state of the table than the current one."""


class GameImportError(CompanionError, ValueError):
    """A game export that cannot be imported."""
