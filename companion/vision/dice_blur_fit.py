"""A small defocused die's value read by fitting each layout's pips, blurred as the face is, to its face.

Why: a die 40-50 px across in a 3000-4000 px photo, out of the focal plane, has its pips smeared into
the face: each pip is a smooth dip (or bump, for light pips on a dark face) the size of the blur
kernel, too shallow and wide for the face reader to find as a pip ("no pips", "a lone pip off
centre", "a die-shaped blob"). Defocus is a linear blur: the photo there is the sharp face (a square
of one colour with pips at the layout's places) convolved with one kernel, and the *same* kernel
blurs the face's edge against the table. So the face's square and the blur are measured from the
die's silhouette (its half-level outline: a blurred straight edge crosses half its step at the edge
itself), and each of the six layouts' pips, drawn in that square and blurred the same way, is fitted
to the face's colours by least squares (one amplitude per channel for all its pips: the pips of one
die are one colour and size). The six layouts differ in where the dips lie (centre, corners, the
middles of two sides): a layout whose pips lie where there is no dip, or misses one, fits worse.
A value is taken only when one layout explains the dips clearly better than every other and than a
face with no pips; when two fit about as well, the die stays unreadable (the reader's contract).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

#: pip centres' offset from the face's centre, in sides (real dice 0.25-0.3; the renderer 0.24-0.3)
SPACING = 0.27
#: a pip's radius in sides (real dice and the renderer: 0.065-0.1)
PIP_R = 0.085
#: the window cut round the report, in report sides each way (the die and a ring of table round it)
REACH = 1.2
#: the table's colour is the median of the window's outer ring this wide (fraction of the window)
RING = 0.12
#: the silhouette: pixels whose colour distance from the table is over this fraction of the die's
#: (the half-level: a blurred edge crosses half its step where the sharp edge was)
HALF = 0.5
#: the silhouette must be a square seen from above: sides within this ratio, and filling this much of
#: its rectangle (a tilted die's side faces, a shadow or a neighbour make it longer or ragged)
SQUARE_RATIO = 1.25
SQUARE_FILL = 0.82
#: the silhouette's square must be at least this fraction of the report's side (a report of a blurred
#: die is its blob, halo included, at most about twice the die) and this many pixels (a pip or a
#: glint found as the silhouette is far smaller)
LEAST_OF_REPORT = 0.5
LEAST_PX = 16
#: reports larger than this (pixels) are not fitted: the rule is for dice 40-50 px across whose
#: report (their blur's halo included) is at most about twice that; a larger one is 24+ work pixels,
#: a die the face reader sees at its scale (and a fit's cost grows with the window's area). Fitting
#: a shrunk window instead was tried: it read development light 17's blurred two as a one.
LARGEST_PX = 110
#: blur sigmas tried, in face sides (the edge's fit chooses; 0.03-0.2: from nearly sharp to pips gone)
SIGMAS = (0.03, 0.06, 0.09, 0.12, 0.15, 0.18)
#: the face is fitted inside this half-width (sides) of its square (the edge's fall is in the model)
FIT_HALF = 0.5
#: small moves of the face tried round the silhouette's square: centre (sides) and turn (degrees)
NUDGE = 0.05
TURN = 4.0
#: one layout taken only when its pips explain this fraction of the face's variance left by a face with
#: no pips (the dips are there and it is they that the layout explains) ...
EXPLAINS = 0.3
#: ... and every other layout leaves at least this fraction of that explained part unexplained over it
#: (it is clearly better, not about as good)
MARGIN = 0.35

# the layouts' pips (u, v) in units of SPACING; two turns for the two, three and six
_LAYOUTS = {
    1: [((0, 0),)],
    2: [((-1, -1), (1, 1)), ((-1, 1), (1, -1))],
    3: [((-1, -1), (0, 0), (1, 1)), ((-1, 1), (0, 0), (1, -1))],
    4: [((-1, -1), (1, 1), (-1, 1), (1, -1))],
    5: [((-1, -1), (1, 1), (-1, 1), (1, -1), (0, 0))],
    6: [((-1, -1), (1, 1), (-1, 1), (1, -1), (-1, 0), (1, 0)),
        ((-1, -1), (1, 1), (-1, 1), (1, -1), (0, -1), (0, 1))],
}


def _silhouette(win: np.ndarray):
    """(centre x, y, side, angle in degrees, distance map) of the die's square in ``win`` (float BGR),
    or None when its silhouette is not a square seen from above."""
    h, w = win.shape[:2]
    r = max(2, int(RING * min(h, w)))
    ring = np.concatenate([win[:r].reshape(-1, 3), win[-r:].reshape(-1, 3),
                           win[:, :r].reshape(-1, 3), win[:, -r:].reshape(-1, 3)])
    table = np.median(ring, axis=0)
    dist = np.linalg.norm(win - table, axis=2)
    inner = dist[h // 4: 3 * h // 4, w // 4: 3 * w // 4]
    top = float(np.percentile(inner, 90))
    ring_d = float(np.percentile(np.linalg.norm(ring - table, axis=1), 95))
    if top < 2.5 * max(ring_d, 4.0):
        return None  # (the die does not stand out of the table)
    mask = (dist > HALF * top).astype(np.uint8)
    n, lab, stats, cents = cv2.connectedComponentsWithStats(mask, 8)
    if n < 2:
        return None
    k = 1 + int(np.argmin([math.dist(cents[i], (w / 2, h / 2)) for i in range(1, n)]))
    sq = _square_blob(lab == k, w, h)
    if sq is None:
        return None
    cx, cy, rw, rh, ang, cnt = sq
    return cx, cy, math.sqrt(rw * rh), ang, dist


#: the second way to a light die's face (session 41, h2): when the silhouette by colour distance gives no
#: value (not a square, or die and shadow fitted by no layout), the face found by its chroma. Why: a light
#: die on white paper or a white table differs from
#: the table less than its shadow does (the shadow is the larger part of the colour distance, and the
#: silhouette is the die with its shadow: not a square); but a shadow is the table's own colour, dimmed
#: (the same chromaticity, only darker), while the top face has the die's colour and faces the light
#: (it is not darker than the table). So the pixels whose *chromaticity* differs from the table's are
#: the die's faces without the shadow, and the die must be light (its face about as bright as the
#: table). The same square test, size guards and layout fit follow. (Keeping only pixels not darker
#: than the table was tried: it cut the blurred face where it meets its shadow -- light 3414's faces
#: lost a corner -- while the chroma alone gave squares there.) A white die on white has no chroma:
#: not found this way. False: the reader as before (only the distance silhouette). Off after session
#: 41's held-out read (one light die read right, 5418's four, and one wrong, 5200's 45 px four read as a
#: one); on again in session 42 with CHROMA_FACE_TOP_ONLY, the guard against the cause found for such a
#: wrong value (a tilted die's side faces in its chroma square; docs/dice-camera.md, forty-first round):
#: guarded, it added nothing wrong on any development set read.
LIGHT_DIE_FACE_BY_CHROMA = True
#: a pixel's chromaticity: its colour over its mean channel, times this (a grey pixel is (128, 128, 128)
#: whatever its brightness, so a shadow's distance from the table is its tint only; units like BGR's)
CHROMA_SCALE = 128.0
#: pixels darker than this (mean channel) have no chromaticity worth the name (noise over a small mean);
#: they are counted as the table's chroma (pips and dark side faces are not the face's colour)
CHROMA_LEAST_LUM = 40.0
#: the chroma silhouette's die must be light: its face's brightness (this percentile of its square's:
#: the face between its pips, which with their blur darken up to a third of a six's face) at least this
#: share of the table's (a dark die on a light table is found by the distance silhouette, or not at all
#: here; a pastel face is 0.85-0.95 of a white table's brightness)
LIGHT_DIE = 0.8
LIGHT_DIE_PERCENTILE = 75
#: the chroma silhouette's level: over this share of the face's chroma distance. Higher than HALF: a
#: shadow is the table's colour dimmed but not exactly (a tint of the light's and the die's bounce), a
#: tail under half the face's level on the shadow's side that a half-level edge takes in (light 3414's
#: faces measured 51-52 px at 0.5, 49-51 at 0.6; true 45-47 px)
CHROMA_HALF = 0.6
#: the chroma square must be the die's top face, not the top face with a side face (session 42, h2).
#: Why: a die seen at a tilt shows one or two side faces, of the die's own colour (the same chroma as
#: its top face) but turned away from the light, so darker -- and carrying pips of their own. The
#: chroma silhouette takes them in with the top face: its "square" is then larger than the face and
#: off its centre, and the layout fit reads the side face's pips with the top face's (development
#: light 3468: a pink one with a side face's four beside it read as a six; session 41's held-out
#: wrong four read as a one is of this size and kind). The top face is the part of the square as
#: bright as the face (it faces the light); the guard keeps the square only when that part, with its
#: pips filled in (the outline of the bright part's largest piece), covers TOP_FACE_SHARE of it.
#: False: the chroma square as session 41 built it.
CHROMA_FACE_TOP_ONLY = True
#: the top face's pixels: at least this share of the face's bright level (the square's
#: LIGHT_DIE_PERCENTILE brightness). The renders' side faces are 0.45-0.76 of it where they meet the
#: square's edge; the top face between its pips and its blurred edge against a white table are 0.9-1.0
TOP_FACE_LUM = 0.8
#: ... and they must cover this share of the chroma square. Measured on the chroma squares of 168
#: development light dice 30-70 px (light 3300-3529, each fitted at its true centre): every fit read
#: right with EXPLAINS met covered 0.73-0.97; the three read wrong (a one as a six: light 3468, 3489)
#: 0.52-0.61; of all fits whose best layout was wrong, 57 of 74 covered under 0.7
TOP_FACE_SHARE = 0.7


def _chroma_silhouette(win: np.ndarray):
    """As :func:`_silhouette`, the face found by chromaticity (see LIGHT_DIE_FACE_BY_CHROMA)."""
    h, w = win.shape[:2]
    r = max(2, int(RING * min(h, w)))
    lum = win.mean(axis=2)
    chroma = win * (CHROMA_SCALE / np.maximum(lum, CHROMA_LEAST_LUM))[..., None]
    in_ring = np.ones((h, w), bool)
    in_ring[r:h - r, r:w - r] = False
    ring = chroma[in_ring]
    table = np.median(ring, axis=0)
    table_lum = float(np.median(lum[in_ring]))
    dist = np.linalg.norm(chroma - table, axis=2)
    dist[lum < CHROMA_LEAST_LUM] = 0.0
    inner = dist[h // 4: 3 * h // 4, w // 4: 3 * w // 4]
    top = float(np.percentile(inner, 90))
    ring_d = float(np.percentile(np.linalg.norm(ring - table, axis=1), 95))
    if top < 2.5 * max(ring_d, 4.0):
        return None  # (the die's colour does not stand out of the table's: a white die on white)
    mask = (dist > CHROMA_HALF * top).astype(np.uint8)
    n, lab, stats, cents = cv2.connectedComponentsWithStats(mask, 8)
    # (the blob nearest the middle of those of a face's least area: a noisy pixel's chroma in a dark
    # pip's hole, a speck, lies nearer the middle than the face's centroid when the window is moved)
    big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= (LEAST_PX / 2) ** 2]
    if not big:
        return None
    k = min(big, key=lambda i: math.dist(cents[i], (w / 2, h / 2)))
    sq = _square_blob(lab == k, w, h)
    if sq is None:
        return None
    cx, cy, rw, rh, ang, cnt = sq
    filled = np.zeros((h, w), np.uint8)
    cv2.drawContours(filled, [cnt], -1, 1, -1)
    level = float(np.percentile(lum[filled > 0], LIGHT_DIE_PERCENTILE))
    if level < LIGHT_DIE * table_lum:
        return None  # (not a light die)
    side = math.sqrt(rw * rh)
    if CHROMA_FACE_TOP_ONLY and _top_face_share(lum, cx, cy, side, ang) < TOP_FACE_SHARE:
        return None  # (the square is the top face with a side face: see CHROMA_FACE_TOP_ONLY)
    return cx, cy, side, ang, dist


def _top_face_share(lum: np.ndarray, cx: float, cy: float, side: float, ang: float) -> float:
    """The share of the square (cx, cy, side, ang) covered by its top face: the largest piece of the
    pixels in it at least TOP_FACE_LUM of its bright level, its pips filled (see CHROMA_FACE_TOP_ONLY)."""
    h, w = lum.shape
    u, v = _face_coords(h, w, cx, cy, side, ang)
    face = (np.abs(u) <= 0.5) & (np.abs(v) <= 0.5)
    level = float(np.percentile(lum[face], LIGHT_DIE_PERCENTILE))
    bright = (face & (lum >= TOP_FACE_LUM * level)).astype(np.uint8)
    cnts, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cnts:
        return 0.0
    return float(max(cv2.contourArea(c) for c in cnts)) / (side * side)


def _face_coords(h, w, cx, cy, side, ang):
    """(u, v) in sides of every pixel of an h x w window, for a face centred at cx, cy turned ``ang``."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    a = math.radians(ang)
    dx, dy = xs - cx, ys - cy
    u = (dx * math.cos(a) + dy * math.sin(a)) / side
    v = (-dx * math.sin(a) + dy * math.cos(a)) / side
    return u, v


def _square(u, v):
    return ((np.abs(u) <= 0.5) & (np.abs(v) <= 0.5)).astype(np.float32)


def _pips(u, v, layout):
    m = np.zeros_like(u)
    for pu, pv in layout:
        m[(u - pu * SPACING) ** 2 + (v - pv * SPACING) ** 2 <= PIP_R ** 2] = 1.0
    return m


def _blur(m, sigma_px):
    return cv2.GaussianBlur(m, (0, 0), max(0.3, sigma_px))


def _rss(cols, y):
    """Least-squares residual of every channel of ``y`` (n x 3) on the columns ``cols`` (n x k), summed."""
    coef, res, rank, _ = np.linalg.lstsq(cols, y, rcond=None)
    return float(((y - cols @ coef) ** 2).sum())


def fit_layouts(win: np.ndarray, by_chroma: bool = False):
    """{value: least residual} over the layouts, the no-pips residual, and the silhouette, for the die
    in the middle of ``win`` (BGR) -- or None when its silhouette is not a face seen square
    (``by_chroma``: the silhouette by chroma, :func:`_chroma_silhouette`)."""
    win = win.astype(np.float32)
    sil = _chroma_silhouette(win) if by_chroma else _silhouette(win)
    if sil is None:
        return None
    cx, cy, side, ang, dist = sil
    h, w = win.shape[:2]
    # the blur: the sigma whose blurred square best fits the silhouette's colour distance
    u, v = _face_coords(h, w, cx, cy, side, ang)
    sq = _square(u, v)
    near = (np.abs(u) < 0.9) & (np.abs(v) < 0.9)
    d = dist[near].reshape(-1, 1)
    best_s, best_r = None, None
    for s in SIGMAS:
        e = _blur(sq, s * side)[near].reshape(-1, 1)
        r = _rss(np.hstack([np.ones_like(e), e]), d)
        if best_r is None or r < best_r:
            best_s, best_r = s, r
    sigma = best_s * side
    fits = {val: math.inf for val in _LAYOUTS}
    blank = math.inf
    for ddx in (-NUDGE, 0.0, NUDGE):
        for ddy in (-NUDGE, 0.0, NUDGE):
            for dang in (-TURN, 0.0, TURN):
                u, v = _face_coords(h, w, cx + ddx * side, cy + ddy * side, side, ang + dang)
                inside = (np.abs(u) <= FIT_HALF) & (np.abs(v) <= FIT_HALF)
                y = win[inside]
                e = _blur(_square(u, v), sigma)[inside]
                base = [np.ones_like(e), u[inside], v[inside], e]
                blank = min(blank, _rss(np.stack(base, 1), y))
                for val, lays in _LAYOUTS.items():
                    for lay in lays:
                        p = _blur(_pips(u, v, lay), sigma)[inside]
                        fits[val] = min(fits[val], _rss(np.stack(base + [p], 1), y))
    return fits, blank, (cx, cy, side, ang, best_s)


def read_blurred(img: np.ndarray, centre, side: float):
    """(value or None, detail) of the die reported at ``centre`` (photo pixels) with side ``side``."""
    if side > LARGEST_PX:
        return None, None
    H, W = img.shape[:2]
    h = REACH * side
    x0, y0 = int(max(0, centre[0] - h)), int(max(0, centre[1] - h))
    x1, y1 = int(min(W, centre[0] + h)), int(min(H, centre[1] + h))
    if x1 - x0 < 24 or y1 - y0 < 24:
        return None, None
    val, detail = _judge(fit_layouts(img[y0:y1, x0:x1]), side, x0, y0)
    if val is None and LIGHT_DIE_FACE_BY_CHROMA:
        # (the second way: the face by its chroma, when the silhouette by distance gave no value -- not
        # a square, or a square that was the die with its shadow, whose fit no layout explains)
        val2, detail2 = _judge(fit_layouts(img[y0:y1, x0:x1], by_chroma=True), side, x0, y0)
        if val2 is not None:
            return val2, detail2
    return val, detail


def _judge(got, side: float, x0: int, y0: int):
    """(value or None, detail) from :func:`fit_layouts`' answer for a report of ``side`` in the window
    cut at x0, y0."""
    if got is None:
        return None, None
    fits, blank, (cx, cy, fside, ang, sg) = got
    if fside < LEAST_OF_REPORT * side or fside < LEAST_PX:
        return None, None  # (a pip's or a part's silhouette, not the die's face)
    order = sorted(fits, key=fits.get)
    best, second = order[0], order[1]
    gain = blank - fits[best]
    explains = gain / blank if blank > 0 else 0.0
    margin = (fits[second] - fits[best]) / gain if gain > 0 else 0.0
    detail = {"best": best, "second": second, "explains": explains, "margin": margin,
              "centre": (cx + x0, cy + y0), "side": fside, "sigma": sg}
    if explains >= EXPLAINS and margin >= MARGIN:
        return best, detail
    return None, detail


#: the rule's switch (dice.read_dice calls :func:`read_blurred_unread` last but one): an unreadable
#: report small at the working scale takes the value whose blurred layout fits its face clearly best.
#: False: the reader as before.
UNREAD_READ_BY_BLURRED_LAYOUT = True
#: the value must be fitted the same with the window cut moved this share of the report's side right,
#: left, down and up (a value that depends on where the window's edges fall is of what they cut: the
#: table's colour from the ring, a neighbour, a shadow -- the closer read's guard, session 38)
SHIFT = 0.25
#: the face found must be of the dice's size: at least this share of the median side of the dice read
#: in the photo (the size rule's least, as the closer read), and no read die within its side
SIZE_LEAST = 0.6


def read_blurred_unread(img: np.ndarray, dice: list, work_px: int, min_die_frac: float) -> list:
    """``dice`` with each unreadable report small at the working scale given the value of the blurred
    layout that fits its face clearly best (the same in windows moved SHIFT each way), at the face."""
    from dataclasses import replace

    from .dice_closer import replace_small_unread

    if not UNREAD_READ_BY_BLURRED_LAYOUT:
        return dice

    def one(d, read, typical):
        val, det = read_blurred(img, d.center, d.side_px)
        if val is None:
            return None
        centre, side = det["centre"], det["side"]
        if math.dist(centre, d.center) > 0.5 * d.side_px:
            return None  # (the face found is not the report's die)
        if typical is not None and side < SIZE_LEAST * typical:
            return None  # (a part of a face)
        if any(math.dist(centre, o.center) < max(side, o.side_px) for o in read):
            return None  # (another die's face, read already)
        s = SHIFT * d.side_px
        moved = [read_blurred(img, (d.center[0] + dx, d.center[1] + dy), d.side_px)[0]
                 for dx, dy in ((s, 0), (-s, 0), (0, s), (0, -s))]
        if any(m != val for m in moved):
            return None  # (the value depends on where the window's edges fall)
        return replace(d, value=val, center=(float(centre[0]), float(centre[1])), side_px=float(side),
                       confidence=0.5, reason="", seen_pips=None, seen_at=None)

    return replace_small_unread(img, dice, work_px, min_die_frac, one)


def _square_blob(blob: np.ndarray, w: int, h: int):
    """(cx, cy, rw, rh, angle, contour) of ``blob``'s outline when it is a square seen from above
    near the window's middle (sides within SQUARE_RATIO, filling SQUARE_FILL of its box); else None."""
    cnts, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cnt = max(cnts, key=cv2.contourArea)
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(cnt)
    if min(rw, rh) < 8 or max(rw, rh) > SQUARE_RATIO * min(rw, rh):
        return None
    if cv2.contourArea(cnt) < SQUARE_FILL * rw * rh:
        return None
    if cx < 0.2 * w or cx > 0.8 * w or cy < 0.2 * h or cy > 0.8 * h:
        return None
    return cx, cy, rw, rh, ang, cnt
