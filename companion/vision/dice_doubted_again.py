"""A die the size rule doubted, read again at the size of the dice beside it.

The size rule (:func:`.dice_sizes.doubt_odd_sizes`) makes a one, two or three read far smaller than
its two nearest neighbours unreadable: a part of a die was read, not the die. On the development
sets (session 26) most such readings lie on a die: a three read as a **two** from two of its pips
at half the die's size (ray 1011, 1080, 2084, 2092, light 20), a five's pip read as a one (ray 13),
a one or a two read on its face region cut by a side face (ray 2113, 4217, 4344). The die is there:
read again in a crop made for a die the neighbours' size round the doubted reading, its whole face
is in the crop and reads what it shows -- a three's three pips, a six's six. Kept only when that
reading is sure, lies where the doubted one did, is itself of the neighbours' size (else the
same part was read again and the die stays unread), and is no one (:data:`VALUES_KEPT`).
"""

from __future__ import annotations

import math
from typing import Callable

from .dice_sizes import LOWEST_RATIO, OUTLINED_ONE_HIGHEST, OVERLAP, _Sized


#: the least confidence (the face reader's: layout fit, pips' roundness and contrast) of a value
#: read again. The same floor as a ring's hole read at its own scale (dice.HOLE_SURE, session 24):
#: a reading made at a guessed scale is kept only where the reader is sure of it.
AGAIN_SURE = 0.6
#: the reading made again must lie within this part of the neighbours' read size of the doubted
#: one: a part's centre lies 0.18-0.4 of a side off its die's (a three's two pips, a five's pip,
#: the doubted readings traced on the development sets), and a reading farther off is another die.
AGAIN_WITHIN = 0.5
#: the values a die read again may take: no ones. A one is a lone pip, and a crop round a part
#: holds lone pips of larger faces: read so, the invariance audit (session 26, the 19 development
#: scenes with a doubted die, 7 transforms) gave a dark red three read as a **one** at its middle
#: pip (ray 2084 scaled 1.5; a two doubted there) and an ivory two on white read as a **one** on one
#: of its pips, the other lost in the table's white (light 3252 under JPEG 60, scaled 1.5 and a cool
#: cast). The ones the rule gained on the development sets (light 3144, 3263; with a one kept on
#: its own pip whatever its size, ray 2113 and 4217 too) are given up for them.
VALUES_KEPT = (2, 3, 4, 5, 6)
#: the least share of the neighbours' read size for a four, five or six read again (ones, twos and
#: threes must pass the size rule's own LOWEST_RATIO): the largest of the size rule's bounds.
LEAST_SHARE = max(LOWEST_RATIO.values())


def read_doubted_again(dice: list[_Sized], doubted: list[tuple[_Sized, float, int]],
                       read_square: Callable[[tuple[float, float], float], list[_Sized]]) -> list[_Sized]:
    """``dice`` with each doubted die (``doubted``: die, neighbours' read size, value it had)
    replaced by what ``read_square(centre, side)`` reads round it at the neighbours' size, when
    that is one sure value of that size at its place (module docstring). Else it stays doubted."""
    out = list(dice)
    for d, typical, _ in doubted:
        again = _one_sure_near(read_square(d.center, typical), d.center, typical)
        if again is None or _beside_a_read_die(again, out, d):
            continue
        out = [again if o is d else o for o in out]
    return out


def _one_sure_near(found: list[_Sized], centre: tuple[float, float], typical: float) -> _Sized | None:
    """The one value read in ``found`` near ``centre``, sure and of the neighbours' size, or None."""
    near = [g for g in found if g.value is not None
            and math.hypot(g.center[0] - centre[0], g.center[1] - centre[1]) <= AGAIN_WITHIN * typical]
    if len(near) != 1 or len([g for g in found if g.value is not None]) != 1:
        return None  # (nothing, or more than one die read where one die was: no telling which)
    g = near[0]
    share = g.side_px / max(typical, 1e-6)
    least = LOWEST_RATIO.get(g.value, LEAST_SHARE)  # (a one is never kept: VALUES_KEPT)
    if g.value not in VALUES_KEPT or g.confidence < AGAIN_SURE or not least <= share <= OUTLINED_ONE_HIGHEST:
        return None
    return g


def _beside_a_read_die(g: _Sized, dice: list[_Sized], doubted: _Sized) -> bool:
    """Does ``g`` overlap a die already read (its reading of that die again: not a die of its own)?"""
    return any(o is not doubted and o.value is not None
               and math.hypot(o.center[0] - g.center[0], o.center[1] - g.center[1]) < OVERLAP * max(o.side_px, g.side_px)
               for o in dice)
