"""A tilted die's top face and one of its side faces, both read as dice: the side face is the darker.

Seen at a slant (a tilted camera, or a die off the middle of a wide-angle photo), a die shows one
or two side faces beside its top face, and a side face's pips can fit a layout as well as the top
face's: the die is then read twice, its two readings less than a die apart. Two dice lying on a
table cannot be that close (touching face to face, their centres are a side apart). Light comes from above (a room's lamps, a window's sky, a
phone's flash near the lens): the top face faces it and is the brightest face, the side faces are
in shade (but not black: the room's light reaches them). So of two such readings of one colour, a
clearly darker one is the side face and is dropped, and the top face's reading stands. (The photo's middle is not used: it need not be the
point below the camera, which a cropped photo breaks; the die's own shading says which face is up.)
Two readings alike in shade are left to the overlap check (:func:`.dice_sizes.doubt_overlaps`).

Measured on the ray-marched development scenes (0-79, 1000-1119, 2000-2159, 4000-4079) with the
remainder look keeping readings beside a read die: of 9 pairs of readings of one die 0.86-1.0 sides
apart, the top face was the lighter in all 9 (by 13-127 of 255 in Lab L, a black die's the least).
"""

from __future__ import annotations

import math
from typing import Protocol

import cv2
import numpy as np

# (readings closer than FACES_APART are two parts of one face, a six's columns: left to the overlap check)
from .dice_sizes import FACES_APART

#: two readings' centres closer than this part of the larger read side are one die's two faces
#: (a top face and its side face measured 0.86-1.0 apart on the ray-marched development scenes;
#: separate dice lie at least a side apart, and the first renderer's touching dice, read at their
#: own size, 1.0-1.04 read sides apart: 1.05 dropped 4 of them there, one of them darker)
ONE_DIE_APART = 0.95
#: Lab L (0-255): the side face is at least this much darker than the top face (development: 13 at a
#: black die's faces, 38-127 at others); less is within a face's own shading and noise
SHADE_GAP = 12.0
#: the faces are of one colour: their Lab chroma vectors (a, b) point within this many degrees of
#: each other (a side face in shade keeps its hue: development 0-11 degrees) ...
HUE_APART = 30.0
#: a side face in shade keeps at least this share of the top face's lightness (the room's light
#: and the table's reflection reach it: development 0.41-0.85); a black die beside a white one
#: (first renderer 5030, 5034: 0.2 and less) is two dice
SHADE_RATIO_LEAST = 0.3
#: ... or their chroma vectors differ by at most this (a white or black die's faces, whose hue is
#: noise: an ivory die's top face and its side face in shade measured 13 apart)
CHROMA_STEP = 20.0
#: (hues are compared only when both faces have at least this chroma)
GREY_CHROMA = 15.0
#: the disc round a reading's centre whose median colour is its face's, in read sides (a pip covers
#: little of it: a one's pip, the biggest, about a seventh)
DISC = 0.3


class _Read(Protocol):
    value: int | None
    center: tuple[float, float]
    side_px: float


def drop_side_faces(dice: list, img: np.ndarray) -> list:
    """``dice`` without the readings that are a darker side face of another reading's die."""
    readable = [d for d in dice if d.value is not None]
    colours: dict[int, np.ndarray] = {}
    side_faces = set()
    for i, a in enumerate(readable):
        for b in readable[i + 1:]:
            apart = math.dist(a.center, b.center) / max(a.side_px, b.side_px, 1.0)
            if not FACES_APART <= apart < ONE_DIE_APART:
                continue
            ca = colours.setdefault(id(a), face_colour(img, a))
            cb = colours.setdefault(id(b), face_colour(img, b))
            darker = _darker_of_one_colour(a, ca, b, cb)
            if darker is not None:
                side_faces.add(id(darker))
    return [d for d in dice if id(d) not in side_faces]


def side_face_of(a, b, img: np.ndarray) -> bool:
    """Is reading ``a`` clearly darker than ``b`` (a place on the photo as a reading), of its colour?"""
    return _darker_of_one_colour(a, face_colour(img, a), b, face_colour(img, b)) is a


def _darker_of_one_colour(a, ca: np.ndarray, b, cb: np.ndarray):
    """Of readings ``a`` and ``b`` with face colours ``ca``, ``cb`` (Lab), the clearly darker one
    when both are of one colour; None otherwise."""
    if abs(ca[0] - cb[0]) < SHADE_GAP or min(ca[0], cb[0]) < SHADE_RATIO_LEAST * max(ca[0], cb[0]):
        return None
    za, zb = complex(ca[1], ca[2]), complex(cb[1], cb[2])
    if abs(za - zb) > CHROMA_STEP:
        if min(abs(za), abs(zb)) < GREY_CHROMA:
            return None  # (a grey face beside a coloured one: two dice)
        turn = abs(math.degrees(math.atan2((za / zb).imag, (za / zb).real)))
        if turn > HUE_APART:
            return None
    return a if ca[0] < cb[0] else b


def face_colour(img: np.ndarray, d: _Read) -> np.ndarray:
    """The median Lab colour (a, b centred on 0) of the disc round the reading's centre."""
    H, W = img.shape[:2]
    r = max(2, int(round(DISC * d.side_px)))
    x, y = int(round(d.center[0])), int(round(d.center[1]))
    x0, y0, x1, y1 = max(0, x - r), max(0, y - r), min(W, x + r + 1), min(H, y + r + 1)
    if x1 <= x0 or y1 <= y0:
        return np.array([0.0, 0.0, 0.0])
    lab = cv2.cvtColor(np.ascontiguousarray(img[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB)
    yy, xx = np.ogrid[y0:y1, x0:x1]
    disc = (xx - x) ** 2 + (yy - y) ** 2 <= r * r
    return np.median(lab[disc].astype(np.float64), axis=0) - np.array([0.0, 128.0, 128.0])
