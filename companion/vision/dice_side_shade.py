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

The top face's reading is only kept alone when it is clean (:func:`reads_clean`): every pip it was
read from lies on the top face's own colour, none on the side face's shade (a side face's pip
counted in, or shifting its layout), and no pip the side face's reading took lies on the top
face's colour without being one of its pips (a top face's pip taken away), and the top face's
square reaches its usual margin toward the side face on the top face's colour (a reading whose
centre the side face's pips pulled toward it, or a one read off a larger face's pip near the edge,
sits too near that edge). Else the pair is left
as it was, to the overlap check (held out, session 11: two top faces kept with a side face's pips
crowding them, read wrong).

Measured on the ray-marched development scenes (0-79, 1000-1119, 2000-2159, 4000-4079) with the
remainder look keeping readings beside a read die: of 9 pairs of readings of one die 0.86-1.0 sides
apart, the top face was the lighter in all 9 (by 13-127 of 255 in Lab L, a black die's the least).
"""

from __future__ import annotations

import math
from typing import Protocol

import cv2
import numpy as np

from .dice_top_clean import no_line_beyond, one_at_the_middle

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
#: the SHADE_RATIO_LEAST bound holds only for a light die: a dark die's lit top face (a black die
#: with white or red pips) is light mostly by the lamp's gloss, which faces up with the top face,
#: while its side face in shade shows only its dark body colour (ray 4313: Lab L 80 and 10, 0.12;
#: light 3815 under a flash: 136 and 24, 0.18). The bound's case -- a black die beside a white one --
#: needs a light face; when the lighter face is under DARK_DIE_TOP, two faces of one colour closer
#: than ONE_DIE_APART are one dark die's top face and its side face (two dice cannot lie that
#: close). Used only by :func:`drop_side_faces`. False: the bound applies to every pair (the reader
#: before, session 41).
DARK_DIE_SIDE_DEEP_IN_SHADE = True
#: Lab L (0-255) under which the lighter face is a dark die's lit top face, not a light die's face:
#: between the dark dice's lit top faces measured (80 and 136, above) and the light dice's top faces
#: in the pairs 0.7-1.05 sides apart this round logged (186-254: white, ivory, cream, pastel)
DARK_DIE_TOP = 160.0
#: ... or their chroma vectors differ by at most this (a white or black die's faces, whose hue is
#: noise: an ivory die's top face and its side face in shade measured 13 apart)
CHROMA_STEP = 20.0
#: (hues are compared only when both faces have at least this chroma)
GREY_CHROMA = 15.0
#: a face this light (Lab L, 0-255) is burnt out -- the camera clipped it to white -- and has no
#: hue of its own left: a white die's top face under a webcam's auto exposure on a dark desk, while
#: its side faces in shade keep the white balance's cast (ray-marched webcam frames through a webcam's
#: pipeline, development 8092: top face 250-252 with no chroma, its side face 203 and blue, chroma 30,
#: read as the die). Such a face beside a light one is compared by lightness alone (False: by hue
#: too, the old rule). Clipped faces measured 249-252; an unclipped white face under 240.
BURNT_OUT_FACES_HAVE_NO_HUE = True
BURNT_OUT = 245.0
#: ... the darker face must be light itself (a light die's side face in shade; the dice reader's
#: SIDE_FACE_LIGHT): a dark or strongly coloured die beside a white one stays two dice
BURNT_OUT_SIDE_LEAST = 120.0
#: the disc round a reading's centre whose median colour is its face's, in read sides (a pip covers
#: little of it: a one's pip, the biggest, about a seventh)
DISC = 0.3
#: the ring round a pip whose lightness says which face it lies on, in pip radii (inside: past the
#: pip's soft edge; outside: short of the next pip of a six's column, 0.27 of a side on, about 3 radii)
RING = (1.6, 2.6)
#: a pip lies on the top face when more than this share of its ring is nearer the top face's
#: lightness than the side face's (development, the 18 top and side faces the rule told apart: the
#: top faces' pips 0.55-1.0, the side faces' 0-0.37): most of its surroundings
ON_TOP_FACE = 0.5
#: the point this part of the top face's read side from its centre toward the side face's lies on
#: the top face (its pips' margin: a face's pips end about 0.35 sides from its centre, its edge
#: 0.5 away, less its bevel and a 30-degree tilt's foreshortening, 0.43; development, the 28 top
#: faces of the rule's pairs: 0.93-1.0 of a disc there on the top face's colour, pips left out)
EDGE_MARGIN = 0.3
#: ... the disc there, in read sides (a pip's radius, 0.08: a few pixels of a small die)
EDGE_DISC = 0.08


class _Read(Protocol):
    value: int | None
    center: tuple[float, float]
    side_px: float


def drop_side_faces(dice: list, img: np.ndarray) -> list:
    """``dice`` without the readings that are a darker side face of another reading's die, when
    that reading is clean of the side face (:func:`reads_clean`)."""
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
            darker = _darker_of_one_colour(a, ca, b, cb, DARK_DIE_SIDE_DEEP_IN_SHADE)
            if darker is None:
                continue
            top, side = (b, a) if darker is a else (a, b)
            mid = (ca[0] + cb[0]) / 2  # (Lab L halfway between the two faces')
            if CHECK_TOP_FACE and not reads_clean(top, side, img, mid):
                continue  # (left to the overlap check)
            side_faces.add(id(side))
    return [d for d in dice if id(d) not in side_faces]


#: the top face's reading stands alone only when it is clean of its side face (False: the
#: session 11 rule, kept to measure against)
CHECK_TOP_FACE = True


def reads_clean(top, side, img: np.ndarray, mid: float) -> bool:
    """Was ``top``'s value read from the top face's pips alone? Each of its pips lies on a face
    lighter than ``mid`` (Lab L, 0-255; halfway between the two faces'), and each pip of ``side``
    that lies there is one of ``top``'s (the side face's reading may take a top face's pip: no
    harm to the top's, unless the top's left it out). A reading without its pips (the pips-first
    look's) cannot be checked: not clean. Nor is a part of a larger face: a one off its face's
    middle or not alone on it, a four with a line of marks like its pips just beyond it
    (:mod:`.dice_top_clean`)."""
    if top.pips is None:
        return False
    if not all(_on_lighter_face(img, p[:2], RING[0] * p[2], RING[1] * p[2], mid) for p in top.pips):
        return False
    if not all(any(math.dist(q[:2], p[:2]) < max(p[2], q[2]) for p in top.pips)
               for q in side.pips or () if _on_lighter_face(img, q[:2], RING[0] * q[2], RING[1] * q[2], mid)):
        return False
    apart = math.dist(top.center, side.center)
    if apart <= 0:
        return False
    k = EDGE_MARGIN * top.side_px / apart
    toward = (top.center[0] + k * (side.center[0] - top.center[0]), top.center[1] + k * (side.center[1] - top.center[1]))
    if not _on_lighter_face(img, toward, 0.0, max(1.0, EDGE_DISC * top.side_px), mid, top.pips):
        return False
    if ONE_AT_THE_MIDDLE and top.value == 1 and not one_at_the_middle(top, side, img, mid):
        return False  # (a larger face's pip by the edge, read as a one)
    return not LINES_BEYOND or no_line_beyond(top, side, img, mid)  # (a six's rows read as a four)


#: a one kept alone must have its pip at the middle of the top face's light region
#: (:func:`.dice_top_clean.one_at_the_middle`; False: not checked, session 12's check)
ONE_AT_THE_MIDDLE = True
#: a two, three or four kept alone must have no line of marks like its pips just beyond it
#: (:func:`.dice_top_clean.no_line_beyond`; False: not checked, session 12's check)
LINES_BEYOND = True


def _on_lighter_face(img: np.ndarray, at: tuple[float, float], inner: float, outer: float, mid: float,
                     pips: tuple = ()) -> bool:
    """Is more than ``ON_TOP_FACE`` of the ring ``inner``..``outer`` px round ``at`` lighter than
    ``mid`` (Lab L), leaving out the ``pips`` (x, y, radius; 1.5 radii round each)?"""
    x, y = at
    H, W = img.shape[:2]
    reach = int(outer) + 2
    x0, y0 = max(0, int(x) - reach), max(0, int(y) - reach)
    x1, y1 = min(W, int(x) + reach + 1), min(H, int(y) + reach + 1)
    if x1 <= x0 or y1 <= y0:
        return False
    light = cv2.cvtColor(np.ascontiguousarray(img[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB)[..., 0]
    yy, xx = np.ogrid[y0:y1, x0:x1]
    d2 = (xx - x) ** 2 + (yy - y) ** 2
    ring = (d2 >= inner ** 2) & (d2 <= outer ** 2)
    for px, py, pr in pips:
        ring &= (xx - px) ** 2 + (yy - py) ** 2 > (1.5 * pr) ** 2
    return bool(ring.any()) and float((light[ring] > mid).mean()) > ON_TOP_FACE


def side_face_of(a, b, img: np.ndarray) -> bool:
    """Is reading ``a`` clearly darker than ``b`` (a place on the photo as a reading), of its colour?"""
    return _darker_of_one_colour(a, face_colour(img, a), b, face_colour(img, b)) is a


def _darker_of_one_colour(a, ca: np.ndarray, b, cb: np.ndarray, dark_die_deep_shade: bool = False):
    """Of readings ``a`` and ``b`` with face colours ``ca``, ``cb`` (Lab), the clearly darker one
    when both are of one colour; None otherwise. ``dark_die_deep_shade``: the shade-ratio bound is
    not applied when the lighter face is a dark die's (under DARK_DIE_TOP)."""
    if abs(ca[0] - cb[0]) < SHADE_GAP:
        return None
    if min(ca[0], cb[0]) < SHADE_RATIO_LEAST * max(ca[0], cb[0]) and not (
            dark_die_deep_shade and max(ca[0], cb[0]) < DARK_DIE_TOP):
        return None
    za, zb = complex(ca[1], ca[2]), complex(cb[1], cb[2])
    if BURNT_OUT_FACES_HAVE_NO_HUE and max(ca[0], cb[0]) >= BURNT_OUT and min(ca[0], cb[0]) >= BURNT_OUT_SIDE_LEAST:
        pass  # (a top face burnt out to white has lost its hue: a light die's side face keeps the camera's cast)
    elif abs(za - zb) > CHROMA_STEP:
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
