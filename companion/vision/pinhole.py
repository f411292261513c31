"""A better first guess from two markers: the homography of a real camera.

Eight corners of two 40 mm markers leave a general homography's perspective terms almost free:
with both markers on one side of the board, the far end of the loch can come out several
centimetres off.  A real camera is far more constrained: square pixels, the optical axis near the
photo's centre, one focal length.  Fitting such a camera (``cv2.solvePnP``) for a range of focal
lengths and keeping the best pins the perspective down to a few millimetres, close enough for
the hex grid to take over (gridfit.py).  Lens distortion is left to gridfit.
"""

from __future__ import annotations

import cv2
import numpy as np

#: focal lengths tried, in photo widths: from a very wide lens (about 90 degrees across) to a
#: long one (about 30 degrees)
FOCAL_WIDTHS = np.geomspace(0.5, 2.0, 25)


def camera_homography(src_mm: np.ndarray, dst_px: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """The board mm -> photo px homography of the best-fitting pinhole camera, or None."""
    h, w = shape[:2]
    obj = np.c_[np.asarray(src_mm, np.float64), np.zeros(len(src_mm))]
    img = np.asarray(dst_px, np.float64)
    best = None
    for fw in FOCAL_WIDTHS:
        f = fw * w
        K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]])
        try:
            ok, rv, tv = cv2.solvePnP(obj, img, K, None, flags=cv2.SOLVEPNP_IPPE)
            if ok:
                ok, rv, tv = cv2.solvePnP(obj, img, K, None, rv, tv, True, cv2.SOLVEPNP_ITERATIVE)
        except cv2.error:
            continue
        if not ok:
            continue
        proj, _ = cv2.projectPoints(obj, rv, tv, K, None)
        err = float(((proj.reshape(-1, 2) - img) ** 2).sum(1).mean())
        if best is None or err < best[0]:
            R, _ = cv2.Rodrigues(rv)
            best = (err, K @ np.c_[R[:, 0], R[:, 1], tv.ravel()])
    if best is None or not np.all(np.isfinite(best[1])) or abs(best[1][2, 2]) < 1e-12:
        return None
    return best[1] / best[1][2, 2]
