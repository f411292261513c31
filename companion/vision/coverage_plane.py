"""The plane judged coarse, the printed lines and the hexes' decisions fine.

Most of coverage's work -- the light, the colour match, glare, shade and hands, the colour rules --
reads areas millimetres to tens of millimetres across, and a 12 MP photo has about 2.3 px per board
mm (decoded at 2000 x 1500: 1.5), so it is judged on a grid PLANE_STEP times coarser than the work
grid (1.5 px/mm), the photo area-averaged onto it from the work grid's warp.  What turns on a
millimetre stays on the work grid (3 px/mm): the printed lines are 0.8 mm wide and whether a
sheet's colour reaches onto them is read pixel by pixel from the photo there (coverage_lines.py),
and a hex's region, its rim and its skirt are counted in work pixels (coverage_rim.py).  The colour
judged coarse is handed to the work grid on its plain paper: each work pixel takes the colours of
the coarse pixel it lies in, and one whose coarse pixel is a printed line's (the coarse grid's
lines are wider) takes the colours of the coarse paper beside that line pixel, so a colour running
up to a line still reaches its margin on the work grid.
"""

from __future__ import annotations

import cv2
import numpy as np

from .colourmasks import EXPEDITIONS
from .coverage_layout import Layout
from .maskparts import _bbox
from .transmission import packed_bins

# The coarse grid: every PLANE_STEP-th work pixel's area (1.5 px/mm from the work grid's 3): the
# 12 MP photo's own resolution as decoded.
PLANE_STEP = 2
COARSE_MIN_PPM = 1.5  # no coarser than this (the 12 MP photo's own px per mm)
# The band round the coarse colour's edges re-judged on the work grid (work pixels each side): a
# coarse pixel, as far as the coarse grid can misplace an edge.
EDGE_PX = 2
_NEAR = np.ones((3, 3), np.uint8)


def plane_step(ppm: float) -> int:
    """How many work pixels (each way) a coarse pixel stands for on a work grid of ``ppm``: 1 (no
    coarse grid) when that grid is already as coarse as the photo's."""
    return PLANE_STEP if ppm / PLANE_STEP >= COARSE_MIN_PPM - 1e-9 else 1


def coarser(image: np.ndarray, valid: np.ndarray | None, shape: tuple[int, int]) -> tuple:
    """A work-grid image averaged over each coarse pixel, and the coarse pixels wholly in ``valid``."""
    h, w = shape
    small = cv2.resize(image[:2 * h, :2 * w], (w, h), interpolation=cv2.INTER_AREA)
    if valid is None:
        return small, None
    v = valid[:2 * h, :2 * w]
    seen = v[0::2, 0::2] & v[0::2, 1::2] & v[1::2, 0::2] & v[1::2, 1::2]
    return small, np.ascontiguousarray(seen)


def up2(m: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """A coarse bool mask on the work grid (each work pixel takes its coarse pixel's value)."""
    h, w = shape
    big = cv2.resize(m.view(np.uint8), (m.shape[1] * PLANE_STEP, m.shape[0] * PLANE_STEP),
                     interpolation=cv2.INTER_NEAREST_EXACT)
    return np.ascontiguousarray(big[:h, :w]).view(bool)


def onto_fine(m: np.ndarray, coarse: Layout, fine: Layout) -> np.ndarray:
    """Colour on the coarse grid's plain paper (``m``) -> on the work grid's plain paper: a coarse
    line pixel beside the colour lends it to its work pixels that are paper (the margin by a line)."""
    u8 = m.view(np.uint8)
    beside = cv2.bitwise_and(cv2.dilate(u8, _NEAR), cv2.bitwise_not(coarse.flat.view(np.uint8)))
    ext = cv2.bitwise_or(u8, cv2.bitwise_and(beside, 1))
    return up2(ext.view(bool), fine.shape) & fine.flat


def finer_pixels(part_of: tuple, step: int) -> tuple:
    """colour pixels listed on the coarse grid (ys, xs, which) -> the same on the work grid."""
    ys, xs, which = part_of
    oy, ox = np.divmod(np.arange(step * step), step)
    fy = (ys[None, :] * step + oy[:, None]).ravel()
    fx = (xs[None, :] * step + ox[:, None]).ravel()
    fw = np.tile(which, step * step) if np.ndim(which) else which
    return fy, fx, fw


def refined(colour: dict, L: np.ndarray, tab, seen_flat: np.ndarray, dark_below: float) -> dict:
    """Each expedition's colour on the work grid (``colour``: the coarse grid's, onto_fine) with its
    edges placed by the work grid's own colour match: within EDGE_PX of the coarse colour's edge a
    seen pixel has the colour when the match finds it there (``L``: the work grid's
    log-transmission, ``tab``: the colour table), elsewhere it keeps the coarse grid's answer.  Only
    the pixels of those bands are matched, each expedition's in the box round its colour."""
    k = np.ones((2 * EDGE_PX + 1,) * 2, np.uint8)
    out = dict(colour)
    for i, e in enumerate(EXPEDITIONS):
        m = colour.get(e)
        b = None if m is None else _bbox(m.view(np.uint8), EDGE_PX + 1)
        if b is None:
            continue
        sl = np.s_[b[0]:b[1], b[2]:b[3]]
        u8 = m[sl].view(np.uint8)
        band = cv2.compare(cv2.dilate(u8, k), cv2.erode(u8, k), cv2.CMP_NE)  # 0 / 255
        new = m.copy()
        new[sl] &= band == 0
        pts = cv2.findNonZero(cv2.bitwise_and(band, seen_flat[sl].view(np.uint8)))
        if pts is not None:
            ys, xs = pts[:, 0, 1], pts[:, 0, 0]
            code = tab.lookup_packed(packed_bins(np.ascontiguousarray(L[sl][ys, xs])[:, None, :]), dark_below)[:, 0]
            new[sl][ys, xs] = (code >> i) & 1 > 0
        out[e] = new
    return out
