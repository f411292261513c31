"""A light die's reading whose face is clearly darker than the light round it: a side face in shade.

Light comes from above: a white, cream or clear die's top face is lit as the white table or paper
beside it, and its side faces are in shade. On a light table the top face of a tilted light die
is often not told from the table at all (it is not in the die's blob), and the side face, a grey
square with pips, is read as the die: a value no die shows, its centre 0.7-0.8 of a side off the
die's top face. Such a face is clearly darker than the lightest things round it (the table, the
top face); a top face is not. A reading of a light grey face with dark pips whose face is at least
``SHADED_GAP`` darker than the light round it is made unreadable (the die is there; which face is
up is not known).

Measured on the development sets (tilted light 3200-3399, 3400-3699, 3700-3999, tilted ray
4300-4599, 4600-4999, light 0-59, 3100-3129, ray 4200-4259; the face's median over its 0.3-side
disc, pips in): the ring's upper quartile was at most 49 L above the face for light dice read
right, 50-131 above it for side faces read as the die (20 of 30 at 60 or more). A glossy black
die's top face mirrors the room grey and lies as far below the white table: such dice are left
out by their black sides (:func:`dark_bodied`) and by their pips' shade (dark pips only).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .dice_grey import photo_is_grey
from .dice_side_shade import SHADE_GAP

#: the end of the reason a reading doubted here is given (:mod:`.dice_nested_discs` leaves such a
#: report unread: its face is a side face, whatever value the discs round it read)
DOUBT_END = "a side face in shade?"

#: a face this much darker (Lab L, 0-255) than the upper quartile of the ring round it is in shade
#: (development: light dice read right 49 at most, side faces read as the die 50-131)
SHADED_GAP = 60.0
#: the ring, in read sides from the reading's centre: past the face's corners (0.71) and its side
#: faces' near half, within the table or top face beside it
RING = (0.9, 1.5)
#: the ring's lightness taken: its upper quartile (the table or top face; a shadow or a neighbour's
#: side face may cover the rest)
RING_PERCENTILE = 75
#: a light face: at least this lightness (Lab L) ...
LIGHT_FACE = 120.0
#: ... and at most this chroma (Lab a, b): white, ivory, cream, clear (a coloured die's top face is
#: darker than a white table)
GREY_FACE = 20.0


#: in a grey photo (:func:`.dice_grey.photo_is_grey`) no face is doubted: a face with no chroma there
#: need not be a light die's, and a coloured die's top face is as dark beside a white table as a
#: light die's side face (grey development: marbled green dice read right, doubted, light 32, ray
#: 2124). False: doubted as in colour
GREY_PHOTOS_NOT_DOUBTED = True


def doubt_shaded_faces(dice: list, img: np.ndarray) -> list:
    """Make the readings of light grey faces in shade unreadable (in place; returns the list)."""
    for d in dice:
        if d.value is None or not d.pips:
            continue
        c = _face_between_pips(img, d)
        if c is None or c[0] < LIGHT_FACE or math.hypot(c[1], c[2]) >= GREY_FACE:
            continue
        if GREY_PHOTOS_NOT_DOUBTED and photo_is_grey(img):
            continue  # (every face is grey there: a coloured die's face is no light die's)
        around = _ring_light(img, d.center, d.side_px)
        if around is None or around - c[0] < SHADED_GAP:
            continue
        if not _pips_darker(img, d.pips, c[0]) or dark_bodied(img, d):
            continue  # (light pips, or black sides round a glossy black die's grey top face)
        d.value, d.confidence = None, 0.0
        d.reason = f"a light face {around - c[0]:.0f} darker than the light round it: {DOUBT_END}"
    return dice


#: the face's colour: the median in a disc this many read sides round the reading's centre, pips
#: left out (1.4 radii round each: a one's pip, a third of the face across, fills the 0.3 sides
#: disc :func:`.dice_side_shade.face_colour` takes; a black die's red one read 150-176 there)
FACE_DISC = 0.4


def _face_between_pips(img: np.ndarray, d) -> np.ndarray | None:
    """The median Lab colour (a, b centred on 0) of ``d``'s face round its centre, its pips left
    out; None when they leave under a quarter of the disc."""
    x, y = d.center
    H, W = img.shape[:2]
    r = max(2.0, FACE_DISC * d.side_px)
    x0, y0, x1, y1 = max(0, int(x - r)), max(0, int(y - r)), min(W, int(x + r) + 1), min(H, int(y + r) + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    lab = cv2.cvtColor(np.ascontiguousarray(img[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB)
    yy, xx = np.ogrid[y0:y1, x0:x1]
    disc = (xx - x) ** 2 + (yy - y) ** 2 <= r * r
    face = disc.copy()
    for px, py, pr in d.pips:
        face &= (xx - px) ** 2 + (yy - py) ** 2 > (1.4 * pr) ** 2
    if face.sum() < 0.25 * disc.sum():
        return None
    return np.median(lab[face].astype(np.float64), axis=0) - np.array([0.0, 128.0, 128.0])


#: a die is dark-bodied when the lightest-but-one tenth of the ring ``BODY_RING`` read sides round its
#: reading is darker than this (Lab L): a glossy black die's top face mirrors the room grey (L 120-150
#: on development: ray 53, 1020, 2020, 2094, 4007, 4803, 6029, light 51, all read right), but its
#: side faces and bevels stay black; a white or cream die's shaded sides and its shadow on a light
#: table are lighter
DARK_BODY = 70.0
BODY_RING = (0.5, 0.85)
BODY_PERCENTILE = 10


def dark_bodied(img: np.ndarray, d) -> bool:
    """Is the die read at ``d`` a dark one (black sides or bevels round its face)?"""
    body = _ring_percentile(img, d.center, BODY_RING, d.side_px, BODY_PERCENTILE)
    return body is not None and body < DARK_BODY


def _ring_light(img: np.ndarray, centre: tuple[float, float], side: float) -> float | None:
    """The ``RING_PERCENTILE`` of Lab L in the ring ``RING`` sides round ``centre``."""
    return _ring_percentile(img, centre, RING, side, RING_PERCENTILE)


def _ring_percentile(img: np.ndarray, centre: tuple[float, float], ring_sides: tuple[float, float], side: float,
                     percentile: float) -> float | None:
    """The ``percentile`` of Lab L in the ring ``ring_sides`` (inner, outer radius) sides of
    ``side`` px round ``centre``; None where the ring holds no pixel of the photo."""
    x, y = centre
    H, W = img.shape[:2]
    r = ring_sides[1] * side
    x0, y0, x1, y1 = max(0, int(x - r)), max(0, int(y - r)), min(W, int(x + r) + 1), min(H, int(y + r) + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    light = cv2.cvtColor(np.ascontiguousarray(img[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB)[..., 0]
    yy, xx = np.ogrid[y0:y1, x0:x1]
    d2 = (xx - x) ** 2 + (yy - y) ** 2
    ring = (d2 >= (ring_sides[0] * side) ** 2) & (d2 <= r * r)
    return float(np.percentile(light[ring], percentile)) if ring.any() else None


def _pips_darker(img: np.ndarray, pips: tuple, face_l: float) -> bool:
    """Are the pips (x, y, radius) clearly darker than the face (median Lab L at their centres)?"""
    H, W = img.shape[:2]
    values = []
    for px, py, pr in pips:
        x, y = min(W - 1, max(0, int(round(px)))), min(H - 1, max(0, int(round(py))))
        k = max(1, int(0.4 * pr))
        patch = np.ascontiguousarray(img[max(0, y - k):y + k + 1, max(0, x - k):x + k + 1])
        values.append(float(np.median(cv2.cvtColor(patch, cv2.COLOR_BGR2LAB)[..., 0])))
    return bool(values) and float(np.median(values)) < face_l - SHADE_GAP
