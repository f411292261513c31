"""A die left in a blob beside a die read there, reported unreadable when no look reads it.

Two dice touching (or joined by a shadow) make one foreground blob. When one of them is read, what
is left of the blob beyond it is read as a blob of its own (:func:`.dice._read_remainder`); a die
there that reads nothing -- a marbled face, a light face on a light table, a strong tilt -- was
dropped, and the die was missed altogether, though the blob showed it as plainly as a lone
die-shaped blob shows one (which :func:`.dice._die_unread` reports unreadable). This module judges
such a left part by the same shape tests as a lone blob (its solidity, its rotated box's
elongation, its side against the die read beside it) and, when it is shaped like one die, reports
an unreadable die at its centre: the players are asked, instead of the die being left out.

No value is ever read by this rule: the part's looks read nothing, and the report's reason is not
one a later look reads round (:mod:`.dice_top_beside_unread` reads round "a die-shaped blob, no
face read in it" only).
"""

from __future__ import annotations

import math

import cv2
import numpy as np


#: a part this much of whose pixels are shadow-like -- clearly darker than the table
#: (``SHADOW_DARKER`` Lab units of lightness) and of about its tint (within ``SHADOW_TINT`` Lab units
#: of a, b) -- is a die's shadow, no die. The table is learnt round the blob, outside it. (Added
#: after the first development read: in light-generator scenes lit from one side, a read die's
#: shadow is a solid die-sized part 1.0-1.5 sides from it, reported on no die -- light 3241-3264.
#: The tint allowed is wider than :func:`.dice_unread_place._shadow`'s, which is held to the table's
#: own spread: a shadow is lit by the sky's or the room's light instead of the lamp's and takes its
#: colour -- light 3219's ivory dice cast lilac shadows 6 units off the white paper's tint. A coloured
#: die differs from its table by tens of units, a light die's top face is no darker than the table.)
SHADOW_SHARE = 0.5
SHADOW_DARKER = 8.0
SHADOW_TINT = 12.0
#: the window round the blob the table is learnt in, in read sides
TABLE_MARGIN = 1.0

#: a part lying toward the photo's middle from a die read in its blob, within ``dice_sizes.RADIAL``
#: degrees of that line, is the read die's own side face (and shadow), no die: seen from above, a
#: tilted die shows its side faces on its side toward the photo's middle (:func:`.dice_sizes._side_face_of`).
#: Not judged for a die within ``dice_sizes.OFF_CENTRE`` of the diagonal from the middle (there the
#: side faces show in any direction). (Added after the second development read: ray 4361, a black
#: six on red felt tilted 25 degrees, its side face and shadow a die-shaped part 1.2 sides inward
#: of it, reported on no die.)

#: the reason such a report gives
REASON = "a die-shaped part of a blob beside a die read there, no face read in it"


def die_shaped_part(part: np.ndarray, side: float, solidity: float, elongation: float,
                    size_range: tuple[float, float]) -> tuple[float, float, float] | None:
    """(centre x, centre y, side), work pixels in ``part``'s own frame, when the part mask is shaped
    like one die of about ``side`` (the read die's side beside it): one contour, filling at least
    ``solidity`` of its hull, its rotated box at most ``elongation`` long, and the square root of its
    area within ``size_range`` of ``side``. None otherwise."""
    cnts, _ = cv2.findContours(part.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if len(cnts) != 1:
        return None
    area = float(part.sum())
    hull = cv2.contourArea(cv2.convexHull(cnts[0]))
    (cx, cy), (rw, rh), _ = cv2.minAreaRect(cnts[0])
    if hull <= 0 or area < solidity * hull or max(rw, rh) > elongation * max(1.0, min(rw, rh)):
        return None
    s = math.sqrt(area)
    if not size_range[0] <= s / max(side, 1e-6) <= size_range[1]:
        return None
    return cx, cy, s


def shadow_share(img: np.ndarray, f: float, blob: np.ndarray, origin: tuple[int, int], part: np.ndarray,
                 at: tuple[int, int], side: float, shape: tuple[int, int]) -> float:
    """The share of ``part``'s pixels (work pixels, at ``at``) that are the table's shadow, the table
    learnt in a window ``TABLE_MARGIN`` read sides round ``blob`` (at ``origin``; the work image is
    ``shape``) outside the blob."""
    m = int(TABLE_MARGIN * side) + 1
    bh, bw = blob.shape
    x0, y0 = max(0, origin[0] - m), max(0, origin[1] - m)
    x1, y1 = min(shape[1], origin[0] + bw + m), min(shape[0], origin[1] + bh + m)
    die = np.zeros((y1 - y0, x1 - x0), bool)
    die[origin[1] - y0:origin[1] - y0 + bh, origin[0] - x0:origin[0] - x0 + bw] = blob
    part_img = img[int(y0 / f):int(math.ceil(y1 / f)), int(x0 / f):int(math.ceil(x1 / f))]
    lab = cv2.cvtColor(cv2.resize(part_img, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA),
                       cv2.COLOR_BGR2LAB).astype(np.float32)
    table = lab[~die]
    if len(table) < 20:
        return 0.0
    middle = np.median(table, axis=0)
    tint = np.hypot(lab[..., 1] - middle[1], lab[..., 2] - middle[2])
    shade = (lab[..., 0] < middle[0] - SHADOW_DARKER) & (tint < SHADOW_TINT)
    ph, pw = part.shape
    window = shade[at[1] - y0:at[1] - y0 + ph, at[0] - x0:at[0] - x0 + pw]
    n = int(part.sum())
    return float((window & part).sum()) / n if n else 1.0


def inward_of_a_read_die(centre: tuple[float, float], read, photo_centre: tuple[float, float],
                         diagonal: float) -> bool:
    """Whether ``centre`` (photo pixels) lies toward the photo's middle from one of the dice
    ``read``, within ``RADIAL`` degrees of the line from it to the middle: that die's side face."""
    from .dice_sizes import OFF_CENTRE, RADIAL

    for d in read:
        mx, my = photo_centre[0] - d.center[0], photo_centre[1] - d.center[1]
        out = math.hypot(mx, my)
        if out < OFF_CENTRE * diagonal:
            continue
        ux, uy = centre[0] - d.center[0], centre[1] - d.center[1]
        sep = math.hypot(ux, uy)
        if sep > 0 and ux * mx + uy * my >= math.cos(math.radians(RADIAL)) * sep * out:
            return True
    return False
