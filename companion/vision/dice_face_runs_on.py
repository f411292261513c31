"""A part of a face read as the die: the face runs on past the reading, with a pip like its own on it.

A light die on a light table (white, ivory or pastel on white paper or a white table) shows little
or no edge between its top face and the table: the face region the reader fits can then be a part
of the face -- a square about half the die's side over one corner, or the die with its shadow --
and the pips outside it are lost. The value read is then *smaller* than the truth: a two's corner
pip read as a one, two pips of a four read as a two, a column of a six as a three (the lead's
held-out photos, session 27: 17 of 18 wrong values smaller than the truth, 14 of them light dice
on light tables; docs/dice-camera.md, twenty-seventh round).

What a die is says how to see it: a top face is a convex square of one colour, so between any two
of its pips the face runs on in a straight line, with no edge on the way -- no shaded side face,
no rim, no shadow, no table of another shade. A pip of a neighbouring die or of the die's own side
face lies past such an edge. So a one, two or three is made unreadable when a mark like its own
pips (the same polarity, about their size and strength, round) lies beyond its own pips, at the
distance a larger face's pips lie from a part's, and the straight line from the nearest of its
pips to that mark crosses nothing but the face's own colour. Only ones, twos and threes can be
such parts (:data:`.dice_sizes.PART_VALUES`): four or more pips in a square layout span a face.
The rule takes only the reading (value, centre, side) and the photo, so it judges every look's
reading alike, whichever look made it.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence, TypeVar

import cv2
import numpy as np

from .dice_crop import lab_window

D = TypeVar("D")  # a :class:`.dice.Die`

#: the values a part of a larger face can be read as (:data:`.dice_sizes.PART_VALUES`)
PART_VALUES = (1, 2, 3)
#: the window looked at reaches this many read sides round the reading's centre (the farthest pip
#: of a part's face, below, and the ring round it)
REACH = 1.9
#: the window is scaled so a read side is at most this many pixels (a pip then 8-12 px across;
#: the cost does not grow with the die's size in pixels; as ``dice_pips_beyond.WORK_SIDE``)
WORK_SIDE = 60.0
#: a pip's mark: a black-hat (dark pips) or top-hat (light pips) response of Lab L in a disc this
#: many read sides across (a pip is 0.13-0.34 of a side across, a one read on half its face up to 0.5)
HAT_SIDES = 0.45
#: the reading's own pips: marks whose centres lie within this many read sides of its centre (a
#: three's corner pips lie 0.35-0.42 out)
OWN_REACH = 0.45
#: the strongest own mark at least this many L units: less is the face's own shading, no pip
MARK_LEAST = 12.0
#: a mark is the pixels over this share of the strongest own mark's response
MARK_SHARE = 0.5
#: where a larger face's pips lie from a part of it, in read sides from the reading's centre: a
#: four's other two pips 0.79 from a two read on two of its pips, a six's other column 0.71-0.79
#: from a three read on one; a two's other pip 1.4-1.5 from a one read on a half-face square
#: round its corner pip (a three's and five's at 0.76-1.5). Nearer than BEYOND lie the reading's
#: own face's rim and a tilted die's side-face pips just past its edge
BEYOND = (0.7, 1.6)
#: ... for a one, from this many read sides out: a one read at its die's size has its side faces'
#: pips within 0.5 + 0.77 sin(tilt) of a side of its centre (0.9 at a 30 degree slant; pool 1
#: light 6097, a pink one's lit side face's pip at 0.76), and a one read on part of a larger face
#: has a pip beyond that (a two's other pip at 1.4-1.5 read sides; a three's and five's far corner)
ONE_BEYOND = 1.0
#: a twin of the own pips: its area this share of theirs (median), its strongest response at least
#: TWIN_STRENGTH of theirs, its bounding box at most TWIN_ELONGATION long over wide (a pip on the
#: same face, seen at the same slant, is as large, as strong and as round as the reading's pips)
TWIN_AREA = (0.6, 1.7)
TWIN_STRENGTH = 0.6
TWIN_ELONGATION = 1.8
#: the line from the nearest own pip to the twin, marks left out, stays within this many Lab L
#: units of the reading's face (either way: a shaded side face, a rim, a shadow is darker, an
#: edge's highlight or a lighter table lighter) ...
ON_FACE_L = 12.0
#: ... and within this chroma (Lab a, b) of it (a table or a neighbour of another hue)
ON_FACE_CHROMA = 12.0
#: a side face in shade keeps up to this share of its top face's lightness (the room's light and
#: the table's reflection reach it: 0.41-0.85 measured on the development sets, ``dice_side_shade``)
SIDE_FACE_LIGHT_MOST = 0.85
#: so only a face at least this light (Lab L, 0-255) is judged: on it a side face steps by more
#: than ON_FACE_L; on a darker one an edge to a side face may not show (dev ray 4303, a black three,
#: L 16: its side face's five lay on a line of its own shade, within 12 L)
FACE_LIGHT_LEAST = ON_FACE_L / (1.0 - SIDE_FACE_LIGHT_MOST)
#: the part of that line looked at (0: the own pip's centre, 1: the twin's): its ends lie in the
#: pips' own dimples and, blurred, in their halos (pool 1 light 6008, a defocused pastel four:
#: 16-21 L darker than the face up to 0.3 of the way); an edge between a face and a side face or a
#: neighbour lies in its middle, each pip at least 0.23 of a side from its face's edge
PATH_PART = (0.3, 0.7)
#: a twin within this many sides (of that die) of another die read is that die's pip (an unread
#: report asserts no pips: it may be the die's own side face, light 6198)
OTHER_DIE = 0.75
DOUBT = "a part of a face? a pip like its own lies beyond it on the same face"


def doubt_parts_of_faces(dice: list[D], img: np.ndarray) -> list[D]:
    """The dice with each one, two or three whose face runs on to a pip like its own made unreadable."""
    out = []
    for d in dice:
        if d.value in PART_VALUES and _face_runs_on(d, img, [o for o in dice if o is not d and o.value is not None]):
            d = replace(d, value=None, confidence=0.0, reason=DOUBT)
        out.append(d)
    return out


def _face_runs_on(d, img: np.ndarray, others: Sequence) -> bool:
    """Does a twin of ``d``'s pips lie BEYOND it, on a straight run of its face's colour?"""
    win = lab_window(img, d.center, d.side_px, REACH, WORK_SIDE)
    if win is None:
        return False
    lab, g, (x0, y0) = win
    x, y, s = (d.center[0] - x0) * g, (d.center[1] - y0) * g, d.side_px * g
    hat, own, beyond = _marks(lab, x, y, s)
    if not own:
        return False
    face = _face_colour(lab, hat, x, y, s)
    if face is None or face[0] < FACE_LIGHT_LEAST:
        return False
    own_area = float(np.median([m[2] for m in own]))
    own_peak = float(np.median([m[3] for m in own]))
    for mx, my, area, peak, long in beyond:
        if not (TWIN_AREA[0] * own_area <= area <= TWIN_AREA[1] * own_area and peak >= TWIN_STRENGTH * own_peak
                and long <= TWIN_ELONGATION):
            continue
        at = (mx / g + x0, my / g + y0)
        if d.value == 1 and math.hypot(mx - x, my - y) < ONE_BEYOND * s:
            continue
        if any(math.dist(at, o.center) < OTHER_DIE * o.side_px for o in others):
            continue
        if not _ringed_by_the_face(lab, hat, (mx, my), area, face):
            continue  # (a die's lit rim or its shadow's edge: a mark between a face and what lies past it)
        near = min(own, key=lambda m: math.hypot(m[0] - mx, m[1] - my))
        if _on_the_face(lab, hat, (near[0], near[1]), (mx, my), face):
            return True
    return False


def _marks(lab: np.ndarray, x: float, y: float, s: float):
    """The mark mask (the pips' polarity: the one strongest round the reading's centre), the own
    marks and the marks BEYOND, each (x, y, area, strongest response, long over wide)."""
    light = lab[..., 0].astype(np.uint8)
    k = max(3, int(HAT_SIDES * s)) | 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    yy, xx = np.ogrid[:lab.shape[0], :lab.shape[1]]
    inner = (xx - x) ** 2 + (yy - y) ** 2 <= (OWN_REACH * s) ** 2
    best = None
    for op in (cv2.MORPH_BLACKHAT, cv2.MORPH_TOPHAT):
        hat = cv2.morphologyEx(light, op, disc)
        peak = float(hat[inner].max()) if inner.any() else 0.0
        if best is None or peak > best[1]:
            best = (hat, peak)
    hat, peak = best
    if peak < MARK_LEAST:
        return None, [], []
    marks = (hat > MARK_SHARE * peak).astype(np.uint8)
    n, labels, stats, centres = cv2.connectedComponentsWithStats(marks)
    own, beyond = [], []
    for j in range(1, n):
        bw, bh, area = int(stats[j, 2]), int(stats[j, 3]), int(stats[j, 4])
        if area < 2:
            continue
        mx, my = centres[j]
        r = math.hypot(mx - x, my - y) / s
        item = (float(mx), float(my), float(area), float(hat[labels == j].max()), max(bw, bh) / max(1, min(bw, bh)))
        if r <= OWN_REACH:
            own.append(item)
        elif BEYOND[0] <= r <= BEYOND[1]:
            beyond.append(item)
    return marks, own, beyond


def _face_colour(lab: np.ndarray, marks: np.ndarray, x: float, y: float, s: float) -> np.ndarray | None:
    """The median Lab colour of the reading's face: its disc of OWN_REACH, marks (grown) left out."""
    yy, xx = np.ogrid[:lab.shape[0], :lab.shape[1]]
    inner = (xx - x) ** 2 + (yy - y) ** 2 <= (OWN_REACH * s) ** 2
    face = inner & ~cv2.dilate(marks, np.ones((3, 3), np.uint8)).astype(bool)
    return np.median(lab[face], axis=0) if face.any() else None


#: the ring round a twin (RING radii of the mark's, marks left out) is the face it lies on: its
#: median within ON_FACE_L and ON_FACE_CHROMA of the reading's face (a pip lies inside its face;
#: a lit rim between a face and the table has the table on one side: pool 1 ray 20115)
RING = (1.6, 2.6)


def _ringed_by_the_face(lab: np.ndarray, marks: np.ndarray, at: tuple[float, float], area: float,
                        face: np.ndarray) -> bool:
    """Is the ring round the mark at ``at`` (of ``area`` window pixels), marks left out, of the face's colour?"""
    r = math.sqrt(area / math.pi)
    yy, xx = np.ogrid[:lab.shape[0], :lab.shape[1]]
    d2 = (xx - at[0]) ** 2 + (yy - at[1]) ** 2
    ring = (d2 >= (RING[0] * r) ** 2) & (d2 <= (RING[1] * r) ** 2) & (marks == 0)
    if not ring.any():
        return False
    m = np.median(lab[ring], axis=0)
    return bool(abs(m[0] - face[0]) <= ON_FACE_L and math.hypot(m[1] - face[1], m[2] - face[2]) <= ON_FACE_CHROMA)


def _on_the_face(lab: np.ndarray, marks: np.ndarray, a: tuple[float, float], b: tuple[float, float],
                 face: np.ndarray) -> bool:
    """Does the straight line from ``a`` to ``b`` stay on the face's colour (marks, grown, left out)?"""
    n = max(3, int(math.hypot(b[0] - a[0], b[1] - a[1]) * (PATH_PART[1] - PATH_PART[0])))
    t = np.linspace(PATH_PART[0], PATH_PART[1], n)
    H, W = lab.shape[:2]
    ix = np.clip(np.rint(a[0] + t * (b[0] - a[0])).astype(int), 0, W - 1)
    iy = np.clip(np.rint(a[1] + t * (b[1] - a[1])).astype(int), 0, H - 1)
    grown = cv2.dilate(marks, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))).astype(bool)
    keep = ~grown[iy, ix]
    if keep.sum() < 2:
        return False  # (nothing between the marks to tell by)
    p = lab[iy[keep], ix[keep]]
    return bool(np.abs(p[:, 0] - face[0]).max() <= ON_FACE_L
                and np.hypot(p[:, 1] - face[1], p[:, 2] - face[2]).max() <= ON_FACE_CHROMA)
