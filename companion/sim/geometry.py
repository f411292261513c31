"""Where a transparency lies and which hexes it covers, by polygon intersection on the board in mm.

"If your transparencies are covering even a small part of the monster's hexagon then you collect
evidence cards": a sheet covers a hex when the two polygons intersect, touching included. All the
house-default shapes and the hexes are convex, so the separating-axis test decides it exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Point = tuple[float, float]
EPS = 1e-6


@dataclass(frozen=True)
class Pose:
    x: float  # the pointed end (or the centre of a sheet without one), mm on the board
    y: float
    angle: float  # degrees; 0 = the sheet reaches towards +y (into the loch from the north-west shore)

    def place(self, shape: tuple[Point, ...]) -> tuple[Point, ...]:
        c, s = math.cos(math.radians(self.angle)), math.sin(math.radians(self.angle))
        return tuple((self.x + px * c - py * s, self.y + px * s + py * c) for px, py in shape)


def _axes(poly):
    n = len(poly)
    for i in range(n):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % n]
        yield (y0 - y1, x1 - x0)


def _project(poly, axis):
    dots = [p[0] * axis[0] + p[1] * axis[1] for p in poly]
    return min(dots), max(dots)


def convex_intersect(a, b) -> bool:
    """True when two convex polygons share at least one point (touching counts)."""
    for axis in list(_axes(a)) + list(_axes(b)):
        length = math.hypot(*axis)
        if length < EPS:
            continue
        amin, amax = _project(a, axis)
        bmin, bmax = _project(b, axis)
        if amax < bmin - EPS * length or bmax < amin - EPS * length:
            return False
    return True


def covered_hexes(loch, polygon) -> frozenset[str]:
    xs = [p[0] for p in polygon]
    ys = [p[1] for p in polygon]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    hit = []
    for h in loch.hexes:
        hx = [p[0] for p in h.polygon]
        hy = [p[1] for p in h.polygon]
        if max(hx) < x0 or min(hx) > x1 or max(hy) < y0 or min(hy) > y1:
            continue
        if convex_intersect(polygon, h.polygon):
            hit.append(h.address)
    return frozenset(hit)


_POSES: dict[tuple[str, str], tuple] = {}


def candidate_poses(box, equipment: str, step_mm: float = 10.0) -> tuple[tuple[Pose, frozenset[str]], ...]:
    """Every pose the simulator may choose for a sheet, with the hexes it covers.

    Pointed sheets stand with their point on the shore (the loch's top and bottom edges), pointing
    across the loch square on or 25 degrees either way; the biological unit and the cage may lie
    anywhere, so they are tried on every hex centre.
    """
    key = (box.digest, equipment)
    if key not in _POSES:
        _POSES[key] = _candidates(box, equipment, step_mm)
    return _POSES[key]


def _candidates(box, equipment: str, step_mm: float):
    kind = box.equipment[equipment]
    loch = box.loch
    out = []
    if kind.pointed:
        xs = [p[0] for p in loch.shore_outline]
        ys = [p[1] for p in loch.shore_outline]
        top, bottom, left, right = min(ys), max(ys), min(xs), max(xs)
        x = left + step_mm / 2
        while x < right:
            for angle in (-25.0, 0.0, 25.0):
                out.append(Pose(x, top, angle))
                out.append(Pose(x, bottom, 180.0 + angle))
            x += step_mm
    else:
        for h in loch.hexes:
            out.append(Pose(h.center[0], h.center[1], 0.0))
    return tuple((pose, covered_hexes(loch, pose.place(kind.shape))) for pose in out)


_MASKS: dict[tuple[str, str], tuple] = {}


def hex_bits(box) -> dict[str, int]:
    return {h.address: 1 << i for i, h in enumerate(box.loch.hexes)}


def candidate_masks(box, equipment: str) -> tuple[tuple[int, int], ...]:
    """The candidates as (index into candidate_poses, bit mask of the covered hexes): set algebra on ints."""
    key = (box.digest, equipment)
    if key not in _MASKS:
        bits = hex_bits(box)
        _MASKS[key] = tuple((i, sum(bits[a] for a in hexes)) for i, (_, hexes) in enumerate(candidate_poses(box, equipment)))
    return _MASKS[key]
