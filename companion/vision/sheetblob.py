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
LINE_CLOSE = np.ones((5, 5), np.uint8)  # bridges gaps up to 2 mm on the 2 px/mm grid (printed lines are 0.8 mm)


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
    U = grid.U[y0:y1, x0:x1]
    # the printed lines split a sheet's colour into cells: closed over before labelling
    mask = (U >= BLOB_LEVEL).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(cv2.dilate(mask, LINE_CLOSE), connectivity=8)
    if n <= 1:
        return None
    i = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    ys, xs = np.nonzero((labels == i) & (mask > 0))
    wts = U[ys, xs]
    total = float(wts.sum())
    shore = grid.shore_mm[y0:y1, x0:x1][ys, xs]
    k = int(np.argmin(shore))
    if shore[k] > reach_mm:
        return None
    # pixel (j, i) spans [j, j + 1] / ppm from the grid's corner
    px, py = (xs[k] + x0 + 0.5) / grid.ppm + grid.x0, (ys[k] + y0 + 0.5) / grid.ppm + grid.y0
    cx = float(np.dot(wts, xs)) / total
    cy = float(np.dot(wts, ys)) / total
    cx, cy = (cx + x0 + 0.5) / grid.ppm + grid.x0, (cy + y0 + 0.5) / grid.ppm + grid.y0
    dx, dy = cx - px, cy - py
    if math.hypot(dx, dy) < 1.0:
        return None  # a speck: no direction
    # the body runs along (-sin, cos) of the turn
    return BlobHeading(math.degrees(math.atan2(-dx, dy)) % 360.0, total)
