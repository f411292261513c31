"""Where a pointed sheet over a blob of colour would face: the fast path of the template search.

The rulebook puts a pointed sheet's point on the shore, and each pointed shape is symmetric about
its axis from the point through its middle.  A blob that is one pointed sheet alone therefore
shows its turn directly: from the blob's pixel nearest the shore (the point) to its centre of
mass (the middle).  Searching a few turns round that heading instead of every turn screens a
tenth of the templates; sheetsearch.search checks that the result explains the blob and falls
back to the full search when it does not (two sheets in one blob, a sheet partly hidden).

Pure numpy/OpenCV on masks; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .sheetgrid import FitGrid

BLOB_LEVEL = 0.5  # a fine pixel at least this much unexplained colour belongs to the blob
HEADING_BLOCK = 2  # fine pixels a side of the heading's grid
LINE_CLOSE = np.ones((3, 3), np.uint8)  # bridges gaps up to 2 mm on that grid (printed lines are 0.8 mm)


@dataclass(frozen=True)
class BlobHeading:
    heading_deg: float  # the turn (SheetPose.angle_deg) that points a sheet's body from the point to the middle
    colour_px: float  # unexplained colour of the blob (fine pixels), what a fit must explain


def pointed_heading(grid: FitGrid, bbox, reach_mm: float) -> BlobHeading | None:
    """The heading of a pointed sheet alone over the biggest blob in ``bbox`` (fine px), or None
    when no point of it lies within ``reach_mm`` of the shore (or no shore is known)."""
    if grid.shore is None:
        return None
    bx, by, bw, bh = bbox
    h, w = grid.U.shape
    x0, y0, x1, y1 = max(bx, 0), max(by, 0), min(bx + bw, w), min(by + bh, h)
    if x1 <= x0 or y1 <= y0:
        return None
    # on a grid of 1 mm pixels (block means of 2x2 fine ones): a quarter of the pixels, and a
    # millimetre is plenty for a heading
    k = HEADING_BLOCK
    x0, y0 = x0 // k * k, y0 // k * k
    x1, y1 = x0 + (x1 - x0) // k * k, y0 + (y1 - y0) // k * k
    if x1 <= x0 or y1 <= y0:
        return None
    U = grid.shrink(np.ascontiguousarray(grid.U[y0:y1, x0:x1]), k)
    # the printed lines split a sheet's colour into cells: closed over before labelling
    mask = (U >= BLOB_LEVEL).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(cv2.dilate(mask, LINE_CLOSE), connectivity=8)
    if n <= 1:
        return None
    i = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    ys, xs = np.nonzero((labels == i) & (mask > 0))
    wts = U[ys, xs]
    total = float(wts.sum())
    shore = grid.shore_mm[y0:y1:k, x0:x1:k][ys, xs]
    j = int(np.argmin(shore))
    if shore[j] > reach_mm:
        return None
    # a block (j, i) spans [j, j + 1] * k fine pixels from the window's corner
    cell = k / grid.ppm
    px, py = x0 / grid.ppm + (xs[j] + 0.5) * cell + grid.x0, y0 / grid.ppm + (ys[j] + 0.5) * cell + grid.y0
    cx = x0 / grid.ppm + (float(np.dot(wts, xs)) / total + 0.5) * cell + grid.x0
    cy = y0 / grid.ppm + (float(np.dot(wts, ys)) / total + 0.5) * cell + grid.y0
    dx, dy = cx - px, cy - py
    if math.hypot(dx, dy) < 1.0:
        return None  # a speck: no direction
    # the body runs along (-sin, cos) of the turn
    return BlobHeading(math.degrees(math.atan2(-dx, dy)) % 360.0, total * k * k)
