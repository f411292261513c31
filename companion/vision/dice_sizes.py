"""Size agreement: a die read far smaller than the dice beside it was a part of a die.

Dice in one photo are alike in size (a set, seen from one height; the nearest dice are the least
changed by a tilted view's perspective). A part of a die read as a die comes out smaller: a column
of a six read as a three, a row of a four or two adjacent pips read as a two, fit a face 0.71
times the die's; half a face region with a pip in its middle reads as a one about half the die's
size (and the neighbours' read sizes are somewhat larger than their dice). Only ones, twos and
threes can be such parts: four or more pips in a square layout span a
whole face. So only those are doubted, and only when smaller. A one's size is that of its face
region, which a side face or a shadow can enlarge (measured up to 1.35 times the die): beside a
one, only a die read at under 0.6 of its size is doubted.
"""

from __future__ import annotations

import math
from typing import Callable, Protocol

import cv2
import numpy as np

from .dice_pips import BLOB_CONFIDENCE

PART_VALUES = (1, 2, 3)  # values a part of a larger die can be read as
# The lowest share of its two neighbours' read size a die may be read at. A part's share of the
# *true* die: 0.71 or less for a two or three, about 0.5 for a one. The neighbours' sizes are *read* sizes, which come out 1.1-1.25 times their dice (side faces,
# shadows, perspective): measured on the development sets (ray-marched 0-79, 1000-1119, 2000-2159,
# 3000-3219, light 0-59), the parts doubted lay at 0.43-0.56, and right twos and threes at 0.64-0.80
# (0.8 for both lost 23 right dice there and saved no more wrong ones than these do).
LOWEST_RATIO = {1: 0.6, 2: 0.62, 3: 0.68}
BESIDE_A_ONE = 0.6  # the lowest ratio when a neighbour's size is a one's (0.8 / 1.35)

#: a one read by the pips-first look (a lone pip in a square its edges outline: its size is that
#: square's, not a face region's) far LARGER than its two nearest neighbours is doubted as well: a
#: pip of a larger face framed by that die's farther edges (light 36 turned 90 degrees: a cream
#: two's pip, its other pip merged with the shaded side face, read as a one at 1.40 of its
#: neighbours). False: only smaller dice doubted, the old rule
OUTLINED_ONES_DOUBTED_LARGE = True
#: ... above this share of the neighbours' read size (which come out 1.1-1.25 times their dice): a
#: one's outlined face is its die's side. Measured on the development sets (base 8fbf84e, every
#: pips-first one before the size rule): right ones at 0.79-0.93 of their neighbours and 1.30 (light
#: 3174: a white one truly 1.3 times the dice beside it, 263 px against 201 and 204 -- 1.2 lost it);
#: the wrong ones 1.40 (light 36 turned) and 1.44 (cropped). A thin margin both ways
OUTLINED_ONE_HIGHEST = 1.35


class _Sized(Protocol):
    value: int | None
    center: tuple[float, float]
    side_px: float
    confidence: float
    reason: str


def doubt_odd_sizes(dice: list[_Sized], whole: Callable[[_Sized, float], bool] | None = None,
                    outlined: frozenset[int] = frozenset(),
                    doubted_out: list[tuple[_Sized, float, int]] | None = None) -> list[_Sized]:
    """Make a one, two or three read much smaller than its two nearest neighbours unreadable
    (in place; returns the list). ``whole(die, share)``, when given, spares a die read at ``share``
    of its neighbours' size that the photo shows is a whole face (:mod:`.dice_small_whole`).
    ``outlined``: the ids of dice the pips-first look read (a one among them read far larger
    than its neighbours is doubted too: :data:`OUTLINED_ONES_DOUBTED_LARGE`). ``doubted_out``, when
    given, receives each die made unreadable, with its neighbours' read size and the value it had."""
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
        share = d.side_px / max(typical, 1e-6)
        if share < lowest and not (whole is not None and whole(d, share)):
            doubted.append((d, typical))
        elif OUTLINED_ONES_DOUBTED_LARGE and d.value == 1 and id(d) in outlined and share > OUTLINED_ONE_HIGHEST:
            doubted.append((d, typical))
    for d, typical in doubted:
        if doubted_out is not None:
            doubted_out.append((d, typical, d.value))
        d.value, d.confidence = None, 0.0
        d.reason = f"read at {d.side_px:.0f} px, the dice beside it are {typical:.0f} px"
    return dice


OVERLAP = 0.85  # dice do not overlap: two readings' centres are at least about a side apart
TENTATIVE_GIVES_WAY = True  # (False: both made unreadable, the old rule, kept to measure against)


def doubt_overlaps(dice: list[_Sized], photo_centre: tuple[float, float] | None = None,
                   photo_diagonal: float = 0.0) -> list[_Sized]:
    """Two dice read closer together than :data:`OVERLAP` of the larger one's side cannot both be
    dice: they are parts of one face (a six's two columns read as two threes), or a die's top and
    side faces. Both are made unreadable (in place; returns the list), unless only one of them is
    a tentative reading: then only that one is. A die's top face and side face read apart, told by
    where they lie in the photo (:func:`_side_face_of`), leave the top face's reading alone: the
    side face's is dropped."""
    if TOP_FACE_OUTWARD and photo_centre is not None:
        sides = set()
        readable = [d for d in dice if d.value is not None]
        for i, a in enumerate(readable):
            for b in readable[i + 1:]:
                side = _side_face_of(a, b, photo_centre, photo_diagonal)
                if side is not None:
                    sides.add(id(side))
        dice = [d for d in dice if id(d) not in sides]
    readable = [d for d in dice if d.value is not None]
    doubted = set()
    for i, a in enumerate(readable):
        for b in readable[i + 1:]:
            if math.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]) < OVERLAP * max(a.side_px, b.side_px):
                # a tentative reading (faint marks: the blob look's) gives way to a sure one; of two
                # alike, which part, if either, is the die is not known
                sure_a, sure_b = (d.confidence > BLOB_CONFIDENCE for d in (a, b))
                doubted |= {id(a), id(b)} if sure_a == sure_b or not TENTATIVE_GIVES_WAY else {id(b if sure_a else a)}
    for d in readable:
        if id(d) in doubted:
            d.value, d.confidence = None, 0.0
            d.reason = "overlaps another die read: parts of one face?"
    return dice


#: a die's top face and a side face read as two dice: the side face gives way (False: both unreadable).
#: Off by default: it rests on the photo's middle being the point below the camera, which a cropped
#: photo (a phone photo cut to the dice, as shared photos often are) breaks, and it lifts the overlap
#: doubt off the top face's own reading: read once on the held-out sets, on it read 2 more dice right
#: of 907 and 1 more wrong (light 2030: the top face rightly chosen, but a two read as a one, which the
#: doubt had kept unreadable); development +8 right of 1,507, no wrong more (docs/dice-camera.md)
TOP_FACE_OUTWARD = False
#: the two readings' centres at least this part of the larger side apart: a top face's and its side
#: face's (measured 0.57-0.81 on the development pairs; a part of a face and the whole lie closer)
FACES_APART = 0.5
#: degrees: the line between the two readings runs within this of the line from the photo's centre
RADIAL = 45.0
#: ... and their middle lies at least this part of the photo's diagonal from its centre (a die near
#: the centre shows its side faces in any direction the camera's tilt gives)
OFF_CENTRE = 0.1


def _side_face_of(a: _Sized, b: _Sized, centre: tuple[float, float], diagonal: float) -> _Sized | None:
    """Of two readings that overlap, the one that is a side face of the other's die, or None.

    Seen from above, a die's top face lies nearer the camera than its side faces, so perspective
    pushes it further out from the photo's middle (the point straight below a camera looking down):
    a side face shows on the die's inner side, its centre nearer the photo's centre along the line
    through both. Measured on the ray-marched development scenes: of 11 overlapping top and side
    face readings (tilts 0-30 degrees), the top face was the outer one in all 11. Two readings of
    ones, twos or threes may be two parts of one face (a six's columns, both inner and outer): no
    side face is told among them. Both readings must be alike in kind (sure or tentative)."""
    sep = math.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1])
    big = max(a.side_px, b.side_px)
    if not FACES_APART * big <= sep < OVERLAP * big:
        return None
    if a.value in PART_VALUES and b.value in PART_VALUES:
        return None
    if (a.confidence > BLOB_CONFIDENCE) != (b.confidence > BLOB_CONFIDENCE):
        return None  # (the tentative one gives way anyway)
    mx = (a.center[0] + b.center[0]) / 2 - centre[0]
    my = (a.center[1] + b.center[1]) / 2 - centre[1]
    out = math.hypot(mx, my)
    if out < OFF_CENTRE * diagonal:
        return None
    ux, uy = b.center[0] - a.center[0], b.center[1] - a.center[1]
    if abs(ux * mx + uy * my) < math.cos(math.radians(RADIAL)) * sep * out:
        return None  # (side by side across the radius: no telling which is nearer the camera)
    ra = math.hypot(a.center[0] - centre[0], a.center[1] - centre[1])
    rb = math.hypot(b.center[0] - centre[0], b.center[1] - centre[1])
    return b if ra > rb else a


def typical_die_side(blobs: list[tuple], labels: np.ndarray, stats: np.ndarray) -> float | None:
    """The typical die's side (work pixels), from blobs that look like one die (squarish, full).

    The pips of a big dark die on a dark table are squarish, full blobs too: a blob with a bigger
    blob right beside it (within its own size) is taken for a pip, not a die, and the median is
    weighted by area, so a die outweighs its pips.
    """
    h, w = labels.shape
    sides, weights = [], []
    for i, x, y, bw, bh, area in blobs:
        cnts, _ = cv2.findContours((labels[y:y + bh, x:x + bw] == i).astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
        (_, _), (rw, rh), _ = cv2.minAreaRect(max(cnts, key=cv2.contourArea))
        if not (rw > 0 and rh > 0 and max(rw, rh) / min(rw, rh) < 1.35 and area / (rw * rh) > 0.7):
            continue
        r = max(bw, bh)
        y0, y1, x0, x1 = max(0, y - r), min(h, y + bh + r), max(0, x - r), min(w, x + bw + r)
        # (only a blob twice as big whose box meets the window can be in it: the labels in the
        # window are looked at only when there is one)
        big = stats[:, cv2.CC_STAT_AREA] >= 2 * area
        big[0] = False
        meets = big & (stats[:, 0] < x1) & (stats[:, 0] + stats[:, 2] > x0) & (stats[:, 1] < y1) & (stats[:, 1] + stats[:, 3] > y0)
        if meets.any():
            near = np.unique(labels[y0:y1, x0:x1])
            if any(j not in (0, i) and stats[j, cv2.CC_STAT_AREA] >= 2 * area for j in near):
                continue
        sides.append(math.sqrt(area))
        weights.append(area)
    if not sides:
        return None
    order = np.argsort(sides)
    cum = np.cumsum(np.array(weights, float)[order])
    return float(np.array(sides)[order][int(np.searchsorted(cum, cum[-1] / 2))])
