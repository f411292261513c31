"""How blurred a registered photo is, in millimetres on the board, read off the markers' edges.

When the hex lines do not show where the profile draws them, the photo may be of another board
(or another box profile), or simply out of focus: the markers tell which.  Each marker's black
border against its white quiet zone is a step edge; blurred by a Gaussian of sigma s (mm), its
steepest slope is contrast / (sqrt(2 pi) s).  The marker is resampled on the board plane (so the
answer is in mm whatever the camera's distance and tilt) and s read from its contrast and slope.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

PPM = 8.0  # resampling of the marker, px per mm
MARGIN = 0.12  # of the marker's side: into the white quiet zone (0.175 wide) around the marker
#: a photo whose hex lines do not show is called blurred (rather than another board) when its
#: markers are blurred by more than this; measured on rendered photos: 0.26-0.63 mm at the usual
#: softness, 0.8-0.85 mm where the lines were still judged, 0.94 mm and over where they were not
BLURRED_MM = 0.75


def blur_mm(gray: np.ndarray, corners_px: np.ndarray, side_mm: float) -> float | None:
    """Blur sigma (mm) at one marker, given its four corners in the photo (tl, tr, br, bl)."""
    n = int(round(side_mm * (1 + 2 * MARGIN) * PPM))
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)
    H = cv2.getPerspectiveTransform(unit.astype(np.float32), np.asarray(corners_px, np.float32))
    # output pixel i (centre) -> unit coordinate (i + 0.5) / n * (1 + 2 MARGIN) - MARGIN
    a = (1 + 2 * MARGIN) / n
    to_unit = np.array([[a, 0, 0.5 * a - MARGIN], [0, a, 0.5 * a - MARGIN], [0, 0, 1]])
    M = H @ to_unit  # output pixel -> photo pixel
    edge = cv2.perspectiveTransform(np.array([[[0, 0]], [[n, 0]], [[n, n]], [[0, n]]], np.float64), M).reshape(-1, 2)
    if edge.min() < 0 or np.any(edge.max(0) > [gray.shape[1] - 1, gray.shape[0] - 1]):
        return None  # partly out of the frame: the frame's edge is no marker edge
    img = cv2.warpPerspective(gray, M, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    g = img.astype(np.float32)
    # Sobel 3x3 scaled to grey levels per pixel of a ramp
    slope = cv2.magnitude(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8),
                          cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8))
    steepest = float(np.percentile(slope, 99.5)) * PPM  # grey levels per mm
    contrast = float(np.percentile(g, 97) - np.percentile(g, 3))
    if contrast < 20 or steepest <= 0:
        return None
    return contrast / (math.sqrt(2 * math.pi) * steepest)


def markers_blur_mm(gray: np.ndarray, box, corners_by_id: dict[int, np.ndarray]) -> float | None:
    """Median blur (mm) over the given markers' corners in the photo, or None if none measured."""
    by_id = {m.id: m for m in box.markers}
    found = []
    for mid, corners in corners_by_id.items():
        if mid not in by_id:
            continue
        c = np.asarray(by_id[mid].corners, float)
        b = blur_mm(gray, corners, float(np.linalg.norm(c[1] - c[0])))
        if b is not None:
            found.append(b)
    return float(np.median(found)) if found else None
