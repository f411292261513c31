"""A die-shaped blob judged by the dice read in its photo, not by the photo's typical blob.

A blob no look reads anything in is reported as an unreadable die when it is shaped like one die
and its side is within ``dice.DIE_SIZE_RANGE`` of the photo's typical die
(:func:`.dice_sizes.typical_die_side`, the area-weighted median of the squarish, full blobs). On
blurred or softly lit photos every blob is a die *with its shadow* or blur halo, and the typical
die comes out 1.5-3 times the dice: ray 4304's 102 work px for dice of 35-65 (its clear three's
blob, 55 px, refused at 0.53 of it), ray 2122's 51 for dice of 17-25, light 3103's 43 for 22-29,
ray 4361's 100 for 50-72. Such a die was found and then silently left out -- missed, which the
players cannot even type. The dice *read* in the same photo tell a die's size as the reader saw
it (their read sides came out within 0.9-1.2 of the truth there), so a blob refused by the
typical size alone is judged once more against their median side.

Where is the die in such a blob? A blob is its die and its shadow (or blur) to one side; every die
of the photo is lit by the same light, so the read dice lie in their own blobs the same way: the
report is put at the blob's centre moved by the median offset of the read dice from the centres of
their blobs (in sides). Measured outside the reader on the base readings: ray 4304's three 0.53 ->
0.37 sides off its top face, light 3103's four 0.62 -> 0.09; in the reader (development, 24
die-shaped blobs' reports): mean 0.37 -> 0.25 sides off, 5 brought within half a side, none taken
out of it (docs/dice-camera.md, twenty-fourth round).

A refused blob's report stays unread (its reason names no face, so no later look reads a value into
it: see :data:`REASON`); a die-shaped blob's report keeps its reason and only moves.
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

import cv2
import numpy as np

D = TypeVar("D")  # a :class:`.dice.Die`

#: the least number of blobs holding one read die each for their offsets to place a report (a
#: median of one is that die's alone, its side face or pips pulling it; with fewer, the report stays
#: at the blob's centre, as every die-shaped blob's report is)
OFFSETS_LEAST = 2
#: the reason such a report gives. It is not "a die-shaped blob, no face read in it": the look for a
#: top face beside an unread report (:mod:`.dice_top_beside_unread`) reads round that one, and these
#: blobs, which every look already read nothing in, are left unread (no value can come of the rule)
REASON = "a die-shaped blob of the read dice's size, no face read in it"


def blob_centre(blob: np.ndarray, origin: tuple[int, int]) -> tuple[float, float] | None:
    """The centre of a blob mask's rotated box (work pixels, the blob at ``origin``) -- the place
    a die-shaped blob's report is put (:func:`.dice._die_unread`)."""
    cnts, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return None
    (cx, cy), _, _ = cv2.minAreaRect(np.vstack(cnts))
    return origin[0] + cx, origin[1] + cy


def die_offsets(located: Sequence[tuple[np.ndarray, tuple[int, int], D]], f: float) -> list[tuple[float, float]]:
    """For each (blob, origin, die) -- a blob (work pixels at scale ``f``) in which exactly one die
    was read -- the die's centre from the blob's centre, in the die's read sides."""
    out = []
    for blob, origin, d in located:
        c = blob_centre(blob, origin)
        if c is None or d.side_px <= 0:
            continue
        out.append(((d.center[0] - c[0] / f) / d.side_px, (d.center[1] - c[1] / f) / d.side_px))
    return out


def judged_by_read_dice(refused: Sequence[tuple[float, tuple[float, float]]], dice: Sequence[D],
                        located: Sequence[tuple[np.ndarray, tuple[int, int], D]], f: float,
                        size_range: tuple[float, float], make: Callable[..., D]) -> list[D]:
    """Unreadable dice for the ``refused`` blobs -- (side, centre), photo pixels: die-shaped blobs
    every look read nothing in, refused only for their size against the typical blob -- whose side
    is within ``size_range`` of the median side of the ``dice`` read in the photo. Each is placed
    at its blob's centre moved by the read dice's median offset in their blobs (``located``).
    ``make(value, centre, confidence, side, reason)`` builds a die."""
    sides = [d.side_px for d in dice if d.value is not None and d.side_px > 0]
    if not refused or not sides:
        return []
    read_side = float(np.median(sides))
    shift = blob_shift(located, f)
    out = []
    for side, (cx, cy) in refused:
        if not size_range[0] <= side / read_side <= size_range[1]:
            continue
        # (the blob holds the die's shadow: the die is no larger than the dice read)
        die = min(side, read_side)
        out.append(make(None, (cx + float(shift[0]) * die, cy + float(shift[1]) * die), 0.0, die, REASON))
    return out


def blob_shift(located: Sequence[tuple[np.ndarray, tuple[int, int], D]], f: float) -> np.ndarray:
    """The read dice's median offset from their blobs' centres, in sides (0, 0 with fewer than
    OFFSETS_LEAST blobs of one read die)."""
    offsets = die_offsets(located, f)
    return np.median(np.array(offsets), axis=0) if len(offsets) >= OFFSETS_LEAST else np.zeros(2)


def placed_in_their_blobs(shaped: Sequence[D], located: Sequence[tuple[np.ndarray, tuple[int, int], D]],
                          f: float, side: Callable[[D], float], move: Callable[[D, tuple[float, float]], D]) -> dict:
    """Die-shaped blobs' unreadable reports (``shaped``) moved by the read dice's median offset in
    their blobs: {id(report): moved report}. ``side(d)`` is the die's side to move by, ``move(d,
    centre)`` a copy of ``d`` at ``centre``."""
    shift = blob_shift(located, f)
    if not shift.any():
        return {}
    return {id(d): move(d, (d.center[0] + float(shift[0]) * side(d), d.center[1] + float(shift[1]) * side(d)))
            for d in shaped}
