"""An unreadable report on a light die's side face moved to the centre of its top face's pips.

A light die (white, ivory, pastel, clear) tilted on white paper shows its side faces in shade and
its top face in the paper's own light: the reader's foreground holds the side faces (and the
shadow) as one blob, and the top face only as its pips -- dark dots of one size, each a small blob
of its own, lying beyond the side faces away from the photo's middle (seen from above, the side
faces a camera sees face it: they lie on the top face's side toward the photo's middle). The
reader reads the side face, doubts it (a shaded face, a side face beside a lighter part, a part of
a die read small) and reports the die unreadable there, 0.6-0.8 of a side off the top face: the
evaluator, and the players, find nothing at the die. :mod:`.dice_unread_place` moves such reports
along the foreground, which ends at the side face's edge here; :mod:`.dice_top_beside_unread`
reads round them, and when that gives no value (a two or three not shown to be the whole face,
a pip lost to the side face's blob) the report stays.

The pips of every face of a die are laid out round its centre: their centroid is the face's
centre, for every value, and any one pip lies within 0.42 of a side of it. So round each
unreadable report the foreground's small blobs of a pip's size are taken -- beyond the report away
from the photo's middle, within a die's reach, of the median dot's size, none nearer another die
reported -- and when any are found, all within one face's span, the report is moved to their
centroid (0.3 of a side at least, else it stays). The value stays unread: only the place moves, so
no value, wrong or right, is added or lost. (docs/dice-camera.md, thirty-eighth round, h2.)
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence, TypeVar

import cv2
import numpy as np

from .dice_foreground import _Foreground

D = TypeVar("D")  # a :class:`.dice.Die`

#: move an unreadable report to the centroid of the pip-sized blobs beyond it (False: the old reader)
UNREAD_AT_TOP_FACE_PIPS = True
#: a report this near the photo's middle (part of its diagonal) is left: there a die's side faces
#: show in whatever direction the camera's tilt gives (as :data:`.dice_unread_place.OFF_CENTRE`)
OFF_CENTRE = 0.1
#: sides: a pip blob's centre lies within this of the report (a side face's centre is 0.5-0.9 of a
#: side from its top face's centre, and a pip 0.3-0.4 further at most)
REACH = 1.3
#: sides: ... and at least this far beyond it along the line from the photo's middle
BEYOND = 0.1
#: a pip's area, in squared sides (a real die's pip is 0.15-0.25 of its side across: 0.018-0.05;
#: a blurred or shadowed pip's blob is larger, a faint one smaller)
PIP_AREA = (0.006, 0.09)
#: the pips kept: those within this ratio of the median dot's area (a face's pips are one size)
PIP_SIZES = 3.0
#: at least this many pips beyond the report (one pip of a face lies within 0.42 of a side of its
#: centre: a corner pip at most, 0.25-0.3 of a side each way -- within the half side a die is matched in)
LEAST_PIPS = 1
#: sides: every two pips within this of each other (a face's corner pips lie 0.7-0.85 apart)
FACE_SPAN = 1.05
#: sides: the centroid must lie this far from the report (nearer, the report is on its face already)
LEAST_MOVE = 0.3
#: a pip nearer another report than this part of its side is that die's
OTHERS = 0.75
#: a moved report must stay farther than this part of a side from every other report
APART = 0.5


def unread_at_top_face_pips(dice: Sequence[D], img: np.ndarray, work_px: float, sigmas: float,
                            mid: tuple[float, float] | None = None, diag: float | None = None) -> list[D]:
    """``dice`` with each unreadable report moved to the centroid of the top face's pips found
    beyond it (:data:`UNREAD_AT_TOP_FACE_PIPS`); the foreground is computed at ``work_px`` with
    the reader's ``sigmas``; ``mid`` and ``diag``: the photo's middle and diagonal in ``img``'s
    pixels (the image's own by default)."""
    out = list(dice)
    if not UNREAD_AT_TOP_FACE_PIPS or not any(d.value is None for d in out):
        return out
    H, W = img.shape[:2]
    if mid is None:
        mid, diag = (W / 2, H / 2), math.hypot(W, H)
    todo = [k for k, d in enumerate(out) if d.value is None and d.side_px > 0
            and math.dist(d.center, mid) >= OFF_CENTRE * diag]
    if not todo:
        return out
    f = min(1.0, work_px / max(H, W))
    small = cv2.resize(img, (round(W * f), round(H * f)), interpolation=cv2.INTER_AREA) if f < 1 else img
    mask = _Foreground(small, sigmas).mask
    _, labels, stats, cents = cv2.connectedComponentsWithStats((mask > 0).astype(np.uint8), connectivity=8)
    read = [d.side_px for d in out if d.value is not None and d.side_px > 0]
    typical = float(np.median(read)) if read else math.inf
    for k in todo:
        d = out[k]
        # (a die's side: the dice read tell it -- one throw's dice are one size -- better than an
        # unread report, which is its region's: a side face, a part read small, a blob and shadow)
        side = typical if read else d.side_px
        at = _pips_centroid(d, side, f, labels, stats, cents, out, mid)
        if at is None:
            continue
        if any(math.dist(at, o.center) <= APART * max(o.side_px, side) for j, o in enumerate(out) if j != k):
            continue
        out[k] = replace(d, center=at, seen_at=d.seen_at or d.center)
    return out


def _pips_centroid(d, side: float, f: float, labels: np.ndarray, stats: np.ndarray, cents: np.ndarray,
                   dice: Sequence, mid: tuple[float, float]) -> tuple[float, float] | None:
    """The centroid (photo pixels) of the pip-sized blobs beyond report ``d``, or None."""
    cx, cy = d.center
    ox, oy = cx - mid[0], cy - mid[1]
    n = math.hypot(ox, oy)
    ux, uy = ox / n, oy / n
    s = side * f  # work pixels
    lo, hi = PIP_AREA[0] * s * s, PIP_AREA[1] * s * s
    h, w = labels.shape
    # (the report's own blob: the side face it stands on, which holds that face's pips)
    own = labels[min(h - 1, max(0, int(cy * f))), min(w - 1, max(0, int(cx * f)))]
    pips = []
    for i in range(1, len(stats)):
        area = stats[i, cv2.CC_STAT_AREA]
        if i == own or not max(2.0, lo) <= area <= hi:
            continue
        px, py = cents[i][0] / f, cents[i][1] / f
        dx, dy = px - cx, py - cy
        if math.hypot(dx, dy) > REACH * side or dx * ux + dy * uy < BEYOND * side:
            continue
        if any(o is not d and math.dist((px, py), o.center) < OTHERS * o.side_px for o in dice):
            continue
        pips.append((px, py, area))
    if not pips:
        return None
    # (a face's pips are one size: the dots of the median dot's size are kept, a blob of two pips
    # run together or a pip and a shadow's corner left out)
    m = float(np.median([a for _, _, a in pips]))
    pips = [p for p in pips if m / PIP_SIZES <= p[2] <= m * PIP_SIZES]
    if len(pips) < LEAST_PIPS:
        return None
    if any(math.dist(a[:2], b[:2]) > FACE_SPAN * side for a in pips for b in pips):
        return None
    at = (float(np.mean([p[0] for p in pips])), float(np.mean([p[1] for p in pips])))
    if math.dist(at, d.center) < LEAST_MOVE * side:
        return None
    return at
