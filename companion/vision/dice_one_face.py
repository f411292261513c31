"""Are the marks read as a two or three one face's pips? A two or three fits any two or three
marks in a line, so its pips are held to what one face's pips share: paint (size and contrast),
shape, and the shade of face round them.

A one's pip read with a side face's pip, or with a far face's pip seen through a translucent die,
fits a two as well as a real two does: the second mark is smaller, fainter or more squeezed. Two
faces of a steeply tilted die joined in one face region hold a pip each, each on its own shade.
Each check can only make a reading unreadable.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .dice_quick_stats import median_of, median_rows
from .dice_side_faces import MORE_ELONGATED, SIDE_ASPECT, side_face_pips

if TYPE_CHECKING:
    from .dice_pip_finding import Pip

#: a two or three whose pips are unlike in size or strength is doubted (False: the old reading)
UNLIKE_PIPS_DOUBTED = True
PAINTED_ALIKE = 0.5  # one face's pips: the smallest and faintest at least this part of the largest and strongest
SHAPED_ALIKE = 1.35  # ... and the most elongated at most this many times the roundest's elongation


def painted_alike(pips: list[Pip]) -> bool:
    """Are the pips alike as one face's are, in size and in contrast? A one's pip (often larger
    than other pips) read with a side face's or, through a translucent die, a far face's pip (smaller
    and fainter) fits a two as well as a real two does; a real two's or three's pips are painted alike,
    and blur and shading change them together. (A pip cut by the face region's edge is squeezed and
    shrunk: such a two is doubted too, as it is no cleaner than a one beside a side face.)"""
    areas = [p.area for p in pips]
    contrasts = [p.contrast for p in pips]
    aspects = [p.aspect for p in pips]  # (motion blur stretches them all alike)
    return min(areas) >= PAINTED_ALIKE * max(areas) and min(contrasts) >= PAINTED_ALIKE * max(contrasts) \
        and max(aspects) <= SHAPED_ALIKE * min(aspects)


SHADE_ALIKE = 0.2  # one face round each pip: lightness apart by under this part of the pips' contrast
SHADE_FLOOR = 6.0  # ... or under this (Lab L units: noise and a face's gentle shading, whatever the pips)


def on_one_shade(pips: list[Pip], filled: np.ndarray, dl: np.ndarray | None) -> bool:
    """Do the pips lie on one shade of face? Two faces of a steeply tilted die, joined in one
    region, are lit differently; a pip on each, both squeezed by the slant, fits a two. The face
    right round each pip (a ring from 1.6 to 2.4 pip radii, inside the face region) is compared in
    lightness (``dl``: the Lab offset from the face colour)."""
    if dl is None or dl.ndim != 3 or len(pips) < 2 or min(p.aspect for p in pips) < SIDE_ASPECT:
        return True  # (round pips are on a face seen from above: marbling, not a second face, shades it)
    shades = [_ring_shade(p, filled, dl) for p in pips]
    if any(v is None for v in shades):
        return True  # (no face round it to compare: left to the other checks)
    contrast = float(np.median([p.contrast for p in pips]))
    if max(shades) - min(shades) <= max(SHADE_ALIKE * contrast, SHADE_FLOOR):
        return True
    return len(pips) == 3 and EVENLY_SHADED_THREES and _shaded_evenly(pips, shades)


#: a two's or three's pip that is foreshortened more than the others *and* on a face lit otherwise
#: than theirs is a tilted die's side-face pip: a one's pip with it is no two (False: the old rule,
#: shades compared only where every pip is squeezed, :func:`on_one_shade`). The same two tests
#: :func:`side_face_marks` makes of the marks beside a two; motion blur stretches every pip alike,
#: so it is a pip squeezed *more* than the rest that counts, not squeezed at all (webcam 8055: a
#: 28 px one under motion blur, its pip at aspect 1.35 and a side face's at 1.63, their rings 22 L
#: apart where the pips' contrast allows 16, was read as a two). The doubt is one no kinder look
#: clears (``dice_pips._DOUBTS``): a look at the pips' cores found the same two marks rounder.
SIDE_FACE_PIP_AMONG = True
SIDE_FACE_PIP_DOUBT = "a side face's pip among the pips"
#: ... its ring's shade apart from the others' by LARGER_SHADE_APART of the pips' contrast, not
#: SHADE_ALIKE: the pip is squeezed more than the rest already (the shape says side face), and dark
#: pips on a light die have a contrast of 100 or more, so a fifth of it (20+ L units) passed a side
#: face clearly darker than the top face (light 3265 under gamma 0.7: a lilac one's pip, aspect
#: 1.36, ring 7.8, with its side face's pip, aspect 1.74, ring -9.2, read as a two; the contrast
#: 109). False: SHADE_ALIKE, the old margin
SQUEEZED_PIP_SHADE_TIGHT = True


def a_side_face_pip_among(pips: list[Pip], filled: np.ndarray, dl: np.ndarray | None) -> bool:
    """Is one of ``pips`` squeezed past ``SIDE_ASPECT`` and ``MORE_ELONGATED`` times the most
    squeezed of the others, on a ring of face whose lightness differs from each of theirs by more
    than one face's shades do (:func:`on_one_shade`'s margin)?"""
    if not SIDE_FACE_PIP_AMONG or dl is None or dl.ndim != 3 or len(pips) < 2:
        return False
    contrast = float(np.median([q.contrast for q in pips]))
    apart = max((LARGER_SHADE_APART if SQUEEZED_PIP_SHADE_TIGHT else SHADE_ALIKE) * contrast, SHADE_FLOOR)
    for p in pips:
        others = [q for q in pips if q is not p]
        if p.aspect < SIDE_ASPECT or p.aspect < MORE_ELONGATED * max(q.aspect for q in others):
            continue
        own = _ring_shade(p, filled, dl)
        theirs = [_ring_shade(q, filled, dl) for q in others]
        if own is not None and all(v is not None for v in theirs) and min(abs(own - v) for v in theirs) > apart:
            return True
    return False


#: a four, five or six with a side face's pips among its pips (smaller and squeezed more than the
#: rest, as :func:`.dice_side_faces.side_face_pips` tells them, on a face lit otherwise than theirs)
#: is doubted as a two or three with one is: a tilted die's top face and side face joined in one
#: region, a row of the side face's pips continuing the top face's columns (light 6 at scale 0.35:
#: an ivory four and two of its side face's five read as a six). False: the old rule, twos and threes only
SIDE_FACE_PIPS_IN_LARGER = True
#: ... another shade: the rings' lightness apart by over this part of the pips' contrast (or
#: SHADE_FLOOR). Half a two's margin: a four's or six's own pips vouch for their face's shade, four
#: or more rings alike (light 6 at 0.35: the top face's four within 4 L units, the side face's two
#: 13-17 below them, the pips' contrast 112)
LARGER_SHADE_APART = 0.1


def side_face_pips_among(pips: list[Pip], filled: np.ndarray, dl: np.ndarray | None) -> bool:
    """Is a pip of ``pips`` a side face's (:func:`.dice_side_faces.side_face_pips`) whose ring of
    face differs in lightness from every other pip's by more than one face's shades do?"""
    if not SIDE_FACE_PIPS_IN_LARGER or dl is None or dl.ndim != 3 or len(pips) < 4:
        return False
    apart = max(LARGER_SHADE_APART * float(np.median([q.contrast for q in pips])), SHADE_FLOOR)
    for p in side_face_pips(pips):
        # (against the pips it is squeezed more than, as side_face_pips measures: the top face's)
        frontal = [q for q in pips if q.aspect * MORE_ELONGATED <= p.aspect]
        theirs = [_ring_shade(q, filled, dl) for q in frontal]
        own = _ring_shade(p, filled, dl)
        if own is not None and theirs and all(v is not None for v in theirs) \
                and min(abs(own - v) for v in theirs) > apart:
            return True
    return False


#: a three whose face darkens evenly along its line is on one face (False: the old rule)
EVENLY_SHADED_THREES = True
#: ... evenly: the middle pip's shade off the mean of the end pips' by at most this part of their
#: difference (a three across two faces has its middle on one of them: half the difference off; a
#: big glossy three lit from one side, ray 4392, measured 0.09)
EVEN_SHADE = 0.25


def _shaded_evenly(pips: list[Pip], shades: list[float]) -> bool:
    """Do three pips' shades change evenly along their line, as one face's shading does (a big
    face lit from one side, shaded across)? Two faces joined in one region each hold a part of
    the three, and the middle pip shares one end's shade."""
    z = [complex(p.x, p.y) for p in pips]
    ends = max(((i, j) for i in range(3) for j in range(i + 1, 3)), key=lambda ij: abs(z[ij[0]] - z[ij[1]]))
    mid = 3 - ends[0] - ends[1]
    a, b = shades[ends[0]], shades[ends[1]]
    return abs(shades[mid] - 0.5 * (a + b)) <= EVEN_SHADE * abs(a - b)


def _ring_shade(p: Pip, filled: np.ndarray, dl: np.ndarray) -> float | None:
    """The lightness (Lab L offset from the face colour) of the face right round the pip: the
    median over a ring from 1.6 to 2.4 pip radii, inside the face region; None if too little
    of the ring lies there."""
    h, w = filled.shape
    r = math.sqrt(p.area / math.pi)
    R = int(math.ceil(2.4 * r))
    x, y = int(round(p.x)), int(round(p.y))
    x0, x1, y0, y1 = max(0, x - R), min(w, x + R + 1), max(0, y - R), min(h, y + R + 1)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d2 = (xx - p.x) ** 2 + (yy - p.y) ** 2
    ring = (d2 >= (1.6 * r) ** 2) & (d2 <= (2.4 * r) ** 2) & (filled[y0:y1, x0:x1] > 0)
    if np.count_nonzero(ring) < 8:
        return None
    return float(np.median(dl[y0:y1, x0:x1, 0][ring]))


#: a mark beside a two or three that is a tilted die's side-face pip (squeezed more than the two's
#: or three's pips, on a face of another shade) is no pip of a larger face (False: the old rule)
SIDE_FACE_MARKS_APART = True


def side_face_marks(raw: list[Pip], kept: list[Pip], filled: np.ndarray, dl: np.ndarray | None) -> list[Pip]:
    """The marks of ``raw`` (not ``kept``) that are a side face's pips beside the face ``kept`` are
    on: foreshortened more than every kept pip (as :func:`.dice_side_faces.side_face_pips` tells
    them) *and* on a face lit otherwise than theirs (as :func:`on_one_shade` compares shades). A
    larger face's other pips, which the checks for a part of a face look for beside a two or
    three, lie on the same face: as squeezed as the kept ones and on their shade. Either alone is
    not enough: a pip cut by the face region's edge is squeezed, marbling shades a face."""
    if not SIDE_FACE_MARKS_APART or dl is None or dl.ndim != 3 or not kept:
        return []
    most = max(p.aspect for p in kept)
    squeezed = [b for b in raw if not any(b is k for k in kept)
                and b.aspect >= SIDE_ASPECT and b.aspect >= MORE_ELONGATED * most]
    if not squeezed:
        return []  # (the usual case: the shades are not measured)
    own = [_ring_shade(p, filled, dl) for p in kept]
    if any(v is None for v in own):
        return []
    contrast = float(np.median([p.contrast for p in kept]))
    apart = max(SHADE_ALIKE * contrast, SHADE_FLOOR)
    out = []
    for b in squeezed:
        shade = _ring_shade(b, filled, dl)
        if shade is not None and min(abs(shade - v) for v in own) > apart:
            out.append(b)
    return out


#: a two or three with pips like its own a line's length beside it is doubted (False: the old reading)
COLUMNS_DOUBTED = True
COLUMN_ALIKE = 0.5  # a mark beside: at least this part of the pips' own step from the face round it


def a_column_of_more(pips: list[Pip], dl: np.ndarray | None) -> bool:
    """Are the two or three pips read one column of a larger face (a six's, a four's side)? On a
    die's 3 x 3 grid a column's length is the distance to the next column, so such a face has marks
    like the pips at every pip shifted square to their line by its length, on one side. A two's or
    three's real diagonal shifted so lands past the face's corners. The other column can drop out
    of the face region (shading across a blurred face), where no hole is found: the marks are
    measured against the face right round each place (:func:`.dice_marks._local_step`), as each
    pip's own step is, so shading does not count."""
    from .dice_marks import _local_step

    if not COLUMNS_DOUBTED or dl is None or dl.ndim != 3 or len(pips) not in (2, 3):
        return False
    ends = sorted((complex(p.x, p.y) for p in pips), key=lambda z: z.real + 1e-3 * z.imag)
    line = max((b - a for a in ends for b in ends), key=abs)
    length = abs(line)
    if length < 4:
        return False
    across = line / length * 1j * length
    pip_r = math.sqrt(median_of([p.area for p in pips]) / math.pi)
    r = max(1, int(round(0.6 * pip_r)))
    towards = median_rows(np.array([p.colour for p in pips], np.float32))
    own = median_of([_local_step(dl, int(round(p.x)), int(round(p.y)), r, math.inf, towards) for p in pips])
    if own <= 0:
        return False
    h, w = dl.shape[:2]
    for sign in (1, -1):
        places = [complex(p.x, p.y) + sign * across for p in pips]
        if not all(0 <= z.real < w and 0 <= z.imag < h for z in places):
            continue
        if all(_local_step(dl, int(round(z.real)), int(round(z.imag)), r, math.inf, towards) >= COLUMN_ALIKE * own
               for z in places):
            return True
    return False
