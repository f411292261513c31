"""The rulebook's placement rules, as pure functions on sheet poses (checked when a sheet is placed).

* Pointed end on shore: every sheet except the biological unit and the cage has its pointed end
  on shore (setting up, g; stage six, step 4).  The pointed end is the shape's origin; it must not
  lie inside the loch by more than ``SHORE_TOLERANCE_MM``.
* Never three of one's own overlapping: "no more than two of your own may overlap at the same
  spot" (setting up, h; stage six, step 4; diagram).  Opponents' sheets do not count.  Checked
  exactly: the outlines are convex, so three overlap when clipping one by the other two leaves area.
* The cage in exactly one hex: "Cages may only occupy ONE HEXAGON" (stage six, note).  The cage's
  outline must lie within one hex (its border line included, half the printed width) -- and, when
  the hex noted at the purchase is known, in that hex.

Each check returns a list of :class:`Violation` (empty: the placement is legal).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Iterable

import numpy as np

from .sheets import LINE_MM, SheetPose, outline, point_in_polygon, polygon_area, _seg_dist

SHORE_TOLERANCE_MM = 1.5
MIN_OVERLAP_MM2 = 0.01


@dataclass(frozen=True)
class Violation:
    rule: str  # "pointed end on shore" | "three own sheets overlap" | "cage in one hex" | "cage in its noted hex"
    message: str
    sheets: tuple[int, ...] = ()  # indices into the poses checked
    at_mm: tuple[float, float] | None = None

    def to_json(self) -> dict:
        d = {"rule": self.rule, "message": self.message, "sheets": list(self.sheets)}
        if self.at_mm is not None:
            d["at_mm"] = [round(self.at_mm[0], 1), round(self.at_mm[1], 1)]
        return d


def _shore(box) -> np.ndarray:
    return np.asarray(box.loch.shore_outline, float)


def pointed_end_on_shore(box, pose: SheetPose, index: int = 0) -> list[Violation]:
    eq = box.equipment[pose.equipment]
    if not eq.pointed:
        return []
    shore = _shore(box)
    tip = np.array([[pose.x, pose.y]])
    inside = bool(point_in_polygon(tip, shore)[0])
    depth = float(_seg_dist(tip, shore, np.roll(shore, -1, 0)).min())
    if inside and depth > SHORE_TOLERANCE_MM:
        return [Violation("pointed end on shore",
                          f"the {eq.label.lower()}'s pointed end lies {depth:.1f} mm out on the loch; it must be "
                          f"on shore", (index,), (pose.x, pose.y))]
    return []


def clip_convex(subject: np.ndarray, clip: np.ndarray) -> np.ndarray:
    """Sutherland-Hodgman: the part of ``subject`` inside the convex polygon ``clip``."""
    def orient(poly):
        x, y = poly[:, 0], poly[:, 1]
        return np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))

    if orient(clip) < 0:
        clip = clip[::-1]
    out = [tuple(p) for p in subject]
    n = len(clip)
    for i in range(n):
        a, b = clip[i], clip[(i + 1) % n]
        if not out:
            break
        inp, out = out, []

        def side(p):
            return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])

        for j in range(len(inp)):
            p, q = np.array(inp[j]), np.array(inp[(j + 1) % len(inp)])
            sp, sq = side(p), side(q)
            if sp >= 0:
                out.append(tuple(p))
            if (sp >= 0) != (sq >= 0):
                t = sp / (sp - sq)
                out.append(tuple(p + t * (q - p)))
    return np.array(out, float).reshape(-1, 2)


def three_own_overlap(box, poses: Iterable[SheetPose]) -> list[Violation]:
    """Violations among one expedition's sheets (pass only that expedition's poses)."""
    poses = list(poses)
    polys = [outline(box, p) for p in poses]
    out = []
    for i, j, k in combinations(range(len(polys)), 3):
        if poses[i].expedition != poses[j].expedition or poses[j].expedition != poses[k].expedition:
            continue
        inter = clip_convex(clip_convex(polys[i], polys[j]), polys[k])
        if len(inter) >= 3 and polygon_area(inter) > MIN_OVERLAP_MM2:
            c = inter.mean(0)
            out.append(Violation("three own sheets overlap",
                                 f"three of {poses[i].expedition}'s own sheets overlap near ({c[0]:.0f}, {c[1]:.0f}) "
                                 f"mm; no more than two of your own may overlap", (i, j, k), (float(c[0]), float(c[1]))))
    return out


def cage_hexes(box, pose: SheetPose) -> list[str]:
    """Every hex the cage reaches (its area over the hex or its border line)."""
    poly = outline(box, pose)
    half = LINE_MM / 2
    from .sheets import polygon_distance

    return [h.address for h in box.loch.hexes
            if polygon_distance(poly, np.asarray(h.polygon, float)) <= 0.0]


def cage_in_one_hex(box, pose: SheetPose, index: int = 0) -> list[Violation]:
    if pose.equipment != "cage":
        return []
    poly = outline(box, pose)
    half = LINE_MM / 2
    for h in box.loch.hexes:
        hp = np.asarray(h.polygon, float)
        inside = point_in_polygon(poly, hp)
        near = _seg_dist(poly, hp, np.roll(hp, -1, 0)).min(1) <= half
        if np.all(inside | near):
            return []
    reached = cage_hexes(box, pose)
    where = ", ".join(reached) if reached else "no loch hex"
    return [Violation("cage in one hex", f"the cage lies over {where}; a cage may occupy only one hexagon",
                      (index,), (pose.x, pose.y))]


NEAREST_HEXES = 3  # the hex holding a point lies among the three whose centres are nearest it


def cage_overreach_mm(box, pose: SheetPose) -> float:
    """How far the cage's outline reaches out of the hex that holds most of it (mm; 0 inside).

    A cage legally placed lies within one hex (its border line included); one fitted to a photo
    reaches out of it only by its pose's error.  Only the hexes nearest the cage's centre are
    looked at (a cage is smaller than a hex)."""
    poly = outline(box, pose)
    centres = np.array([h.center for h in box.loch.hexes], float)
    near = np.argsort(np.hypot(*(centres - poly.mean(0)).T))[:NEAREST_HEXES]
    best = np.inf
    for i in near:
        hp = np.asarray(box.loch.hexes[int(i)].polygon, float)
        inside = point_in_polygon(poly, hp)
        d = _seg_dist(poly, hp, np.roll(hp, -1, 0)).min(1)
        best = min(best, float(np.where(inside, 0.0, d).max()))
    return best


def cage_in_noted_hex(box, pose: SheetPose, noted: str | None, index: int = 0) -> list[Violation]:
    """The Sponsor notes the cage's hexagon when it is bought ("the sponsor must keep a note of the
    hexagon reference", stage six): the cage must lie in that hex.  Checked at the outline's centre;
    a cage over two hexes is cage_in_one_hex's violation."""
    if pose.equipment != "cage" or not noted:
        return []
    want = box.loch.parse(noted).address
    centre = outline(box, pose).mean(0)
    found = next((h.address for h in box.loch.hexes
                  if point_in_polygon(centre[None], np.asarray(h.polygon, float))[0]), None)
    if found == want:
        return []
    return [Violation("cage in its noted hex", f"the cage lies in {found or 'no loch hex'}, but {want} was noted "
                      f"when it was bought", (index,), (float(centre[0]), float(centre[1])))]


def check_placement(box, new: SheetPose, placed: Iterable[SheetPose] = (), noted_hex: str | None = None
                    ) -> list[Violation]:
    """All rules for a sheet being placed, given the sheets already on the board (any expedition);
    ``noted_hex``: the hex noted when a cage was bought."""
    own = [p for p in placed if p.expedition == new.expedition] + [new]
    idx = len(own) - 1
    out = pointed_end_on_shore(box, new, idx) + cage_in_one_hex(box, new, idx)
    if not out:  # a cage over two hexes is in no one hex: one message is enough
        out += cage_in_noted_hex(box, new, noted_hex, idx)
    out += [v for v in three_own_overlap(box, own) if idx in v.sheets]
    return out


def check_all(box, poses: Iterable[SheetPose]) -> list[Violation]:
    """Every rule over a whole board of sheets (indices refer to ``poses``)."""
    poses = list(poses)
    out: list[Violation] = []
    for i, p in enumerate(poses):
        out += pointed_end_on_shore(box, p, i) + cage_in_one_hex(box, p, i)
    by_exp: dict[str, list[int]] = {}
    for i, p in enumerate(poses):
        by_exp.setdefault(p.expedition, []).append(i)
    for idxs in by_exp.values():
        for v in three_own_overlap(box, [poses[i] for i in idxs]):
            out.append(Violation(v.rule, v.message, tuple(idxs[k] for k in v.sheets), v.at_mm))
    return out
