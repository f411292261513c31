"""A one read small beside larger dice, spared when the photo shows its pip at the middle of a whole face.

The size rule (:func:`.dice_sizes.doubt_odd_sizes`) makes a one read under 0.6 of its two nearest
neighbours' read size unreadable: most such ones are a pip of a larger face (a five's or three's
middle pip whose other pips were missed, a two's pip with the other lost in a white table). A
light one on a light table is read small for another reason: its face region, the colour of the
table, stops short of the face's edge on its lit side (light 3144, a pink one 132 px across, read
at 105 px beside dice read at 183; session 29). :mod:`.dice_small_whole` spares such twos and
threes from their pips' square; a one has no square of its own, so here the face is measured from
its pip outward, as :func:`.dice_top_clean.one_at_the_middle` does for a one beside its side face:

* along both image axes and both diagonals, the face's colour must end on **both** sides of the
  pip within a reach of the neighbours' size (a face running on into a table like it has no known
  middle: not spared), and the pip must lie at its middle (the nearer end at least ``ONE_MIDDLE``
  of the farther: a corner pip of a larger face lies near one end);
* the face must be a die's size: along the axes or the diagonals, whichever pair spans more, both
  spans at least ``SPAN_LEAST`` of the neighbours' read size (a pip of a side face, or of a face cut
  by a side face, lies in a smaller region);
* no other pip-like mark on that face (:func:`.dice_top_clean.alone_on_its_face`: a three or five
  whose other pips the reader missed).

Anything else, and every doubt the rule cannot settle, leaves the one unreadable, as before.
"""

from __future__ import annotations

import math

import numpy as np

from .dice_sizes import LOWEST_RATIO
from .dice_small_whole import SPARED_LEAST
from .dice_top_clean import ONE_MIDDLE, ONE_REACH, PIP_CLEAR, face_reach, TopFace, alone_on_its_face

#: the least span of the face round the pip, as a share of the neighbours' read size: the size
#: rule's own bound for a one (a part's share, about 0.5, lies under it)
SPAN_LEAST = LOWEST_RATIO[1]
_DIAGONAL = math.sqrt(0.5)
#: the four directions the face is measured along, as two perpendicular pairs (axes, diagonals)
PAIRS = (((1.0, 0.0), (0.0, 1.0)), ((_DIAGONAL, _DIAGONAL), (_DIAGONAL, -_DIAGONAL)))


def whole_one_face(d, img: np.ndarray, share: float) -> bool:
    """Is ``d``, a one read at ``share`` of its neighbours' read size, the pip at the middle of a
    whole face of their size (module docstring)? Anything else: no."""
    if d.value != 1 or d.pips is None or len(d.pips) != 1 or share < SPARED_LEAST:
        return False
    typical = d.side_px / max(share, 1e-6)
    px, py, pr = d.pips[0]
    face = TopFace(img, d, None)
    reach = ONE_REACH * typical
    spans = [[_span(face, (px, py), e, pr, reach) for e in pair] for pair in PAIRS]
    if any(s is None for pair in spans for s in pair):
        return False  # (an end not found, or the pip off the face's middle)
    if max(min(pair) for pair in spans) < SPAN_LEAST * typical:
        return False  # (a face smaller than a die: a side face's pip, or a part of a face)
    return alone_on_its_face(face, [(px, py, pr)], reach)


def light_pip_on_darker_face(d, img: np.ndarray) -> bool:
    """Is the core of ``d``'s pip (its first) lighter than the face round it (:class:`TopFace`)?"""
    px, py, pr = d.pips[0]
    H, W = img.shape[:2]
    r = max(1.0, 0.5 * pr)
    x0, y0, x1, y1 = max(0, int(px - r)), max(0, int(py - r)), min(W, int(px + r) + 1), min(H, int(py + r) + 1)
    if x1 <= x0 or y1 <= y0:
        return False
    face = TopFace(img, d, None)
    return float(np.median(face.lab(x0, y0, x1, y1)[..., 0])) > face.light


def _span(face: TopFace, at: tuple[float, float], e: tuple[float, float], pr: float, reach: float) -> float | None:
    """The face's span through ``at`` along ``e`` (px), or None when an end is not found within
    ``reach`` or ``at`` is off the span's middle (:data:`ONE_MIDDLE`)."""
    ahead = face_reach(face, at, e, PIP_CLEAR * pr, reach, pr)
    behind = face_reach(face, at, (-e[0], -e[1]), PIP_CLEAR * pr, reach, pr)
    if ahead is None or behind is None or min(ahead, behind) < ONE_MIDDLE * max(ahead, behind):
        return None
    return ahead + behind
