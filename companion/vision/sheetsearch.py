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

from .sheetblob import pointed_heading
from .sheetgrid import FitGrid, _area, _crop_padded, _period
from .sheets import place

COARSE_PPM = 0.5  # template search grid (2 mm pixels): cheap, and every shape still spans 5+ pixels
ANGLE_STEP = 6.0
COARSE_UNCOLOURED_COST = 1.0  # 2 mm pixels mix an edge with the paper beside it: a milder penalty there
LEAD_SHARE = 0.5  # shapes scoring this share of the coarse winner are refined before choosing
MAX_REFINED = 3  # ... at most this many
COARSE_TURN_KEEP = 3  # turns on the 2-step grid whose neighbours are matched too
# rulebook: a pointed sheet's point touches the shore.  The coarse search only tries points this
# close to the printed shore line (a careless hand misses it by a few millimetres; the fine
# search's cost for a point off the shore takes over from there): a 1-D search along the shore
# instead of a 2-D one over the loch, several times cheaper and with far fewer wrong candidates
SHORE_REACH_MM = 14.0
SMALL_SHEET_MM = 15.0
SWEEP_STEP = 1.5  # the refinement's first sweep of turns (3 degrees lost a sheet's name on dev seed 13)
SCREEN_STRIDE = 3
# see search.  Off: on seeds 0-39 (measured masks) it took ~40 % of the searches at ~6.5 ms
# against 8-10 ms, but the fast attempts that fail cost as much again, and fitting came out 3-6 %
# slower with it (same types, same poses).  Kept, and tested, as the frame for a cheaper one.
FAST_PATH = False
FAST_TURNS = 3  # turns (ANGLE_STEP apart) either side of the blob's heading: a partly hidden blob's middle is off
# the fast path's sheet must cover this share of the blob's colour (measured on dev seeds 0-19: a
# sheet alone covers 0.95-1.03 of it, one of two sheets in a blob far less or, reaching into the
# next blob, more) ...
FAST_EXPLAINED = (0.92, 1.08)
FAST_ROUGH = (0.75, 1.25)  # the coarse pose of sheets kept covered 0.81-1.02 of the blob (dev seeds 0-19)
FAST_GAIN = 0.82  # ... and gain this share of it (fast and full search agreed above 0.81 there)
RIVALS_CUT = True  # see search
RIVAL_BAR = 0.6  # ... a rival under this share of the best gain so far after the 1 mm descent stops there
COARSE_MIN_WIDTH_PX = 7.0  # see _coarse_block  # a sheet this small (centre to corner) has its turn searched in full on the fine grid

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


def refine(grid: FitGrid, shape, x, y, ang, bar: float | None = None):
    """Local search from a coarse pose: (x, y, angle, gain) at the best gain found.

    The sheet turns about its middle, not its point: a turn about the point would swing the
    far end by centimetres and pull the pose off the colour.  ``bar``: stop after the first
    (1 mm) descent when the gain is still under it (a rival that cannot lead: the finer steps
    move a gain by a few per cent at most).
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
    # the coarse angle is the best of turns a step apart: the sheet's lies within half a step of
    # it, and the descent's first turns (3 degrees) reach past that (a whole step either way, as
    # before, named the same 1,063 of 1,145 dev sheets and 1,146 of 1,228 bench sheets right, for
    # 8 % more pose scores); a small sheet's (a few coarse pixels) is not known at all
    radius = float(np.linalg.norm(np.asarray(shape, float) - mid, axis=1).max())
    span = _period(shape) / 2 if radius < SMALL_SHEET_MM else ANGLE_STEP / 2
    angles = ang + np.arange(-span, span + 1e-9, SWEEP_STEP)
    gains = [gain(c0[0], c0[1], a) for a in angles]
    cur = (float(c0[0]), float(c0[1]), float(angles[int(np.argmax(gains))]))
    best = max(gains)
    for step_xy, step_a in ((1.0, 3.0), (0.5, 1.5), (0.25, 0.75)):
        if bar is not None and step_xy < 1.0 and best < bar:
            break
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

def search(grid: FitGrid, shapes, bbox, spare: dict | None = None, paper_cost: float = COARSE_UNCOLOURED_COST,
           every_shape: bool = False):
    """Template search over one blob on the coarse grid, then the leading shapes refined on the fine grid.

    Returns ({type: (gain, (x, y, angle))} of the refined shapes, the best type) or None.
    ``paper_cost``: what the coarse match pays per pixel of paper; ``every_shape``: every shape
    matched anywhere is refined, not the leading few (sheetgroups.STRICT_RETRY).
    ``spare``, when given, receives the leading shapes of the full search not refined (beyond
    ``MAX_REFINED``) as {type: coarse pose}, for a caller that wants to try more of them.

    With ``FAST_PATH`` (off), a fast path first (sheetblob.py): pointed shapes tried only at the
    turns round the heading from the blob's point on the shore to its middle.  Kept when the best
    sheet found is the blob alone and whole (see ``_explains``); otherwise every turn is searched.  Both share their windows, the
    other shapes' matches and every refinement from the same coarse pose.
    """
    levels: dict = {}
    matched: dict = {}
    polished: dict = {}

    def window(k: int) -> "_Window":
        if k not in levels:
            levels[k] = _Window(grid, shapes, bbox, k, paper_cost)
        return levels[k]

    def refined_from(t, start, bar=None):
        # a rival stopped short of the finer steps is refined in full when asked again without a bar
        got = polished.get((t, start))
        if got is None or (got[2] and (bar is None or got[0] >= bar)):
            x, y, a, g = refine(grid, shapes[t], *(start if got is None else got[1]), bar=bar)
            got = polished[t, start] = (g, (x, y, a), bar is not None and g < bar)
        return got[:2]

    if FAST_PATH:
        heading = pointed_heading(grid, bbox, SHORE_REACH_MM)
        if heading is not None:
            leaders = _leaders(grid, shapes, window, matched, heading.heading_deg)[:MAX_REFINED]
            # the likeliest sheet first: if it is not the blob alone, the others need not be refined
            # (nor itself, when even its coarse pose covers far too little or too much of the blob)
            if (leaders and shapes[leaders[0][0]] in grid.pointed_shapes
                    and _roughly_covers(grid, shapes[leaders[0][0]], leaders[0][1], heading.colour_px)
                    and _explains(grid, shapes[leaders[0][0]], refined_from(*leaders[0]), heading.colour_px)):
                refined = {t: refined_from(t, start) for t, start in leaders}
                best = max(refined, key=lambda t: refined[t][0])
                # a shape that is not pointed won over pointed ones tried at a few turns only:
                # not the case the fast path is for, and not a fair contest
                if shapes[best] in grid.pointed_shapes and _explains(grid, shapes[best], refined[best], heading.colour_px):
                    return refined, best
    leaders = (_leaders(grid, shapes, window, matched, None, lead_share=None) if every_shape
               else _leaders(grid, shapes, window, matched, None))
    if not leaders:
        return None
    if spare is not None:
        spare.update(dict(leaders[MAX_REFINED:]))
    leaders = leaders if every_shape else leaders[:MAX_REFINED]
    # the likeliest shape in full first; a rival whose gain stays far under it after the first
    # descent stops there (it cannot lead, and its evidence, a few per cent short, hardly moves
    # the confidence: the lead over it is large)
    refined = {}
    for t, start in leaders:
        top = max((g for g, _p in refined.values()), default=None)
        refined[t] = refined_from(t, start, None if top is None or not RIVALS_CUT else RIVAL_BAR * top)
    return refined, max(refined, key=lambda t: refined[t][0])


def _roughly_covers(grid: FitGrid, shape, pose, colour_px: float) -> bool:
    """Before refining: does the coarse pose cover something like the blob's colour?"""
    covered = grid.sums(shape, *pose)[0]
    return FAST_ROUGH[0] * colour_px <= covered <= FAST_ROUGH[1] * colour_px


def _explains(grid: FitGrid, shape, fit, colour_px: float) -> bool:
    """Is a fitted sheet the blob, alone and whole: does it cover about all the blob's colour (and
    not much more: colour beyond the blob is another sheet's), and does its gain (colour less
    paper shown and parts unseen) come to nearly all of it?"""
    gain, pose = fit
    covered = grid.sums(shape, *pose)[0]
    return (FAST_EXPLAINED[0] * colour_px <= covered <= FAST_EXPLAINED[1] * colour_px
            and gain >= FAST_GAIN * colour_px)


def _leaders(grid: FitGrid, shapes, window, matched: dict, heading: float | None, lead_share: float | None = LEAD_SHARE) -> list:
    """The shapes worth refining, best coarse match first, each as (type, coarse pose).

    With a ``heading``, pointed shapes are matched only at the turns within ``FAST_TURNS`` steps
    of it.  ``matched`` keeps each shape's coarse match between calls (by shape and heading used).
    """
    cppm = grid.ppm / grid.coarse
    coarse: dict = {}
    top = 0.0
    # biggest shapes first: a shape whose whole area falls short of LEAD_SHARE of the best match
    # so far could never lead (a match sums at most one per pixel), so it is not matched at all
    for eq, shape in sorted(shapes.items(), key=lambda kv: -_area(kv[1])):
        if lead_share is not None and _area(shape) < lead_share * top:
            continue
        on_shore = grid.shore is not None and shape in grid.pointed_shapes
        key = (eq, heading if on_shore else None)
        if key not in matched:
            matched[key] = _coarse_match(grid, shape, window, on_shore, heading if on_shore else None, cppm)
        found = matched[key]
        if found is not None:
            coarse[eq] = found
            top = max(top, found[0])
    if lead_share is None:  # every shape matched anywhere, however poorly
        return [(t, coarse[t][1]) for t in sorted(coarse, key=lambda t: -coarse[t][0])]
    if not coarse or top <= 0:
        return []
    leaders = sorted((t for t in coarse if coarse[t][0] >= lead_share * top), key=lambda t: -coarse[t][0])
    return [(t, coarse[t][1]) for t in leaders]


def _coarse_match(grid: FitGrid, shape, window, on_shore: bool, heading: float | None, cppm: float):
    """(score, pose) of a shape's best match on the 2 mm grid, or None."""
    turns = None
    k = _coarse_block(shape, grid.ppm, grid.coarse)
    if heading is not None:
        n = len(_turns(shape, cppm))
        mid = int(round(heading / (360.0 / n)))
        turns = sorted({j % n for j in range(mid - FAST_TURNS, mid + FAST_TURNS + 1)})
    elif k != grid.coarse:
        # coarse to fine: every turn screened on the 4 mm grid, only the best few (and their
        # neighbours) matched again on the 2 mm grid, where a sheet overlapping another shows
        # its own outline
        ranked = window(k).scores(shape, on_shore)
        best = sorted(ranked, key=lambda i: -ranked[i])[:COARSE_TURN_KEEP]
        turns = sorted({j % len(_turns(shape, cppm)) for i in best for j in (i - 1, i, i + 1)})
    return window(grid.coarse).best(shape, on_shore, turns)


class _Window:
    """One blob's surroundings on a grid of ``k`` fine pixels a side: the colour a template can
    match there (unexplained colour less paper) and the stretches of shore in it."""

    def __init__(self, grid: FitGrid, shapes, bbox, k: int, paper_cost: float = COARSE_UNCOLOURED_COST):
        self.grid, self.k = grid, k
        self.cppm = cppm = grid.ppm / k
        bx, by, bw, bh = bbox
        # every placement of any template that overlaps the blob: the blob's box grown by the
        # largest template, in whole pixels
        self.reach = reach = _reach(shapes, cppm)
        self.cx0, self.cy0 = cx0, cy0 = bx // k - reach, by // k - reach
        cx1, cy1 = -(-(bx + bw) // k) + reach, -(-(by + bh) // k) + reach
        # coarse pixels mix a sheet's edge with the paper round it: a milder penalty, or no small
        # shape would ever score; the fine grid judges with the full one
        self.W = grid.matchable(k, paper_cost, cx0, cy0, cx1, cy1)
        # the stretches of shore a pointed sheet's point may lie on, in this window
        band = grid.shore_band(SHORE_REACH_MM, k)
        self.stretches = _shore_stretches(band, grid.loch_mask(k), cx0, cy0, cx1, cy1)
        # (a placement's origin lies inside its template's box, so inside the window)
        self.band = None if band is None else (_crop_padded(band, cx0, cy0, cx1, cy1).view(np.uint8), cx0, cy0)

    def best(self, shape, on_shore: bool, turns=None):
        """(score in mm² of colour, (x, y, angle)) of the shape's best placement over the blob, or
        None; over the given turns (indices into ``_turns``) or over all."""
        tried = self.scores(shape, on_shore, turns, poses=True)
        out = max(tried.values(), key=lambda v: v[0])
        return out if np.isfinite(out[0]) else None

    def scores(self, shape, on_shore: bool, turns=None, poses: bool = False) -> dict:
        """{turn index: best match score} (with ``poses``: {index: (score, pose)}) of the turns tried:
        the given ones, or every other turn and both neighbours of the best few."""
        angles = _turns(shape, self.grid.ppm / self.grid.coarse)
        table = _turn_table(shape, self.grid.ppm / self.grid.coarse, self.cppm)
        n = len(angles)
        tried: dict = {}
        W, cppm, reach = self.W, self.cppm, self.reach
        H, Wd = W.shape
        cx0, cy0, x0, y0 = self.cx0, self.cy0, self.grid.x0, self.grid.y0

        def match(i: int) -> float:
            i %= n
            if i not in tried:
                ang, T, off, th, tw, fx, fy, body = table[i]
                # just the placements of this template that overlap the blob
                ox, oy = max(reach - tw + 1, 0), max(reach - th + 1, 0)
                Wv = W[oy:H - oy, ox:Wd - ox]
                if on_shore:
                    mx, loc = _match_on_shore(Wv, T, self.stretches, (cx0 + ox + fx, cy0 + oy + fy), body, self.band)
                else:
                    _, mx, _, loc = cv2.minMaxLoc(cv2.matchTemplate(Wv, T, cv2.TM_CCORR))
                tried[i] = (mx / cppm ** 2, (x0 + (cx0 + ox + loc[0] + off[0]) / cppm,
                                             y0 + (cy0 + oy + loc[1] + off[1]) / cppm, ang))
            return tried[i][0]

        # every other turn first, then both neighbours of the best few: a template's match moves
        # smoothly with its turn (one step swings a sheet's tip by under a coarse pixel), so the
        # best turn lies beside one of the best sampled ones
        if turns is not None:
            for i in turns:
                match(i)
        elif len(angles) > 2 * COARSE_TURN_KEEP + 2:
            # (every third on the 4 mm screen, every other where a shape is matched on the 2 mm grid only)
            sampled = range(0, len(angles), SCREEN_STRIDE if self.k != self.grid.coarse else 2)
            for i in sorted(sampled, key=lambda i: -match(i))[:COARSE_TURN_KEEP]:
                match(i - 1), match(i + 1)
        else:
            for i in range(len(angles)):
                match(i)
        return tried if poses else {i: v[0] for i, v in tried.items()}


@lru_cache(maxsize=64)
def _turn_table(shape: tuple, turns_ppm: float, cppm: float) -> tuple:
    """Per turn of ``_turns(shape, turns_ppm)``: (angle, template at ``cppm``, its origin's offset,
    its height and width, the offset's whole pixels, the body's direction): worked out once, not
    on each of the thousand matches of a photo."""
    out = []
    for ang in _turns(shape, turns_ppm):
        ang = float(ang)
        T, off = _template(shape, ang, cppm)
        a = math.radians(ang)
        # the body runs along (-sin, cos) of the turn (angle 0 points it to +y)
        out.append((ang, T, off, T.shape[0], T.shape[1], math.floor(off[0]), math.floor(off[1]),
                    (-math.sin(a), math.cos(a))))
    return tuple(out)


@lru_cache(maxsize=64)
def _coarse_block(shape: tuple, ppm: float, k: int) -> int:
    """Fine pixels a side of the grid a shape is first searched on: the 2 mm grid, or twice as
    coarse for a shape at least ``COARSE_MIN_WIDTH_PX`` of those pixels wide at every turn (a
    quarter of the pixels to match, and still a clear outline)."""
    pts = np.asarray(shape, float)
    widths = []
    for a in np.radians(np.arange(0.0, 180.0, 5.0)):
        proj = pts @ np.array([math.cos(a), math.sin(a)])
        widths.append(proj.max() - proj.min())
    return 2 * k if min(widths) * ppm / (2 * k) >= COARSE_MIN_WIDTH_PX else k


@lru_cache(maxsize=64)
def _turns(shape: tuple, cppm: float) -> np.ndarray:
    """The turns the coarse search tries: ``ANGLE_STEP`` apart over the shape's period, or further
    apart for a shape so small that a step moves its corners by less than a coarse pixel (a cage:
    its turn is found in the refinement, which sweeps its whole period)."""
    mid = np.asarray(shape, float).mean(0)
    radius = float(np.linalg.norm(np.asarray(shape, float) - mid, axis=1).max())
    step = max(ANGLE_STEP, math.degrees(1.0 / (cppm * radius)))
    period = _period(shape)
    out = np.linspace(0.0, period, int(math.ceil(period / step - 1e-9)), endpoint=False)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=16)
def _reach_cached(shapes_key: tuple, cppm: float) -> int:
    span = max(float(np.linalg.norm(np.asarray(sh)[:, None] - np.asarray(sh)[None], axis=-1).max())
               for sh in shapes_key)
    return int(np.ceil(span * cppm)) + 3  # a template's box is at most its longest chord, plus its margin


def _reach(shapes: dict, cppm: float) -> int:
    """How far (coarse pixels) a template overlapping the blob can reach beyond it."""
    return _reach_cached(tuple(shapes.values()), cppm)


def _shore_stretches(band: np.ndarray | None, loch: np.ndarray | None, x0: int, y0: int, x1: int, y1: int) -> list:
    """The stretches of shore (x0, y0, x1, y1 in coarse pixels, and the side the loch lies on) in a
    window: runs of rows holding shore pixels, each with the columns they span (the north and
    south shores apart)."""
    if band is None or loch is None:
        return []
    allowed = _crop_padded(band, x0, y0, x1, y1)
    rows = np.flatnonzero(allowed.any(1))
    if not len(rows):
        return []
    breaks = np.flatnonzero(np.diff(rows) > 1)
    inside = _crop_padded(loch, x0, y0, x1, y1)
    out = []
    for r0, r1 in zip(np.r_[rows[0], rows[breaks + 1]], np.r_[rows[breaks], rows[-1]] + 1):
        cols = np.flatnonzero(allowed[r0:r1].any(0))
        c0, c1 = int(cols[0]), int(cols[-1]) + 1
        out.append((x0 + c0, y0 + int(r0), x0 + c1, y0 + int(r1), _loch_side(inside[r0:r1, c0:c1])))
    return out


def _loch_side(inside: np.ndarray) -> tuple[float, float]:
    """Unit vector from the shore into the loch over a stretch of shore (inside: loch pixels);
    (0, 0) when the loch lies on more than one side (the stretch rounds an end of the loch)."""
    if inside.all() or not inside.any():
        return 0.0, 0.0
    # the mean column and row of the loch's pixels and of the others, from whole-number sums (the
    # same means as of np.nonzero's coordinates, without listing them)
    h, w = inside.shape
    n_in = int(np.count_nonzero(inside))
    n_out = h * w - n_in
    x_in = int(inside.sum(0, dtype=np.int64) @ np.arange(w, dtype=np.int64))
    y_in = int(inside.sum(1, dtype=np.int64) @ np.arange(h, dtype=np.int64))
    x_all, y_all = h * (w * (w - 1) // 2), w * (h * (h - 1) // 2)
    v = np.array([x_in / n_in - (x_all - x_in) / n_out, y_in / n_in - (y_all - y_in) / n_out])
    # a straight shore splits the stretch into two halves that far apart; round an end, the
    # loch's pixels and the land's share a middle
    if np.linalg.norm(v) < 0.25 * min(inside.shape):
        return 0.0, 0.0
    v /= np.linalg.norm(v)
    return float(v[0]), float(v[1])


def _match_on_shore(W: np.ndarray, T: np.ndarray, stretches, origin0: tuple[int, int], body: tuple[float, float],
                    band: tuple | None = None):
    """Best template match over ``W`` among placements whose pose origin lies on a stretch of shore
    and whose body (its direction: (-sin, cos) of the turn) lies out over the loch (the sheet
    looks out from the shore, within a right angle of straight out: a sheet lying over the land
    would watch nothing).

    ``origin0``: the coarse pixel of the origin for the placement at W's corner; ``band``: the
    pixels within reach of the shore, as (uint8 mask over a window holding every origin, its
    corner's coarse pixel): only those may hold the origin.  A stretch is the box round a run of
    rows holding band pixels, and round an end of the loch one run spans both shores and the
    loch between them: matched over that box alone, a point in the middle of the loch won the
    coarse search (seed 9206), and its refinement, paying for a point off the shore, lost the
    sheet.  Returns (score, (x, y) of the placement in W); (-inf, (0, 0)) when no placement is
    allowed.
    """
    th, tw = T.shape
    rh, rw = W.shape[0] - th + 1, W.shape[1] - tw + 1
    best, where = -np.inf, (0, 0)
    for sx0, sy0, sx1, sy1, side in stretches:
        if body[0] * side[0] + body[1] * side[1] < 0:
            continue
        c0, r0 = max(sx0 - origin0[0], 0), max(sy0 - origin0[1], 0)
        c1, r1 = min(sx1 - origin0[0], rw), min(sy1 - origin0[1], rh)
        if c1 <= c0 or r1 <= r0:
            continue
        res = cv2.matchTemplate(W[r0:r1 + th - 1, c0:c1 + tw - 1], T, cv2.TM_CCORR)
        if band is None:
            _, mx, _, loc = cv2.minMaxLoc(res)
        else:
            ax, ay = origin0[0] + c0 - band[1], origin0[1] + r0 - band[2]
            _, mx, _, loc = cv2.minMaxLoc(res, band[0][ay:ay + res.shape[0], ax:ax + res.shape[1]])
            if loc[0] < 0:
                continue  # no origin of this stretch within reach of the shore
        if mx > best:
            best, where = mx, (loc[0] + c0, loc[1] + r0)
    return best, where
