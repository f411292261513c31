"""Registration: from the ArUco markers in a photo to the board plane in millimetres.

Every corner of every visible marker of the box profile is one correspondence (photo pixel <->
board mm).  A homography is fitted with RANSAC (``cv2.findHomography``), so one bad marker does
no harm; two markers (eight corners) are enough.  With three or more markers a one-parameter
radial lens distortion is fitted as well (about the photo's centre), since cheap lenses bend the
board's edges by several millimetres.  Quality: markers seen and the reprojection error of the
marker corners in mm.

:func:`warp_to_board` resamples the photo onto the board plane at ``ppm`` pixels per mm.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from companion.errors import CompanionError


class VisionRefusal(CompanionError, ValueError):
    """A photo the companion will not adjudicate; ``reason`` is a short code, the message says why."""

    def __init__(self, reason: str, message: str):
        self.reason = reason
        super().__init__(message)


@dataclass
class Registration:
    H: np.ndarray  # board mm -> undistorted photo pixels
    k: float  # radial distortion (pixels normalised by the half diagonal)
    centre: tuple[float, float]
    norm: float
    markers_seen: list[int]
    error_mm_rms: float
    error_mm_max: float
    corners_used: int
    src: np.ndarray | None = None  # marker corners used, board mm
    dst: np.ndarray | None = None  # ... and where they are in the photo
    grid_points: int = 0  # correspondences added from the hex grid (gridfit.py)

    def to_photo(self, pts_mm: np.ndarray) -> np.ndarray:
        """Board mm (n, 2) -> photo pixel coordinates."""
        p = cv2.perspectiveTransform(np.asarray(pts_mm, np.float64).reshape(-1, 1, 2), self.H).reshape(-1, 2)
        return self._distort(p)

    def undistort(self, p: np.ndarray) -> np.ndarray:
        """Photo pixels -> where the homography alone puts them (the inverse of the lens term)."""
        p = np.asarray(p, np.float64).reshape(-1, 2)
        if self.k == 0.0:
            return p
        c = np.asarray(self.centre)
        q = p.copy()
        for _ in range(6):  # fixed point: q = c + (p - c) / (1 + k r(q)^2); |k| < 0.5 converges fast
            d = (q - c) / self.norm
            q = c + (p - c) / (1 + self.k * (d * d).sum(-1, keepdims=True))
        return q

    def _distort(self, p: np.ndarray) -> np.ndarray:
        if self.k == 0.0:
            return p
        c = np.asarray(self.centre)
        d = (p - c) / self.norm
        r2 = (d * d).sum(-1, keepdims=True)
        return c + (p - c) * (1 + self.k * r2)

    def to_json(self) -> dict:
        return {"markers_seen": self.markers_seen, "corners_used": self.corners_used,
                "grid_points": self.grid_points,
                "reprojection_error_mm": {"rms": round(self.error_mm_rms, 3), "max": round(self.error_mm_max, 3)},
                "lens_k": round(self.k, 5)}


@lru_cache(maxsize=8)
def aruco_detector(dictionary_name: str):
    aruco = cv2.aruco
    dictionary = aruco.getPredefinedDictionary(getattr(aruco, dictionary_name))
    params = aruco.DetectorParameters()
    params.cornerRefinementMethod = aruco.CORNER_REFINE_SUBPIX
    return aruco.ArucoDetector(dictionary, params)


def detect_markers(gray: np.ndarray, dictionary_name: str, max_side: int = 2000) -> dict[int, np.ndarray]:
    """Marker id -> its four corners in photo pixels (tl, tr, br, bl), read at full resolution.

    A large photo is searched on a reduced copy; each marker found there is then detected again in
    a full-resolution crop around it (:func:`_full_resolution_corners`), so its corners are as good
    as a search of the whole photo at full size would give, for the price of a small crop.
    """
    scale = 1.0
    small = gray
    if max(gray.shape) > max_side:
        scale = max_side / max(gray.shape)
        small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    corners, ids, _ = aruco_detector(dictionary_name).detectMarkers(small)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel()):
        pts = (c.reshape(4, 2).astype(np.float64) + 0.5) / scale - 0.5
        if scale != 1.0:
            pts = _full_resolution_corners(gray, pts, int(i), dictionary_name)
        if int(i) in found:  # the same id twice: not this board, or a reflection; keep neither
            found[int(i)] = None  # type: ignore[assignment]
            continue
        found[int(i)] = pts
    return {k: v for k, v in found.items() if v is not None}


def _full_resolution_corners(gray: np.ndarray, pts: np.ndarray, marker_id: int, dictionary_name: str) -> np.ndarray:
    """A marker's corners found on a reduced copy, read again at full resolution.

    On the reduced copy a small marker's cells are a few pixels wide and its corners can be off by
    two or three of them (measured: 3.9 px at full size on a 40 px marker at the frame's edge, which
    then misled the registration); so the marker is detected again in a crop around it, its quiet
    zone and half a side more.  Should that not find it exactly once, the corners are refined
    where they are (``cv2.cornerSubPix`` in a window of a twelfth of the side: within the black
    border, clear of the marker's inner cells).
    """
    side = max(np.linalg.norm(pts[0] - pts[1]), np.linalg.norm(pts[1] - pts[2]),
               np.linalg.norm(pts[2] - pts[3]), np.linalg.norm(pts[3] - pts[0]))
    h, w = gray.shape[:2]
    x0, y0 = np.maximum(np.floor(pts.min(0) - side / 2), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(pts.max(0) + side / 2) + 1, (w, h)).astype(int)
    corners, ids, _ = aruco_detector(dictionary_name).detectMarkers(gray[y0:y1, x0:x1])
    if ids is not None and list(ids.ravel()).count(marker_id) == 1:
        return corners[list(ids.ravel()).index(marker_id)].reshape(4, 2).astype(np.float64) + (x0, y0)
    win = int(max(2, min(10, np.linalg.norm(pts[0] - pts[1]) / 12)))
    ref = cv2.cornerSubPix(gray, pts.astype(np.float32).reshape(-1, 1, 2), (win, win), (-1, -1),
                           (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01))
    return ref.reshape(4, 2).astype(np.float64)


#: markers are looked for on a copy this size first (three times cheaper than 2000 px); only
#: when some of the board's markers are missing (small in the frame, or really hidden) on the
#: larger one as well
QUICK_SIDE = 1000


def detect_board_markers(gray: np.ndarray, box) -> dict[int, np.ndarray]:
    """:func:`detect_markers`, quick first, then at full size if any of the box's markers is missing."""
    detected = detect_markers(gray, box.markers_dictionary, max_side=QUICK_SIDE)
    if not {m.id for m in box.markers} <= set(detected) and max(gray.shape) > QUICK_SIDE:
        detected = {**detected, **detect_markers(gray, box.markers_dictionary)}
    return detected


def register(gray: np.ndarray, box, min_markers: int = 2) -> Registration:
    """Register a grey photo to the board, or raise :class:`VisionRefusal`."""
    detected = detect_board_markers(gray, box)
    by_id = {m.id: m for m in box.markers}
    ours = {i: c for i, c in detected.items() if i in by_id}
    if not ours:
        if detected:
            raise VisionRefusal("not this board", f"markers {sorted(detected)} seen, none of this box profile's "
                                f"{sorted(by_id)}: not this board")
        raise VisionRefusal("no markers", "no board markers found in the photo")
    if len(ours) < min_markers:
        raise VisionRefusal("too few markers", f"only marker {sorted(ours)} seen; at least {min_markers} of "
                            f"{sorted(by_id)} must be visible")
    ids = sorted(ours)
    src = np.concatenate([np.asarray(by_id[i].corners, np.float64) for i in ids])
    dst = np.concatenate([ours[i] for i in ids])
    h, w = gray.shape[:2]
    centre = ((w - 1) / 2, (h - 1) / 2)
    norm = float(np.hypot(w, h) / 2)
    side_px = np.median([np.linalg.norm(ours[i][0] - ours[i][1]) for i in ids])
    if len(ids) >= 3:
        H, inliers = cv2.findHomography(src, dst, cv2.RANSAC, max(2.0, side_px * 0.04))
    else:
        # two markers leave RANSAC nothing to vote with: it would only drop the corners the lens
        # bends most, and with them what little the markers say about the perspective
        H, _ = cv2.findHomography(src, dst, 0)
        inliers = np.ones(len(src), np.uint8)
    if H is None:
        raise VisionRefusal("not this board", "the markers do not lie where this board has them")
    reg = Registration(H, 0.0, centre, norm, ids, 0.0, 0.0, int(inliers.sum()))
    keep = inliers.ravel().astype(bool)
    if len(ids) >= 3:
        reg = _fit_with_distortion(reg, src[keep], dst[keep])
    err = _errors_mm(reg, src[keep], dst[keep])
    reg.error_mm_rms = float(np.sqrt((err ** 2).mean()))
    reg.error_mm_max = float(err.max())
    # markers whose corners are far off are not this board's layout
    if reg.error_mm_rms > 3.0:
        raise VisionRefusal("not this board", f"the markers do not fit this board's layout "
                            f"(reprojection error {reg.error_mm_rms:.1f} mm)")
    _check_geometry(reg, box, gray.shape)
    reg.src, reg.dst = src[keep], dst[keep]
    return reg


def _errors_mm(reg: Registration, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Per-corner error, converted to mm with the local scale."""
    proj = reg.to_photo(src)
    px = np.linalg.norm(proj - dst, axis=1)
    scale = np.linalg.norm(reg.to_photo(src + [1.0, 0.0]) - proj, axis=1)
    return px / np.maximum(scale, 1e-9)


def _project(params: np.ndarray, src: np.ndarray, centre, norm: float) -> np.ndarray:
    """Board mm (n, 2) -> photo pixels (P, n, 2) for P parameter rows (8 homography terms, h22 = 1,
    and the radial term): :meth:`Registration.to_photo` for many registrations in one numpy pass."""
    q = np.asarray(params, np.float64).reshape(-1, 9)
    x, y = src[:, 0], src[:, 1]
    col = [q[:, j, None] for j in range(9)]
    w = col[6] * x + col[7] * y + 1.0
    u = (col[0] * x + col[1] * y + col[2]) / w
    v = (col[3] * x + col[4] * y + col[5]) / w
    cx, cy = centre
    du, dv = (u - cx) / norm, (v - cy) / norm
    f = 1 + col[8] * (du * du + dv * dv)
    return np.stack([cx + (u - cx) * f, cy + (v - cy) * f], axis=-1)


def _fit_with_distortion(reg: Registration, src: np.ndarray, dst: np.ndarray) -> Registration:
    """Gauss-Newton on the 8 homography parameters and the radial term (starting from ``reg``'s).

    The Jacobian is taken by forward differences, all nine perturbed parameter sets projected in one
    pass (:func:`_project`): some 20 times quicker than one :meth:`Registration.to_photo` each.
    """
    p = np.r_[(reg.H / reg.H[2, 2]).ravel()[:8], reg.k]
    src = np.asarray(src, np.float64)
    target = np.asarray(dst, np.float64).ravel()
    scales = np.r_[np.abs(p[:8]) * 1e-6 + 1e-9, 1e-6]
    for _ in range(8):
        rows = _project(np.vstack([p, p + np.diag(scales)]), src, reg.centre, reg.norm).reshape(10, -1) - target
        r0 = rows[0]
        J = ((rows[1:] - r0) / scales[:, None]).T
        try:
            step = np.linalg.lstsq(J, -r0, rcond=None)[0]
        except np.linalg.LinAlgError:
            break
        if not np.all(np.isfinite(step)):
            break
        p = p + step
        if np.abs(step[8]) < 1e-7:
            break
    if not np.all(np.isfinite(p)) or abs(p[8]) > 0.5:
        return reg
    out = Registration(np.r_[p[:8], 1.0].reshape(3, 3), float(p[8]), reg.centre, reg.norm, reg.markers_seen,
                       0, 0, reg.corners_used)
    fitted = _project(p, src, reg.centre, reg.norm).ravel() - target
    if np.abs(fitted).mean() > np.abs((reg.to_photo(src) - dst).ravel()).mean():
        return reg
    return out


def _check_geometry(reg: Registration, box, shape) -> None:
    """The board's outline must map to a sane, convex, non-degenerate shape."""
    corners = np.array([[0, 0], [box.width, 0], [box.width, box.height], [0, box.height]], float)
    q = reg.to_photo(corners)
    if not np.all(np.isfinite(q)):
        raise VisionRefusal("not this board", "the markers give an impossible view of the board")
    area = cv2.contourArea(q.astype(np.float32))
    if area < 0.01 * shape[0] * shape[1] or not cv2.isContourConvex(q.astype(np.float32).reshape(-1, 1, 2)):
        raise VisionRefusal("not this board", "the markers give an impossible view of the board")


#: board_maps computes the mapping exactly every this many board-plane pixels and interpolates
#: between (bilinear): the mapping is smooth (a homography and a gentle lens term), the error stays
#: under 0.01 px, and it is some 30 times quicker than every pixel exactly
MAP_STEP = 8


def board_maps(reg: Registration, x0: float, y0: float, x1: float, y1: float, ppm: float):
    """cv2.remap maps sampling the photo at the board-plane pixel grid over [x0, x1] x [y0, y1] mm."""
    w = int(round((x1 - x0) * ppm))
    h = int(round((y1 - y0) * ppm))
    step = MAP_STEP
    if min(w, h) < 4 * step:
        xs = x0 + (np.arange(w, dtype=np.float64) + 0.5) / ppm
        ys = y0 + (np.arange(h, dtype=np.float64) + 0.5) / ppm
        return grid_maps(reg, xs, ys)
    # exact samples at pixels k * step + (step - 1) / 2 (one more beyond each edge), which is where
    # cv2.resize by a factor of ``step`` puts its source pixels; then crop the extra off
    kx = np.arange(-1, -(-w // step) + 1)
    ky = np.arange(-1, -(-h // step) + 1)
    xs = x0 + (kx * step + (step - 1) / 2 + 0.5) / ppm
    ys = y0 + (ky * step + (step - 1) / 2 + 0.5) / ppm
    u, v = grid_maps(reg, xs, ys)
    size = (len(kx) * step, len(ky) * step)
    u = cv2.resize(u, size, interpolation=cv2.INTER_LINEAR)[step:step + h, step:step + w]
    v = cv2.resize(v, size, interpolation=cv2.INTER_LINEAR)[step:step + h, step:step + w]
    return np.ascontiguousarray(u), np.ascontiguousarray(v)


def grid_maps(reg: Registration, xs_mm: np.ndarray, ys_mm: np.ndarray):
    """cv2.remap maps sampling the photo at the board points (x, y) for every x in ``xs_mm``, y in ``ys_mm``."""
    # float32 throughout (memory); rows and columns enter linearly, so broadcast them
    xs = np.asarray(xs_mm, np.float64).astype(np.float32)[None, :]
    ys = np.asarray(ys_mm, np.float64).astype(np.float32)[:, None]
    H = reg.H.astype(np.float32)
    den = H[2, 0] * xs + H[2, 1] * ys + H[2, 2]
    u = (H[0, 0] * xs + H[0, 1] * ys + H[0, 2]) / den
    v = (H[1, 0] * xs + H[1, 1] * ys + H[1, 2]) / den
    del den
    if reg.k != 0.0:
        cx, cy = reg.centre
        du, dv = (u - cx) / reg.norm, (v - cy) / reg.norm
        f = 1 + reg.k * (du * du + dv * dv)
        u = cx + (u - cx) * f
        v = cy + (v - cy) * f
    return u.astype(np.float32, copy=False), v.astype(np.float32, copy=False)


def warp_to_board(photo: np.ndarray, reg: Registration, x0: float, y0: float, x1: float, y1: float,
                  ppm: float) -> tuple[np.ndarray, np.ndarray]:
    """The photo resampled on the board plane, and a mask of where the photo had pixels."""
    mx, my = board_maps(reg, x0, y0, x1, y1, ppm)
    out = cv2.remap(photo, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    h, w = photo.shape[:2]
    valid = (mx >= 0) & (mx <= w - 1) & (my >= 0) & (my <= h - 1)
    return out, valid
