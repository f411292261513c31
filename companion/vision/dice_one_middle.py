"""A lone pip at the middle of its top face, told by the face's colour round it, not by the region.

The face reader takes a lone pip for a one when it lies at the middle of the face region: near its
centroid, or as deep inside it as a top face's centre is. A tilted die's side face of the top
face's colour joins the region (a translucent die, whose faces differ little in shade; a lit
side face) and moves both: the one's pip then lies 0.22-0.26 region sides from the centroid and
0.33-0.37 deep (ray 2017, 4026, 4221; the bars are 0.18 and 0.38), and is reported as "lone pip
off centre".

A square face is symmetric about its middle: along *every* line through its middle, the face
reaches as far on one side as on the other. So the pip is at its face's middle when, along four
lines through it (0, 45, 90 and 135 degrees), the pixels of the colour round the pip end about as
far ahead as behind -- the test of :func:`.dice_top_clean.one_at_the_middle` (session 12's check of
a one beside its side face), on four lines instead of two. A side face of another shade stops the
walk at the top face's edge; one of the same shade does not, and the pip is then off that line's
middle and is left unread. A corner pip of a two or three (its other pips missed) has the face's
edge close on two sides and far on the other two. And the face must be most of its region (a
one-face that is a small part of it is a side face: light 3148). The rest of the face reader's
checks of a one still apply after this (marks where a one has no pip, marks on its corners).
"""

from __future__ import annotations

import math

import numpy as np

from .dice_top_clean import FACE_CHROMA, FACE_SHADE_LEAST, ONE_MIDDLE, PIP_CLEAR, RING

#: the lines through the pip the face's reach is measured along (degrees; a square is symmetric
#: about its middle along every line, so any spread of directions does: four cover the square's
#: axes and diagonals whatever its turn)
LINES = (0.0, 45.0, 90.0, 135.0)
#: the face across the pip along each line at least this many pip diameters: a one's pip is at most
#: a third of its face across (``dice_pips.LARGEST_ACE`` 0.36 of the region), blur widening it a
#: little -- a "face" narrower than that round a pip is a pip-sized patch of colour, not a face
LEAST_WIDTH_PIPS = 2.5
#: the face round the pip at least this share of its region's side: the region is the top face
#: and at most a side face joined on, no larger than the top face's (a die tilted under 45
#: degrees), so the top face is half the region or more, its side 0.71 of the region's or more;
#: the walk stops at the face's rounded rim, a little short of its edge. A one-face that is a small
#: part of the region is a side face beside a top face of another value (light 3148: an ivory
#: five's side face, its one read at the region's size, 0.47; the ones gained measured 0.65-0.87)
TOP_FACE_SHARE_LEAST = 0.6
#: the walk from the pip looks this many region sides out at most (as ``ONE_REACH``: a face open
#: to a table of its own colour ends nowhere within it, and its middle is not known)
REACH_SIDES = 1.2


def _walks(pip, dl: np.ndarray, side: float):
    """The pip's radius and, along each of ``LINES``, how far the face of the colour round the pip
    reaches ahead of it and behind it (``_reach``: None where it ends nowhere in reach); None when
    ``dl`` holds no colour or the pip has no ring of face round it."""
    if dl is None or dl.ndim != 3:
        return None
    pr = math.sqrt(pip.area / math.pi)
    colour = _ring_colour(dl, pip.x, pip.y, pr)
    if colour is None:
        return None

    def lines():  # (lazy: a caller that has its answer stops walking)
        for degrees in LINES:
            t = math.radians(degrees)
            e = (math.cos(t), math.sin(t))
            yield (_reach(dl, colour, (pip.x, pip.y), e, pr, REACH_SIDES * side),
                   _reach(dl, colour, (pip.x, pip.y), (-e[0], -e[1]), pr, REACH_SIDES * side))
    return pr, lines()


def at_its_face_middle(pip, dl: np.ndarray, side: float) -> bool:
    """Is ``pip`` (a :class:`.dice_pip_finding.Pip`, crop pixels) at the middle of the face of
    the colour round it, in ``dl`` (the crop's Lab offset from the face colour, H x W x 3), a face
    that is most of its region (of side ``side``)?"""
    walks = _walks(pip, dl, side)
    if walks is None:
        return False
    pr, lines = walks
    widths = []
    for ahead, behind in lines:
        if ahead is None or behind is None or min(ahead, behind) < ONE_MIDDLE * max(ahead, behind):
            return False
        if ahead + behind < LEAST_WIDTH_PIPS * 2 * pr:
            return False
        widths.append(ahead + behind)
    # (the face's side: its narrowest width through its middle -- along its axes; on four lines
    # 45 degrees apart the narrowest is within 1.08 of the side, whatever the face's turn)
    return min(widths) >= TOP_FACE_SHARE_LEAST * side


#: a one is doubted when its pip is off its face's middle along at least this many of the four
#: lines (see ``_line_off``). A corner pip of a two or three is off along three of the four -- both
#: of the face's axes and the diagonal through it; the other diagonal is symmetric -- and the
#: wrong ones of the pools measured 3-4 (light 12, 6034, 6091, 6120, ray 20243). Two let a vein of
#: marbling doubt a right one (ray 4389, a marbled green one: two lines cut short by a vein 3 px
#: past the walk's start); a side face of the one's own shade joined on moves one axis only
OFF_LINES_LEAST = 3


def off_its_face_middle(pip, dl: np.ndarray, side: float) -> bool:
    """Is ``pip`` (a lone pip taken for a one) clearly *off* the middle of the face of the colour
    round it: along ``OFF_LINES_LEAST`` of the four lines the face ends much nearer on one side of
    it than on the other (``_line_off``)? A line whose face ends nowhere on either side (a face of
    the table's colour), at the crop's edge, or at once (``AT_ONCE_PX``) tells nothing and is not
    counted, so a face that cannot be measured is no doubt."""
    walks = _walks(pip, dl, side)
    if walks is None:
        return False
    pr, lines = walks
    off = 0
    for ahead, behind in lines:
        at_once = PIP_CLEAR * pr + AT_ONCE_PX
        if (ahead is not None and ahead <= at_once) or (behind is not None and behind <= at_once):
            continue  # (the pip's own rim or a vein of marbling, not the face's edge: the line tells nothing)
        off += _line_off(ahead, behind, side)
    return off >= OFF_LINES_LEAST


#: a walk that ends within this many pixels of its start (``PIP_CLEAR`` pip radii out) met the
#: pip's own rim -- its dimple's shading, a blurred pip's halo -- or a vein of marbling, not the
#: face's edge, and its line is not counted (pool ray 20285, 31 px white dice under defocus: walks
#: of 5 px from a 5.4 px start on three lines of right ones; ray 20219, a marbled one: 13-16 px
#: from 13.4-15.7). The walk steps one pixel: the first step or the next
AT_ONCE_PX = 1.5


#: a line whose face ends on one side of the pip only (on the other it runs on into a table of its
#: colour, or past ``REACH_SIDES``) is off the middle when that one end is nearer than this many
#: region sides: ``ONE_MIDDLE`` of a face's half width along its axes (0.5), the nearest a one's
#: face can end and still pass the two-sided test against a face at least as wide on the other side
ONE_SIDED_NEAREST = ONE_MIDDLE * 0.5
#: (False: a line counts only when the face ends on both sides of the pip)
ONE_SIDED_LINES_COUNT = True


def _line_off(ahead: float | None, behind: float | None, side: float) -> bool:
    """Does the face along one line end much nearer on one side of the pip than on the other?"""
    if ahead is not None and behind is not None:
        return min(ahead, behind) < ONE_MIDDLE * max(ahead, behind)
    if ONE_SIDED_LINES_COUNT and (ahead is None) != (behind is None):
        return (ahead if ahead is not None else behind) < ONE_SIDED_NEAREST * side
    return False


def _ring_colour(dl: np.ndarray, x: float, y: float, pr: float) -> np.ndarray | None:
    """The median Lab offset on the ring ``RING`` pip radii round the pip: its face's colour."""
    H, W = dl.shape[:2]
    reach = RING[1] * pr + 1
    x0, y0 = max(0, int(x - reach)), max(0, int(y - reach))
    x1, y1 = min(W, int(x + reach) + 1), min(H, int(y + reach) + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    yy, xx = np.ogrid[y0:y1, x0:x1]
    d2 = (xx - x) ** 2 + (yy - y) ** 2
    ring = (d2 >= (RING[0] * pr) ** 2) & (d2 <= (RING[1] * pr) ** 2)
    if not ring.any():
        return None
    return np.median(dl[y0:y1, x0:x1][ring], axis=0)


def _of_face(lab: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Which Lab offsets are of the face's colour (as :class:`.dice_top_clean.TopFace` tells it)."""
    chroma = np.hypot(lab[..., 1] - colour[1], lab[..., 2] - colour[2])
    return (np.abs(lab[..., 0] - colour[0]) <= FACE_SHADE_LEAST) & (chroma <= FACE_CHROMA)


def _reach(dl: np.ndarray, colour: np.ndarray, at: tuple[float, float], e: tuple[float, float], pr: float,
           reach: float) -> float | None:
    """How far from ``at`` along ``e`` the crop stays of the face's colour, starting ``PIP_CLEAR``
    pip radii out: the first step whose band across the line (a pip across) is mostly not of it;
    None when none is within ``reach`` or the crop ends first (as ``dice_top_clean.face_reach``)."""
    H, W = dl.shape[:2]
    t = np.arange(PIP_CLEAR * pr, reach, 1.0)
    if len(t) == 0:
        return None
    s = np.linspace(-max(1.0, pr), max(1.0, pr), 5)
    xs = np.rint(at[0] + t[:, None] * e[0] - s[None, :] * e[1]).astype(int)
    ys = np.rint(at[1] + t[:, None] * e[1] + s[None, :] * e[0]).astype(int)
    inside = (xs >= 0) & (xs < W) & (ys >= 0) & (ys < H)
    band = dl[np.clip(ys, 0, H - 1), np.clip(xs, 0, W - 1)]
    ended = (inside & _of_face(band, colour)).mean(axis=1) < 0.5
    if not ended.any():
        return None
    first = int(np.argmax(ended))
    if not inside[first].any():
        return None  # (the crop's edge, not the face's)
    return float(t[first])
