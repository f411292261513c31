"""Size agreement: a die read far smaller than the dice beside it was a part of a die.

Dice in one photo are alike in size (a set, seen from one height; the nearest dice are the least
changed by a tilted view's perspective). A part of a die read as a die comes out smaller: a column
of a six read as a three, a row of a four or two adjacent pips read as a two, fit a face 0.71
times the die's; half a face region with a pip in its middle reads as a one about half the die's
size. Only ones, twos and threes can be such parts: four or more pips in a square layout span a
whole face. So only those are doubted, and only when smaller. A one's size is that of its face
region, which a side face or a shadow can enlarge (measured up to 1.35 times the die): beside a
one, only a die read at under 0.6 of its size is doubted.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np

PART_VALUES = (1, 2, 3)  # values a part of a larger die can be read as
LOWEST_RATIO = {1: 0.6, 2: 0.8, 3: 0.8}  # a two or three from a part: 0.71; a one: about 0.5
BESIDE_A_ONE = 0.6  # the lowest ratio when a neighbour's size is a one's (0.8 / 1.35)


class _Sized(Protocol):
    value: int | None
    center: tuple[float, float]
    side_px: float
    confidence: float
    reason: str


def doubt_odd_sizes(dice: list[_Sized]) -> list[_Sized]:
    """Make a one, two or three read much smaller than its two nearest neighbours unreadable
    (in place; returns the list)."""
    readable = [d for d in dice if d.value is not None]
    if len(readable) < 3:
        return dice
    overall = float(np.median([d.side_px for d in readable]))
    sound = [d for d in readable if 0.6 <= d.side_px / overall <= 1.6]  # the neighbours to compare with
    doubted = []
    for d in readable:
        if d.value not in PART_VALUES:
            continue
        others = sorted((o for o in sound if o is not d),
                        key=lambda o: math.hypot(o.center[0] - d.center[0], o.center[1] - d.center[1]))[:2]
        if len(others) < 2:
            continue
        typical = float(np.median([o.side_px for o in others]))
        lowest = LOWEST_RATIO[d.value] if all(o.value != 1 for o in others) else BESIDE_A_ONE
        if d.side_px / max(typical, 1e-6) < lowest:
            doubted.append((d, typical))
    for d, typical in doubted:
        d.value, d.confidence = None, 0.0
        d.reason = f"read at {d.side_px:.0f} px, the dice beside it are {typical:.0f} px"
    return dice


OVERLAP = 0.85  # dice do not overlap: two readings' centres are at least about a side apart


def doubt_overlaps(dice: list[_Sized]) -> list[_Sized]:
    """Two dice read closer together than :data:`OVERLAP` of the larger one's side cannot both be
    dice: they are parts of one face (a six's two columns read as two threes). Both are made
    unreadable (in place; returns the list): which part, if either, is the die is not known."""
    readable = [d for d in dice if d.value is not None]
    doubted = set()
    for i, a in enumerate(readable):
        for b in readable[i + 1:]:
            if math.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]) < OVERLAP * max(a.side_px, b.side_px):
                doubted |= {id(a), id(b)}
    for d in readable:
        if id(d) in doubted:
            d.value, d.confidence = None, 0.0
            d.reason = "overlaps another die read: parts of one face?"
    return dice
