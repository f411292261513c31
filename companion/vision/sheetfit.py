"""Which sheets lie on the loch: fit each expedition's equipment shapes to its colour.

For one expedition's colour mask on the board plane, every equipment outline is tried at every
turn (template matching over the plane, a fine local search after): a pose scores the pixels of
the colour it covers, less the plainly uncoloured, visible pixels it covers.  Parts of a sheet
outside the measured area (over land, out of view) cost nothing, so a sheet half off the loch still
fits.  The best shape and pose explain the blob; what is left over is fitted again (two of one's
own sheets overlapping, or side by side).

Pure numpy/OpenCV on masks; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .sheets import SheetPose, place

COARSE_PPM = 1.0
ANGLE_STEP = 6.0
MIN_SHEET_MM2 = 25.0


@dataclass
class FittedSheet:
    pose: SheetPose
    score: float  # fraction of the visible outline that shows the colour (1 = perfect)
    visible_mm2: float  # area of the outline inside the measured, seen part of the board

    def to_json(self) -> dict:
        return {**self.pose.to_json(), "fit": round(self.score, 3), "visible_mm2": round(self.visible_mm2, 1)}


def _raster(poly_px: np.ndarray, shape) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.round(poly_px * 16).astype(np.int32)], 1, lineType=cv2.LINE_8, shift=4)
    return m


def _template(shape_mm, angle: float, ppm: float):
    """The outline rasterised at an angle: (mask, offset of the pose origin in the mask, in px)."""
    poly = place(shape_mm, 0.0, 0.0, angle) * ppm
    lo = np.floor(poly.min(0)) - 1
    hi = np.ceil(poly.max(0)) + 2
    size = (hi - lo).astype(int)
    m = _raster(poly - lo - 0.5, (size[1], size[0]))
    return m.astype(np.float32), -lo


def fit_expedition(box, expedition: str, colour: np.ndarray, seen: np.ndarray, x0: float, y0: float,
                   ppm: float, candidates=None, max_sheets: int = 12) -> list[FittedSheet]:
    """Fit sheets to one expedition's colour mask (bool, on a grid at ``ppm`` from (x0, y0) mm)."""
    types = candidates or list(box.equipment)
    # printed lines (not plain paper) split a sheet's colour into cells: bridge them
    k = int(round(3.5 * ppm)) | 1
    closed = cv2.morphologyEx(colour.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8)) > 0
    colour = colour | (closed & ~seen)
    # coarse grid
    f = COARSE_PPM / ppm
    h, w = colour.shape
    cw, ch = max(1, int(round(w * f))), max(1, int(round(h * f)))
    C = cv2.resize(colour.astype(np.float32), (cw, ch), interpolation=cv2.INTER_AREA)
    S = cv2.resize(seen.astype(np.float32), (cw, ch), interpolation=cv2.INTER_AREA)
    remaining = colour.copy()
    out: list[FittedSheet] = []
    min_px = MIN_SHEET_MM2 * ppm * ppm
    for _ in range(max_sheets):
        n, labels, stats, _c = cv2.connectedComponentsWithStats(remaining.astype(np.uint8), connectivity=8)
        if n <= 1:
            break
        k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        if stats[k, cv2.CC_STAT_AREA] < min_px:
            break
        blob = labels == k
        Cr = cv2.resize(blob.astype(np.float32), (cw, ch), interpolation=cv2.INTER_AREA)
        best = _coarse(box, types, Cr, C, S, x0, y0, COARSE_PPM)
        if best is None:
            remaining &= ~blob
            continue
        eq, x, y, ang = best
        pose, score, visible = _refine(box, eq, x, y, ang, remaining & blob, colour, seen, x0, y0, ppm)
        poly = (place(box.equipment[eq].shape, pose.x, pose.y, pose.angle_deg) - [x0, y0]) * ppm - 0.5
        explained = _raster(poly, colour.shape) > 0
        grow = int(round(1.0 * ppm)) * 2 + 1
        explained = cv2.dilate(explained.astype(np.uint8), np.ones((grow, grow), np.uint8)) > 0
        before = remaining.sum()
        remaining &= ~explained
        if (blob & explained).sum() < 0.5 * (blob.sum()):
            remaining &= ~blob
        if score > 0.6 and visible >= MIN_SHEET_MM2:
            out.append(FittedSheet(SheetPose(expedition, eq, pose.x, pose.y, pose.angle_deg), score, visible))
        else:
            remaining &= ~blob
        if remaining.sum() >= before:
            remaining &= ~blob
    return out


def _coarse(box, types, Cr, C, S, x0, y0, ppm):
    """Best (equipment, x, y, angle) by template matching on the coarse grid."""
    # reward: the blob's colour; penalty: visible pixels with no colour of this expedition at all
    W = (2.0 * Cr - S * (1.0 - C)).astype(np.float32)
    ys, xs = np.nonzero(Cr > 0.25)
    if len(xs) == 0:
        return None
    bx0, bx1, by0, by1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    best = None
    for eq in types:
        shape = box.equipment[eq].shape
        for ang in np.arange(0.0, 360.0, ANGLE_STEP):
            T, off = _template(shape, float(ang), ppm)
            th, tw = T.shape
            # pad the search window so the template can sit anywhere over the blob
            px0, py0 = bx0 - tw, by0 - th
            pad = ((max(0, -py0), max(0, by1 + th - W.shape[0])), (max(0, -px0), max(0, bx1 + tw - W.shape[1])))
            Wp = np.pad(W, pad)
            sx0, sy0 = px0 + pad[1][0], py0 + pad[0][0]
            win = Wp[sy0:sy0 + (by1 - by0) + 2 * th, sx0:sx0 + (bx1 - bx0) + 2 * tw]
            if win.shape[0] < th or win.shape[1] < tw:
                continue
            res = cv2.matchTemplate(win, T, cv2.TM_CCORR)
            _, mx, _, loc = cv2.minMaxLoc(res)
            if best is None or mx > best[0]:
                # template top-left at window (loc) -> grid px -> origin
                gx = px0 + loc[0] + off[0]
                gy = py0 + loc[1] + off[1]
                best = (mx, eq, x0 + gx / ppm, y0 + gy / ppm, float(ang))
    if best is None or best[0] <= 0:
        return None
    return best[1:]


def _score(poly_px, blob, colour, seen):
    """(coloured - 2 x plainly uncoloured) pixels under the outline, and the visible count."""
    h, w = blob.shape
    x0, y0 = np.maximum(np.floor(poly_px.min(0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(poly_px.max(0)).astype(int) + 2, [w, h])
    if x1 <= x0 or y1 <= y0:
        return 0, 0, 0
    m = _raster(poly_px - [x0, y0], (y1 - y0, x1 - x0)) > 0
    blob, colour, seen = blob[y0:y1, x0:x1], colour[y0:y1, x0:x1], seen[y0:y1, x0:x1]
    vis = m & seen
    good = int((vis & blob).sum())
    bad = int((vis & ~colour).sum())
    return good - 2 * bad, int(vis.sum()), good


def _refine(box, eq, x, y, ang, blob, colour, seen, x0, y0, ppm):
    """Local search on the fine grid: pose maximising (coloured - uncoloured) / visible."""
    shape = box.equipment[eq].shape

    def ev(px, py, pa):
        poly = (place(shape, px, py, pa) - [x0, y0]) * ppm - 0.5
        return _score(poly, blob, colour, seen)

    cur = (x, y, ang)
    cur_s, cur_v, cur_g = ev(*cur)
    for step_xy, step_a in ((2.0, 4.0), (1.0, 2.0), (0.5, 1.0), (0.25, 0.5), (0.12, 0.25)):
        improved = True
        while improved:
            improved = False
            for d in ((step_xy, 0, 0), (-step_xy, 0, 0), (0, step_xy, 0), (0, -step_xy, 0),
                      (0, 0, step_a), (0, 0, -step_a)):
                cand = (cur[0] + d[0], cur[1] + d[1], cur[2] + d[2])
                s, v, g = ev(*cand)
                if s > cur_s:
                    cur, cur_s, cur_v, cur_g = cand, s, v, g
                    improved = True
    pose = SheetPose("", eq, round(cur[0], 3), round(cur[1], 3), round(cur[2] % 360.0, 3))
    return pose, float(cur_g / max(cur_v, 1)), cur_v / (ppm * ppm)
