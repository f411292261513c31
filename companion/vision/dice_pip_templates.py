"""The blurred-face look: a face whose pips the blob finders cannot separate (defocus, motion
blur), read by matching it against the six layouts drawn as blurred pips.

A blurred face still carries its value: a six blurs into two bars, a five into a blotch with four
corners. Each layout (and both turns of the two, three and six) is drawn as discs on a square
round the face region (the face a little larger than the region: blur eats into its rim), at a
few pip sizes and spacings, blurred by a few amounts of defocus (Gaussian) and of motion (a line,
six directions). Each is compared with the face's lightness over the region's hull by partial
correlation: what the patch and the drawing share with the face's blurred square (its step to the
table or to a side face) is taken out. The value is taken only when one layout wins clearly: its
match is good and a margin above every other value's, a larger margin above a value whose pips
include its own (blur hides a five's corner pips in the rim, leaving a one). A region that is no
square, holds a die-sized hole (a defocused die inside its halo), is faint, or has marks both
darker and lighter than it (glare, a lit edge) is left unread.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .dice_face_reading import FaceReading, face_px, fill_holes

PATCH = 28  # the square round the face is sampled on PATCH x PATCH points (blurred pips need no more)
EXTENT = 1.4  # ... over this many times the face region's side (the face's rim and the table round it)
FACE_AREA = (0.45, 1.6)  # face regions (in dice, FACE_PX squared) the look is tried on
SQUARE_ASPECT = 1.3  # the region's fitted rectangle: long side at most this many times the short
SQUARE_FILL = 0.72  # ... and the region fills at least this part of it (a blurred square fills 0.8-1)
#: the largest hole in the region at most this part of it: an ace's pip is under a tenth, a six's
#: blurred column about one; a hole a quarter of the region is a defocused die inside its halo (the
#: crop's commonest colour round it), which matches a one (development record run: the ones
#: matched on regions about two dice across were nearly all wrong)
LARGEST_HOLE = 0.18
HULL_GROWN = 0.2  # the correlation is taken over the region's hull grown by this part of its side
INTERIOR = 0.12  # the face's own marks are measured inside its region less this part of its side
LEAST_CONTRAST = 10.0  # the pips' step from the face (Lab L, 2nd / 98th percentile from the median)
#: the marks on the other side of the face's shade (lighter than a face with dark pips: glare, a
#: lit edge) at most this part of the pips' step
OTHER_SIDE = 0.6
LEAST_MATCH = 0.7  # the winning layout's correlation at least this
MARGIN = 0.12  # ... and this much above every other value's best
MARGIN_MORE = 0.2  # ... and this much above a value whose layout holds its pips and more

# the layouts, in pip places from the face's centre: +-1 is a corner pip's offset
_PLACES = {
    (1, 0): [(0, 0)],
    (2, 0): [(-1, -1), (1, 1)], (2, 1): [(1, -1), (-1, 1)],
    (3, 0): [(-1, -1), (0, 0), (1, 1)], (3, 1): [(1, -1), (0, 0), (-1, 1)],
    (4, 0): [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    (5, 0): [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    (6, 0): [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
    (6, 1): [(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)],
}
#: the face's side, in sides of its colour region: blur eats into a face's rim (and a sharp
#: face's region stops at its rounded edge), so the face is as large or larger
FACE_SIDES = (1.0, 1.15, 1.3)
PIP_RADII = (0.075, 0.105)  # pip radius in the face's sides (dice measure 0.065-0.12)
SPACINGS = (0.25, 0.3)  # a corner pip's offset from the centre along each axis, in sides (0.24-0.3)
DEFOCUS = (0.03, 0.055, 0.08)  # Gaussian sigma, in region sides
MOTION = (0.1, 0.2)  # motion blur length, in region sides ...
MOTION_TURNS = 6  # ... along this many directions (every 30 degrees)

_templates = None


def _blurs(unit: float) -> list:
    """Every blur tried, as (kind, sigma or kernel), ``unit`` patch steps to a region side."""
    out = [("gauss", s * unit) for s in DEFOCUS]
    for length in MOTION:
        n = max(3, int(round(length * unit)) | 1)
        for k in range(MOTION_TURNS):
            line = np.zeros((n, n), np.float32)
            line[n // 2] = 1.0
            m = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), 180.0 * k / MOTION_TURNS, 1.0)
            line = cv2.warpAffine(line, m, (n, n))
            out.append(("line", line / line.sum()))
    return out


def _blurred(img: np.ndarray, blur) -> np.ndarray:
    kind, k = blur
    if kind == "gauss":
        return cv2.GaussianBlur(img, (0, 0), k, borderType=cv2.BORDER_REPLICATE)
    return cv2.filter2D(img, -1, k, borderType=cv2.BORDER_REPLICATE)


def _draw_templates():
    """The pip templates (rows of PATCH * PATCH floats) in order of value, the value of each, the
    face-square templates, which square each goes with, and (for the moments over a mask) each
    template squared and times its square; made on first use."""
    unit = PATCH / EXTENT  # patch steps to a region side
    grid = (np.arange(PATCH, dtype=np.float32) + 0.5 - PATCH / 2) / unit  # in region sides
    xx, yy = np.meshgrid(grid, grid)
    blurs = _blurs(unit)
    squares, rows, values, which = [], [], [], []
    for f in FACE_SIDES:
        sq = ((np.abs(xx) <= f / 2) & (np.abs(yy) <= f / 2)).astype(np.float32)
        squares += [_blurred(sq, b).ravel() for b in blurs]
    for (value, _turn), places in _PLACES.items():
        for i, f in enumerate(FACE_SIDES):
            for radius in PIP_RADII:
                for spacing in SPACINGS:
                    disc = np.zeros((PATCH, PATCH), np.float32)
                    for u, v in places:
                        d = np.sqrt((xx - u * spacing * f) ** 2 + (yy - v * spacing * f) ** 2)
                        disc = np.maximum(disc, np.clip((radius * f - d) * unit + 0.5, 0, 1))
                    for j, b in enumerate(blurs):
                        rows.append(_blurred(disc, b).ravel())
                        values.append(value)
                        which.append(i * len(blurs) + j)
    rows, squares, which = np.array(rows, np.float32), np.array(squares, np.float32), np.array(which)
    return rows, np.array(values), squares, which, rows * rows, rows * squares[which]


def templates():
    global _templates
    if _templates is None:
        _templates = _draw_templates()
    return _templates


def read_blurred_face(face: np.ndarray, dl: np.ndarray) -> FaceReading | None:
    """The value of the face region ``face`` (uint8 0/255) read by the blurred layouts, from the
    lightness offset ``dl[..., 0]``; None unless one layout wins clearly."""
    got = match_layouts(face, dl)
    if got is None:
        return None
    scores, (cx, cy), side, filled = got
    value = int(np.argmax(scores)) + 1
    if not clear_winner(scores):
        return None
    # (a reading from blurred marks: below every first-look reading, so a duplicate gives way to it)
    return FaceReading(value, (cx, cy), round(0.05 * float(scores[value - 1]), 3), side, "", filled)


#: the values whose layouts hold every pip of a value's (and more): blur can hide the more
MORE_PIPS = {1: (3, 5), 2: (3, 4, 5, 6), 3: (5,), 4: (5, 6), 5: (), 6: ()}


def clear_winner(scores: np.ndarray) -> bool:
    """Does the best value (scores: the best match of values 1..6) win clearly? Its match at least
    LEAST_MATCH, MARGIN above every other value's, and MARGIN_MORE above a value with more pips
    that include its own (blur hides pips by the rim: a five's corners, leaving a one)."""
    value = int(np.argmax(scores)) + 1
    best = float(scores[value - 1])
    if best < LEAST_MATCH:
        return False
    return all(best - float(scores[u - 1]) >= (MARGIN_MORE if u in MORE_PIPS[value] else MARGIN)
               for u in range(1, 7) if u != value)


def _partial_correlations(pips: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Each template's correlation with ``pips`` over ``mask`` (0/1), less what each and the patch
    share with the template's face square (the face's step to what is round it)."""
    rows, _, squares, which, rows2, rows_sq = templates()
    n = float(mask.sum())
    centred = (pips - float(pips @ mask) / n) * mask
    # (einsum: numpy's matrix product starts BLAS threads, 5-10 times the CPU of this one loop)
    dot = lambda a, v: np.einsum("ij,j->i", a, v)  # noqa: E731
    sum_t, sum_s = dot(rows, mask), dot(squares, mask)[which]
    var_t = dot(rows2, mask) - sum_t * sum_t / n
    sq_moments = np.einsum("ij,j->i", squares * squares, mask)[which] - sum_s * sum_s / n
    ts = dot(rows_sq, mask) - sum_t * sum_s / n
    var_p = float(centred @ centred)
    r_pt = dot(rows, centred) / np.sqrt(np.maximum(var_t * var_p, 1e-12))
    # (a square that covers the whole mask is flat on it: it takes nothing out)
    flat = sq_moments < 1e-3 * n
    r_ps = np.where(flat, 0.0, dot(squares, centred)[which] / np.sqrt(np.maximum(sq_moments * var_p, 1e-12)))
    r_ts = np.where(flat, 0.0, ts / np.sqrt(np.maximum(var_t * sq_moments, 1e-12)))
    return (r_pt - r_ps * r_ts) / np.sqrt(np.maximum((1 - r_ps ** 2) * (1 - r_ts ** 2), 1e-9))


def _largest_part(mask: np.ndarray) -> int:
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    return int(stats[1:, cv2.CC_STAT_AREA].max()) if n > 1 else 0


def match_layouts(face: np.ndarray, dl: np.ndarray):
    """(the best match of each value 1..6, centre, side, filled region) of the face region, or
    None where the region is no die's square face with pips of one clear contrast.

    A match is the partial correlation of the patch with a layout's blurred pips, the blurred face
    square (its step to the table or the side faces round it) taken out."""
    filled = fill_holes(face)
    cnts, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return None
    c = max(cnts, key=cv2.contourArea)
    area = cv2.contourArea(c)
    expected = face_px() * face_px()
    if not FACE_AREA[0] * expected <= area <= FACE_AREA[1] * expected:
        return None
    holes = cv2.subtract(filled, face)
    if cv2.countNonZero(holes) and _largest_part(holes) > LARGEST_HOLE * area:
        return None
    (cx, cy), (w, h), angle = cv2.minAreaRect(c)
    if min(w, h) < 1 or max(w, h) > SQUARE_ASPECT * min(w, h) or area < SQUARE_FILL * w * h:
        return None
    # the square round the face onto the patch: patch point (i, j) -> the crop's, turned with it
    t = math.radians(angle)
    ax = complex(math.cos(t), math.sin(t)) * w * EXTENT / PATCH  # one patch step along the square's x
    ay = complex(-math.sin(t), math.cos(t)) * h * EXTENT / PATCH
    o = complex(cx, cy) - (ax + ay) * (PATCH / 2 - 0.5)
    m = np.array([[ax.real, ay.real, o.real], [ax.imag, ay.imag, o.imag]], np.float32)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    light = cv2.warpAffine(np.ascontiguousarray(dl[..., 0], np.float32), m, (PATCH, PATCH), flags=flags,
                           borderMode=cv2.BORDER_REPLICATE)
    # the face's own marks: inside its region, away from the rim (where it runs into the table)
    k = max(3, int(INTERIOR * math.sqrt(area)) | 1)
    core = cv2.erode(filled, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    core = cv2.warpAffine(core, m, (PATCH, PATCH), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP) > 0
    if core.sum() < 20:
        return None
    vals = light[core]
    mid = float(np.median(vals))
    dark = mid - float(np.percentile(vals, 2))
    lit = float(np.percentile(vals, 98)) - mid
    step, other = (dark, lit) if dark >= lit else (lit, dark)
    if step < LEAST_CONTRAST or other > OTHER_SIDE * step:
        return None
    # the correlation over the face region's hull, a little grown (blur draws its rim in)
    hull = np.zeros_like(filled)
    cv2.fillConvexPoly(hull, cv2.convexHull(c), 255)
    k = max(3, int(HULL_GROWN * math.sqrt(area)) | 1)
    hull = cv2.dilate(hull, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    mask = (cv2.warpAffine(hull, m, (PATCH, PATCH), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP) > 0).ravel()
    pips = (-light if dark >= lit else light).ravel()  # pips positive, whatever their shade
    corr = _partial_correlations(pips, mask.astype(np.float32))
    values = templates()[1]
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    best_of = np.maximum.reduceat(corr, starts)  # each value's best match, values 1..6 in order
    return best_of, (cx, cy), (w + h) / 2, filled

