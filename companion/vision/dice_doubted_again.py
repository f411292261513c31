"""A die the size rule doubted, read again at the size of the dice beside it.

The size rule (:func:`.dice_sizes.doubt_odd_sizes`) makes a one, two or three read far smaller than
its two nearest neighbours unreadable: a part of a die was read, not the die. On the development
sets (session 26) most such readings lie on a die: a three read as a **two** from two of its pips
at half the die's size (ray 1011, 1080, 2084, 2092, light 20), a five's pip read as a one (ray 13),
a one or a two read on its face region cut by a side face (ray 2113, 4217, 4344). The die is there:
read again in a crop made for a die the neighbours' size round the doubted reading, its whole face
is in the crop and reads what it shows -- a three's three pips, a six's six. Kept only when that
reading is sure, lies where the doubted one did, and is itself of the neighbours' size (else the
same part was read again and the die stays unread).
"""

from __future__ import annotations

import math
from typing import Callable, Protocol

from .dice_sizes import LOWEST_RATIO, OUTLINED_ONE_HIGHEST, OVERLAP


class _Sized(Protocol):
    value: int | None
    center: tuple[float, float]
    side_px: float
    confidence: float
    reason: str


#: the least confidence (the face reader's: layout fit, pips' roundness and contrast) of a value
#: read again. The same floor as a ring's hole read at its own scale (dice.HOLE_SURE, session 24):
#: a reading made at a guessed scale is kept only where the reader is sure of it.
AGAIN_SURE = 0.6
#: the reading made again must lie within this part of the neighbours' read size of the doubted
#: one: a part's centre lies 0.18-0.4 of a side off its die's (a three's two pips, a five's pip,
#: the doubted readings traced on the development sets), and a reading farther off is another die.
AGAIN_WITHIN = 0.5
#: a one read again on the same pip as the doubted one is kept whatever its size: a one's read size
#: is its face region's (a side face or a shadow cuts it, or only its pip shows on a light table),
#: not its die's; read at the neighbours' scale, the crop holds the whole die round the pip, and a
#: pip of a larger face shows its face's other pips there (no one is read). False: a one read
#: again must pass the size rule like a two or three
ONES_BY_THEIR_PIP = True
#: ... on the same pip: the one read again within this part of the neighbours' read size of the
#: doubted one (a pip is 0.1-0.2 of a die across: the same pip, not another mark)
SAME_PIP = 0.1
#: the least share of the neighbours' read size for a four, five or six read again (ones, twos and
#: threes must pass the size rule's own LOWEST_RATIO): the largest of the size rule's bounds.
LEAST_SHARE = max(LOWEST_RATIO.values())


def read_doubted_again(dice: list[_Sized], doubted: list[tuple[_Sized, float, int]],
                       read_square: Callable[[tuple[float, float], float], list[_Sized]]) -> list[_Sized]:
    """``dice`` with each doubted die (``doubted``: die, neighbours' read size, value it had)
    replaced by what ``read_square(centre, side)`` reads round it at the neighbours' size, when
    that is one sure value of that size at its place (module docstring). Else it stays doubted."""
    out = list(dice)
    for d, typical, value in doubted:
        again = _one_sure_near(read_square(d.center, typical), d.center, typical, value)
        if again is None or _beside_a_read_die(again, out, d):
            continue
        out = [again if o is d else o for o in out]
    return out


def _one_sure_near(found: list[_Sized], centre: tuple[float, float], typical: float,
                   doubted_value: int) -> _Sized | None:
    """The one value read in ``found`` near ``centre``, sure and of the neighbours' size, or None."""
    near = [g for g in found if g.value is not None
            and math.hypot(g.center[0] - centre[0], g.center[1] - centre[1]) <= AGAIN_WITHIN * typical]
    if len(near) != 1 or len([g for g in found if g.value is not None]) != 1:
        return None  # (nothing, or more than one die read where one die was: no telling which)
    g = near[0]
    share = g.side_px / max(typical, 1e-6)
    least = LOWEST_RATIO.get(g.value, LEAST_SHARE)
    if ONES_BY_THEIR_PIP and g.value == 1 and doubted_value == 1 and share <= OUTLINED_ONE_HIGHEST \
            and math.hypot(g.center[0] - centre[0], g.center[1] - centre[1]) <= SAME_PIP * typical:
        least = 0.0  # (the same pip read as a one again, the whole die round it in the crop)
    if g.confidence < AGAIN_SURE or not least <= share <= OUTLINED_ONE_HIGHEST:
        return None
    return g


def _beside_a_read_die(g: _Sized, dice: list[_Sized], doubted: _Sized) -> bool:
    """Does ``g`` overlap a die already read (its reading of that die again: not a die of its own)?"""
    return any(o is not doubted and o.value is not None
               and math.hypot(o.center[0] - g.center[0], o.center[1] - g.center[1]) < OVERLAP * max(o.side_px, g.side_px)
               for o in dice)
