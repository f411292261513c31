"""Is a face read pips first (its face the table's own colour) more than the table's own texture?

The looks that read a face whose colour is the table's -- the pips-first look round a blob
(:mod:`.dice_pip_squares`) and the pips-alone look (specks grouped into a die) -- were made for a
light die on a smooth light table: there, any dark spots a die's size apart are its pips. On a
grained wooden desk in a noisy webcam frame (high gain, sharpened, JPEG) the table itself is full
of dark spots, and two of them on a diagonal read as a two (ray-marched webcam frames through a
webcam's pipeline, development seeds 8055, 8058: twos on the bare desk).

A die's pips are spots far stronger than anything on the table round the die; the table's own
spots are as strong inside the "face" as outside it. So a value from those looks is kept only
where its weakest pip stands out clearly more than the spots of the ring of table round it.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

#: the weakest pip's spot strength over the ring's (its 95th percentile) a face must reach.
#: Measured on development (ray 0-79, light 0-59, ray-marched webcam frames 8000-8119 plain and
#: through a webcam's pipeline): the faces these looks read on the bare desk 1.05-1.43, every right
#: one 3.0 or more (most over 10); set between them.
PIPS_OVER_TABLE = 2.0
#: the ring of table looked at, in the die's sides from its centre: past the die and its side
#: faces (0.9), and near enough to be the same table (1.8)
RING = (0.9, 1.8)
#: other dice read are kept out of the ring by this much of their side (their pips are no table)
OTHERS_CLEAR = 0.8
#: a spot is measured at this share of a side (a pip is 0.13-0.2 of a side across; a top-hat wider
#: than the pip gives the pip's whole contrast)
SPOT_SIDE = 0.4
#: the percentile of the ring's spot strengths taken as the table's (a few side-face pips or
#: a neighbour's edge in the ring cover well under 5 % of it; a grained table's spots far more)
TABLE_PERCENTILE = 95
#: the die's side, in pixels, the spots are measured at (a pip is then 4-6 px across, wood grain
#: and noise specks as sharp as in a 640x480 webcam frame's own dice of 25-70 px)
WORK_SIDE = 40.0
#: rings with fewer pixels than this (a die at the photo's corner, crowded by others) are not judged
LEAST_RING_PX = 20


def _spots(grey: np.ndarray, side: float) -> np.ndarray:
    """Strength of dark and light spots narrower than SPOT_SIDE sides (black and white top-hats)."""
    k = max(3, int(SPOT_SIDE * side)) | 1
    se = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    return np.maximum(cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, se),
                      cv2.morphologyEx(grey, cv2.MORPH_TOPHAT, se)).astype(np.float32)


def pips_over_table(img: np.ndarray, die, others) -> float:
    """The weakest of ``die``'s value's strongest spots on its face, over the ring's spot level
    (``inf`` where the ring is too small to say). ``die`` has a value, centre and side_px."""
    s = float(die.side_px)
    cx, cy = die.center
    reach = int(RING[1] * s) + 2
    h, w = img.shape[:2]
    x0, y0 = max(0, int(cx) - reach), max(0, int(cy) - reach)
    x1, y1 = min(w, int(cx) + reach + 1), min(h, int(cy) + reach + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return math.inf
    grey = cv2.cvtColor(img[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    # (measured with the die WORK_SIDE px across: a big die's top-hat at full size costs seconds)
    k = min(1.0, WORK_SIDE / s)
    if k < 1.0:
        grey = cv2.resize(grey, (max(3, round(grey.shape[1] * k)), max(3, round(grey.shape[0] * k))),
                          interpolation=cv2.INTER_AREA)
    spots = _spots(grey, s * k)
    gh, gw = grey.shape
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    xs, ys = x0 + (xs + 0.5) / k - 0.5, y0 + (ys + 0.5) / k - 0.5
    dist = np.hypot(xs - cx, ys - cy)
    ring = (dist > RING[0] * s) & (dist < RING[1] * s)
    for o in others:
        if o is die:
            continue
        ring &= np.hypot(xs - o.center[0], ys - o.center[1]) > OTHERS_CLEAR * max(o.side_px, s)
    if int(ring.sum()) < LEAST_RING_PX:
        return math.inf
    face = np.where(np.maximum(np.abs(xs - cx), np.abs(ys - cy)) < 0.5 * s, spots, 0)
    peaks = np.sort(face[(face == cv2.dilate(face, np.ones((3, 3), np.uint8))) & (face > 0)])[::-1]
    n = die.value or 1
    weakest = float(peaks[n - 1]) if len(peaks) >= n else 0.0
    table = float(np.percentile(spots[ring], TABLE_PERCENTILE))
    return weakest / max(table, 1.0)


def above_the_table(img: np.ndarray, readings, others) -> list:
    """``readings`` (from a look whose face is the table's colour) without the values whose pips do
    not stand out from the table round them; ``others``: every die read in the photo."""
    return [d for d in readings if d.value is None or pips_over_table(img, d, others) >= PIPS_OVER_TABLE]
