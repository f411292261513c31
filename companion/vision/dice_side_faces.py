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
