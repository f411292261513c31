"""An unreadable die read again in three nested discs round its report: its top face's value, when
every disc reads it.

A tilted die shows its top face and, round it, one or two side faces whose pips are squeezed and
lie at the die's rim. The reader's doubts about such dice (a two off layout made of a one's pip
and a side face's pip, "marks where a one has no pip", "a lone pip with other marks beside it", a
side face read with its top face beside reading nothing) fire on the marks of the side faces,
which lie *farther from the top face's centre* than any of its own pips (a face's pips lie within
0.42 of a side of its centre; a side face's pips 0.6-1 side from it, past the top face's edge).

So a crop of the top face alone reads its value, and a crop that takes in more of the die reads
the same value only when the side faces' marks do not change it. Round each unreadable report the
photo is read again (the reader's own crop for a die the dice's size, :func:`.dice._read_square`)
in three discs of growing diameter (``DISCS``: 0.8, 1.0 and 1.2 of the die's side). The value is
taken only when **every** disc reads exactly one value, the same, sure (the face reader's
confidence, ``SURE``), each within half a side of the report, and a die's side from every die
already read. The physical reason: a die's value is a property of its top face, and the top face
is the same in the three crops; what differs between them is what lies beyond it -- the side
faces, the table, a neighbour -- and a value that changes with the disc is read from those.
Where a disc reads nothing, or another value, the die stays unreadable (a lone pip of a larger
face read as a one in the smallest disc is seen with its face's other pips in the larger ones).

(docs/dice-camera.md, thirty-ninth round, h2.)
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable, Sequence, TypeVar

D = TypeVar("D")  # a :class:`.dice.Die`

#: read an unreadable die again in nested discs and take the value every disc reads (False: the
#: reader as before). OFF: on development it read 11 unread dice right (tilted ones with their side
#: faces' pips in view: ray 3222, 3240, 3264) but read light 3408's blurred pastel blue two as a
#: **one** in every disc (its other pip lost in the white table) and gave light 3154's second report
#: of a one a **four** (an extra): a lone pip is a one in every disc round it whatever the disc's
#: size (docs/dice-camera.md, thirty-ninth round, h2). Its tests switch it on.
UNREAD_READ_IN_NESTED_DISCS = False
#: the discs' diameters, in the die's side: 0.8 holds a top face seen at a tilt (its pips within
#: 0.42 of a side of its centre) and little of its side faces; 1.2 is the disc the size rule's
#: read-again uses (dice.AGAIN_DISC), which takes in the side faces' rims and pips
DISCS = (0.8, 1.0, 1.2)
#: the least confidence of each disc's value (the face reader's: layout fit, pips' roundness and
#: contrast): the floor a value read again at a guessed scale must clear (dice_doubted_again.AGAIN_SURE)
SURE = 0.6
#: a disc's value must lie within this many sides of the report (a part read off the face's centre
#: lies 0.18-0.4 of a side off its die's: dice_doubted_again.AGAIN_WITHIN)
WITHIN = 0.5
#: ... and at least this many sides from every die already read: a die nearer is that die's face
#: read again (dice_one_beside_side_pip.APART_SIDES)
APART = 0.9


#: a one taken so must be the pip at the middle of a whole face of the dice's size
#: (:func:`.dice_whole_one.whole_one_face`): a disc round a part of a face holds a lone pip of it --
#: a light two on white whose other pip is lost in the table reads as a one in every disc (fresh
#: light 3408's pastel blue two, blurred), and a one's face is measured from its pip outward
#: (False: a one taken as any value is). Tried and OFF: it refuses the tilted ones read right (ray
#: 3222: the face runs on into its side face along the axes; 3240: a 54 px die's face spans under
#: 0.6 of a side; 3264: the side face's pips are marks on the face) and passes light 3408's two,
#: whose white table is taken for a whole face round its pip.
ONES_AT_A_WHOLE_FACE = False


def read_in_nested_discs(dice: Sequence[D], read_disc: Callable[[tuple[float, float], float, float], list],
                         whole_one: Callable[[D, float], bool] | None = None) -> list[D]:
    """``dice`` with each unreadable die given the value read alike in every disc of ``DISCS``
    round it (``read_disc(centre, side, diameter_in_sides)`` -> the dice read there), its side the
    median of the dice read (one throw's dice are one size; its own where none is read); a one only
    where ``whole_one(die, share of that side)`` says its pip is at a whole face's middle."""
    if not UNREAD_READ_IN_NESTED_DISCS or all(d.value is not None for d in dice):
        return list(dice)
    read = [d for d in dice if d.value is not None]
    sides = sorted(d.side_px for d in read)
    typical = sides[len(sides) // 2] if sides else None
    out = list(dice)
    for k, d in enumerate(dice):
        if d.value is not None:
            continue
        side = typical or d.side_px
        if side <= 0:
            continue
        values = []
        for disc in DISCS:
            got = [g for g in read_disc(d.center, side, disc) if g.value is not None]
            if len(got) != 1:
                break  # (nothing read, or two values: no telling which)
            g = got[0]
            if g.confidence < SURE or math.dist(g.center, d.center) > WITHIN * side:
                break
            values.append(g)
        if len(values) != len(DISCS) or len({g.value for g in values}) != 1:
            continue
        g = values[len(values) // 2]  # (the middle disc's reading: the die's own size)
        if g.value == 1 and ONES_AT_A_WHOLE_FACE and (whole_one is None or not whole_one(g, g.side_px / side)):
            continue
        if any(math.dist(g.center, o.center) < APART * max(o.side_px, side) for o in read):
            continue
        out[k] = replace(d, value=g.value, center=g.center, confidence=min(v.confidence for v in values),
                         side_px=g.side_px, reason="", pips=g.pips, seen_pips=None)
        read.append(out[k])
    return out
