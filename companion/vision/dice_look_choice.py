"""Which of a blob's readings to keep: tentative readings, and a tie between looks at two scales.

A reading no surer than the blob look's (:data:`.dice_pips.BLOB_CONFIDENCE`: faint marks read as
pips) is *tentative*: it neither stops the blob's later looks nor sets its size. Of two looks at a
blob that read as much, the one whose dice came out nearer the size it looked for is kept.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from .dice_pips import BLOB_CONFIDENCE


class _Reading(Protocol):
    value: int | None
    center: tuple[float, float]
    confidence: float
    side_px: float


def _sure(got: list[_Reading]) -> bool:
    """Some die in ``got`` is read by a first look. A reading no surer than the blob look's
    (:data:`.dice_pips.BLOB_CONFIDENCE`: faint marks read as pips) is tentative: the blob's later
    looks still run, and it is kept only if they read nothing."""
    return any(d.value is not None and d.confidence > BLOB_CONFIDENCE for d in got)


def _after(got: list[_Reading], later: list[_Reading]) -> list[_Reading]:
    """The readings a later look leaves for a blob whose readings ``got`` are none or tentative:
    the later look's where it read some die, with each tentative reading of ``got`` clear of them
    (a loose look may reach a neighbouring die and read only that one); else ``got``, or what the
    later look saw where ``got`` read nothing."""
    if not any(d.value is not None for d in later):
        return got if any(d.value is not None for d in got) else (later or got)
    clear = [d for d in got if d.value is not None
             and all(math.dist(d.center, o.center) > 0.5 * max(d.side_px, o.side_px) for o in later)]
    return later + clear


def _counted(readings: list[_Reading]) -> tuple[int, int]:
    """How much a look at a blob read: its sure readings first, then all its readings."""
    return (sum(d.value is not None and d.confidence > BLOB_CONFIDENCE for d in readings),
            sum(d.value is not None for d in readings))


def _size_miss(readings: list[_Reading], side_full: float) -> float:
    """How far a look's sure dice came out from the die size it looked for (|log| of the ratio)."""
    sides = [d.side_px for d in readings if d.value is not None and d.confidence > BLOB_CONFIDENCE]
    return abs(math.log(float(np.median(sides)) / side_full)) if sides else math.inf
