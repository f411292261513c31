"""Small dice in a big photo: blobs too small for the working scale that are dice, not pips.

The reader looks for dice in an image about 800 px long. A 46 px die in a 4000x3000 photo is 9 px
there, under the least die size, and looks like a pip. Such a blob is told from a pip by what is
inside it at full resolution (a die's pips; a pip is plain), and the photo is then read again at
a finer scale (:func:`companion.vision.dice.read_dice`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:
    from .dice import Die

ZOOM_TARGET = 1.6  # a zoomed second look makes the small die-like blobs this many least die sides across
MAX_ZOOM = 4.0  # (a finer look costs the square of it in pixels)


def small_marked_blobs(img: np.ndarray, labels: np.ndarray, stats: np.ndarray, min_side: float,
                        f: float) -> list[int]:
    """Blobs under the least die side that are squarish, full, at least a third of that side, and
    show marks inside at full resolution: small dice far off in a big photo (not pips: a lone
    plain pip of a dark die on dark felt shows no marks inside)."""
    out = []
    for i in range(1, len(stats)):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if min_side / 3 <= math.sqrt(area) < min_side and max(bw, bh) <= 1.5 * min(bw, bh) and area >= 0.6 * bw * bh \
                and _marks_inside(img, labels[y:y + bh, x:x + bw] == i, (x, y), f):
            out.append(i)
    return out


def beside_a_blob(st: np.ndarray, blobs: list[tuple]) -> bool:
    """Does a die-sized blob come within twice this small blob's size of it?"""
    x, y, bw, bh = (int(v) for v in st[:4])
    r = 2 * max(bw, bh)
    return any(bx < x + bw + r and x - r < bx + bbw and by < y + bh + r and y - r < by + bbh
               for _, bx, by, bbw, bbh, _ in blobs)


def zoom_for(marked: list[int], stats: np.ndarray, dice: list[Die], min_side: float, f: float) -> float:
    """The zoom that makes the small marked blobs no die was read on :data:`ZOOM_TARGET` least
    die sides across (their median), or 1 when every one lies on a die read."""
    left = []
    for i in marked:
        x, y, bw, bh, area = (int(v) for v in stats[i])
        cx, cy = (x + bw / 2) / f, (y + bh / 2) / f
        if not any(d.value is not None and math.hypot(d.center[0] - cx, d.center[1] - cy) < 0.75 * d.side_px
                   for d in dice):
            left.append(math.sqrt(area))
    if not left:
        return 1.0
    return float(np.clip(ZOOM_TARGET * min_side / float(np.median(left)), 1.5, min(MAX_ZOOM, 1.0 / f)))


def _marks_inside(img: np.ndarray, blob: np.ndarray, origin: tuple[int, int], f: float) -> bool:
    """Does a small blob hold marks of its own at full resolution (a die's pips), rather than
    being one plain mark (a pip)? Its inner pixels must spread over more than most of its step
    from the table around it (and over a clear amount: noise and a dimple's shading spread too)."""
    x, y = origin
    bh, bw = blob.shape
    X0, Y0 = int(x / f), int(y / f)
    X1, Y1 = min(img.shape[1], int(math.ceil((x + bw) / f))), min(img.shape[0], int(math.ceil((y + bh) / f)))
    pad = max(2, (X1 - X0) // 3)
    xa, ya, xb, yb = max(0, X0 - pad), max(0, Y0 - pad), min(img.shape[1], X1 + pad), min(img.shape[0], Y1 + pad)
    grey = cv2.cvtColor(img[ya:yb, xa:xb], cv2.COLOR_BGR2GRAY)
    m = np.zeros(grey.shape, np.uint8)
    m[Y0 - ya:Y1 - ya, X0 - xa:X1 - xa] = cv2.resize(blob.astype(np.uint8), (X1 - X0, Y1 - Y0),
                                                      interpolation=cv2.INTER_NEAREST)
    k = max(3, int(0.15 * (X1 - X0))) | 1
    inner = cv2.erode(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0
    ring = cv2.dilate(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) == 0
    if inner.sum() < 16 or ring.sum() < 16:
        return False
    inside = grey[inner].astype(np.float32)
    spread = float(np.percentile(inside, 97) - np.percentile(inside, 3))
    step = abs(float(np.median(inside)) - float(np.median(grey[ring])))
    return spread > max(MARKS_SPREAD * step, 30.0)


MARKS_SPREAD = 0.6  # pips spread a die's pixels over most of its step from the table; a plain pip's far less
