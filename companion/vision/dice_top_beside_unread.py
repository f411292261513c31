"""A tilted light die's top face beside the side face reported unreadable in its place.

A white, cream or clear die on a white table, tilted, shows its side faces in shade and its top
face in the table's own light: the foreground holds the side faces (and the shadow), not the top
face. The reader reads a side face there, and a later check makes it unreadable (a light face
clearly darker than the light round it, :mod:`.dice_shaded_face`; a side face beside a lighter part
that reads nothing), or it reads no face at all in the blob: in each case it reports an unreadable
die half a side to a side off the die's top face, and the top face itself is never looked at,
since the blob read "something". The top face's pips are as clear as any: so round each
unreadable report the reader looks once more pips first (:mod:`.dice_pip_squares`, the face taken
as the table's colour), and a face read there, within reach of the report and no other die's,
replaces the report -- when it is a four, five or six, or a one to three the photo shows to be the
whole top face (:mod:`.dice_top_whole`): fewer pips found beside a side face may be a part of the
top face.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .dice_sizes import PART_VALUES
from .dice_top_whole import whole_top_face

#: look round unreadable reports for the top face beside them (False: the old reader)
TOPS_BESIDE_UNREAD = True
# A top face read within this many sides of the unreadable report replaces it: a side face's
# centre lies half a side from the top face's in a view from straight above, up to a side in a
# steep one (the missed dice of development: 0.53-0.90).
TOP_REACH = 1.1
# ... and at least this many sides from every die read already (a neighbour's face read once more
# lies about a side from it, two touching dice read as one's face and the other's: dice.REMAINDER_APART).
OTHERS_APART = 1.2
# The unreadable reports looked round: those that say the top face was never read (no face or no
# pip read in the blob, or a side face read and set aside). A report that doubts a reading at its
# own place (a part of a die read small, a vacancy marked, pips off any layout) is no side face:
# read again pips first, the same part gave the same smaller value (light 3235: a three's two pips
# read as a two at 0.56 of the dice round it).
#: several reports round one die (a clear die's corners found as blobs of their own, each "no pips")
#: that find the same top face give it once: the later reports are that die's (light 3946: a clear four
#: reported four times; False: each report replaced, the old rule)
ONE_TOP_PER_DIE = True
#: a one, two or three read there replaces the report when the photo shows it is the die's whole top
#: face, lighter than the side face reported and no part of a larger face (:mod:`.dice_top_whole`;
#: False: fours to sixes only, session 16's rule)
ONE_TO_THREE_WHEN_WHOLE = True
SIDE_OR_NOTHING = ("no pips", "a die-shaped blob, no face read", "a side face read; its top face",
                   "a side face in shade")


def tops_beside_unread(dice: list, img: np.ndarray, f: float, look_around: Callable,
                       reasons: tuple = SIDE_OR_NOTHING) -> list:
    """``dice`` with each unreadable report that names no face (:data:`SIDE_OR_NOTHING`, or the
    ``reasons`` given) replaced by the top face read beside it: one value read pips first within
    TOP_REACH of it, away from the dice read. ``look_around`` is the reader's pips-first look round a blob
    (``dice._read_around_at(img, shape, origin, f, est, unfit)``, work pixels at scale ``f``)."""
    if not TOPS_BESIDE_UNREAD:
        return dice
    read = [d for d in dice if d.value is not None]
    # (the dice read size the look; a side face's report is smaller than its die, a blob's larger)
    typical = float(np.median([d.side_px for d in read])) if read else None
    out = []
    taken: list = []  # (the top faces read in reports' places so far)
    for u in dice:
        if u.value is not None or not any(k in u.reason for k in reasons):
            out.append(u)
            continue
        side = typical or u.side_px
        # a die's square round the report: the look reaches a side past it on every side
        est = max(1.0, side * f)
        x, y = u.center[0] * f - est / 2, u.center[1] * f - est / 2
        got = look_around(img, (int(est), int(est)), (max(0, int(x)), max(0, int(y))), f, est, False)
        found = [r for r in got if r.value is not None
                 and math.dist(r.center, u.center) < TOP_REACH * side
                 and all(math.dist(r.center, o.center) >= OTHERS_APART * max(r.side_px, o.side_px) for o in read)]
        # A one, two or three read beside the report may be a part of the top face: the look is
        # sized by the dice read elsewhere (or by the report, a side face smaller than its die) and
        # a tilted face's pips fall in pieces -- tilted light 3722, a three's two pips read as a two
        # at half the die's side; and with dice read in the photo too, the lead's held-out reading
        # found a five and a three read as twos there. Four or more pips in a square are a whole face;
        # a one to three only when the photo shows it is one (its shade, its face's edges, no other marks).
        found = [r for r in found if r.value not in PART_VALUES
                 or (ONE_TO_THREE_WHEN_WHOLE and whole_top_face(r, u, img))]
        if len({r.value for r in found}) == 1:
            top = max(found, key=lambda r: r.confidence)
            if ONE_TOP_PER_DIE and any(math.dist(top.center, t.center) < 0.5 * max(top.side_px, t.side_px)
                                       for t in taken):
                continue  # (another report of the same die, its top face read already: one die)
            taken.append(top)
            out.append(top)
        else:
            out.append(u)
    return out
