"""Checks that a face read is what it seems: no mark where the value read has no pip, the fitted
face on the face region, a two or three along the face's diagonal.

Each check can only make a reading unreadable, never change its value: a mark where a larger
value has a pip (a five's middle lost to glare, a six seen as a four) is a doubt, not a guess.
A mark of the *other* kind than the pips on such a place is one too: a defocused dark die with
light pips blends the two into the commonest colour, and the gaps of its own dark body between the
pips then read as darker "pips" (a four as a one, a five as a four).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING

import cv2
import numpy as np

from .dice_layouts import LAYOUTS
from .dice_quick_stats import mean_px, mean_rows, median_of, median_rows

if TYPE_CHECKING:
    from .dice_pip_finding import Pip

_GRID = [complex(x, y) for x in (-0.5, 0.0, 0.5) for y in (-0.5, 0.0, 0.5)]
_OCCUPIED = {n: frozenset(complex(round(c.real, 1), round(c.imag, 1)) for c in LAYOUTS[n]) for n in LAYOUTS}  # each
# value's own pip places on the grid (made once)
# every layout in each of its four quarter-turns, as sets of pip places
_PLACES = {n: [frozenset(complex(round((c * 1j ** k).real, 1), round((c * 1j ** k).imag, 1)) for c in LAYOUTS[n])
               for k in range(4)] for n in LAYOUTS}


def _could_be_more(value: int, place: complex) -> bool:
    """Would a pip at ``place`` beside the ``value`` read make a layout of more pips (a five that
    lost its middle read as a four)? A mark where no larger value has a pip (the middle of a six,
    a side's middle beside a five) cannot hide a pip: it is glare or a speck, not a doubt."""
    have = _PLACES[value][0] | {place}
    return any(have <= lay for n in range(value + 1, 7) for lay in _PLACES[n])


def _dropped_blob_on_a_pip_place(raw: list[Pip], kept: list[Pip], beta: complex, alpha: complex,
                                 value: int | None = None) -> bool:
    """Was a blob left out (too small or too faint: a pip dimmed by glare) that sits on one of the
    nine pip places of the fitted face, where ``value`` could be short of a pip? (Places that no
    larger value uses are not counted; with ``value`` None every place is.)"""
    if abs(alpha) < 1e-6:
        return False
    area = median_of([p.area for p in kept])
    contrast = median_of([p.contrast for p in kept])
    for b in raw:
        if any(b is k for k in kept) or b.area < 0.3 * area or b.contrast < 0.4 * contrast:
            continue
        u = (complex(b.x, b.y) - beta) / alpha
        if any(abs(u - g) < 0.2 and (value is None or g in _PLACES[value][0] or _could_be_more(value, g))
               for g in _GRID):
            return True
    return False


def _square_covered(filled: np.ndarray, beta: complex, alpha: complex, k: float = 0.8) -> float:
    """How much of the fitted face (its middle ``k`` of each side) the face region covers. Pips of
    a tilted die's side face taken with some of the top face's fit a face larger than the die's,
    hanging over the table or the side face."""
    corners = [beta + alpha * k * complex(x, y) for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    square = np.zeros_like(filled)
    cv2.fillConvexPoly(square, np.array([[round(z.real), round(z.imag)] for z in corners], np.int32), 255)
    n = cv2.countNonZero(square)
    return cv2.countNonZero(cv2.bitwise_and(square, filled)) / n if n else 0.0


def _rect_frame(filled: np.ndarray) -> complex:
    """A frame (half-side and rotation as one complex number) from the face region's min-area rect."""
    cnts, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return complex(0, 0)
    (_, _), (rw, rh), ang = cv2.minAreaRect(max(cnts, key=cv2.contourArea))
    half = (rw + rh) / 4
    return half * complex(math.cos(math.radians(ang)), math.sin(math.radians(ang)))


def _vacancies_empty(dist: np.ndarray, beta: complex, alpha: complex, value: int, pips: list[Pip],
                     dl: np.ndarray | None = None) -> bool:
    """Is every pip position the layout leaves empty really plain face? A five whose centre pip
    was lost, a three that lost its middle to glare, a six seen as a four: each shows a mark
    where the value read has none, and is then not read at all. (Only places where a pip would make
    a larger value are looked at: a mark in the middle of a six is no missing pip.)"""
    if abs(alpha) < 2:
        return True
    occupied = _OCCUPIED[value]
    pip_r = math.sqrt(median_of([p.area for p in pips]) / math.pi)
    contrast = median_of([p.contrast for p in pips])
    r = max(1, int(round(0.6 * pip_r)))
    # (a hidden pip makes its place more like the pips: a place only lighter than a darker ring
    # around it, as a face's middle is where the face darkens to its edges, hides no dark pip)
    towards = median_rows(np.array([p.colour for p in pips], np.float32)) if pips else None
    h, w = dist.shape
    disc = _spot_and_ring(r, r)[0]  # (the spot of radius r, made once per size)
    for c in _GRID:
        if c in occupied:
            continue
        z = beta + alpha * c
        x, y = int(round(z.real)), int(round(z.imag))
        if not (r <= x < w - r and r <= y < h - r):
            continue
        patch = dist[y - r:y + r + 1, x - r:x + r + 1]
        mark = float(mean_px(patch[disc]))
        if mark > 0.5 * contrast and _could_be_more(value, c):
            return False
        # the ring around the place must stay clear of the pips read (big pips crowd a side's middle)
        clear = min((abs(complex(p.x, p.y) - z) for p in pips), default=math.inf) - 1.2 * pip_r
        if dl is not None and dl.ndim == 3 and _could_be_more(value, c) and \
                _local_step(dl, x, y, r, clear, towards) > LOCAL_MARK * contrast:
            return False
    return True


LOCAL_MARK = 0.3  # a spot this part of the pips' contrast away from the face around it is a mark


_WEIGHT = np.array([math.sqrt(0.6), 1.0, 1.0], np.float32)  # (the colour distance's weights, L a b)


@lru_cache(maxsize=256)
def _spot_and_ring(r: int, R: int) -> tuple[np.ndarray, np.ndarray]:
    """The spot (radius r) and ring (2.2 r to R) masks of a (2R+1)-square window: made once per size."""
    yy, xx = np.mgrid[-R:R + 1, -R:R + 1]
    d2 = xx * xx + yy * yy
    return d2 <= r * r, (d2 > (2.2 * r) ** 2) & (d2 <= R * R)


def _local_step(dl: np.ndarray, x: int, y: int, r: int, clear: float = math.inf,
                towards: np.ndarray | None = None) -> float:
    """How far the spot of radius ``r`` (0.6 of a pip's) at (x, y) is from the face right around a
    pip there (a ring from 1.3 to 1.8 pip radii: clear of a pip at the place, short of the nearest
    pips of any layout), in the same colour distance as the pips' contrast. Glare lifts a patch of
    the face smoothly, so a dark pip under glare can come near the face colour (the vacancy test
    against the face colour misses it) while it is still clearly darker than the glare around it.
    The ring ends ``clear`` pixels out (short of the pips read); 0 if no ring fits. With
    ``towards`` (the pips' colour offset from the face), only the part of the step towards the
    pips' colour counts."""
    R = int(min(3 * r, clear))
    if R < 2.2 * r + 1:
        return 0.0
    h, w = dl.shape[:2]
    if not (R <= x < w - R and R <= y < h - R):
        return 0.0
    win = dl[y - R:y + R + 1, x - R:x + R + 1]
    spot_mask, ring_mask = _spot_and_ring(r, R)
    spot = mean_rows(win[spot_mask])
    ring = mean_rows(win[ring_mask])
    weight = _WEIGHT
    step = (spot - ring) * weight
    size = float(np.linalg.norm(step))
    if towards is None or not np.any(towards):
        return size
    unit = towards * weight / max(float(np.linalg.norm(towards * weight)), 1e-6)
    return max(0.0, float(step @ unit))


def alpha_angle(pips: list[Pip], centre: complex) -> float:
    """Direction (radians) from the centre to the farthest pip: a diagonal of the face for 2 and 3."""
    far = max(pips, key=lambda p: abs(complex(p.x, p.y) - centre))
    return math.atan2(far.y - centre.imag, far.x - centre.real)


SIDE_FACE_LONGER = 1.15  # a face region this much longer one way than the other has a side face joined


def _agrees_with_face(filled: np.ndarray, centre: complex, half: float, diag: float) -> bool:
    """For two or three pips (which fit a line too easily): do they run along a diagonal of the
    face region, with their middle near its centre?

    A tilted die's side face (or, seen near a wide-angle photo's edge, a rounded die's) often
    joins its top face in one region: it lengthens the region across the edge they share and
    keeps its axes. So the face's side is the region's shorter side, and the middle may lie off
    the region's centre along its longer side by half the difference, but not across it."""
    cnts, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return False
    (rx, ry), (rw, rh), ang = cv2.minAreaRect(max(cnts, key=cv2.contourArea))
    side = (rw + rh) / 2
    if abs(complex(rx, ry) - centre) <= 0.16 * side:
        if not 0.6 * side <= 2 * half <= 1.3 * side:
            return False
    else:  # off the middle: only along a clearly longer side, and no part of a face (0.71 of it)
        short, long_ = min(rw, rh), max(rw, rh)
        along_dir = complex(math.cos(math.radians(ang)), math.sin(math.radians(ang)))
        if rh > rw:
            along_dir *= 1j
        off = (centre - complex(rx, ry)) / along_dir  # real: along the longer side, imag: across it
        if long_ < SIDE_FACE_LONGER * short or abs(off.imag) > 0.16 * short \
                or abs(off.real) > 0.16 * short + (long_ - short) / 2 or not 0.8 * short <= 2 * half <= 1.3 * short:
            return False
    # the face's diagonals are at ang + 45 (mod 90) degrees
    rel = (math.degrees(diag) - ang - 45.0) % 90.0
    return min(rel, 90.0 - rel) < 18.0


def plain_mark(face: np.ndarray, filled: np.ndarray, dl: np.ndarray, centre: tuple[float, float]) -> bool:
    """Is the mark at ``centre`` (a hole of ``face`` in ``filled``) plain inside, as a pip is?

    A blurred die in a halo of its own blur (the halo taken for the face) shows its whole top face
    as one round mark in the halo's middle, a one to the layout test; but that mark holds the
    die's own pips. A pip, even blurred, is one colour in its core."""
    hole = ((filled > 0) & (face == 0)).astype(np.uint8)
    n, labels = cv2.connectedComponents(hole, connectivity=8)
    x, y = int(round(centre[0])), int(round(centre[1]))
    if not (0 <= y < hole.shape[0] and 0 <= x < hole.shape[1]) or labels[y, x] == 0:
        return True  # (no mark there to look into)
    mark = (labels == labels[y, x]).astype(np.uint8)
    r = math.sqrt(cv2.countNonZero(mark) / math.pi)
    k = max(3, int(0.5 * r)) | 1  # the core: the outer half of the radius is the blur's ramp
    core = cv2.erode(mark, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0
    if np.count_nonzero(core) < 12:
        return True
    vals = dl[core]
    med = np.median(vals, axis=0)
    step = float(math.sqrt(0.6 * med[0] ** 2 + med[1] ** 2 + med[2] ** 2))  # the mark against the face
    d = vals - med
    dev = np.sqrt(0.6 * d[:, 0] ** 2 + d[:, 1] ** 2 + d[:, 2] ** 2)
    return float(np.mean(dev > MARK_INSIDE * max(step, 1e-6))) < MARKED_SHARE


MARK_INSIDE = 0.5  # a core pixel this part of the mark's step from the core's colour is a mark of its own
MARKED_SHARE = 0.06  # a pip's core has fewer such pixels than this share (noise, a dimple's shading)


#: a one with marks of either kind on its corners is doubted (False: the old reading)
CORNERS_LOOKED_AT = True
CORNER_MARK = 0.5  # a corner's step from the face round it, as a part of the lone pip's own step
CORNERS_MARKED = 2  # ... on this many of the four corners


def marks_on_the_corners(dl: np.ndarray | None, beta: complex, alpha: complex, pip: Pip) -> bool:
    """Are there marks on the corners of a face read as a one, of either kind? A dark die with
    light pips, defocused, spreads its pips' light over the face till the face's commonest colour
    is the blend: the corner pips are then lighter than that "face" and its dark middle, where the
    die's own colour is left, a lone darker "pip". The corners are measured against the face right
    round each (:func:`_local_step`, in any direction of colour), as the pip is against its own."""
    if not CORNERS_LOOKED_AT or dl is None or dl.ndim != 3 or abs(alpha) < 2:
        return False
    pip_r = math.sqrt(pip.area / math.pi)
    r = max(1, int(round(0.6 * pip_r)))
    x, y = int(round(pip.x)), int(round(pip.y))
    own = _local_step(dl, x, y, r)
    if own <= 0:
        return False
    centre = complex(pip.x, pip.y)
    marked = 0
    for c in (complex(-0.5, -0.5), complex(0.5, -0.5), complex(0.5, 0.5), complex(-0.5, 0.5)):
        z = beta + alpha * c
        clear = abs(z - centre) - 1.2 * pip_r  # (the ring round a corner stays off a big ace)
        if _local_step(dl, int(round(z.real)), int(round(z.imag)), r, clear) >= CORNER_MARK * own:
            marked += 1
    return marked >= CORNERS_MARKED


OTHER_KIND = 0.5  # a mark of the other kind on a vacant place: this part of the pips' own step


def other_kind_on_a_place(dl: np.ndarray | None, beta: complex, alpha: complex, value: int, pips: list[Pip]) -> bool:
    """Is there a mark of the other kind than the pips (lighter than the face round it where the
    pips are darker, or the reverse) on a place the value leaves empty and a larger value fills?
    The same blend as :func:`marks_on_the_corners` makes a defocused dark five's dark gaps between its
    light pips a four of darker "pips" with the real middle pip, light, on its empty middle. Glare,
    the other mark of the other kind, is faint against dark pips on a light face (the face is near
    white already) and of the pips' own kind on a dark or coloured face. (Only places off the face
    colour by a part of the pips' contrast are measured: on a read face, hardly any.)"""
    if not CORNERS_LOOKED_AT or dl is None or dl.ndim != 3 or abs(alpha) < 2 or not pips:
        return False
    occupied = _OCCUPIED[value]
    towards = median_rows(np.array([p.colour for p in pips], np.float32))
    weight = np.array([math.sqrt(0.6), 1.0, 1.0], np.float32)
    contrast = float(np.linalg.norm(towards * weight))
    if contrast <= 0:
        return False
    h, w = dl.shape[:2]
    marked = []
    for c in _GRID:
        if c in occupied or not _could_be_more(value, c):
            continue
        z = beta + alpha * c
        x, y = int(round(z.real)), int(round(z.imag))
        if 1 <= x < w - 1 and 1 <= y < h - 1 and \
                float(np.linalg.norm(dl[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).mean(axis=0) * weight)) >= OFF_COLOUR * contrast:
            marked.append(z)
    if not marked:
        return False
    pip_r = math.sqrt(median_of([p.area for p in pips]) / math.pi)
    r = max(1, int(round(0.6 * pip_r)))
    own = median_of([_local_step(dl, int(round(p.x)), int(round(p.y)), r, math.inf, towards) for p in pips])
    if own <= 0:
        return False
    for z in marked:
        clear = min(abs(complex(p.x, p.y) - z) for p in pips) - 1.2 * pip_r
        # (a smaller spot where large pips crowd the place: its ring must fit between them)
        rc = max(1, min(r, int((clear - 1) / 2.4)))
        if _local_step(dl, int(round(z.real)), int(round(z.imag)), rc, clear, -towards) >= OTHER_KIND * own:
            return True
    return False


OFF_COLOUR = 0.3  # a place this part of the pips' colour step off the face colour is measured
