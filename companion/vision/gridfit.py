"""Refining the registration on the printed hex grid itself.

The markers sit in the board's corners, far from the loch, and their corners are found to a few
tenths of a pixel.  With four markers, extrapolated to the middle of the board that is up to a
millimetre; with only two (say both on the left) the marker corners hardly fix the perspective at
all and the far end of the loch can be off by several centimetres.  The hex lines are printed
exactly where the decisions are made, so the loch is cut into tiles, and each tile of the photo
(resampled on the board plane with the current registration) is matched against the same tile of
the drawn board by phase correlation of their edges.  Each tile's shift gives one more
correspondence; the homography and the lens term are fitted again to the marker corners and these.

Two kinds of pass:

* coarse, only when fewer than three markers are seen: large tiles at a low resolution, shifts up
  to 30 mm tried.  The hex lattice repeats every 15 mm, so a tile may lock on a neighbouring hex;
  RANSAC over the tiles and the markers throws those out while most tiles are right, which holds
  when the first guess is within about 10 mm.
* fine: the loch's middle in small tiles, shifts up to 6 mm trusted; repeated once when the first
  fine pass still moved the grid by more than ``SETTLED_MM``.

Two markers get several first guesses, tried in turn (:func:`_two_marker_starts`): the best real
camera for their corners (pinhole.py), their plain homography, and both again on each marker
aligned on all its edges (markerfit.py).  A guess that leads a hex astray over part of the loch
agrees with fewer tiles and sits further from the markers than the true fit (``SURE_TILES``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from . import coverage as cov
from .markerfit import marker_points
from .pinhole import camera_homography
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
# 2 px/mm matches a 1600x1200 photo of the board: 3 px/mm was no more accurate and twice the work
FINE = Pass(2.0, 48.0, 6.0, 20, (-24.0, 24.0), 1.0)
MIN_RESPONSE = 0.03
MAX_MARKER_RMS_MM = 0.8  # the refined fit must still agree with the markers this well
#: a two-marker fit is beyond doubt with this many fine tiles (of about 60 over the whole loch)
#: agreeing and the markers this close; measured: right fits 55-60 tiles and 0.05-0.2 mm, fits a
#: hex astray 31 tiles and 0.7 mm
SURE_TILES, SURE_MARKER_RMS_MM = 50, 0.3
SETTLED_MM = 0.5  # a fine pass whose median tile moved less than this needs no second look


def _edges(img: np.ndarray) -> np.ndarray:
    g = cv2.GaussianBlur(img, (0, 0), 0.8)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    # the root in numpy, exact: cv2.magnitude rounds about a third of its pixels an ulp off, which
    # ones depending on where its output lies in memory, and through the tiles' phase correlation
    # that moved the refined homography's last digits and so coverage's decisions with the heap
    np.multiply(gx, gx, out=gx)
    np.multiply(gy, gy, out=gy)
    return np.sqrt(np.add(gx, gy, out=gx), out=gx)


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


_FLAT_CACHE: dict = {}


def _flat_reference(box, p: Pass, top: int, x: int) -> bool:
    """Whether the drawn board's tile at (top, x) has no edges to match (the drawing never changes: cached)."""
    key = (box.digest, p, top, x)
    if key not in _FLAT_CACHE:
        lay = cov.layout(box)
        ref = _reference(box, lay, p.ppm)
        th, tw = min(int(p.tile_mm * p.ppm), ref.shape[0]), int(p.tile_mm * p.ppm)
        _FLAT_CACHE[key] = cv2.meanStdDev(ref[top:top + th, x:x + tw])[1][0, 0] < 1e-3
    return _FLAT_CACHE[key]


def _tile_matches(reg: Registration, gray: np.ndarray, box, p: Pass) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(board mm, photo px, shift mm) for each tile whose match is trusted."""
    lay = cov.layout(box)
    ref = _reference(box, lay, p.ppm)
    h, w = ref.shape
    th = min(int(p.tile_mm * p.ppm), h)  # tiles no taller than the loch's strip
    tw = int(p.tile_mm * p.ppm)
    shore = np.asarray(box.loch.shore_outline, float)
    mid = (shore[:, 1].min() + shore[:, 1].max()) / 2
    tops = [max(0, min(h - th, int((mid + row - lay.y0) * p.ppm) - th // 2)) for row in p.rows]
    # only the rows the tiles use are resampled
    y0, y1 = min(tops), max(tops) + th
    ref = ref[y0:y1]
    warped, valid = warp_to_board(gray, reg, lay.x0, lay.y0 + y0 / p.ppm, lay.x1, lay.y0 + y1 / p.ppm, p.ppm)
    photo = _edges(warped.astype(np.float32) * (1 / 255.0))
    photo[~valid] = 0
    win = cv2.createHanningWindow((tw, th), cv2.CV_32F)
    # pixels of each tile inside the photo, from one summed-area table instead of a mean per tile
    inside = cv2.integral(valid.view(np.uint8))
    min_inside = 0.95 * th * tw
    centres, shifts_px = [], []
    for top in tops:
        y = top - y0
        for x in range(0, w - tw + 1, tw // 2):
            a, b = ref[y:y + th, x:x + tw], photo[y:y + th, x:x + tw]
            if inside[y + th, x + tw] - inside[y, x + tw] - inside[y + th, x] + inside[y, x] < min_inside \
                    or _flat_reference(box, p, top, x) or cv2.meanStdDev(b)[1][0, 0] < 1e-3:
                continue
            # copies: phaseCorrelate may write into non-contiguous inputs
            (dx, dy), resp = cv2.phaseCorrelate(a.copy(), b.copy(), win)
            if resp < MIN_RESPONSE or np.hypot(dx, dy) > p.max_shift_mm * p.ppm:
                continue
            centres.append((lay.x0 + (x + tw / 2) / p.ppm, lay.y0 + (top + th / 2) / p.ppm))
            shifts_px.append((dx, dy))
    if not centres:
        return np.empty((0, 2)), np.empty((0, 2)), np.empty(0)
    centres_a, shift_mm = np.array(centres), np.array(shifts_px) / p.ppm
    # the photo shows at board point c what the board has at c - shift
    return centres_a - shift_mm, reg.to_photo(centres_a), np.hypot(*shift_mm.T)


def _fit(reg: Registration, marker_src, marker_dst, src, dst, p: Pass) -> Registration | None:
    """Homography and lens term on the markers' corners and the tiles, or None if they disagree."""
    all_src = np.vstack([marker_src, src])
    all_dst = np.vstack([marker_dst, dst])
    # already close: RANSAC's few-point guesses would only let the many tiles (all in one thin
    # strip) outvote the markers; refit everything from here and trim the tiles that disagree
    starts = [(reg, np.ones(len(all_src), bool))]
    if p is COARSE:
        # the markers' registration may be centimetres off: first a robust homography; the lens
        # term found so far taken out first, so that a plain homography fits closely
        c = all_src.mean(0, keepdims=True)
        px_per_mm = float(np.linalg.norm(reg.to_photo(c + [1.0, 0.0]) - reg.to_photo(c)))
        H, inl = cv2.findHomography(all_src, reg.undistort(all_dst), cv2.RANSAC, max(2.0, p.ransac_mm * px_per_mm))
        if H is not None:
            ransac = Registration(H, reg.k, reg.centre, reg.norm, reg.markers_seen, 0.0, 0.0, reg.corners_used)
            starts.insert(0, (ransac, inl.ravel().astype(bool)))
    for start, keep in starts:
        out = _trimmed_fit(start, all_src, all_dst, keep, len(marker_src), p)
        if out is not None:
            return out
    return None


def _trimmed_fit(start: Registration, all_src, all_dst, keep, n_markers: int, p: Pass) -> Registration | None:
    out = start
    for _ in range(3):
        out = _fit_with_distortion(start, all_src[keep], all_dst[keep])
        err = _errors_mm(out, all_src, all_dst)
        trimmed = err <= max(p.ransac_mm, 3.0 * float(np.median(err)))
        trimmed[:n_markers] = keep[:n_markers]  # the markers were vetted by register()
        if (trimmed == keep).all():
            break
        keep = trimmed
    grid_inliers = int(keep[n_markers:].sum())
    if grid_inliers < p.min_tiles:
        return None
    out = replace(out)  # the fit may hand back its start unchanged: never alter the caller's
    marker_src, marker_dst = all_src[:n_markers], all_dst[:n_markers]
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


def _refine_from(start: Registration, gray: np.ndarray, box, coarse: bool) -> Registration | None:
    current = start
    if coarse:
        current, _ = _pass(current, gray, box, COARSE)
        current.grid_points = 0  # only fine tiles count as the grid's word
    refined, moved = _pass(current, gray, box, FINE)
    if refined is not current and moved > SETTLED_MM:
        refined, _ = _pass(refined, gray, box, FINE)
    return refined if refined.grid_points >= FINE.min_tiles else None


def refine(reg: Registration, gray: np.ndarray, box) -> Registration:
    """A registration refined on the hex grid (``grid_points``: the fine tiles that agreed)."""
    if reg.src is None or not len(reg.src):
        return reg
    if len(reg.markers_seen) >= 3:
        return _refine_from(reg, gray, box, coarse=False) or reg
    # a start far off can lock the grid a whole hex (15 mm) astray over part of the loch and still
    # pass; the true fit agrees with more tiles and hugs the markers closer: keep looking until one
    # is beyond doubt, else take the best
    best = None
    for start in _two_marker_starts(reg, gray, box):
        out = _refine_from(start, gray, box, coarse=True)
        if out is None:
            continue
        if out.grid_points >= SURE_TILES and out.error_mm_rms <= SURE_MARKER_RMS_MM:
            return out
        if best is None or (out.grid_points, -out.error_mm_rms) > (best.grid_points, -best.error_mm_rms):
            best = out
    return best or reg


def _two_marker_starts(reg: Registration, gray: np.ndarray, box):
    """First guesses for two markers, cheapest first (generated lazily: most photos need one).

    The best-fitting real camera and the markers' own homography on their corners; then both again
    on points over each marker aligned on all its edges (markerfit.py).
    """
    H = camera_homography(reg.src, reg.dst, gray.shape)
    if H is not None:
        yield replace(reg, H=H, k=0.0)
    yield reg
    found = _marker_corners(reg, box)
    if sorted(found) != sorted(reg.markers_seen):  # one marker alone would let the lattice slip
        return
    points = marker_points(gray, box, found)
    if points is None:
        return
    src, dst = points
    H, _ = cv2.findHomography(src, dst, 0)
    if H is not None:
        yield replace(reg, H=H, k=0.0, src=src, dst=dst)
    H = camera_homography(src, dst, gray.shape)
    if H is not None:
        yield replace(reg, H=H, k=0.0, src=src, dst=dst)


def _marker_corners(reg: Registration, box) -> dict[int, np.ndarray]:
    """The detected corners of each marker whose four corners all served the registration."""
    out = {}
    for m in box.markers:
        rows = [np.flatnonzero(np.all(np.isclose(reg.src, c), axis=1)) for c in m.corners]
        if all(len(r) == 1 for r in rows):
            out[m.id] = reg.dst[[r[0] for r in rows]]
    return out
