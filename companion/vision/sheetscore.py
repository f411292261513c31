"""Scoring fitted sheets against rendered truth (tests and ``make bench``).

Per expedition, fitted and true sheets are paired by how much their outlines overlap (greedy on
intersection over union, best pair first); a pair is a match when they overlap by at least
``MATCH_IOU``.  A matched pair counts "type right" when the equipment agrees; an unpaired true
sheet is "missed", an unpaired fitted sheet "extra".  A fitted sheet reported as unidentified is
never a wrong type: it counts as "unidentified" when it pairs with a true sheet.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import cv2
import numpy as np

from .sheets import SheetPose, _seg_dist, outline, polygon_area, symmetry_deg

MATCH_IOU = 0.3
#: a true sheet counts as "in clear view" when at least this share of it is seen and lies under
#: none of its expedition's other sheets (the colour masks merge one expedition's overlaps, so a
#: sheet mostly under its own kind, or under glare, cannot be told by shape)
CLEAR_SHARE = 0.5
RASTER_PPM = 2.0  # fine enough to tell a 50 % overlap from a 30 % one
OFF_SHORE_MM = 6.0  # a pointed sheet's point further than this from the shore line is "off the shore"


@dataclass
class SheetScore:
    truth: int = 0
    right: int = 0
    clear: int = 0  # true sheets in clear view (see CLEAR_SHARE) ...
    clear_right: int = 0  # ... and of those, found with the right type
    wrong: int = 0
    unidentified: int = 0
    missed: int = 0
    extra: int = 0
    extra_named: int = 0  # extra sheets reported with a type (the harmful kind: they can earn evidence)
    centre_mm: list = field(default_factory=list)  # of type-right matches: outline centroid distance
    angle_deg: list = field(default_factory=list)  # ... and angle difference (0..180)
    errors: list = field(default_factory=list)  # (expedition, what, truth pose or None, fitted pose or None)

    def add(self, other: "SheetScore") -> None:
        for k in ("truth", "right", "clear", "clear_right", "wrong", "unidentified", "missed", "extra", "extra_named"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.centre_mm += other.centre_mm
        self.angle_deg += other.angle_deg
        self.errors += other.errors

    @property
    def type_accuracy(self) -> float:
        """Share of true sheets found with the right equipment type."""
        return self.right / max(self.truth, 1)

    @property
    def clear_accuracy(self) -> float:
        return self.clear_right / max(self.clear, 1)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    lo = np.floor(np.minimum(a.min(0), b.min(0))) - 1
    hi = np.ceil(np.maximum(a.max(0), b.max(0))) + 1
    if (a.max(0) < b.min(0)).any() or (b.max(0) < a.min(0)).any():
        return 0.0
    size = np.ceil((hi - lo) * RASTER_PPM).astype(int)
    ma = np.zeros((size[1], size[0]), np.uint8)
    mb = np.zeros_like(ma)
    cv2.fillPoly(ma, [np.round((a - lo) * RASTER_PPM * 16).astype(np.int32)], 1, shift=4)
    cv2.fillPoly(mb, [np.round((b - lo) * RASTER_PPM * 16).astype(np.int32)], 1, shift=4)
    inter = int((ma & mb).sum())
    return inter / max(int((ma | mb).sum()), 1)


def _centroid(poly: np.ndarray) -> np.ndarray:
    m = cv2.moments(poly.astype(np.float32))
    return np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]]) if m["m00"] else poly.mean(0)


def score_sheets(box, truth: list[SheetPose], found: list, shares: list[float] | None = None) -> SheetScore:
    """Compare fitted sheets (``SheetPose`` or anything with a ``.pose``) with the true ones.

    ``shares``: per true sheet, the share of it in clear view (:func:`clear_shares`).
    """
    found_poses = [f.pose if hasattr(f, "pose") else f for f in found]
    sc = SheetScore()
    expeditions = sorted({p.expedition for p in truth} | {p.expedition for p in found_poses})
    for e in expeditions:
        ti = [i for i, p in enumerate(truth) if p.expedition == e]
        ts = [truth[i] for i in ti]
        clear = [shares is None or shares[i] >= CLEAR_SHARE for i in ti]
        sc.clear += sum(clear)
        fj = [j for j, p in enumerate(found_poses) if p.expedition == e]
        fs = [found_poses[j] for j in fj]
        sc.truth += len(ts)
        pairs = []
        for i, t in enumerate(ts):
            tp = outline(box, t)
            for j, f in enumerate(fs):
                if f.equipment not in box.equipment:
                    continue
                v = _iou(tp, outline(box, f))
                if v >= MATCH_IOU:
                    pairs.append((v, i, j))
        used_t, used_f = set(), set()
        for v, i, j in sorted(pairs, reverse=True):
            if i in used_t or j in used_f:
                continue
            used_t.add(i)
            used_f.add(j)
            t, f = ts[i], fs[j]
            if getattr(found[fj[j]], "identified", True) is False:
                sc.unidentified += 1
                sc.errors.append((e, "unidentified", t, f))
            elif t.equipment == f.equipment:
                sc.right += 1
                sc.clear_right += int(clear[i])
                sc.centre_mm.append(float(np.linalg.norm(_centroid(outline(box, t)) - _centroid(outline(box, f)))))
                period = symmetry_deg(box.equipment[t.equipment].shape)  # a hexagon repeats every 60 degrees
                d = abs((t.angle_deg - f.angle_deg + period / 2) % period - period / 2)
                sc.angle_deg.append(float(d))
            else:
                sc.wrong += 1
                sc.errors.append((e, "wrong type", t, f))
        for i, t in enumerate(ts):
            if i not in used_t:
                sc.missed += 1
                sc.errors.append((e, "missed", t, None))
        for j, f in enumerate(fs):
            if j not in used_f:
                sc.extra += 1
                sc.extra_named += int(getattr(found[fj[j]], "identified", True) is not False)
                sc.errors.append((e, "extra", None, f))
    return sc


def true_masks(box, sheets: list[SheetPose], x0: float, y0: float, ppm: float, shape) -> dict[str, np.ndarray]:
    """Each expedition's sheets rasterised on a board-plane grid: the colour mask a perfect camera sees."""
    out: dict[str, np.ndarray] = {}
    for p in sheets:
        m = out.setdefault(p.expedition, np.zeros(shape, np.uint8))
        poly = (outline(box, p) - [x0, y0]) * ppm - 0.5
        cv2.fillPoly(m, [np.round(poly * 16).astype(np.int32)], 1, shift=4)
    return {e: m > 0 for e, m in out.items()}


def clear_shares(box, sheets: list[SheetPose], seen: np.ndarray, x0: float, y0: float, ppm: float) -> list[float]:
    """Per sheet: the share of its area that is seen and under none of its expedition's other sheets."""
    return [v[2] for v in sheet_views(box, sheets, seen, x0, y0, ppm)]


def sheet_views(box, sheets: list[SheetPose], seen: np.ndarray, x0: float, y0: float,
                ppm: float) -> list[tuple[float, float, float]]:
    """Per sheet, shares of its area: (under its expedition's other sheets, seen, seen and under none of them)."""
    out = []
    for i, p in enumerate(sheets):
        poly = (outline(box, p) - [x0, y0]) * ppm - 0.5
        lo = np.maximum(np.floor(poly.min(0)).astype(int) - 1, 0)
        hi = np.minimum(np.ceil(poly.max(0)).astype(int) + 2, [seen.shape[1], seen.shape[0]])
        size = (max(hi[1] - lo[1], 1), max(hi[0] - lo[0], 1))
        mine = np.zeros(size, np.uint8)
        cv2.fillPoly(mine, [np.round((poly - lo) * 16).astype(np.int32)], 1, shift=4)
        others = np.zeros(size, np.uint8)
        for j, q in enumerate(sheets):
            if j != i and q.expedition == p.expedition:
                qp = (outline(box, q) - [x0, y0]) * ppm - 0.5 - lo
                cv2.fillPoly(others, [np.round(qp * 16).astype(np.int32)], 1, shift=4)
        area = max(polygon_area(outline(box, p)) * ppm * ppm, 1.0)
        view = seen[lo[1]:hi[1], lo[0]:hi[0]][:size[0], :size[1]]
        mine = mine > 0
        out.append((float((mine & (others > 0)).sum() / area), float((mine & view).sum() / area),
                    float((mine & (others == 0) & view).sum() / area)))
    return out


#: why a true sheet was not named right, in this order (the first that applies)
CAUSES = ("under own sheets", "hidden", "by the loch's end", "point off the shore", "in clear view")


def error_causes(box, sheets: list[SheetPose], score: SheetScore, seen: np.ndarray, x0: float, y0: float,
                 ppm: float) -> tuple[Counter, Counter]:
    """The true sheets not named right (wrong type, unidentified, missed), counted by cause and by
    confusion.  Causes (``CAUSES``): at least half the sheet under its expedition's other sheets
    (their colours merge); less than half of it seen (glare, shadow, a hand, off the photo);
    reaching past either end of the loch (largely over the land, which sheetland.py measures
    only roughly); a pointed sheet's point over ``OFF_SHORE_MM`` from the shore line; else in
    clear view.  Confusions: (true type,
    fitted type, or "unidentified" / "missed")."""
    views = sheet_views(box, sheets, seen, x0, y0, ppm)
    shore = np.asarray(box.loch.shore_outline, float)
    west, east = shore[:, 0].min(), shore[:, 0].max()
    causes: Counter = Counter()
    confusions: Counter = Counter()
    for _e, what, t, f in score.errors:
        if t is None:
            continue
        under, seen_share, _clear = views[sheets.index(t)]
        poly = outline(box, t)
        pointed = box.equipment[t.equipment].pointed
        if under >= 0.5:
            cause = CAUSES[0]
        elif seen_share < 0.5:
            cause = CAUSES[1]
        elif poly[:, 0].min() < west or poly[:, 0].max() > east:
            cause = CAUSES[2]
        elif pointed and _seg_dist(np.array([[t.x, t.y]]), shore, np.roll(shore, -1, axis=0)).min() > OFF_SHORE_MM:
            cause = CAUSES[3]
        else:
            cause = CAUSES[4]
        causes[cause, what] += 1
        confusions[t.equipment, f.equipment if what == "wrong type" else what] += 1
    return causes, confusions
