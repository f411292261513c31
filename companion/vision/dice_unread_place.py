"""An unreadable die reported at its top face, not at the middle of what was seen of it.

A die no look could read is reported where the look that gave up was centred: the middle of a
die-shaped blob, of a face region with no pips, or of pips that fit no layout. On a tilted view
that region holds the die's side faces as well as its top face, and the side faces show on the
die's side toward the photo's middle: seen from above, perspective pushes the top face, nearer the
camera, outward (measured when :func:`.dice_sizes._side_face_of` was made: the top face the outer
reading in 11 of 11 overlapping pairs of the ray-marched development scenes). So the report may
lie up to 0.8 of a side inward of the top face, where a read die is reported, the players look,
and the evaluator matches a die (within half a side): of the 29 dice the ray-marched development
sets missed at the start of session 21, 16 were such reports, unreadable 0.5-0.8 sides off their
top face.

The top face is found from the reader's own foreground: from the report's centre, along the line
away from the photo's middle, the die's pixels end at its top face's outer edge; the top face's
centre lies about 0.6 of a side back from there. The table's shadow is no part of the die (a
shadow, toward the same side, would pull the report off): pixels of the table's own tint, darker
than it, are left out. The value stays unread: only the place moves, and by less than half a side.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable, Sequence, TypeVar

import cv2
import numpy as np

D = TypeVar("D")  # a :class:`.dice.Die`

#: a report this near the photo's middle (part of its diagonal) is left alone: there a die shows
#: its side faces in whatever direction the camera's tilt gives (:data:`.dice_sizes.OFF_CENTRE`)
OFF_CENTRE = 0.1
#: sides: from the die's outer edge back to its top face's centre, along the line from the photo's
#: middle. A square face reaches 0.5-0.71 of its side from its centre, by the line's angle to its
#: edges; 0.6 lies between. (0.7, the face's full half-diagonal, moves no report already on its top
#: face's centre, where 0.6 moves some 0.1-0.2 sides about; tried on the development sets, it left
#: 2 of the 8 dice gained (ray 1075, 2100) just over half a side off, missed again.)
FACE_REACH = 0.6
#: sides: the most a report is moved. Below the half side a die is matched within, so a move the
#: wrong way (a shadow or a neighbour taken for the die) cannot carry a report on its top face's
#: centre off its die. Tried outside the reader on the unread reports of five ray-marched
#: development sets (the foreground recomputed, the dice's true side): 0.45 with FACE_REACH 0.6
#: brought 7 reports within half a side of their die and took none out; 0.35 with 0.5, 7 in and
#: one out (ray 1005)
MOST_MOVE = 0.45
#: sides round the report: the window the table's colour is learnt in (the pixels of it outside
#: the foreground)
WINDOW = 2.0
#: a pixel is the table's shadow when its tint (a, b) lies within this many of the table's
#: tint spreads of the table's, plus SHADOW_TINT_FLOOR Lab units (noise, a little colour cast),
#: and it is darker than the table: a coloured die is no shadow, nor a white one (not darker); a
#: grey or black die on a neutral table is taken for shadow, and is then not moved at all. (In the
#: trial above, 1 spread and 2 units moved ray 1005's report from 0.32 to 0.63-0.73 sides off its
#: die, through a shadow's fringe; with 2 and 3 the reader moves it to 0.40. Not tuned further.)
SHADOW_TINT_SPREADS = 2.0
SHADOW_TINT_FLOOR = 3.0
#: a moved report must stay farther than this part of a die's side from every other report (the
#: reader's own duplicate rule: :func:`.dice._dedupe`), else it stays where it was
APART = 0.5


def at_top_faces(dice: Sequence[D], img: np.ndarray, mask: np.ndarray, f: float,
                 photo_centre: tuple[float, float], photo_diagonal: float,
                 placed: Callable[[D], bool] = lambda d: False) -> list[D]:
    """``dice`` with each unreadable one moved to its top face's centre when the foreground
    ``mask`` (the photo scaled by ``f``) shows its die reaching on past it, away from
    ``photo_centre`` (photo pixels). Reports ``placed`` at their top face already are left."""
    out = list(dice)
    read_sides = [d.side_px for d in dice if d.value is not None and d.side_px > 0]
    typical = float(np.median(read_sides)) if read_sides else math.inf
    for k, d in enumerate(out):
        if d.value is not None or d.side_px <= 0 or placed(d):
            continue
        # (an unread report's side is its region's, often the whole blob's, side faces, blur and
        # all: the dice read in the photo tell a die's side better)
        side = min(d.side_px, typical)
        ox, oy = d.center[0] - photo_centre[0], d.center[1] - photo_centre[1]
        if math.hypot(ox, oy) < OFF_CENTRE * photo_diagonal:
            continue
        at = _top_face_centre(img, mask, f, d.center, side, (ox, oy))
        if at is None:
            continue
        if any(math.dist(at, o.center) <= APART * max(o.side_px, d.side_px, 1.0) for j, o in enumerate(out) if j != k):
            continue
        out[k] = replace(d, center=at)
    return out


def _top_face_centre(img: np.ndarray, mask: np.ndarray, f: float, centre: tuple[float, float], side: float,
                     outward: tuple[float, float]) -> tuple[float, float] | None:
    """Where the top face's centre lies along ``outward`` from ``centre`` (photo pixels), or None
    when the report is not on the die's own pixels or needs no move."""
    cx, cy, s = centre[0] * f, centre[1] * f, side * f
    n = math.hypot(*outward)
    ux, uy = outward[0] / n, outward[1] / n
    h, w = mask.shape
    r = int(WINDOW * s) + 2
    x0, y0, x1, y1 = max(0, int(cx) - r), max(0, int(cy) - r), min(w, int(cx) + r + 1), min(h, int(cy) + r + 1)
    if not (x0 <= int(cx) < x1 and y0 <= int(cy) < y1):
        return None
    die = mask[y0:y1, x0:x1] > 0
    die = die & ~_shadow(img, f, (x0, y0, x1, y1), die)
    if not die[int(cy) - y0, int(cx) - x0]:
        return None
    reach, step = 0.0, 0.5  # work pixels: how far the die reaches outward from the report
    while reach < WINDOW * s:
        x, y = int(cx + (reach + step) * ux) - x0, int(cy + (reach + step) * uy) - y0
        if not (0 <= x < x1 - x0 and 0 <= y < y1 - y0) or not die[y, x]:
            break
        reach += step
    move = min(reach - FACE_REACH * s, MOST_MOVE * s)
    if move <= 0:
        return None
    return ((cx + move * ux) / f, (cy + move * uy) / f)


def _shadow(img: np.ndarray, f: float, box: tuple[int, int, int, int], die: np.ndarray) -> np.ndarray:
    """Which pixels of ``box`` (work pixels) are the table's shadow: of the tint of the table round
    the die (the box's pixels outside ``die``), and darker."""
    x0, y0, x1, y1 = box
    part = img[int(y0 / f):int(math.ceil(y1 / f)), int(x0 / f):int(math.ceil(x1 / f))]
    lab = cv2.cvtColor(cv2.resize(part, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA),
                       cv2.COLOR_BGR2LAB).astype(np.float32)
    table = lab[~die]
    if len(table) < 20:
        return np.zeros_like(die)
    middle = np.median(table, axis=0)
    spread = 1.5 * np.median(np.abs(table - middle), axis=0) + 1.0
    tint = np.hypot(lab[..., 1] - middle[1], lab[..., 2] - middle[2])
    return (tint < SHADOW_TINT_SPREADS * max(spread[1], spread[2]) + SHADOW_TINT_FLOOR) & (lab[..., 0] < middle[0])
