"""Dice found by their outline: a die whose body is the colour of its table still has edges.

A black die on black felt differs from the felt in colour by less than the felt's own fibres and
mottling, but its rounded edge is a darker line, its side or shadow is a step in brightness, and
its pips are bright: the brightness gradient along its outline is several times the table's
typical gradient, and the outline is closed around the pips. Filling the closed outlines of the
strong gradient, and keeping only what is shaped like a die (square, convex, die-sized, pips or
other clear marks inside), finds such a die as one region without lowering the colour threshold.

A textured table (wood grain, felt fibres, paper) has strong gradients too, but in lines and
specks that seldom close into a convex square with a pip inside; a closed loop that does is
still only a region for the reader to look at, and is read only if pips in a die's layout are
found in it.
"""

from __future__ import annotations

import cv2
import numpy as np

from .blob_labels import components_with_stats
from .dice_pips import fill_holes

# A pixel is on an edge when its brightness gradient is this many times the image's 90th
# percentile gradient (the table fills most of the photo, so that is the table's own texture).
EDGE_TIMES_TYPICAL = 2.0
# Gaps in an outline bridged before it is filled (work pixels): anti-aliasing, glare on an edge.
BRIDGE_PX = 5
# What a die's filled outline looks like: nearly convex, square, mostly filling its rotated box.
MIN_SOLIDITY = 0.85
MAX_ASPECT = 1.5
MIN_BOX_FILL = 0.7


def edge_mask(lum: np.ndarray) -> np.ndarray:
    """The strong brightness edges of a (lightly blurred) lightness image, relative to its own
    typical gradient."""
    gx = cv2.Scharr(lum, cv2.CV_32F, 1, 0)
    gy = cv2.Scharr(lum, cv2.CV_32F, 0, 1)
    grad = cv2.magnitude(gx, gy)
    typical = float(np.percentile(grad[::3, ::3], 90)) + 1e-3
    return (grad > EDGE_TIMES_TYPICAL * typical).astype(np.uint8) * 255


def outlined_dice(lum: np.ndarray, clear: np.ndarray, smallest_side: float, largest_side: float) -> np.ndarray:
    """Regions inside closed strong outlines that are shaped like a die and hold clear pixels.

    ``lum`` is the work image's lightness (float, lightly blurred); ``clear`` is the colour
    foreground (pips, bevels and glare of a die like its table; whole dice otherwise); sides are
    in work pixels. Returns a mask of the filled dice outlines found.
    """
    edges = cv2.bitwise_or(edge_mask(lum), clear)
    closed = cv2.morphologyEx(edges, cv2.MORPH_CLOSE,
                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (BRIDGE_PX, BRIDGE_PX)))
    filled = fill_holes(closed)
    holes = cv2.subtract(filled, closed)
    out = np.zeros_like(clear)
    if not cv2.countNonZero(holes):
        return out
    n, labels, stats, _ = components_with_stats(filled)
    hole_px = np.bincount(labels[holes > 0].ravel(), minlength=n)
    clear_px = np.bincount(labels[clear > 0].ravel(), minlength=n)
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        # an outline that encloses something (a hole was filled) with clear marks in it
        if hole_px[i] < 0.1 * area or clear_px[i] == 0:
            continue
        if not (smallest_side ** 2 <= area <= largest_side ** 2):
            continue
        region = (labels[y:y + h, x:x + w] == i).astype(np.uint8)
        cnts, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cnt = max(cnts, key=cv2.contourArea)
        hull_area = cv2.contourArea(cv2.convexHull(cnt))
        (_, _), (rw, rh), _ = cv2.minAreaRect(cnt)
        if hull_area <= 0 or rw <= 0 or rh <= 0:
            continue
        if (area / hull_area >= MIN_SOLIDITY and max(rw, rh) / min(rw, rh) <= MAX_ASPECT
                and area / (rw * rh) >= MIN_BOX_FILL):
            out[y:y + h, x:x + w][region > 0] = 255
    return out
