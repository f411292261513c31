"""A two or three read smaller than the dice beside it: a part of a larger die, or a whole small face?

The size rule (:func:`.dice_sizes.doubt_odd_sizes`) makes a one, two or three read far smaller than
its two nearest neighbours unreadable: a column of a six read as a three, two pips of a four read as
a two, fit a square 0.71 times the die's. But a whole die can read that small beside its neighbours
too: the neighbours' read sizes take in their shadows and side faces (light dice on a light table:
1.3-1.5 times their dice), a die farther from the camera is smaller, and dice of a mixed set differ.
On development light scenes, 8 of 13 dice the rule doubted were read right (their values, at
0.51-0.66 of the neighbours' read size); the parts it doubted read at 0.49-0.58. The sizes alone do
not tell them apart. The photo round the reading does, for a two or three, by what a whole face is
(the checks :mod:`.dice_top_whole` makes of a top face read beside its side face):

* its pips are a die's size for its square: read from a part, the square is smaller than the die's
  and the pips large on it (:data:`.dice_top_whole.PIP_SHARE_MOST`);
* the face's colour, walking from the pips' middle along the square's axes, ends where a whole
  face's edge would (its rim, shade or side face), within :data:`.dice_top_whole.EDGE_WITHIN` read
  sides, and nowhere between that and :data:`.dice_top_whole.EDGE_LOOK` (the rest of a larger face
  lies there for a part): it must end on one axis at least, so a face open to a table like it on
  every side is not spared;
* no other mark like its pips lies on the face's region round it (a six's other column, a four's
  other pips, a three's middle pip: :func:`.dice_top_clean.alone_on_its_face`).

Ones are not spared: a one has no square of its own (its size is its face region's), the measures
above do not apply to it. Only readings with their pips (the first look's) can be checked.
"""

from __future__ import annotations

import numpy as np

from .dice_top_clean import ONE_REACH, TopFace, alone_on_its_face
from .dice_top_whole import PIP_SHARE_MOST, edges_where_a_face_has_them

#: the least share of its neighbours' read size a spared reading may have: parts the size rule
#: doubts read at 0.49-0.58 of it (development light) and whole twos and threes at 0.54-0.66; far
#: smaller (light 3180: a one read at 0.13, a pip) is no whole face the checks can vouch for.
#: Set a little under every share seen (0.49): the checks, not the share, tell parts from faces there.
SPARED_LEAST = 0.45


def whole_small_face(d, img: np.ndarray, share: float) -> bool:
    """Is ``d``, a two or three read at ``share`` of its neighbours' read size, a whole face by
    the photo round it (module docstring)?"""
    return share >= SPARED_LEAST and whole_face_by_its_pips(d, img)


def whole_face_by_its_pips(d, img: np.ndarray) -> bool:
    """Is ``d``, a two or three read with its pips, a whole face by the photo round it: pips a
    die's size for its square, the face's edge where a whole face's is, no other pip-like mark on
    it (module docstring)? Anything else: no."""
    if d.value not in (2, 3) or d.pips is None or len(d.pips) != d.value:
        return False  # (read without its pips, or with others: nothing to check it by)
    if float(np.median([p[2] for p in d.pips])) > PIP_SHARE_MOST * d.side_px:
        return False  # (pips too large for the square: a part of a larger face, read small)
    face = TopFace(img, d, None)
    return edges_where_a_face_has_them(face, d.pips, d.side_px) \
        and alone_on_its_face(face, list(d.pips), ONE_REACH * d.side_px)
