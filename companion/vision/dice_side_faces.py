"""A tilted die's side faces: telling their pips from the top face's, and a two or three from a
part of a larger face.

Seen from above at a slant (a tilted camera, or a die near the edge of a wide-angle photo), a
die shows one or two side faces beside its top face, often in the same colour and joined to it in
one region. Their pips are foreshortened: a side face is seen far more obliquely than the top
face, so its round pips look like ellipses, squeezed (and shrunk) along the image of the upright.
The top face's pips are the most frontal ones: roundest and largest. Motion blur stretches every
pip the same way, so it is the pip's shape *against the top face's pips* that tells a side face's
pip, not its shape alone. A top-face pip cut by the face region's edge is squeezed and shrunk as
well, but it lies on the face the others fit (:func:`beyond_the_face`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .dice_pip_finding import Pip

SIDE_ASPECT = 1.35  # a side face's pip is at least this elongated (a top face's at 30 degrees: 1.15)
MORE_ELONGATED = 1.15  # ... and this much more than the top face's roundest pips
SMALLER = 0.85  # ... and smaller than the rounder pips by about as much


def side_face_pips(pips: list[Pip]) -> list[Pip]:
    """The pips among ``pips`` that are foreshortened towards the others: a side face's pips.

    The top face's pips are the roundest of the large ones; a pip is taken for a side face's if it
    is clearly more elongated and smaller than they are. [] if there is no clearly
    rounder pip to measure against. (The direction of the squeeze is not used: it follows the
    image of the upright at the die, which is not known here.)"""
    if len(pips) < 2:
        return []
    biggest = max(p.area for p in pips)
    ref = min(p.aspect for p in pips if p.area >= 0.5 * biggest)
    out = []
    for p in pips:
        if p.aspect < SIDE_ASPECT or p.aspect < MORE_ELONGATED * ref:
            continue
        # a disc seen obliquely loses area as it grows elongated: a side face's pip is smaller too
        frontal = [q for q in pips if q is not p and q.aspect * MORE_ELONGATED <= p.aspect]
        if frontal and p.area <= SMALLER * max(q.area for q in frontal):
            out.append(p)
    return out


AS_BIG = 0.8  # a mark at least this part of the pips' area is as big as they are
NEAR_FACE = 1.7  # half-sides (Chebyshev, in the fitted face's frame): a die's reach beyond the face


def alike_marks_beside(raw: list[Pip], kept: list[Pip], beta: complex, alpha: complex, loose: bool = False) -> bool:
    """Is there, just outside the face fitted as ``beta + alpha * layout`` (edges at +-1), a mark
    like the pips read (as big, as contrasted, no more elongated)? A two or a three fits any two or
    three pips in a line: the corner and middle of a five, a column of a six. Their face is smaller
    than the die's, and the die's other pips lie right beside it. (A side face's pips, squeezed, and
    the table, not enclosed by face colour, are no such marks.) ``loose``: a mark as big as the
    pips counts however elongated (blur and the face's edge squeeze a larger face's pips too; a side
    face's pips are squeezed *and* shrunk)."""
    if abs(alpha) < 1e-6 or not kept:
        return False
    area = sorted(p.area for p in kept)[len(kept) // 2]
    contrast = sorted(p.contrast for p in kept)[len(kept) // 2]
    aspect = max(p.aspect for p in kept)
    for b in raw:
        if any(b is k for k in kept):
            continue
        if b.area < 0.4 * area or b.area > 2.5 * area or max(b.contrast, b.peak) < 0.5 * contrast:
            continue
        if b.aspect > MORE_ELONGATED * aspect + 0.1 and not (loose and b.area >= AS_BIG * area):
            continue
        u = (complex(b.x, b.y) - beta) / alpha
        if max(abs(u.real), abs(u.imag)) <= NEAR_FACE:
            return True
    return False


def pips_alike(pips: list[Pip]) -> bool:
    """Are the pips of one face: alike in size, shape and contrast, none a side face's?"""
    areas = [p.area for p in pips]
    aspects = [p.aspect for p in pips]
    contrasts = [p.contrast for p in pips]
    return min(areas) >= 0.6 * max(areas) and max(aspects) <= MORE_ELONGATED * min(aspects) \
        and min(contrasts) >= 0.6 * max(contrasts) and not side_face_pips(pips)


BEYOND = 1.15  # a side face's pip lies this far out in the top face's frame (edges at +-1), at least


def beyond_the_face(dropped: list[Pip], kept: list[Pip], value: int) -> bool:
    """Do the pips ``dropped`` as a side face's lie beyond the face the ``kept`` ones fit? (A pip
    of the top face cut by the face region's edge is squeezed too, but it lies on the face.)"""
    from .dice_layouts import fit_frame

    if len(kept) != value:
        return False  # (the reading dropped more pips: its face is not the one fitted here)
    _, _, beta, alpha = fit_frame([complex(p.x, p.y) for p in kept])
    if abs(alpha) < 1e-6:
        return False
    for p in dropped:
        u = (complex(p.x, p.y) - beta) / alpha
        if max(abs(u.real), abs(u.imag)) < BEYOND:
            return False
    return True


EDGE_RING = 1.3  # half-sides: a ring just past the fitted face's edges (its rounded rim is at 1)
OFF_FACE = 0.5  # a ring point this part of the pips' contrast away from the face colour is off the face
EDGED = 0.4  # a face whose ring is off the face for at least this share ends there
_CORNERS = (complex(-1, -1), complex(1, -1), complex(1, 1), complex(-1, 1))


def ends_at_its_edges(dist, beta: complex, alpha: complex, kept: list[Pip]) -> bool:
    """Does the face fitted as ``beta + alpha * layout`` end at its edges: is the ring just past
    them off the face colour for a fair share (the table, a side face in shade, a shadow)? A part
    of a larger face read as a two or three (a column of a six as a three) has the rest of that
    face, of the face's colour, all round its fitted face."""
    h, w = dist.shape[:2]
    contrast = sorted(p.contrast for p in kept)[len(kept) // 2]
    off = 0
    n = 64
    for k in range(n):
        t = 4.0 * k / n  # walk the square's four sides
        side, frac = int(t), t - int(t)
        u, v = _CORNERS[side], _CORNERS[(side + 1) % 4]
        z = beta + alpha * EDGE_RING * (u + (v - u) * frac)
        x, y = int(round(z.real)), int(round(z.imag))
        if not (0 <= x < w and 0 <= y < h) or dist[y, x] > OFF_FACE * contrast:
            off += 1
    return off >= EDGED * n


#: a reading's pips (median ellipse elongation) at least this many times the other's: a side face's,
#: seen more obliquely than the top face beside it. Measured on the ray-marched dev scenes' pairs of
#: readings of one die (top face and side face both read): side over top 1.34-1.43 where the side
#: face was the more squeezed; the one pair where the *top* face was the more squeezed (a big ace,
#: seed 2024) gave 1.17, so the bar sits clear above that.
FORESHORTENED_MORE = 1.25
#: the side face's pips are squeezed across the edge it shares with the top face: their short axes
#: lie along the line between the two readings' centres within this (degrees; the pairs measured
#: 3-16 degrees, the ace of seed 2024, squeezed otherwise, 23)
ACROSS_THE_EDGE = 20.0
ONE_DIE = 0.85  # two readings' centres closer than this part of the larger side are of one die (dice_sizes.OVERLAP)


def side_face_readings(readings: list) -> list:
    """Of the readings of one crop, those that are a side face of a die whose top face is read
    beside them: both faces of a tilted die, read apart, are one die (the later overlap check would
    leave both unreadable). The side face is the one seen more obliquely: its pips clearly more
    elongated than the other's, and squeezed across the edge between the two faces. A pair alike in
    squeeze (two parts of one face, or a view so slanted that the side face is the more frontal)
    is left as it is."""
    read = [r for r in readings if r.value is not None and r.pips]
    out = []
    for a in read:
        for b in read:
            if a is b or any(a is o for o in out):
                continue
            dx, dy = a.center[0] - b.center[0], a.center[1] - b.center[1]
            if math.hypot(dx, dy) >= ONE_DIE * max(a.side, b.side):
                continue
            elong_a = _median([p.aspect for p in a.pips])
            elong_b = _median([p.aspect for p in b.pips])
            if elong_a < SIDE_ASPECT or elong_a < FORESHORTENED_MORE * elong_b:
                continue
            line = math.atan2(dy, dx)
            off = _median([abs((p.minor - line + math.pi / 2) % math.pi - math.pi / 2) for p in a.pips])
            if math.degrees(off) <= ACROSS_THE_EDGE:
                out.append(a)
    return out


def _median(values: list[float]) -> float:
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
