"""Each marker's own perspective, from all of its edges rather than its four corners.

With only two markers in view their eight corners hardly fix the board's perspective (see
pinhole.py); a marker's inner edges say more about how it is tilted.  Its drawing (the dictionary's
bits and a margin of the white quiet zone around them) is aligned with the photo by
``cv2.findTransformECC`` (a homography, starting from the four detected corners), and a grid of
points over the marker then stands in for its corners.  Used only when the corners alone did not
lead to a registration the hex grid confirms.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

QUIET = 0.125  # margin of the quiet zone taken in, as a share of the marker's side (the zone is 0.175);
# SIDE_PX * QUIET whole pixels, so the drawing's edges fall where _TO_UNIT says
SIDE_PX = 96  # the drawing's resolution: pixels per marker side
GRID = np.array([(u, v) for v in np.linspace(0, 1, 5) for u in np.linspace(0, 1, 5)])
# template pixel -> marker unit square (0..1 across the black part)
_TO_UNIT = np.array([[1 / SIDE_PX, 0, -QUIET + 0.5 / SIDE_PX], [0, 1 / SIDE_PX, -QUIET + 0.5 / SIDE_PX], [0, 0, 1]])


@lru_cache(maxsize=16)
def _drawing(dictionary_name: str, marker_id: int) -> np.ndarray:
    aruco = cv2.aruco
    d = aruco.getPredefinedDictionary(getattr(aruco, dictionary_name))
    n = d.markerSize + 2
    bits = aruco.generateImageMarker(d, marker_id, n, borderBits=1).astype(np.float32) / 255
    side = int(round(SIDE_PX * (1 + 2 * QUIET)))
    out = np.ones((side, side), np.float32)
    o = int(round(SIDE_PX * QUIET))
    out[o:o + SIDE_PX, o:o + SIDE_PX] = cv2.resize(bits, (SIDE_PX, SIDE_PX), interpolation=cv2.INTER_NEAREST)
    return cv2.GaussianBlur(out, (0, 0), 1.0)  # a camera never sees a perfect step


def _aligned(gray: np.ndarray, corners: np.ndarray, dictionary_name: str, marker_id: int) -> np.ndarray | None:
    """Homography marker unit square -> photo pixels, aligned on the whole marker, or None."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    H = cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32))
    # work on a crop round the marker: ECC takes gradients of its whole input image
    pad = 0.5 * float(np.linalg.norm(corners[0] - corners[2]))
    x0, y0 = np.maximum(np.floor(corners.min(0) - pad), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(corners.max(0) + pad), [gray.shape[1] - 1, gray.shape[0] - 1]).astype(int)
    crop = gray[y0:y1 + 1, x0:x1 + 1].astype(np.float32) * (1 / 255.0)
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
    W = (shift @ H @ _TO_UNIT).astype(np.float32)
    try:
        _, W = cv2.findTransformECC(_drawing(dictionary_name, marker_id), crop, W, cv2.MOTION_HOMOGRAPHY,
                                    (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-6), None, 3)
    except cv2.error:  # did not converge: keep the corners
        return None
    out = np.linalg.inv(shift) @ W.astype(np.float64) @ np.linalg.inv(_TO_UNIT)
    # the alignment must not have wandered off: the corners within a pixel or two of the detected ones
    q = cv2.perspectiveTransform(unit.reshape(-1, 1, 2).astype(np.float64), out).reshape(-1, 2)
    if not np.all(np.isfinite(q)) or np.abs(q - corners).max() > 3.0:
        return None
    return out


def marker_points(gray: np.ndarray, box, found: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """(board mm, photo px) for a grid over each found marker, or None if any alignment failed."""
    src, dst = [], []
    for m in box.markers:
        if m.id not in found:
            continue
        H = _aligned(gray, np.asarray(found[m.id], float), box.markers_dictionary, m.id)
        if H is None:
            return None
        c = np.asarray(m.corners, float)
        src.append(c[0] + np.outer(GRID[:, 0], c[1] - c[0]) + np.outer(GRID[:, 1], c[3] - c[0]))
        dst.append(cv2.perspectiveTransform(GRID.reshape(-1, 1, 2), H).reshape(-1, 2))
    if not src:
        return None
    return np.vstack(src), np.vstack(dst)
