"""The fine grid a sheet's pose is scored on: colour still unexplained, paper seen, what is unseen.

A sheet lets no uncoloured paper show inside its outline, so a pose is scored by the colour it
explains that no sheet found so far explains, less a heavy penalty (``UNCOLOURED_COST``) for every
visible, plainly uncoloured pixel it covers (right beside the colour, where edges blur, paper costs
only what colour earns, so the pose settles on the edge).  Pixels nobody can see (printed lines,
glare, a hand, out of view) earn nothing and cost only a little (``UNSEEN_COST``: of two shapes
explaining the same colour the one reaching less into the dark is likelier), so a sheet half
hidden or half off the board still fits.  The rulebook puts a pointed sheet's point on the shore:
a point further off than ``SHORE_SLACK_MM`` costs more with every millimetre.

Pure numpy/OpenCV on masks; no I/O.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from .sheets import _seg_dist, place, symmetry_deg

UNCOLOURED_COST = 4.0  # a sheet never shows plain paper: one such pixel outweighs four coloured
UNSEEN_COST = 0.05  # per unseen pixel of a sheet, against colour's 1: slivers don't grow sheets into the dark
EXPLAIN_GROW_MM = 1.0  # colour this close outside a fitted outline is its blurred edge, explained too
# rulebook: a pointed sheet's point must touch the shore. Within SHORE_SLACK_MM of the printed
# shore line costs nothing (a careless hand, a shore drawn roughly); further off, each millimetre
# costs as much as this much colour left unexplained
SHORE_SLACK_MM = 6.0
OFF_SHORE_MM2_PER_MM = 25.0
# ... on the land side, when the land is measured (sheetland.py), the slack is this: plain land
# seen under a point slid up the bank costs as paper does, so the evidence keeps the point where
# its colour ends; the rulebook only says the point is on the shore (the land), and hands lay it
# up to ~13 mm up the bank.  (The coarse search's reach, sheetsearch.SHORE_REACH_MM, alike.)
LAND_SLACK_MM = 14.0
EDGE_BAND_MM = (0.5, 2.0)  # the band outside an outline where its edge is looked for
WIDE_UNSEEN_MM = 4.0  # an unseen patch at least this wide is glare or a hand, not a printed line
WASHED_OUT_MM = 8.0  # ... and colour within this of it may read as paper (see FitGrid.__init__)
EDGE_SEEN_SHARE = 0.15  # less of that band seen: no evidence of an edge at all
# poses whose explained pixels a grid keeps (see FitGrid.explain): a grid rarely sees more than a few
# dozen (24 on the busiest development photo looked at); the bound only keeps memory in check
_EXPLAINS_KEPT = 256


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


@lru_cache(maxsize=32)
def _shore_band(shore: tuple, x0: float, y0: float, ppm: float, shape: tuple, reach_mm: float, k: int) -> np.ndarray:
    """Pixels of ``k`` fine pixels a side within ``reach_mm`` of the shore line."""
    d = np.ascontiguousarray(_shore_distance(shore, x0, y0, ppm, shape), np.float32)
    out = cv2.resize(d, (shape[1] // k, shape[0] // k), interpolation=cv2.INTER_AREA) <= reach_mm
    out.flags.writeable = False
    return out


@lru_cache(maxsize=32)
def _loch_mask(shore: tuple, x0: float, y0: float, ppm: float, shape: tuple, k: int) -> np.ndarray:
    """Pixels of ``k`` fine pixels a side inside the shore line."""
    m = np.zeros((shape[0] // k, shape[1] // k), np.uint8)
    q = np.round(((np.asarray(shore, float) - [x0, y0]) * (ppm / k) - 0.5) * 16).astype(np.int32)
    cv2.fillPoly(m, [q], 1, shift=4)
    out = m > 0
    out.flags.writeable = False
    return out


def washed_out_halo(seen: np.ndarray, loch: np.ndarray, ppm: float, k: int) -> np.ndarray | None:
    """Fine pixels within ``WASHED_OUT_MM`` of a wide unseen patch of the loch (see
    ``FitGrid.set_shore``), from the seen share of each fine pixel; None when there are none.
    Found on the grid of ``k`` fine pixels a side (``loch``: that grid's loch mask)."""
    h, w = seen.shape
    unseen = (cv2.resize(seen, (w // k, h // k), interpolation=cv2.INTER_AREA) < 0.5) & loch
    halo = _halo(unseen, ppm / k)
    if not halo.any():
        return None
    halo = cv2.resize(halo.astype(np.uint8), (w // k * k, h // k * k), interpolation=cv2.INTER_NEAREST)
    return cv2.copyMakeBorder(halo, 0, h - halo.shape[0], 0, w - halo.shape[1], cv2.BORDER_CONSTANT, value=0) > 0


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


def _crop_padded(a: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """``a[y0:y1, x0:x1]`` with zeros where the range leaves the array."""
    h, w = a.shape
    out = np.zeros((y1 - y0, x1 - x0), a.dtype)
    sx0, sy0, sx1, sy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if sx1 > sx0 and sy1 > sy0:
        out[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = a[sy0:sy1, sx0:sx1]
    return out


def _fill(poly_px: np.ndarray, shape) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.round(poly_px * 16).astype(np.int32)], 1, shift=4)
    return m


def _halo(unseen: np.ndarray, ppm: float) -> np.ndarray:
    """Pixels within ``WASHED_OUT_MM`` of a wide unseen patch (one wider than ``WIDE_UNSEEN_MM``).

    The opening (what survives shrinking by half the width, grown back) and the halo round it are
    thresholds of two distance transforms: linear time, whatever the radii.
    """
    if not unseen.any():
        return unseen
    core = cv2.distanceTransform(unseen.astype(np.uint8), cv2.DIST_L2, 3) > WIDE_UNSEEN_MM / 2 * ppm
    if not core.any():
        return core
    grown = cv2.distanceTransform((~core).astype(np.uint8), cv2.DIST_L2, 3)
    return grown <= (WIDE_UNSEEN_MM / 2 + WASHED_OUT_MM) * ppm


class FitGrid:
    """The fine grid: colour not yet explained (``U``) and visible uncoloured paper (``B``), as fractions."""

    def __init__(self, C, B, x0, y0, ppm, coarse: int, D=None):
        self.U, self.B, self.C = C.copy(), B, C
        # D: the share of each pixel seen under two layers of this colour (an overlap of two of the
        # expedition's sheets is darker than one: the filters multiply); V, the second layer not
        # yet explained: the first sheet over a pixel explains one layer, leaving V to the next
        self.D = D
        self.V = None if D is None else D.copy()
        self._dirty: list = []  # windows where U differs from C (reset restores just those)
        self.coarse = coarse  # fine pixels per coarse pixel (the fine grid is whole coarse pixels)
        self.shore: np.ndarray | None = None  # the loch's shore line (mm), for the pointed sheets' rule
        self.pointed_shapes: set = set()
        self.land_seen = False  # the land round the loch measured (sheetland.py), not unseen
        # paper right beside the colour is where the edge blurs and the colour measurement wavers:
        # it costs as much as colour earns there (the pose settles on the edge, not inside it);
        # further off, a sheet showing paper is plainly wrong and pays the full cost
        near = cv2.dilate((C > 0.5).view(np.uint8), np.ones((3, 3), np.uint8)).view(bool)
        # (the full cost everywhere, then B itself copied over near the colour: the values of
        # np.where(near, B, UNCOLOURED_COST * B) made float32, without its two extra arrays)
        self.P = (B * UNCOLOURED_COST).astype(np.float32, copy=False)
        np.copyto(self.P, B, where=near)
        self._planes()
        self.x0, self.y0, self.ppm = x0, y0, ppm
        self.version = 0  # counts changes to U (what is derived from it follows)
        self._colour: dict = {}  # k -> (version, block means of U)
        self._matchable: dict = {}  # (k, paper cost) -> (version, what matchable crops)
        self._paper_blocks: dict = {}  # k -> block means of B
        self._masks: dict = {}  # the board's shore masks, looked up once per grid
        self._explains: dict = {}  # (shape, x, y, angle) -> explain's window and pixels there

    def _planes(self) -> None:
        """What ``gain`` sums: colour explained less paper's cost (``Q``, follows U), and paper and
        colour seen (``S``): two dot products per pose instead of four (the refinement's inner loop)."""
        self.Q = self.U - self.P
        self.S = self.B + self.C

    def shrink(self, a: np.ndarray, k: int | None = None) -> np.ndarray:
        """Block means over coarse pixels (``k`` fine pixels a side; the search grid's by default)."""
        k = k or self.coarse
        return cv2.resize(a, (a.shape[1] // k, a.shape[0] // k), interpolation=cv2.INTER_AREA)

    def matchable(self, k: int, paper_cost: float, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        """Unexplained colour less ``paper_cost`` per pixel of paper, as block means over pixels of
        ``k`` fine pixels a side, over the window ``x0..x1, y0..y1`` of those pixels (zero off the
        grid): what the template search matches against.  Block means are linear: the paper's are
        worked out once, the colour's once per change of the colour (a search's windows share
        them), and the window cut out of their difference."""
        key = (k, paper_cost)
        got = self._matchable.get(key)
        if got is None or got[0] != self.version:
            if k not in self._paper_blocks:
                self._paper_blocks[k] = self.shrink(self._whole_blocks(self.B, k), k)
            got = self._matchable[key] = (self.version, self._colour_blocks(k) - paper_cost * self._paper_blocks[k])
        return _crop_padded(got[1], x0, y0, x1, y1)

    @staticmethod
    def _whole_blocks(a: np.ndarray, k: int) -> np.ndarray:
        """``a`` less the rows and columns that make no whole block of ``k`` (a resize over them
        would spread the blocks)."""
        return a[:a.shape[0] // k * k, :a.shape[1] // k * k]

    def _colour_blocks(self, k: int) -> np.ndarray:
        """``shrink(U, k)``, kept until the colour changes."""
        got = self._colour.get(k)
        if got is None or got[0] != self.version:
            got = self._colour[k] = (self.version, self.shrink(self._whole_blocks(self.U, k), k))
        return got[1]

    def largest_blob(self, within: np.ndarray | None = None):
        """(bbox in fine px (x, y, w, h), unexplained colour in it, fine px, its pixels on the coarse
        grid) of the biggest patch of colour (only of the colour ``within`` a coarse mask, if given).

        Found on the coarse grid: the printed lines that split a sheet's colour into cells are
        narrower than a coarse pixel, and the labelling is cheap there.
        """
        Uc = self._colour_blocks(self.coarse)
        if within is not None:
            Uc = Uc * within
        m = cv2.dilate((Uc > 0.25).astype(np.uint8), np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
        if n <= 1:
            return None
        sums = np.bincount(labels.ravel(), weights=Uc.ravel(), minlength=n) * self.coarse ** 2
        sums[0] = 0
        i = int(np.argmax(sums))
        return tuple(int(v) * self.coarse for v in stats[i, :4]), float(sums[i]), labels == i

    def colour_within(self, within: np.ndarray) -> float:
        """Unexplained colour (fine pixels) in a mask on the coarse grid."""
        return float(np.vdot(self._colour_blocks(self.coarse), within.astype(np.float32))) * self.coarse ** 2

    def save(self) -> tuple:
        """What ``explain`` changes, to try one explanation of a blob and then another (``restore``)."""
        return self.U.copy(), self.Q.copy(), list(self._dirty), self.version, None if self.V is None else self.V.copy()

    def restore(self, state: tuple) -> None:
        U, Q, dirty, _version, V = state
        self.U[...], self.Q[...] = U, Q
        if V is not None:
            self.V[...] = V
        self._dirty = list(dirty)
        self.version += 1

    def explained_by(self, placed, shapes, before: tuple, within: np.ndarray) -> float:
        """How well a set of sheets explains the colour unexplained in ``before`` (a ``save``) that
        lies ``within`` a mask on the coarse grid (one blob: sets reaching into other blobs are
        not to earn by it): colour under their union less the cost of paper shown under it and a
        little for what of it nobody saw, less each pointed sheet's cost for a point off the shore
        (fine pixels).

        Over the union, not sheet by sheet: where two sheets overlap, the colour is explained once
        and the paper paid for once, so two sheets are no better than one that explains as much.
        """
        if not placed:
            return 0.0
        polys = [self._poly(shapes[eq], x, y, ang) for eq, x, y, ang, *_ in placed]
        allp = np.concatenate(polys)
        # the union drawn whole (a sheet may reach off the grid: that part is unseen too) ...
        lo = np.floor(allp.min(0)).astype(int) - 1
        hi = np.ceil(allp.max(0)).astype(int) + 2
        union = np.zeros((hi[1] - lo[1], hi[0] - lo[0]), np.uint8)
        twice = np.zeros_like(union) if self.V is not None else None  # under two of the sheets
        for poly in polys:
            m = np.zeros_like(union)
            cv2.fillPoly(m, [np.round((poly - lo) * 16).astype(np.int32)], 255, lineType=cv2.LINE_AA, shift=4)
            if twice is not None:
                np.maximum(twice, np.minimum(union, m), out=twice)
            np.maximum(union, m, out=union)
        w = union.astype(np.float32) / 255
        # ... and scored where it lies on the grid
        h, wd = self.U.shape
        gx0, gy0 = max(lo[0], 0), max(lo[1], 0)
        gx1, gy1 = min(hi[0], wd), min(hi[1], h)
        if gx1 <= gx0 or gy1 <= gy0:
            return -UNSEEN_COST * float(w.sum())
        win = (slice(gy0, gy1), slice(gx0, gx1))
        wg = w[gy0 - lo[1]:gy1 - lo[1], gx0 - lo[0]:gx1 - lo[0]]
        unseen = float(w.sum()) - float(np.vdot(np.minimum(self.S[win], 1.0), wg))
        k = self.coarse
        mine = within[gy0 // k:(gy1 - 1) // k + 1, gx0 // k:(gx1 - 1) // k + 1]
        mine = np.repeat(np.repeat(mine, k, 0), k, 1)[gy0 % k:gy0 % k + gy1 - gy0, gx0 % k:gx0 % k + gx1 - gx0]
        colour = np.where(mine, before[0][win], 0.0)
        score = float(np.vdot(colour - self.P[win], wg)) - UNSEEN_COST * unseen
        if twice is not None:  # a second layer seen where two of the sheets overlap: explained too
            V = before[4] if len(before) > 4 else self.V
            w2 = twice[gy0 - lo[1]:gy1 - lo[1], gx0 - lo[0]:gx1 - lo[0]].astype(np.float32) / 255
            score += float(np.vdot(np.where(mine, V[win], 0.0), w2))
        return score - sum(self.off_shore(shapes[eq], x, y) for eq, x, y, *_ in placed)

    def reset(self, placed, shapes) -> None:
        """Unexplained colour: all of it but what the given sheets explain."""
        # only the windows changed since the last reset: the whole grid is a million pixels, and
        # the fitter resets once per sheet in its last passes
        for win in self._dirty:
            self.U[win] = self.C[win]
            self.Q[win] = self.C[win] - self.P[win]
            if self.V is not None:
                self.V[win] = self.D[win]
        self._dirty = []
        self.version += 1
        for eq, x, y, ang, *_ in placed:
            self.explain(shapes[eq], x, y, ang)

    def bbox(self, shape, x, y, ang) -> tuple[int, int, int, int]:
        poly = self._poly(shape, x, y, ang)
        lo, hi = self._window(poly)
        return int(lo[0]), int(lo[1]), int(max(hi[0] - lo[0], 1)), int(max(hi[1] - lo[1], 1))

    def drop(self, bbox) -> None:
        x, y, w, h = bbox
        self.U[y:y + h, x:x + w] = 0
        if self.V is not None:
            self.V[y:y + h, x:x + w] = 0
        self.Q[y:y + h, x:x + w] = -self.P[y:y + h, x:x + w]
        self._dirty.append((slice(y, y + h), slice(x, x + w)))
        self.version += 1

    def _poly(self, shape, x, y, ang):
        return (place(shape, x, y, ang) - [self.x0, self.y0]) * self.ppm - 0.5

    def _window(self, poly, pad=1):
        h, w = self.U.shape
        lo = np.maximum(np.floor(poly.min(0)).astype(int) - pad, 0)
        hi = np.minimum(np.ceil(poly.max(0)).astype(int) + pad + 1, [w, h])
        return lo, hi

    def _weights(self, shape, x, y, ang):
        """The outline's anti-aliased mask (0..255, float) over its window of the grid, or None off the grid."""
        # the refinement's inner loop (hundreds of calls per sheet): ``_poly`` and ``_window``
        # inlined, the corners turned in plain Python (six points: numpy's per-call overhead
        # cost more than the arithmetic), rounded to the 1/16 px fixed point by truncating a
        # shifted value (the window's corner keeps every coordinate positive)
        a = math.radians(ang)
        ppm = self.ppm
        c, s = math.cos(a) * ppm, math.sin(a) * ppm
        ox, oy = (x - self.x0) * ppm - 0.5, (y - self.y0) * ppm - 0.5
        xs = [px * c - py * s + ox for px, py in shape]
        ys = [px * s + py * c + oy for px, py in shape]
        h, w = self.U.shape
        lx, ly = max(math.floor(min(xs)) - 1, 0), max(math.floor(min(ys)) - 1, 0)
        hx, hy = min(math.ceil(max(xs)) + 2, w), min(math.ceil(max(ys)) + 2, h)
        if hx <= lx or hy <= ly:
            return None, None
        # anti-aliased: a pixel counts by the share of it inside the outline, so the score moves
        # smoothly with the pose and the local search can settle to a fraction of a pixel
        m = np.zeros((hy - ly, hx - lx), np.uint8)
        bx, by = lx - 0.5 / 16, ly - 0.5 / 16  # round half up: truncation of a value at least 1/32
        pts = np.array([[int((px - bx) * 16), int((py - by) * 16)] for px, py in zip(xs, ys)], np.int32) \
            if lx > 0 and ly > 0 else np.round((np.array([xs, ys]).T - (lx, ly)) * 16).astype(np.int32)
        cv2.fillPoly(m, [pts], 255, lineType=cv2.LINE_AA, shift=4)
        return m.astype(np.float32), (slice(ly, hy), slice(lx, hx))

    def sums(self, shape, x, y, ang) -> tuple[float, float, float, float]:
        """(unexplained colour, visible uncoloured paper, all colour, cost of that paper) under the outline."""
        wgt, win = self._weights(shape, x, y, ang)
        if wgt is None:
            return 0.0, 0.0, 0.0, 0.0
        return (float(np.vdot(self.U[win], wgt)) / 255, float(np.vdot(self.B[win], wgt)) / 255,
                float(np.vdot(self.C[win], wgt)) / 255, float(np.vdot(self.P[win], wgt)) / 255)

    def gain(self, shape, x, y, ang) -> float:
        """Evidence for a sheet here, less a little for every pixel of it nobody saw (the smallest
        explanation of the colour is the likeliest)."""
        wgt, win = self._weights(shape, x, y, ang)
        if wgt is None:
            q = seen = 0.0
        else:
            q, seen = float(np.vdot(self.Q[win], wgt)) / 255, float(np.vdot(self.S[win], wgt)) / 255
        unseen = max(_area(shape) * self.ppm ** 2 - seen, 0.0)
        g = q - UNSEEN_COST * unseen
        return g - self.off_shore(shape, x, y) if shape in self.pointed_shapes else g

    def evidence(self, shape, x, y, ang) -> float:
        """Colour explained less the penalty for paper shown and for a point off the shore: what the
        photo and the rules say, unseen parts aside."""
        u, _b, _c, p = self.sums(shape, x, y, ang)
        return u - p - self.off_shore(shape, x, y)

    def set_shore(self, shore: np.ndarray, pointed_shapes: set, halo=False, cut=None) -> None:
        """The shore line, and each fine pixel's distance to it (mm), for the pointed sheets' rule.

        ``halo``: :func:`washed_out_halo` of this grid's seen pixels when the caller has it (one
        photo's four expeditions share it); by default worked out here.  ``cut``: (row, column,
        shape of the whole grid) when this grid is a cut of a bigger one (rows and columns
        multiples of every block size used): the board's maps are worked out (and kept) for the
        whole grid, and cut alike."""
        self.shore, self.pointed_shapes = shore, pointed_shapes
        r0, c0, whole = cut or (0, 0, self.C.shape)
        self._cut = (r0, c0)
        self._board = (tuple(map(tuple, np.round(shore, 6))), float(self.x0 - c0 / self.ppm),
                       float(self.y0 - r0 / self.ppm), float(self.ppm), tuple(whole))
        self.shore_mm = self._cut_out(_shore_distance(*self._board), 1)
        # round a wide patch of the loch nobody can see (glare, a hand, a deep shadow), colour is
        # washed out before it is lost: paper seen there may be a sheet's pale colour, and costs
        # no more than colour earns.  The printed lines are unseen too, but narrow (an opening
        # drops them); beyond the shore the unseen is the board's edge, not glare.
        # (found on the coarse grid: millimetres do not matter to an 8 mm halo)
        if halo is False:
            halo = washed_out_halo(self.B + self.C, self.loch_mask(self.coarse), self.ppm, self.coarse)
        if halo is not None:
            # in place: the same values as a new P = where(halo, B, P) and Q = U - P, without
            # two more grid-sized arrays per fit (P and Q are this grid's own; nothing else holds them)
            np.copyto(self.P, self.B, where=np.asarray(halo, bool))
            np.subtract(self.U, self.P, out=self.Q)

    def shore_band(self, reach_mm: float, k: int) -> np.ndarray | None:
        """Pixels of ``k`` fine pixels a side within ``reach_mm`` of the shore line (None: no shore known)."""
        if self.shore is None:
            return None
        if ("band", reach_mm, k) not in self._masks:  # (hashing the board's key costs more than a dict)
            self._masks["band", reach_mm, k] = self._cut_out(_shore_band(*self._board, reach_mm, k), k)
        return self._masks["band", reach_mm, k]

    def loch_mask(self, k: int) -> np.ndarray | None:
        """Pixels of ``k`` fine pixels a side inside the shore line (the loch); None: no shore known."""
        if self.shore is None:
            return None
        if ("loch", k) not in self._masks:
            self._masks["loch", k] = self._cut_out(_loch_mask(*self._board, k), k)
        return self._masks["loch", k]

    def _cut_out(self, a: np.ndarray, k: int) -> np.ndarray:
        """A map of the whole grid on pixels of ``k`` fine pixels a side, cut to this grid."""
        r0, c0 = self._cut
        if not r0 and not c0 and a.shape == (self.C.shape[0] // k, self.C.shape[1] // k):
            return a
        return a[r0 // k:r0 // k + self.C.shape[0] // k, c0 // k:c0 // k + self.C.shape[1] // k]

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
        slack = SHORE_SLACK_MM
        if self.land_seen and LAND_SLACK_MM is not None:
            loch = self.loch_mask(1)
            if 0 <= i < loch.shape[0] and 0 <= j < loch.shape[1] and not loch[i, j]:
                slack = LAND_SLACK_MM
        return max(d - slack, 0.0) * OFF_SHORE_MM2_PER_MM * self.ppm ** 2

    def coverage(self, shape, x, y, ang) -> tuple[float, float]:
        """(coloured, visible) pixels under the outline."""
        _u, b, c, _p = self.sums(shape, x, y, ang)
        return c, c + b

    def plain_paper(self, shape, x, y, ang) -> tuple[float, float]:
        """(coloured, plainly uncoloured) pixels under the outline: paper where colour may have been
        lost (a blurred edge, beside glare) is neither."""
        _u, b, c, p = self.sums(shape, x, y, ang)
        # P is B at full cost where the paper is plain, at cost 1 elsewhere: solve for the plain part
        return c, max(p - b, 0.0) / (UNCOLOURED_COST - 1.0)

    def colour_outside(self, shape, pose, other, other_pose) -> float:
        """Colour not yet explained (``U``, pixels) inside one outline and outside another: what
        the first shape explains that the second leaves (sheetfit.RUNNER_UP_CHECK)."""
        mine, theirs = self._poly(shape, *pose), self._poly(other, *other_pose)
        lo, hi = self._window(mine, pad=1)
        if (hi <= lo).any():
            return 0.0  # wholly off the grid
        size = (hi[1] - lo[1], hi[0] - lo[0])
        only = (_fill(mine - lo, size) > 0) & ~(_fill(theirs - lo, size) > 0)
        return float(self.U[lo[1]:hi[1], lo[0]:hi[0]][only].sum())

    def edge_support(self, shape, x, y, ang) -> float:
        """Share of the seen part of a band just outside the outline that shows plain paper: the
        sheet's edge, seen.

        A patch of colour bounded by printed lines or by the unseen (the rest of a bigger sheet
        lost to glare, say) fits a small shape as well as it fits the truth; only paper seen right
        outside the outline shows that the sheet really ends there.
        """
        poly = self._poly(shape, x, y, ang)
        lo, hi = self._window(poly, pad=int(np.ceil(EDGE_BAND_MM[1] * self.ppm)) + 1)
        if (hi <= lo).any():
            return float("nan")  # wholly off the grid: nothing seen
        m = _fill(poly - lo, (hi[1] - lo[1], hi[0] - lo[0]))
        k0, k1 = (int(round(r * self.ppm)) * 2 + 1 for r in EDGE_BAND_MM)
        band = (cv2.dilate(m, np.ones((k1, k1), np.uint8)) > 0) & ~(cv2.dilate(m, np.ones((k0, k0), np.uint8)) > 0)
        win = (slice(lo[1], hi[1]), slice(lo[0], hi[0]))
        paper, colour = float(self.B[win][band].sum()), float(self.C[win][band].sum())
        if paper + colour < EDGE_SEEN_SHARE * band.sum():
            return float("nan")  # hardly any of the band seen (printed lines, glare): no evidence
        return paper / (paper + colour)

    def explain(self, shape, x, y, ang) -> None:
        # the same few poses are explained again and again (each reset explains every sheet but
        # one again: on a busy 12 MP development photo 180 explanations of 24 poses), so a pose's
        # window and pixels are worked out once per grid (the grid's geometry never changes)
        key = (shape, x, y, ang)
        got = self._explains.get(key)
        if got is None:
            if len(self._explains) >= _EXPLAINS_KEPT:
                self._explains.clear()
            got = self._explains[key] = self._explained_pixels(shape, x, y, ang)
        if got is False:
            return  # wholly off the grid: nothing here to explain
        win, m = got
        if self.V is None:
            self.U[win][m] = 0
            self.Q[win][m] = -self.P[win][m]
        else:  # one layer explained: what is left is the second layer, if any
            left = self.V[win][m]
            self.U[win][m] = left
            self.V[win][m] = 0
            self.Q[win][m] = left - self.P[win][m]
        self._dirty.append(win)
        self.version += 1

    def _explained_pixels(self, shape, x, y, ang):
        """(window, bool mask in it) of the pixels a sheet at this pose explains: its outline grown
        by EXPLAIN_GROW_MM; False when it lies wholly off the grid."""
        poly = self._poly(shape, x, y, ang)
        lo, hi = self._window(poly, pad=4)
        if (hi <= lo).any():
            return False
        m = _fill(poly - lo, (hi[1] - lo[1], hi[0] - lo[0]))
        k = int(round(EXPLAIN_GROW_MM * self.ppm)) * 2 + 1
        m = cv2.dilate(m, np.ones((k, k), np.uint8)) > 0
        return (slice(lo[1], hi[1]), slice(lo[0], hi[0])), m
