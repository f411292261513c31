"""An unreadable die's pips looked for by their rings again, in a crop scaled to the dice read.

The ringed look (:mod:`.dice_ringed_pips`) finds a marbled die's pips without a face region: a
round mark stepping from every sector of the ring round it. Its scales are the crop's guessed die
side (``FACE_PX``): the pip radii it tries (0.06-0.11 of it) and the face's size it accepts
(0.75-1.4 of it). The reader crops a blob for the blob's own size, and a marbled die's blob
often holds its shadow and side faces too (the veins break its outline): the die is then read at
0.5-0.7 of the crop's guess, its pips under the radii tried, and the look finds nothing ("no pips",
"a die-shaped blob, no face read in it"). One throw's dice are one size: round each unreadable
report the ringed look is asked again in discs cut for a die the median side of the dice read
(the crop :func:`.dice._read_disc` makes, the nested discs' crop), 1.0, 1.2 and 1.5 sides across.

The value is taken only when **every** disc reads it, the same, near the report and away from every
die read (the nested discs' reasons: the top face is the same in every disc, what lies beyond it is
not), and only a value of 3-6: a two is two marks on a diagonal, which a side face's pair or a part
of a larger face (its other pips under a vein) makes as well, and the development scenes read such
twos in every disc (ray 3089, 3103, 3743, 4313; docs/dice-camera.md, forty-first round, h6).
"""

from __future__ import annotations

import math
from typing import Callable, Sequence, TypeVar

from .dice_nested_discs import other_face_doubted, value_taken

D = TypeVar("D")  # a :class:`.dice.Die`

#: an unreadable die read again by the ringed look at the read dice's size, in three discs, the
#: value kept when every disc reads it (False: the reader as before). Session 42: development ray
#: 3000-3164, 3700-3799, 4300-4399 +3 right (ray 3084, 3774, 4313), light 3300-3539 +1 (light 3452),
#: light 3780-3869 and 4000-4039 +1 (3858), nothing wrong, missed, extra or near-wrong added; the check set ray 3900-3999 unchanged. Not run
#: with it on: the older rules' off-then-on tests beyond tests/test_dice_reader.py. It reads a report a
#: doubt called a part of a larger face too (ray 4313, right there) -- docs/dice-camera.md, forty-first
#: round, h6
#: OFF since the lead's held-out read (session 42): ray 59460-60259 + light 5050-5449 +6 right (ray
#: 60032, 60188, 60216, 60228, 60258; light 5192) and one harmful reading (light 5051: a 36 px one among
#: 53 px dice, its blob 63 px "no pips", read as a five 0.75 of a side off it -- a missed die, an extra
#: and a near-wrong); fresh ray 60300 +1 right. Its tests switch it on.
UNREAD_RINGED_AT_DICE_SIZE = False
#: the discs' diameters, in the read dice's side: 1.0 the die, 1.2 the size rule's read-again disc
#: (dice.AGAIN_DISC), 1.5 takes in a tilted die's side faces whole -- the top face's value must
#: not change as they come in
DISCS = (1.0, 1.2, 1.5)
#: values taken: 3-6 (a two's diagonal is made by a side face's pair or part of a larger face too)
VALUES = (3, 4, 5, 6)
#: a disc's reading within this many sides of the report (the nested discs' WITHIN) ...
WITHIN = 0.5
#: ... and this many sides from every die read: nearer, it is that die's face read again (APART)
APART = 0.9
#: a report an earlier doubt made because its face is another face than the die's top face (a part of
#: a larger face, a side face in shade, a side face whose top face's pips lie beyond it) is left
#: unread, as the nested discs leave it (dice_nested_discs.other_face_doubted): reading those pips
#: again at that place, in any disc, answers a doubt about the value, not about the face. Without it
#: development light 6198's part of a defocused two (the face_runs_on doubt) was read again as a
#: three: an extra and a near-wrong (the lead, session 42, from the full test run; h6's ray 4313 gain
#: came through such a doubt and is given up). False: every unread report read again.
OTHER_FACE_DOUBTS_KEPT = True


def read_ringed_again(dice: Sequence[D], read_disc: Callable[[tuple[float, float], float, float], list]) -> list[D]:
    """``dice`` with each unreadable die given the value the ringed look reads alike in every disc
    of ``DISCS`` round it (``read_disc(centre, side, diameter_in_sides)`` -> the ringed look's dice
    there), the side the median of the dice read; unchanged where no die is read."""
    if not UNREAD_RINGED_AT_DICE_SIZE or all(d.value is not None for d in dice):
        return list(dice)
    read = [d for d in dice if d.value is not None]
    if not read:
        return list(dice)  # (no size to read at: the blob's own was tried)
    sides = sorted(d.side_px for d in read)
    side = sides[len(sides) // 2]
    out = list(dice)
    for k, d in enumerate(dice):
        if d.value is not None:
            continue
        if OTHER_FACE_DOUBTS_KEPT and other_face_doubted(d):
            continue
        values = []
        for disc in DISCS:
            got = [g for g in read_disc(d.center, side, disc) if g.value is not None]
            if len(got) != 1 or math.dist(got[0].center, d.center) > WITHIN * side:
                break
            values.append(got[0])
        if len(values) != len(DISCS) or len({g.value for g in values}) != 1 or values[0].value not in VALUES:
            continue
        taken = value_taken(d, values[0], values, side, read, APART)  # (values[0]: the die's own disc)
        if taken is not None:
            out[k] = taken
    return out
