"""Where might a sheet lie: template search over a blob of colour, then local refinement.

Take a blob of unexplained colour, try every shape at every turn over it (template matching on a
2 mm grid), refine the leading shapes on the fine grid (anti-aliased, so the score moves smoothly
with the pose).

Pure numpy/OpenCV on masks; no I/O.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from .sheetgrid import FitGrid, _period
from .sheets import place

COARSE_PPM = 0.5  # template search grid (2 mm pixels): cheap, and every shape still spans 5+ pixels
ANGLE_STEP = 6.0
COARSE_UNCOLOURED_COST = 1.0  # 2 mm pixels mix an edge with the paper beside it: a milder penalty there
LEAD_SHARE = 0.5  # shapes scoring this share of the coarse winner are refined before choosing
MAX_REFINED = 3  # ... at most this many
COARSE_TURN_KEEP = 3  # turns on the 2-step grid whose neighbours are matched too
SMALL_SHEET_MM = 15.0  # a sheet this small (centre to corner) has its turn searched in full on the fine grid

@lru_cache(maxsize=4096)
def _template(shape: tuple, angle: float, ppm: float):
    """The outline rasterised at an angle: (float mask, offset of the pose origin in the mask, in px)."""
    poly = place(shape, 0.0, 0.0, angle) * ppm
    lo = np.floor(poly.min(0)) - 1
    hi = np.ceil(poly.max(0)) + 2
    size = (hi - lo).astype(int)
    m = np.zeros((size[1], size[0]), np.uint8)
    cv2.fillPoly(m, [np.round((poly - lo - 0.5) * 16).astype(np.int32)], 1, shift=4)
    return m.astype(np.float32), -lo


def refine(grid: FitGrid, shape, x, y, ang):
    """Local search from a coarse pose: (x, y, angle, gain) at the best gain found.

    The sheet turns about its middle, not its point: a turn about the point would swing the
    far end by centimetres and pull the pose off the colour.
    """
    mid = np.asarray(shape, float).mean(0)

    mx, my = float(mid[0]), float(mid[1])

    def pose(cx, cy, a):
        # the origin, given where the middle is (``place`` of the middle, without the arrays)
        r = math.radians(a)
        c, s = math.cos(r), math.sin(r)
        return cx - (mx * c - my * s), cy - (mx * s + my * c), a

    seen: dict = {}

    def gain(cx, cy, a):
        # the descent asks again for poses it has scored (the step back after a move)
        key = (round(cx, 6), round(cy, 6), round(a, 6))
        if key not in seen:
            seen[key] = grid.gain(shape, *pose(cx, cy, a))
        return seen[key]

    c0 = place([mid], x, y, ang)[0]
    # the coarse angle is only good to its step; a small sheet's (a few coarse pixels) not at all
    radius = float(np.linalg.norm(np.asarray(shape, float) - mid, axis=1).max())
    span = _period(shape) / 2 if radius < SMALL_SHEET_MM else 1.5 * ANGLE_STEP
    angles = ang + np.arange(-span, span + 1e-9, 1.5)
    gains = [gain(c0[0], c0[1], a) for a in angles]
    cur = (float(c0[0]), float(c0[1]), float(angles[int(np.argmax(gains))]))
    best = max(gains)
    for step_xy, step_a in ((1.0, 3.0), (0.5, 1.5), (0.25, 0.75)):
        improved = True
        while improved:
            improved = False
            for d in ((step_xy, 0, 0), (-step_xy, 0, 0), (0, step_xy, 0), (0, -step_xy, 0),
                      (0, 0, step_a), (0, 0, -step_a)):
                cand = (cur[0] + d[0], cur[1] + d[1], cur[2] + d[2])
                g = gain(*cand)
                if g > best:
                    cur, best, improved = cand, g, True
    return (*pose(*cur), best)

def search(grid: FitGrid, shapes, bbox):
    """Template search over one blob on the coarse grid, then the leading shapes refined on the fine grid.

    Returns ({type: (gain, (x, y, angle))} of the refined shapes, the best type) or None.
    """
    kc = grid.coarse
    cppm = grid.ppm / kc
    bx, by, bw, bh = bbox
    # every placement of any template that overlaps the blob: the blob's box grown by the
    # largest template, in whole coarse pixels
    reach = _reach(shapes, cppm)
    cx0, cy0 = bx // kc - reach, by // kc - reach
    cx1, cy1 = -(-(bx + bw) // kc) + reach, -(-(by + bh) // kc) + reach
    # coarse pixels mix a sheet's edge with the paper round it: a milder penalty, or no small
    # shape would ever score; the fine grid judges with the full one
    fine = _crop_padded(grid.U, cx0 * kc, cy0 * kc, cx1 * kc, cy1 * kc) \
        - COARSE_UNCOLOURED_COST * _crop_padded(grid.B, cx0 * kc, cy0 * kc, cx1 * kc, cy1 * kc)
    W = grid.shrink(fine)
    coarse: dict = {}
    for eq, shape in shapes.items():
        period = _period(shape)
        angles = np.arange(0.0, period, ANGLE_STEP)
        tried: dict = {}

        def match(i: int) -> float:
            i %= len(angles)
            if i not in tried:
                ang = float(angles[i])
                T, off = _template(shape, ang, cppm)
                th, tw = T.shape
                # just the placements of this template that overlap the blob
                ox, oy = max(reach - tw + 1, 0), max(reach - th + 1, 0)
                res = cv2.matchTemplate(W[oy:W.shape[0] - oy, ox:W.shape[1] - ox], T, cv2.TM_CCORR)
                _, mx, _, loc = cv2.minMaxLoc(res)
                tried[i] = (mx, (grid.x0 + (cx0 + ox + loc[0] + off[0]) / cppm,
                                 grid.y0 + (cy0 + oy + loc[1] + off[1]) / cppm, ang))
            return tried[i][0]

        # every other turn first, then both neighbours of the best few: a template's match moves
        # smoothly with its turn (one step swings a sheet's tip by under a coarse pixel), so the
        # best turn lies beside one of the best sampled ones
        if len(angles) > 2 * COARSE_TURN_KEEP + 2:
            sampled = range(0, len(angles), 2)
            for i in sorted(sampled, key=lambda i: -match(i))[:COARSE_TURN_KEEP]:
                match(i - 1), match(i + 1)
        else:
            for i in range(len(angles)):
                match(i)
        coarse[eq] = max(tried.values(), key=lambda v: v[0])
    if not coarse:
        return None
    top = max(v[0] for v in coarse.values())
    if top <= 0:
        return None
    leaders = sorted((t for t in coarse if coarse[t][0] >= LEAD_SHARE * top), key=lambda t: -coarse[t][0])
    refined = {}
    for t in leaders[:MAX_REFINED]:
        x, y, a, g = refine(grid, shapes[t], *coarse[t][1])
        refined[t] = (g, (x, y, a))
    return refined, max(refined, key=lambda t: refined[t][0])


@lru_cache(maxsize=16)
def _reach_cached(shapes_key: tuple, cppm: float) -> int:
    span = max(float(np.linalg.norm(np.asarray(sh)[:, None] - np.asarray(sh)[None], axis=-1).max())
               for sh in shapes_key)
    return int(np.ceil(span * cppm)) + 3  # a template's box is at most its longest chord, plus its margin


def _reach(shapes: dict, cppm: float) -> int:
    """How far (coarse pixels) a template overlapping the blob can reach beyond it."""
    return _reach_cached(tuple(shapes.values()), cppm)


def _crop_padded(a: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """``a[y0:y1, x0:x1]`` with zeros where the range leaves the array."""
    h, w = a.shape
    out = np.zeros((y1 - y0, x1 - x0), a.dtype)
    sx0, sy0, sx1, sy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if sx1 > sx0 and sy1 > sy0:
        out[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = a[sy0:sy1, sx0:sx1]
    return out
