"""Which sheets lie on the loch: explain one expedition's colour with its equipment shapes.

A sheet lets no uncoloured paper show inside its outline, so a pose is scored by the colour it
explains that no sheet found so far explains, less a heavy penalty (``UNCOLOURED_COST``) for every
visible, plainly uncoloured pixel it covers (right beside the colour, where edges blur, paper costs
only what colour earns, so the pose settles on the edge).  Pixels nobody can see (printed lines,
glare, a hand, out of view) earn nothing and cost only a little (``UNSEEN_COST``: of two shapes
explaining the same colour the one reaching less into the dark is likelier), so a sheet half
hidden or half off the board still fits.  The rulebook puts a pointed sheet's point on the shore:
a point further off than ``SHORE_SLACK_MM`` costs more with every millimetre.

Search: take the biggest unexplained blob of colour, try every shape at every turn over it
(template matching on a 2 mm grid), refine the leading shapes on a 0.5 mm grid (anti-aliased, so
the score moves smoothly with the pose), keep the best, mark the colour it explains, repeat.  Two
overlapping sheets of one colour merge into one blob; the penalty keeps a bigger shape from
spanning both, and each is found in turn.  Then sheets the others explain anyway are dropped, and
each sheet touching another is searched again against the colour the others leave.

Each sheet carries a confidence: how much better its shape explains the colour than the best
other shape does (evidence only, the cost of unseen parts aside).  A sheet whose shape is not
clearly the best, or a small one whose colour is seen running on past its outline, is reported
*unidentified* (``identified`` false), never as a type the fit is unsure of.

Pure numpy/OpenCV on masks; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .sheets import SheetPose, _seg_dist, place, polygon_distance, symmetry_deg

COARSE_PPM = 0.5  # template search grid (2 mm pixels): cheap, and every shape still spans 5+ pixels
FINE_PPM = 2.0  # refinement grid: area-averaged, so a pose is good to a fraction of a pixel
ANGLE_STEP = 6.0
UNCOLOURED_COST = 4.0  # a sheet never shows plain paper: one such pixel outweighs four coloured
MIN_SHEET_MM2 = 40.0  # less newly explained colour than this is noise or a sliver
MIN_PURITY = 0.8  # share of a fitted sheet's visible outline that must show the colour
UNSEEN_COST = 0.05  # per unseen pixel of a sheet, against colour's 1: slivers don't grow sheets into the dark
COARSE_UNCOLOURED_COST = 1.0  # 2 mm pixels mix an edge with the paper beside it: a milder penalty there
LEAD_SHARE = 0.5  # shapes scoring this share of the coarse winner are refined before choosing
MAX_REFINED = 3  # ... at most this many
COARSE_TURN_KEEP = 3  # turns on the 2-step grid whose neighbours are matched too
MIN_CONFIDENCE = 0.3  # see _confidence
SMALL_SHEET_MM = 15.0  # a sheet this small (centre to corner) has its turn searched in full on the fine grid
EXPLAIN_GROW_MM = 1.0  # colour this close outside a fitted outline is its blurred edge, explained too
# rulebook: a pointed sheet's point must touch the shore. Within SHORE_SLACK_MM of the printed
# shore line costs nothing (a careless hand, a shore drawn roughly); further off, each millimetre
# costs as much as this much colour left unexplained
SHORE_SLACK_MM = 6.0
OFF_SHORE_MM2_PER_MM = 25.0
EDGE_BAND_MM = (0.5, 2.0)  # the band outside an outline where its edge is looked for
EDGE_SEEN_SHARE = 0.15  # less of that band seen: no evidence of an edge at all
MIN_EDGE_SUPPORT = 0.5  # less of the band's seen part plain paper: the sheet's extent is a guess ...
EDGE_CHECK_MM2 = 400.0  # ... for sheets seen over less than this (a big one's shape tells its extent)


@dataclass
class FittedSheet:
    pose: SheetPose
    score: float  # fraction of the visible outline that shows the colour (1 = perfect)
    visible_mm2: float  # area of the outline inside the measured, seen part of the board
    confidence: float = 1.0  # lead of this shape over the best other shape (0 = a tie, 1 = no rival)
    identified: bool = True  # False: a sheet is there, but which equipment is not clear
    edge_seen: float = 1.0  # share of the seen band just outside the outline that is plain paper (nan: unseen)

    def to_json(self) -> dict:
        return {**self.pose.to_json(), "fit": round(self.score, 3), "visible_mm2": round(self.visible_mm2, 1),
                "confidence": round(self.confidence, 3), "edge_seen": None if np.isnan(self.edge_seen) else round(self.edge_seen, 3),
                "identified": self.identified}


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


@lru_cache(maxsize=8)
def _shore_distance(shore: tuple, x0: float, y0: float, ppm: float, shape: tuple) -> np.ndarray:
    """Every grid pixel's distance to the shore line, mm (the same board gives the same map)."""
    line = np.full(shape, 255, np.uint8)
    pts = np.asarray(shore + shore[:1], float)
    q = np.round(((pts - [x0, y0]) * ppm - 0.5) * 16).astype(np.int32)
    cv2.polylines(line, [q], False, 0, 1, cv2.LINE_8, shift=4)
    out = cv2.distanceTransform(line, cv2.DIST_L2, 5) / ppm
    out.flags.writeable = False
    return out


@lru_cache(maxsize=64)
def _period(shape: tuple) -> float:
    return symmetry_deg(shape)


@lru_cache(maxsize=64)
def _points(shape: tuple) -> np.ndarray:
    out = np.asarray(shape, float)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=64)
def _area(shape: tuple) -> float:
    pts = np.asarray(shape, float)
    return float(abs(np.dot(pts[:, 0], np.roll(pts[:, 1], -1)) - np.dot(pts[:, 1], np.roll(pts[:, 0], -1))) / 2)


def _fill(poly_px: np.ndarray, shape) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.round(poly_px * 16).astype(np.int32)], 1, shift=4)
    return m


def fit_expedition(box, expedition: str, colour: np.ndarray, seen: np.ndarray, x0: float, y0: float,
                   ppm: float, candidates=None, max_sheets: int = 12,
                   unidentified: bool = False) -> list[FittedSheet]:
    """Fit sheets to one expedition's colour mask (bool, on a grid at ``ppm`` from (x0, y0) mm).

    Only sheets whose equipment is clear are returned, unless ``unidentified`` asks for the others
    too (``FittedSheet.identified`` false): a caller that credits evidence by equipment must not
    take their type at its word.
    """
    types = list(candidates or box.equipment)
    shapes = {t: tuple(map(tuple, box.equipment[t].shape)) for t in types}
    # the fine grid: whole blocks of the input's pixels, padded to whole coarse pixels
    k = max(1, int(round(ppm / FINE_PPM)))
    kc = max(1, int(round(FINE_PPM / COARSE_PPM)))
    h, w = (colour.shape[0] // k) * k, (colour.shape[1] // k) * k
    fine = (w // k, h // k)
    C = cv2.resize(colour[:h, :w].astype(np.float32), fine, interpolation=cv2.INTER_AREA)
    S = cv2.resize(seen[:h, :w].astype(np.float32), fine, interpolation=cv2.INTER_AREA)
    ph, pw = -fine[1] % kc, -fine[0] % kc
    C = cv2.copyMakeBorder(C, 0, ph, 0, pw, cv2.BORDER_CONSTANT, value=0.0)
    S = cv2.copyMakeBorder(S, 0, ph, 0, pw, cv2.BORDER_CONSTANT, value=0.0)
    grid = _Grid(C, np.maximum(S - C, 0.0), x0, y0, ppm / k, kc)
    grid.set_shore(np.asarray(box.loch.shore_outline, float), {shapes[t] for t in types if box.equipment[t].pointed})
    min_px = MIN_SHEET_MM2 * grid.ppm ** 2
    placed = _greedy(grid, shapes, min_px, max_sheets)
    placed = _prune(grid, shapes, placed, min_px)
    out: list[FittedSheet] = []
    refit: set = set()
    for i, (eq, x, y, ang, refined) in enumerate(placed):
        others = [p for j, p in enumerate(placed) if j != i]
        grid.reset(others, shapes)
        # touching or overlapping a sheet found after it (or one fitted again since): fit it again
        # against the colour the others leave (the greedy order may have let a big shape straddle
        # two sheets before the second was known; sheets known before it were explained already)
        if any(_near(shapes[eq], (x, y, ang), shapes[q[0]], q[1:4])
               for j, q in enumerate(placed) if j > i or j in refit):
            refit.add(i)
            found = _search(grid, shapes, grid.bbox(shapes[eq], x, y, ang))
            if found is None:
                continue
            refined, eq = found
            x, y, ang = refined[eq][1]
            placed[i] = (eq, x, y, ang, refined)
        gain = refined[eq][0]
        good, visible = grid.coverage(shapes[eq], x, y, ang)
        if gain < min_px:
            continue
        confidence = _confidence(grid, shapes, refined, eq, visible)
        edge = grid.edge_support(shapes[eq], x, y, ang)
        pose = SheetPose(expedition, eq, round(x, 2), round(y, 2), round(ang % 360.0, 2))
        out.append(FittedSheet(pose, float(good / max(visible, 1e-9)), visible / grid.ppm ** 2,
                               float(confidence), _named(confidence, edge, visible / grid.ppm ** 2),
                               edge))
    return out if unidentified else [f for f in out if f.identified]


def _named(confidence: float, edge_seen: float, visible_mm2: float) -> bool:
    """Is the type clear enough to report?  A small patch must also show where it ends: a scrap of
    a bigger sheet (the rest lost to glare or to the colour measurement) looks like a cage."""
    if confidence < MIN_CONFIDENCE:
        return False
    # colour seen running on past the outline: the sheet does not end there (no band seen: no veto)
    return visible_mm2 > EDGE_CHECK_MM2 or not edge_seen < MIN_EDGE_SUPPORT


def _near(shape_a, pose_a, shape_b, pose_b) -> bool:
    """Do two placed outlines come close enough for their explained colour to meet?"""
    a, b = place(shape_a, *pose_a), place(shape_b, *pose_b)
    return polygon_distance(a, b) <= 2 * EXPLAIN_GROW_MM + 1.0


def _greedy(grid: "_Grid", shapes, min_px: float, max_sheets: int) -> list[tuple]:
    """Sheets as (type, x, y, angle, refined rivals), biggest unexplained blob first, each explaining what it covers."""
    placed: list[tuple] = []
    for _ in range(max_sheets * 3):
        if len(placed) >= max_sheets:
            break
        blob = grid.largest_blob()
        if blob is None or blob[1] < min_px:
            break
        found = _search(grid, shapes, blob[0])
        if found is None:
            grid.drop(blob[0])
            continue
        refined, eq = found
        gain, (x, y, ang) = refined[eq]
        good, visible = grid.coverage(shapes[eq], x, y, ang)
        if gain < min_px or good < MIN_PURITY * visible:
            grid.drop(blob[0])
            continue
        grid.explain(shapes[eq], x, y, ang)
        placed.append((eq, x, y, ang, refined))
    return placed


def _prune(grid: "_Grid", shapes, placed: list[tuple], min_px: float) -> list[tuple]:
    """Drop sheets whose colour the others explain anyway (fewest sheets that explain the colour)."""
    placed = list(placed)
    while len(placed) > 1:
        unique = []
        for i, p in enumerate(placed):
            grid.reset([q for j, q in enumerate(placed) if j != i], shapes)
            unique.append(grid.sums(shapes[p[0]], *p[1:4])[0])
        i = int(np.argmin(unique))
        if unique[i] >= min_px:
            break
        del placed[i]
    return placed


def _confidence(grid: "_Grid", shapes, refined, eq, visible_px) -> float:
    """How clearly the chosen shape beats the runner-up: 0 (a tie) .. 1 (no rival at all).

    Judged on the evidence alone (colour explained, paper shown), not on the preference for small
    unseen parts: a patch of colour next to the dark fits a small shape and a large one running
    into the dark equally well.  The lead is weighed against what a one-pixel band round the sheet
    could account for (blur, a slightly wrong pose), about ``4 sqrt(visible)`` pixels: a lead of
    that size gives 0.5.
    """
    mine = grid.evidence(shapes[eq], *refined[eq][1])
    rival = max((grid.evidence(shapes[t], *p) for t, (_g, p) in refined.items() if t != eq), default=0.0)
    lead = max(mine - max(rival, 0.0), 0.0)
    band = 4.0 * np.sqrt(max(visible_px, 1.0))
    return float(lead / (lead + band))


class _Grid:
    """The fine grid: colour not yet explained (``U``) and visible uncoloured paper (``B``), as fractions."""

    def __init__(self, C, B, x0, y0, ppm, coarse: int):
        self.U, self.B, self.C = C.copy(), B, C
        self.coarse = coarse  # fine pixels per coarse pixel (the fine grid is whole coarse pixels)
        self.shore: np.ndarray | None = None  # the loch's shore line (mm), for the pointed sheets' rule
        self.pointed_shapes: set = set()
        # paper right beside the colour is where the edge blurs and the colour measurement wavers:
        # it costs as much as colour earns there (the pose settles on the edge, not inside it);
        # further off, a sheet showing paper is plainly wrong and pays the full cost
        near = cv2.dilate((C > 0.5).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        self.P = np.where(near, B, UNCOLOURED_COST * B).astype(np.float32)
        self.x0, self.y0, self.ppm = x0, y0, ppm

    def shrink(self, a: np.ndarray) -> np.ndarray:
        """Block means over coarse pixels."""
        k = self.coarse
        return cv2.resize(a, (a.shape[1] // k, a.shape[0] // k), interpolation=cv2.INTER_AREA)

    def largest_blob(self):
        """(bbox in fine px (x, y, w, h), unexplained colour in it, fine px) of the biggest patch of colour.

        Found on the coarse grid: the printed lines that split a sheet's colour into cells are
        narrower than a coarse pixel, and the labelling is cheap there.
        """
        Uc = self.shrink(self.U)
        m = cv2.dilate((Uc > 0.25).astype(np.uint8), np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
        if n <= 1:
            return None
        sums = np.bincount(labels.ravel(), weights=Uc.ravel(), minlength=n) * self.coarse ** 2
        sums[0] = 0
        i = int(np.argmax(sums))
        return tuple(int(v) * self.coarse for v in stats[i, :4]), float(sums[i])

    def reset(self, placed, shapes) -> None:
        """Unexplained colour: all of it but what the given sheets explain."""
        self.U = self.C.copy()
        for eq, x, y, ang, *_ in placed:
            self.explain(shapes[eq], x, y, ang)

    def bbox(self, shape, x, y, ang) -> tuple[int, int, int, int]:
        poly = self._poly(shape, x, y, ang)
        lo, hi = self._window(poly)
        return int(lo[0]), int(lo[1]), int(max(hi[0] - lo[0], 1)), int(max(hi[1] - lo[1], 1))

    def drop(self, bbox) -> None:
        x, y, w, h = bbox
        self.U[y:y + h, x:x + w] = 0

    def _poly(self, shape, x, y, ang):
        return (place(shape, x, y, ang) - [self.x0, self.y0]) * self.ppm - 0.5

    def _window(self, poly, pad=1):
        h, w = self.U.shape
        lo = np.maximum(np.floor(poly.min(0)).astype(int) - pad, 0)
        hi = np.minimum(np.ceil(poly.max(0)).astype(int) + pad + 1, [w, h])
        return lo, hi

    def sums(self, shape, x, y, ang) -> tuple[float, float, float, float]:
        """(unexplained colour, visible uncoloured paper, all colour, cost of that paper) under the outline."""
        # the refinement's inner loop (hundreds of calls per sheet): ``_poly`` and ``_window``
        # inlined, with the shape's points cached as an array
        a = math.radians(ang)
        c, s = math.cos(a), math.sin(a)
        ppm = self.ppm
        poly = _points(shape) @ np.array([[c * ppm, s * ppm], [-s * ppm, c * ppm]]) \
            + ((x - self.x0) * ppm - 0.5, (y - self.y0) * ppm - 0.5)
        h, w = self.U.shape
        pmin, pmax = poly.min(0), poly.max(0)
        lx, ly = max(math.floor(pmin[0]) - 1, 0), max(math.floor(pmin[1]) - 1, 0)
        hx, hy = min(math.ceil(pmax[0]) + 2, w), min(math.ceil(pmax[1]) + 2, h)
        if hx <= lx or hy <= ly:
            return 0.0, 0.0, 0.0, 0.0
        # anti-aliased: a pixel counts by the share of it inside the outline, so the score moves
        # smoothly with the pose and the local search can settle to a fraction of a pixel
        m = np.zeros((hy - ly, hx - lx), np.uint8)
        cv2.fillPoly(m, [np.round((poly - (lx, ly)) * 16).astype(np.int32)], 255, lineType=cv2.LINE_AA, shift=4)
        wgt = m.astype(np.float32) * (1 / 255)
        win = (slice(ly, hy), slice(lx, hx))
        return (float(np.vdot(self.U[win], wgt)), float(np.vdot(self.B[win], wgt)),
                float(np.vdot(self.C[win], wgt)), float(np.vdot(self.P[win], wgt)))

    def gain(self, shape, x, y, ang) -> float:
        """Evidence for a sheet here, less a little for every pixel of it nobody saw (the smallest
        explanation of the colour is the likeliest)."""
        u, b, c, p = self.sums(shape, x, y, ang)
        unseen = max(_area(shape) * self.ppm ** 2 - b - c, 0.0)
        g = u - p - UNSEEN_COST * unseen
        return g - self.off_shore(shape, x, y) if shape in self.pointed_shapes else g

    def evidence(self, shape, x, y, ang) -> float:
        """Colour explained less the penalty for paper shown and for a point off the shore: what the
        photo and the rules say, unseen parts aside."""
        u, _b, _c, p = self.sums(shape, x, y, ang)
        return u - p - self.off_shore(shape, x, y)

    def set_shore(self, shore: np.ndarray, pointed_shapes: set) -> None:
        """The shore line, and each fine pixel's distance to it (mm), for the pointed sheets' rule."""
        self.shore, self.pointed_shapes = shore, pointed_shapes
        key = (tuple(map(tuple, np.round(shore, 6))), float(self.x0), float(self.y0), float(self.ppm), self.C.shape)
        self.shore_mm = _shore_distance(*key)

    def off_shore(self, shape, x, y) -> float:
        """The rules put a pointed sheet's point (its origin) on the shore: a cost, in fine pixels,
        for a point further off than a careless placing would leave it."""
        if self.shore is None or shape not in self.pointed_shapes:
            return 0.0
        i, j = int((y - self.y0) * self.ppm), int((x - self.x0) * self.ppm)
        if 0 <= i < self.shore_mm.shape[0] and 0 <= j < self.shore_mm.shape[1]:
            d = float(self.shore_mm[i, j])
        else:
            d = float(_seg_dist(np.array([[x, y]]), self.shore, np.roll(self.shore, -1, axis=0)).min())
        return max(d - SHORE_SLACK_MM, 0.0) * OFF_SHORE_MM2_PER_MM * self.ppm ** 2

    def coverage(self, shape, x, y, ang) -> tuple[float, float]:
        """(coloured, visible) pixels under the outline."""
        _u, b, c, _p = self.sums(shape, x, y, ang)
        return c, c + b

    def edge_support(self, shape, x, y, ang) -> float:
        """Share of the seen part of a band just outside the outline that shows plain paper: the
        sheet's edge, seen.

        A patch of colour bounded by printed lines or by the unseen (the rest of a bigger sheet
        lost to glare, say) fits a small shape as well as it fits the truth; only paper seen right
        outside the outline shows that the sheet really ends there.
        """
        poly = self._poly(shape, x, y, ang)
        lo, hi = self._window(poly, pad=int(np.ceil(EDGE_BAND_MM[1] * self.ppm)) + 1)
        m = _fill(poly - lo, (hi[1] - lo[1], hi[0] - lo[0]))
        k0, k1 = (int(round(r * self.ppm)) * 2 + 1 for r in EDGE_BAND_MM)
        band = (cv2.dilate(m, np.ones((k1, k1), np.uint8)) > 0) & ~(cv2.dilate(m, np.ones((k0, k0), np.uint8)) > 0)
        win = (slice(lo[1], hi[1]), slice(lo[0], hi[0]))
        paper, colour = float(self.B[win][band].sum()), float(self.C[win][band].sum())
        if paper + colour < EDGE_SEEN_SHARE * band.sum():
            return float("nan")  # hardly any of the band seen (printed lines, glare): no evidence
        return paper / (paper + colour)

    def explain(self, shape, x, y, ang) -> None:
        poly = self._poly(shape, x, y, ang)
        lo, hi = self._window(poly, pad=4)
        m = _fill(poly - lo, (hi[1] - lo[1], hi[0] - lo[0]))
        k = int(round(EXPLAIN_GROW_MM * self.ppm)) * 2 + 1
        m = cv2.dilate(m, np.ones((k, k), np.uint8)) > 0
        self.U[lo[1]:hi[1], lo[0]:hi[0]][m] = 0

    def refine(self, shape, x, y, ang):
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
                seen[key] = self.gain(shape, *pose(cx, cy, a))
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


def _search(grid: _Grid, shapes, bbox):
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
        x, y, a, g = grid.refine(shapes[t], *coarse[t][1])
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
