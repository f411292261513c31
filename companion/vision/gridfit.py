"""Refining the registration on the printed hex grid itself.

The markers sit in the board's corners, far from the loch, and their corners are found to a few
tenths of a pixel: extrapolated to the middle of the board that is up to a millimetre or more.  The
hex lines are printed exactly where the decisions are made, so, once the markers have placed the
board to within a few millimetres, the loch is cut into tiles and each tile of the photo (resampled
on the board plane) is matched against the same tile of the drawn board by phase correlation of
their edges.  Each tile's shift gives one more correspondence; the homography and the lens term are
fitted again to the marker corners and these.  The hex lattice repeats every 15 mm or so, so shifts
larger than ``MAX_SHIFT_MM`` are not trusted.
"""

from __future__ import annotations

import cv2
import numpy as np

from . import coverage as cov
from .registration import Registration, _errors_mm, _fit_with_distortion, warp_to_board

PPM = 3.0
TILE_MM = 48.0
MAX_SHIFT_MM = 6.0
MIN_RESPONSE = 0.03
MAX_MARKER_RMS_MM = 0.8  # the refined fit must still agree with the markers this well
MIN_TILES = 20  # fewer tiles agreeing: keep the markers' registration


def _edges(img: np.ndarray) -> np.ndarray:
    g = cv2.GaussianBlur(img, (0, 0), 0.8)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    return cv2.magnitude(gx, gy)


_REF_CACHE: dict = {}


def _reference(box, lay) -> np.ndarray:
    key = (box.digest, PPM)
    if key not in _REF_CACHE:
        from . import boardart

        w = int(round((lay.x1 - lay.x0) * PPM))
        h = int(round((lay.y1 - lay.y0) * PPM))
        img = np.zeros((h, w, 3), np.float32)
        boardart.draw_board(img, box, boardart.plane_mapper(PPM, lay.x0, lay.y0), tracks=False)
        gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
        _REF_CACHE[key] = _edges(cv2.GaussianBlur(gray, (0, 0), 0.6))
    return _REF_CACHE[key]


def refine(reg: Registration, gray: np.ndarray, box) -> Registration:
    """A registration refined on the hex grid (``grid_points``: the tiles that agreed)."""
    marker_src, marker_dst = reg.src, reg.dst
    lay = cov.layout(box)
    ref = _reference(box, lay)
    warped, valid = warp_to_board(gray, reg, lay.x0, lay.y0, lay.x1, lay.y1, PPM)
    photo = _edges(warped.astype(np.float32) / 255.0)
    photo[~valid] = 0
    h, w = ref.shape
    t = int(TILE_MM * PPM)
    win = cv2.createHanningWindow((t, t), cv2.CV_32F)
    src, dst = [], []
    shore = np.asarray(box.loch.shore_outline, float)
    mid = (shore[:, 1].min() + shore[:, 1].max()) / 2
    ys = [int((mid + d - lay.y0) * PPM) - t // 2 for d in (-TILE_MM / 2, TILE_MM / 2)]
    for y in ys:
        y = max(0, min(h - t, y))
        for x in range(0, w - t + 1, t // 2):
            a, b = ref[y:y + t, x:x + t], photo[y:y + t, x:x + t]
            if valid[y:y + t, x:x + t].mean() < 0.95 or a.std() < 1e-3 or b.std() < 1e-3:
                continue
            # copies: phaseCorrelate may write into non-contiguous inputs
            (dx, dy), resp = cv2.phaseCorrelate(a.copy(), b.copy(), win)
            if resp < MIN_RESPONSE or np.hypot(dx, dy) > MAX_SHIFT_MM * PPM:
                continue
            # the photo shows at board point p what the board has at p - shift
            cx, cy = lay.x0 + (x + t / 2) / PPM, lay.y0 + (y + t / 2) / PPM
            src.append((cx - dx / PPM, cy - dy / PPM))
            dst.append(reg.to_photo(np.array([[cx, cy]]))[0])
    if len(src) < MIN_TILES:
        return reg
    src_a, dst_a = np.array(src, float), np.array(dst, float)
    if marker_src is not None and len(marker_src):
        all_src = np.vstack([marker_src, src_a])
        all_dst = np.vstack([marker_dst, dst_a])
    else:
        all_src, all_dst = src_a, dst_a
    H, inl = cv2.findHomography(all_src, all_dst, cv2.RANSAC, 3.0)
    if H is None:
        return reg
    keep = inl.ravel().astype(bool)
    base = Registration(H, 0.0, reg.centre, reg.norm, reg.markers_seen, 0.0, 0.0, reg.corners_used)
    out = _fit_with_distortion(base, all_src[keep], all_dst[keep])
    if marker_src is not None and len(marker_src):
        err = _errors_mm(out, marker_src, marker_dst)
        out.error_mm_rms = float(np.sqrt((err ** 2).mean()))
        out.error_mm_max = float(err.max())
        if out.error_mm_rms > MAX_MARKER_RMS_MM:  # the grid pulled away from the markers
            return reg
    else:
        out.error_mm_rms, out.error_mm_max = reg.error_mm_rms, reg.error_mm_max
    out.src, out.dst = reg.src, reg.dst
    out.grid_points = int(keep[len(all_src) - len(src_a):].sum())
    if out.grid_points < MIN_TILES:
        return reg
    return out
