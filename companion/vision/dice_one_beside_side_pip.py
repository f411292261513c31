"""A one refused as "2 pips off layout": its pip and a side face's pip, told apart in the photo.

A tilted die shows its top face and one or two side faces; where the side face is of the top face's
colour (only shaded), the face region takes both in, and a one's pip with a side face's pip beside it
is refused as a two that lies along no face's diagonal ("2 pips off layout ... not along the face's
diagonal"; development ray 2072, 2129, 78, webcamp 8014: ones, session 34). The refusal is right --
two pips are no one -- but the photo tells which pip is on the top face. Each of the two pips is
tried as a one's pip, measured from the pip outward as :func:`.dice_whole_one.whole_one_face` does
(no size of neighbours needed: the refused reading's own side):

* the face's colour round the pip (:class:`.dice_top_clean.TopFace`, its shade told from the other
  pip's face's by the shade halfway between them, as that module tells a top face from its side) ends on **both** sides of it
  along both image axes and both diagonals, and the pip lies at each line's middle
  (:data:`.dice_top_clean.ONE_MIDDLE`: a two's pip lies near one end -- a real two fails here);
* the face spans at least :data:`.dice_whole_one.SPAN_LEAST` of the reading's side along the
  axes or the diagonals (a side face's pip lies in a smaller region);
* no other mark like the pip on that face (:func:`.dice_top_clean.alone_on_its_face`: a three's
  middle pip beside a corner pip seen, the other corner missed);
* the pip is of a one's pip's size on that face (``dice_pips._judge``'s bounds for a lone pip, its
  sqrt(area) 0.06-``LARGEST_ACE`` of the face's least span of the four);
* the pip is a pip: its core at least :data:`.dice_top_clean.FACE_SHADE_LEAST` (Lab L) from the
  face round it.

Only a two refused for its layout alone is asked (not one refused also for its pips' or face's size).
A one is read only when **exactly one** of the two pips passes; anything else leaves the die
unreadable as before. Every bound is an earlier round's. (Tried and dropped after seeing ray 2072: the
face required to end toward the other pip at least 1.5 of its radii short of it -- a side face's pip
sits at the faces' edge, 1.0 radii past the top face's end there; a pip on the top face is a hole in
its region, which ``alone_on_its_face`` refuses.)
"""

from __future__ import annotations

import math

import numpy as np

from .dice_pips import LARGEST_ACE
from .dice_top_clean import FACE_SHADE_LEAST, ONE_REACH, TopFace, alone_on_its_face
from .dice_whole_one import PAIRS, SPAN_LEAST, _span

#: the refusal this look reads again (``dice_pips._judge``'s two that fits no face) -- only when the
#: layout was its one failing: two pips refused also for their size or the face's are no one's pip
#: and a side face's (a drawn black-white six defocused 3.5 px, its columns merged into two blobs
#: "pip/face 0.97", read as a one without this; tests/test_dice_bitten_pip.py, session 34: named)
TWO_OFF_LAYOUT = "2 pips off layout"
ONLY_ITS_LAYOUT = ": not along the face's diagonal)"


#: a one's pip, sqrt(area) over its face's least span: ``dice_pips._judge``'s bounds for a lone pip
ACE_SIZES = (0.06, LARGEST_ACE)


class _AsPip:
    """What :class:`.dice_top_clean.TopFace` needs of a reading: its pips (x, y, radius) in the photo."""

    def __init__(self, pip: tuple[float, float, float]):
        self.pips = (pip,)


def ones_beside_side_pips(dice: list, img: np.ndarray) -> list:
    """``dice`` with each die refused as two pips off layout read as a one where exactly one of its
    two pips is a one's pip at the middle of a whole face, the other beyond it (module docstring)."""
    from dataclasses import replace  # (dice.Die is a dataclass; imported here to keep this module light)

    out = []
    for d in dice:
        one = _one_among(d, img) if _refused_two(d) else None
        if one is not None and NOT_ON_A_READ_DIE and _on_a_read_die(one, d, dice):
            one = None
        out.append(d if one is None else replace(d, value=1, center=one[:2], confidence=0.5, reason="",
                                                 side_px=one[3], pips=(one[:3],), seen_pips=None))
    return out


#: a one read here must lie a die's side from every die already read: two dice cannot stand
#: closer than a side, so a one's pip nearer a read die is that die's own pip seen again through a
#: second, unread report of it (the lead's held-out webcam frame 60428, session 34: a white one
#: read right and, 0.75 sides off, its unread duplicate read as a second one).  The 0.9 leaves a
#: tenth of a side for where a centre is measured.  False: not asked.
NOT_ON_A_READ_DIE = True
APART_SIDES = 0.9


def _on_a_read_die(one: tuple[float, float, float, float], d, dice: list) -> bool:
    """Does the one read at ``one`` (x, y, radius, span) lie within APART_SIDES sides of another
    die already read?"""
    x, y = one[:2]
    return any(o is not d and o.value is not None
               and math.dist((x, y), o.center) < APART_SIDES * max(o.side_px, d.side_px, one[3])
               for o in dice)


def _refused_two(d) -> bool:
    """Was ``d`` refused as two pips off layout, its two pips kept?"""
    return d.value is None and d.reason.startswith(TWO_OFF_LAYOUT) and d.reason.endswith(ONLY_ITS_LAYOUT) \
        and d.seen_pips is not None and len(d.seen_pips) == 2


def _one_among(d, img: np.ndarray) -> tuple[float, float, float, float] | None:
    """(x, y, radius, face span) of the one pip of ``d``'s two that is a one's, or None (none, or both)."""
    pips = [(d.center[0] + dx, d.center[1] + dy, r) for dx, dy, r in d.seen_pips]
    found = [got for k, p in enumerate(pips) if (got := _a_ones_pip(p, pips[1 - k], d.side_px, img)) is not None]
    return found[0] if len(found) == 1 else None


def _a_ones_pip(pip: tuple[float, float, float], other: tuple[float, float, float], side: float,
                img: np.ndarray) -> tuple[float, float, float, float] | None:
    """``pip`` with its face's span, when it is a one's pip at the middle of a whole face that
    ``other`` lies beyond; else None."""
    px, py, pr = pip
    # (the face's pixels told from the other pip's face by the shade halfway between the two, as
    # dice_top_clean tells a top face from its side face)
    mid = 0.5 * (TopFace(img, _AsPip(pip), None).light + TopFace(img, _AsPip(other), None).light)
    face = TopFace(img, _AsPip(pip), mid)
    if not _is_a_pip(face, pip):
        return None
    reach = ONE_REACH * side
    spans = [[_span(face, (px, py), e, pr, reach) for e in pair] for pair in PAIRS]
    if any(s is None for pair in spans for s in pair):
        return None  # (an end not found, or the pip off the face's middle)
    span = max(min(pair) for pair in spans)
    if span < SPAN_LEAST * side:
        return None  # (a face smaller than a die: the side face's pip)
    # (a square's span through its middle is its side along its axes and up to 1.41 sides
    # elsewhere: the least of the four spans stands for the side the lone-pip bounds are of)
    least = min(s for pair in spans for s in pair)
    if not ACE_SIZES[0] <= math.sqrt(math.pi) * pr / least <= ACE_SIZES[1]:
        return None  # (no one's pip on a face that size: a blob of merged pips, or a speck)
    if not alone_on_its_face(face, [pip], reach):
        return None
    return px, py, pr, span


def _is_a_pip(face: TopFace, pip: tuple[float, float, float]) -> bool:
    """Is the core of ``pip`` (half its radius) at least FACE_SHADE_LEAST (L) from the face round it?"""
    px, py, pr = pip
    H, W = face.img.shape[:2]
    r = max(1.0, 0.5 * pr)
    x0, y0 = max(0, int(px - r)), max(0, int(py - r))
    x1, y1 = min(W, int(px + r) + 1), min(H, int(py + r) + 1)
    if x1 <= x0 or y1 <= y0:
        return False
    core = float(np.median(face.lab(x0, y0, x1, y1)[..., 0]))
    return abs(core - face.light) >= FACE_SHADE_LEAST
