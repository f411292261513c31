"""Refining the registration on the printed hex grid itself.

The markers sit in the board's corners, far from the loch, and their corners are found to a few
tenths of a pixel.  With four markers, extrapolated to the middle of the board that is up to a
millimetre; with only two (say both on the left) the marker corners hardly fix the perspective at
all and the far end of the loch can be off by several centimetres.  The hex lines are printed
exactly where the decisions are made, so the loch is cut into tiles, and each tile of the photo
(resampled on the board plane with the current registration) is matched against the same tile of
the drawn board by phase correlation of their edges.  Each tile's shift gives one more
correspondence; the homography and the lens term are fitted again to the marker corners and these.

Two kinds of pass (``PASSES``):

* coarse, only when fewer than three markers are seen: tall tiles that take in both shores.  The
  hex lattice repeats every 15 mm, which makes a small tile's shift ambiguous beyond 7.5 mm; the
  shore does not repeat, so a tile holding it gives the true shift up to a few centimetres.
* fine: the loch's middle in small tiles at a higher resolution, shifts up to ``6`` mm trusted;
  repeated once when the first fine pass still moved the grid by more than ``SETTLED_MM``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from . import coverage as cov
from .registration import Registration, _errors_mm, _fit_with_distortion, warp_to_board


@dataclass(frozen=True)
class Pass:
    ppm: float  # board-plane resolution of the match
    tile_mm: float
    max_shift_mm: float  # larger shifts are not trusted
    min_tiles: int  # fewer tiles agreeing: the pass changes nothing
    rows: tuple[float, ...]  # tile rows, as offsets of their centres from the loch's middle (mm)
    ransac_mm: float  # a tile further than this from the fitted homography is an outlier


COARSE = Pass(1.5, 112.0, 30.0, 6, (0.0,), 2.0)
FINE = Pass(3.0, 48.0, 6.0, 20, (-24.0, 24.0), 1.0)
MIN_RESPONSE = 0.03
MAX_MARKER_RMS_MM = 0.8  # the refined fit must still agree with the markers this well
SETTLED_MM = 0.5  # a fine pass whose median tile moved less than this needs no second look
# kept for callers that read the old names
PPM, TILE_MM, MAX_SHIFT_MM, MIN_TILES = FINE.ppm, FINE.tile_mm, FINE.max_shift_mm, FINE.min_tiles


def _edges(img: np.ndarray) -> np.ndarray:
    g = cv2.GaussianBlur(img, (0, 0), 0.8)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    return cv2.magnitude(gx, gy)


_REF_CACHE: dict = {}


def _reference(box, lay, ppm: float) -> np.ndarray:
    """Edges of the drawn board (no tracks: they lie outside the loch) at ``ppm``, cached."""
    key = (box.digest, ppm)
    if key not in _REF_CACHE:
        from . import boardart

        w = int(round((lay.x1 - lay.x0) * ppm))
        h = int(round((lay.y1 - lay.y0) * ppm))
        img = np.zeros((h, w, 3), np.float32)
        boardart.draw_board(img, box, boardart.plane_mapper(ppm, lay.x0, lay.y0), tracks=False)
        gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
        _REF_CACHE[key] = _edges(cv2.GaussianBlur(gray, (0, 0), 0.2 * ppm))
    return _REF_CACHE[key]


def _tile_matches(reg: Registration, gray: np.ndarray, box, p: Pass) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(board mm, photo px, shift mm) for each tile whose match is trusted."""
    lay = cov.layout(box)
    ref = _reference(box, lay, p.ppm)
    warped, valid = warp_to_board(gray, reg, lay.x0, lay.y0, lay.x1, lay.y1, p.ppm)
    photo = _edges(warped.astype(np.float32) * (1 / 255.0))
    photo[~valid] = 0
    h, w = ref.shape
    th = min(int(p.tile_mm * p.ppm), h)  # tiles no taller than the loch's strip
    tw = int(p.tile_mm * p.ppm)
    win = cv2.createHanningWindow((tw, th), cv2.CV_32F)
    shore = np.asarray(box.loch.shore_outline, float)
    mid = (shore[:, 1].min() + shore[:, 1].max()) / 2
    src, dst, shifts = [], [], []
    for row in p.rows:
        y = max(0, min(h - th, int((mid + row - lay.y0) * p.ppm) - th // 2))
        for x in range(0, w - tw + 1, tw // 2):
            a, b = ref[y:y + th, x:x + tw], photo[y:y + th, x:x + tw]
            if valid[y:y + th, x:x + tw].mean() < 0.95 or a.std() < 1e-3 or b.std() < 1e-3:
                continue
            # copies: phaseCorrelate may write into non-contiguous inputs
            (dx, dy), resp = cv2.phaseCorrelate(a.copy(), b.copy(), win)
            if resp < MIN_RESPONSE or np.hypot(dx, dy) > p.max_shift_mm * p.ppm:
                continue
            # the photo shows at board point c what the board has at c - shift
            cx, cy = lay.x0 + (x + tw / 2) / p.ppm, lay.y0 + (y + th / 2) / p.ppm
            src.append((cx - dx / p.ppm, cy - dy / p.ppm))
            dst.append(reg.to_photo(np.array([[cx, cy]]))[0])
            shifts.append(np.hypot(dx, dy) / p.ppm)
    return np.array(src, float).reshape(-1, 2), np.array(dst, float).reshape(-1, 2), np.array(shifts)


def _fit(reg: Registration, marker_src, marker_dst, src, dst, p: Pass) -> Registration | None:
    """Homography and lens term on the markers' corners and the tiles, or None if they disagree."""
    all_src = np.vstack([marker_src, src])
    all_dst = np.vstack([marker_dst, dst])
    if p is COARSE:
        # the markers' registration may be centimetres off: start again from a robust homography;
        # the lens term found so far taken out first, so that a plain homography fits closely
        c = all_src.mean(0, keepdims=True)
        px_per_mm = float(np.linalg.norm(reg.to_photo(c + [1.0, 0.0]) - reg.to_photo(c)))
        H, inl = cv2.findHomography(all_src, reg.undistort(all_dst), cv2.RANSAC, max(2.0, p.ransac_mm * px_per_mm))
        if H is None:
            return None
        keep = inl.ravel().astype(bool)
        start = Registration(H, reg.k, reg.centre, reg.norm, reg.markers_seen, 0.0, 0.0, reg.corners_used)
    else:
        # already close: RANSAC's few-point guesses would only let the many tiles (all in one thin
        # strip) outvote the markers; refit everything from here and trim the tiles that disagree
        keep = np.ones(len(all_src), bool)
        start = reg
    out = start
    for _ in range(3):
        out = _fit_with_distortion(start, all_src[keep], all_dst[keep])
        err = _errors_mm(out, all_src, all_dst)
        trimmed = err <= max(p.ransac_mm, 3.0 * float(np.median(err)))
        trimmed[:len(marker_src)] = keep[:len(marker_src)]  # the markers were vetted by register()
        if (trimmed == keep).all():
            break
        keep = trimmed
    grid_inliers = int(keep[len(marker_src):].sum())
    if grid_inliers < p.min_tiles:
        return None
    out = replace(out)  # the fit may hand back its start unchanged: never alter the caller's
    err = _errors_mm(out, marker_src, marker_dst)
    out.error_mm_rms = float(np.sqrt((err ** 2).mean()))
    out.error_mm_max = float(err.max())
    if out.error_mm_rms > MAX_MARKER_RMS_MM:  # the grid pulled away from the markers
        return None
    out.src, out.dst = marker_src, marker_dst
    out.grid_points = grid_inliers
    return out


def _pass(reg: Registration, gray: np.ndarray, box, p: Pass) -> tuple[Registration, float]:
    """One pass: the refined registration (or ``reg`` unchanged) and the tiles' median shift in mm."""
    src, dst, shifts = _tile_matches(reg, gray, box, p)
    if len(src) < p.min_tiles:
        return reg, 0.0
    out = _fit(reg, reg.src, reg.dst, src, dst, p)
    if out is None:
        return reg, 0.0
    return out, float(np.median(shifts))


def refine(reg: Registration, gray: np.ndarray, box) -> Registration:
    """A registration refined on the hex grid (``grid_points``: the fine tiles that agreed)."""
    if reg.src is None or not len(reg.src):
        return reg
    current = reg
    if len(reg.markers_seen) < 3:
        current, _ = _pass(current, gray, box, COARSE)
        current.grid_points = 0  # only fine tiles count as the grid's word
    refined, moved = _pass(current, gray, box, FINE)
    if refined is not current and moved > SETTLED_MM:
        again, _ = _pass(refined, gray, box, FINE)
        refined = again
    return refined if refined.grid_points >= FINE.min_tiles else reg
