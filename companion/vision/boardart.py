"""The board's printed artwork, drawn from a box profile through any mapping of board mm to pixels.

Used twice: by the synthetic renderer (mapping = a camera) and by coverage (mapping = the board
plane at some pixels per mm, as the reference when there is no calibration photo).  Colours are
display values 0..1 (RGB); the loch is white paper, as the rulebook says.

Pure: numpy and OpenCV drawing only.
"""

from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

from .sheets import LINE_MM

LAND = (0.60, 0.66, 0.50)
LOCH = (0.95, 0.95, 0.94)
LINE = (0.30, 0.33, 0.40)
SHORE = (0.22, 0.24, 0.28)
PAPER = (0.96, 0.96, 0.95)
SHIFT = 4  # sub-pixel bits for cv2 drawing
_ONE = 1 << SHIFT

Mapper = Callable[[np.ndarray], np.ndarray]  # (n, 2) board mm -> (n, 2) pixel coordinates (centres at integers)


def densify(poly: np.ndarray, step_mm: float) -> np.ndarray:
    """Insert points so no edge is longer than ``step_mm`` (curved edges under lens distortion)."""
    out = []
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        k = max(1, int(np.ceil(np.linalg.norm(b - a) / step_mm)))
        t = np.arange(k)[:, None] / k
        out.append(a + (b - a) * t)
    return np.concatenate(out)


def fill(img: np.ndarray, polys: list[np.ndarray], colour, mapper: Mapper, step_mm: float = 1e9) -> None:
    """Fill polygons given in board mm with a colour (anti-aliased)."""
    if not polys:
        return
    pts = [np.round(mapper(densify(np.asarray(p, float), step_mm)) * _ONE).astype(np.int32) for p in polys]
    cv2.fillPoly(img, pts, colour, lineType=cv2.LINE_AA, shift=SHIFT)


def mask(shape: tuple[int, int], polys: list[np.ndarray], mapper: Mapper, step_mm: float = 1e9) -> np.ndarray:
    """A float32 coverage mask 0..1 of the polygons (anti-aliased)."""
    m = np.zeros(shape, np.uint8)
    fill(m, polys, 255, mapper, step_mm)
    return m.astype(np.float32) / 255.0


def line_quads(a: np.ndarray, b: np.ndarray, width: float) -> np.ndarray:
    """A segment a-b of the given width as a quad in mm (square ends reaching width/2 past each end)."""
    d = b - a
    d = d / max(np.linalg.norm(d), 1e-9)
    nrm = np.array([-d[1], d[0]]) * width / 2
    e = d * width / 2
    return np.array([a - e + nrm, b + e + nrm, b + e - nrm, a - e - nrm])


def hex_edges(box) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every distinct hex border segment once."""
    seen = set()
    out = []
    for h in box.loch.hexes:
        pts = [tuple(p) for p in h.polygon]
        for a, b in zip(pts, pts[1:] + pts[:1]):
            key = frozenset((a, b))
            if key in seen:
                continue
            seen.add(key)
            out.append((np.array(a, float), np.array(b, float)))
    return out


def marker_modules(box) -> list[tuple[int, np.ndarray]]:
    """Black squares of every marker, in mm: [(marker id, quad), ...] (ArUco, border of one module)."""
    aruco = cv2.aruco
    dictionary = aruco.getPredefinedDictionary(getattr(aruco, box.markers_dictionary))
    size = dictionary.markerSize + 2
    out = []
    for m in box.markers:
        bits = aruco.generateImageMarker(dictionary, m.id, size, borderBits=1)
        c = np.asarray(m.corners, float)  # tl, tr, br, bl
        for r in range(size):
            for col in range(size):
                if bits[r, col] > 127:
                    continue
                u0, u1, v0, v1 = col / size, (col + 1) / size, r / size, (r + 1) / size
                quad = np.array([_bilinear(c, u, v) for u, v in ((u0, v0), (u1, v0), (u1, v1), (u0, v1))])
                out.append((m.id, quad))
    return out


def _bilinear(c: np.ndarray, u: float, v: float) -> np.ndarray:
    top = c[0] + (c[1] - c[0]) * u
    bottom = c[3] + (c[2] - c[3]) * u
    return top + (bottom - top) * v


def marker_quiet_zone(box, marker) -> np.ndarray:
    """The white square around a marker (one module wide) in mm."""
    c = np.asarray(marker.corners, float)
    centre = c.mean(0)
    return centre + (c - centre) * 1.35


def draw_board(img: np.ndarray, box, mapper: Mapper, *, tracks: bool = True, hidden_markers=(),
               step_mm: float = 1e9, line_mm: float = LINE_MM) -> np.ndarray:
    """Draw the board into ``img`` (float32, h x w x 3, RGB 0..1) through ``mapper``."""
    W, H = box.width, box.height
    fill(img, [np.array([[0, 0], [W, 0], [W, H], [0, H]], float)], LAND, mapper, step_mm)
    fill(img, [np.asarray(box.loch.shore_outline, float)], LOCH, mapper, step_mm)
    if tracks:
        for t in box.tracks.values():
            for sp in t.spaces:
                ang = np.linspace(0, 2 * np.pi, 24, endpoint=False)
                r = t.space_diameter / 2
                circ = np.c_[sp.at[0] + r * np.cos(ang), sp.at[1] + r * np.sin(ang)]
                fill(img, [circ], (0.85, 0.82, 0.70), mapper, step_mm)
        for p in box.evidence_packs:
            x, y, w, h = p.rect
            fill(img, [np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], float)], (0.80, 0.76, 0.66),
                 mapper, step_mm)
    quads = [line_quads(a, b, line_mm) for a, b in hex_edges(box)]
    fill(img, quads, LINE, mapper)
    shore = np.asarray(box.loch.shore_outline, float)
    fill(img, [line_quads(shore[i], shore[(i + 1) % len(shore)], line_mm * 1.5) for i in range(len(shore))],
         SHORE, mapper)
    for m in box.markers:
        if m.id in hidden_markers:
            continue
        fill(img, [marker_quiet_zone(box, m)], PAPER, mapper, step_mm)
    fill(img, [q for mid, q in marker_modules(box) if mid not in hidden_markers], (0.05, 0.05, 0.05), mapper)
    return img


def plane_mapper(ppm: float, x0: float = 0.0, y0: float = 0.0) -> Mapper:
    """Board mm -> pixels of a board-plane image at ``ppm`` px/mm whose top-left pixel starts at (x0, y0)."""
    def f(p: np.ndarray) -> np.ndarray:
        p = np.asarray(p, float)
        return np.c_[(p[:, 0] - x0) * ppm - 0.5, (p[:, 1] - y0) * ppm - 0.5]
    return f
