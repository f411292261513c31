"""Connected components with their boxes and areas, labelled the fast way.

OpenCV's default labelling with statistics (Spaghetti, for 8-way connectivity) spends most of its
time on the statistics: on the reader's 640x480 foreground masks it took 1.7 ms a call where
Grana's block-based algorithm (BBDT) took 0.5 ms, and plain labelling without statistics 0.14 ms.
BBDT gives the same labels, boxes, areas and centroids (checked on 184 foreground masks of the
ray-marched scenes and on random noise masks; OpenCV numbers the components in the same raster
order whichever algorithm labels them). The reader labels several whole-frame masks per read.
"""

from __future__ import annotations

import cv2
import numpy as np


def components_with_stats(mask: np.ndarray, connectivity: int = 8) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """As ``cv2.connectedComponentsWithStats(mask, connectivity)``: (count, labels, stats, centroids)."""
    if connectivity == 8:
        return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)
    return cv2.connectedComponentsWithStats(mask, connectivity=connectivity)


def components_with_areas(mask: np.ndarray, connectivity: int = 8) -> tuple[int, np.ndarray, np.ndarray]:
    """(count, labels, area per label) for a caller that needs no boxes: plain labelling and a
    count per label cost a third of labelling with statistics (0.2 ms against 0.5 ms on a 300x300
    crop). The labels are those ``cv2.connectedComponentsWithStats`` gives.

    (The reader's face and split steps used to call ``cv2.connectedComponentsWithStats(mask, 4)``
    meaning 4-way connectivity; the Python binding takes a second positional argument as the
    output array, so those calls were 8-way. Their callers keep 8-way, so they read as before.)"""
    n, labels = cv2.connectedComponents(mask, connectivity=connectivity)
    return n, labels, np.bincount(labels.ravel(), minlength=n)
