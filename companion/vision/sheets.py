"""Transparencies on the board: poses, outlines in board millimetres, and exact hex coverage.

A :class:`SheetPose` places one equipment sheet: its shape (``box.equipment[id].shape``, drawn in
the sheet's own frame with the pointed end at the origin) is rotated by ``angle_deg`` and moved
to ``(x, y)``.  Board frame: x along the loch, y across it (downwards), so a positive angle turns
the sheet clockwise as seen from above.  Angle 0 points the sheet's body towards +y.

The rulebook's coverage rule (stage three, step one): a sheet covers a hex when *any part* of it
covers the hex *or its border lines*.  The border lines are printed with a width (``LINE_MM``), so
a sheet covers a hex when its outline comes within half a line width of the hex polygon.

Pure: no I/O, numpy only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

Point = tuple[float, float]

#: Width of the printed hex border lines (mm); the outer edge of a hex's line lies half this
#: outside its polygon.  House default (the rulebook prints no figure).
LINE_MM = 0.8
#: A decision where a sheet's edge lies within this distance of the hex's outer border line is
#: "too close to call" (issue 5, Targets) and not counted in accuracy figures.
CLOSE_MM = 0.5


@dataclass(frozen=True)
class SheetPose:
    """One placed transparency."""

    expedition: str
    equipment: str
    x: float
    y: float
    angle_deg: float

    def to_json(self) -> dict:
        return {"expedition": self.expedition, "equipment": self.equipment,
                "at_mm": [round(self.x, 3), round(self.y, 3)], "angle_deg": round(self.angle_deg, 3)}

    @classmethod
    def from_json(cls, d: dict) -> "SheetPose":
        x, y = d["at_mm"]
        return cls(str(d["expedition"]), str(d["equipment"]), float(x), float(y), float(d.get("angle_deg", 0.0)))


def place(shape: Sequence[Point], x: float, y: float, angle_deg: float) -> np.ndarray:
    """The shape's outline in board mm, as an (n, 2) float array."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    pts = np.asarray(shape, dtype=float)
    rot = np.array([[c, -s], [s, c]])
    return pts @ rot.T + np.array([x, y])


def symmetry_deg(shape) -> float:
    """The smallest turn that maps the outline onto itself (360 when none does), to a hundredth of its size."""
    pts = np.asarray(shape, float)
    c = pts.mean(0)
    tol = 0.01 * float(np.linalg.norm(pts - c, axis=1).max())
    for period in (60.0, 90.0, 120.0, 180.0):
        rot = place(pts - c, 0.0, 0.0, period)
        d = np.linalg.norm(rot[:, None, :] - (pts - c)[None, :, :], axis=-1).min(1)
        if d.max() <= tol:
            return period
    return 360.0


def outline(box, pose: SheetPose) -> np.ndarray:
    return place(box.equipment[pose.equipment].shape, pose.x, pose.y, pose.angle_deg)


def polygon_area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def point_in_polygon(pts: np.ndarray, poly: np.ndarray) -> np.ndarray:
    """Even-odd test for many points (m, 2) against one polygon (n, 2)."""
    pts = np.atleast_2d(pts)
    x, y = pts[:, 0:1], pts[:, 1:2]
    x0, y0 = poly[:, 0], poly[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    cond = (y0 <= y) != (y1 <= y)
    with np.errstate(divide="ignore", invalid="ignore"):
        xint = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
    return (cond & (x < xint)).sum(axis=1) % 2 == 1


def _seg_dist(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance from points p (m, 2) to every segment a-b (n, 2): an (m, n) array."""
    ab = b - a
    ap = p[:, None, :] - a[None, :, :]
    t = np.clip((ap * ab).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-12), 0, 1)
    d = ap - t[..., None] * ab
    return np.sqrt((d * d).sum(-1))


def _segments_cross(p: np.ndarray, q: np.ndarray) -> bool:
    a, b = p, np.roll(p, -1, axis=0)
    c, d = q, np.roll(q, -1, axis=0)

    def orient(u, v, w):
        return (v[..., 0] - u[..., 0]) * (w[..., 1] - u[..., 1]) - (v[..., 1] - u[..., 1]) * (w[..., 0] - u[..., 0])

    A, B = a[:, None], b[:, None]
    C, D = c[None, :], d[None, :]
    o1, o2 = orient(A, B, C), orient(A, B, D)
    o3, o4 = orient(C, D, A), orient(C, D, B)
    return bool(np.any((o1 * o2 < 0) & (o3 * o4 < 0)))


def polygon_distance(p: np.ndarray, q: np.ndarray) -> float:
    """Distance between two polygons' areas: 0 when they overlap or touch."""
    if point_in_polygon(p[:1], q)[0] or point_in_polygon(q[:1], p)[0] or _segments_cross(p, q):
        return 0.0
    d1 = _seg_dist(p, q, np.roll(q, -1, axis=0)).min()
    d2 = _seg_dist(q, p, np.roll(p, -1, axis=0)).min()
    return float(min(d1, d2))


def erode_convex(poly: np.ndarray, r: float) -> np.ndarray | None:
    """A convex polygon shrunk by ``r`` mm (each edge moved inwards), or None when nothing is left."""
    n = len(poly)
    area_sign = np.sign(np.dot(poly[:, 0], np.roll(poly[:, 1], -1)) - np.dot(poly[:, 1], np.roll(poly[:, 0], -1)))
    lines = []
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        d = b - a
        nrm = np.array([-d[1], d[0]]) * area_sign  # inward normal
        nrm = nrm / np.linalg.norm(nrm)
        lines.append((a + nrm * r, d))
    out = []
    for i in range(n):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        den = d1[0] * d2[1] - d1[1] * d2[0]
        if abs(den) < 1e-12:
            out.append(p2)
            continue
        t = ((p2[0] - p1[0]) * d2[1] - (p2[1] - p1[1]) * d2[0]) / den
        out.append(p1 + t * d1)
    out = np.array(out)
    new_sign = np.sign(np.dot(out[:, 0], np.roll(out[:, 1], -1)) - np.dot(out[:, 1], np.roll(out[:, 0], -1)))
    if new_sign != area_sign or polygon_area(out) < 1e-6:
        return None
    # an inverted corner shows up as an edge that turned round
    for i in range(n):
        if np.dot(out[(i + 1) % n] - out[i], lines[i][1]) < 0:
            return None
    return out


def reaches(sheet: np.ndarray, hex_poly: np.ndarray, r: float) -> bool:
    """Does the sheet come within ``r`` mm of the hex (negative ``r``: reach ``-r`` mm inside it)?"""
    if r >= 0:
        return polygon_distance(sheet, hex_poly) <= r
    inner = erode_convex(hex_poly, -r)
    return inner is not None and polygon_distance(sheet, inner) <= 0.0


@dataclass(frozen=True)
class HexDecision:
    covered: bool
    close: bool  # the sheet's edge is within CLOSE_MM of the hex's outer border line


def hex_coverage(box, poses: Iterable[SheetPose], line_mm: float = LINE_MM,
                 close_mm: float = CLOSE_MM) -> dict[str, dict[str, HexDecision]]:
    """Exact coverage per expedition and hex: ``{expedition: {address: HexDecision}}``.

    Only hexes some sheet comes near are listed; every other hex is clearly uncovered.
    """
    half = line_mm / 2
    out: dict[str, dict[str, HexDecision]] = {}
    hexes = [(h.address, np.asarray(h.polygon, dtype=float)) for h in box.loch.hexes]
    for pose in poses:
        sheet = outline(box, pose)
        lo, hi = sheet.min(0) - half - close_mm - 1, sheet.max(0) + half + close_mm + 1
        per = out.setdefault(pose.expedition, {})
        for address, poly in hexes:
            if (poly[:, 0].max() < lo[0] or poly[:, 0].min() > hi[0]
                    or poly[:, 1].max() < lo[1] or poly[:, 1].min() > hi[1]):
                continue
            far = not reaches(sheet, poly, half + close_mm)
            if far:
                continue
            deep = reaches(sheet, poly, half - close_mm)
            covered = reaches(sheet, poly, half)
            prev = per.get(address)
            if deep:
                per[address] = HexDecision(True, False)
            elif prev is not None and prev.covered and not prev.close:
                continue
            else:
                cov = covered or (prev is not None and prev.covered)
                per[address] = HexDecision(cov, True)
    return out
