"""Faces found from their pips: a light die on a light table.

A white, ivory or pastel die on white paper has a top face of the paper's own colour: the face
region the reader grows from the face colour runs out over the table, or (filled to the hull of
the die's shadow and shaded sides) covers only part of the face. Its pips, though, are as clear
as on any die, and a die's pips alone say where its face is: the layout fitted to them (any
rotation and scale) puts the face's centre, size and turn in the image. So here the pips come
first: the marks unlike the table in a region are grouped by distance, each group is fitted to a
layout, and the face is taken as the fitted square; that square (with the face-coloured pixels in
it) is then read by the ordinary face reader, with all its checks (the vacancy check above all:
a part of a larger die, two or three of its pips, leaves marks where the smaller value has none).

What is not done here: a lone pip is never read as a one from its square (a crumb, a knot in the
wood or one pip of a die whose others were missed fits it just as well).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .dice_layouts import fit_frame
from .dice_pips import FACE_PX, FaceReading, Pip, _colour_distance, _consistent, _face_colour, fill_holes, \
    find_pips, read_face

# Pips of one face are at most 0.71 of a side apart (the two of a two, corner to corner; every
# other layout has a neighbour within half a side); pips of two dice apart are farther. The crop
# is scaled from a guess of the die's size, so the reach allows a die 1.2 times the guess.
REACH = 0.85 * FACE_PX
# The fitted face's side against the size the crop was scaled for (the guess is from a blob that
# may hold the die's shadow: the die can be much smaller than it, hardly larger).
SIDE_RANGE = (0.5, 1.4)
# The fitted face with this much of a half-side around it must lie in the crop: a die cut by the
# crop's edge shows only some of its pips (two of a four on a diagonal read as a two), and its
# vacancies beyond the edge cannot be checked.
MARGIN = 0.4
# The face level: this many times the region's median distance from its commonest colour, within
# PIP_LEAST and the reader's usual 40 (as dice_pips' faint-pip look: 3 times, at least 8).
PIP_TIMES_SPREAD = 3.0
PIP_LEAST = 8.0
LAYOUT_RMS = {2: 0.08, 3: 0.08}  # twos and threes fit a line too easily (dice_pips allows 0.1)
LAYOUT_RMS_MORE = 0.14


def read_by_pip_squares(crop: np.ndarray, mask: np.ndarray) -> list[FaceReading]:
    """The faces in a normalised crop (a die about FACE_PX across, by a guess) whose face colour
    is the table's: the pips within ``mask`` grouped into dice and each group read on its square."""
    lab = cv2.cvtColor(cv2.GaussianBlur(crop, (0, 0), 0.8), cv2.COLOR_BGR2LAB).astype(np.float32)
    inner = cv2.erode(mask, np.ones((5, 5), np.uint8))
    colour = _face_colour(lab, inner if cv2.countNonZero(inner) > 50 else mask)
    dist = _colour_distance(lab, colour)
    dl = lab - colour
    vals = np.clip(dist[mask > 0], 0, 255).astype(np.uint8).reshape(-1, 1)
    if vals.size < 16:
        return []
    otsu, _ = cv2.threshold(vals, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # two levels for the face: the reader's usual one (Otsu, 14..40), and one set by the table's
    # own spread (the region is mostly table), under which a blurred or faint pip still stands out
    levels = [float(np.clip(otsu, 14, 40)), float(np.clip(PIP_TIMES_SPREAD * np.median(vals), PIP_LEAST, 40))]
    best: list[FaceReading] = []
    for t in levels:
        got = _read_at_level(dist, dl, mask, t)
        if sum(r.value is not None for r in got) > sum(r.value is not None for r in best):
            best = got
    return best


def _read_at_level(dist: np.ndarray, dl: np.ndarray, mask: np.ndarray, t: float) -> list[FaceReading]:
    face = ((dist < t) & (mask > 0)).astype(np.uint8) * 255
    face = cv2.morphologyEx(face, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    filled = fill_holes(face)
    pips = _consistent(find_pips(filled, face, dist, float(FACE_PX), dl))
    out = []
    for group in _groups(pips):
        reading = _read_group(group, face, dist, dl)
        if reading is not None:
            out.append(reading)
    return out


def _groups(pips: list[Pip]) -> list[list[Pip]]:
    """Single-linkage groups of pips within :data:`REACH` of each other, two to six pips each."""
    n = len(pips)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            if math.hypot(pips[i].x - pips[j].x, pips[i].y - pips[j].y) <= REACH:
                parent[root(i)] = root(j)
    groups: dict[int, list[Pip]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(pips[i])
    return [g for g in groups.values() if 2 <= len(g) <= 6]


def _read_group(group: list[Pip], face: np.ndarray, dist: np.ndarray, dl: np.ndarray) -> FaceReading | None:
    value, rms, beta, alpha = fit_frame([complex(p.x, p.y) for p in group])
    if value is None or rms > LAYOUT_RMS.get(value, LAYOUT_RMS_MORE):
        return None
    side = 2 * abs(alpha)
    if not SIDE_RANGE[0] * FACE_PX <= side <= SIDE_RANGE[1] * FACE_PX:
        return None
    h, w = face.shape
    reach = (1 + MARGIN) * abs(alpha) * math.sqrt(2)
    if not (reach <= beta.real < w - reach and reach <= beta.imag < h - reach):
        return None
    square = np.zeros_like(face)
    corners = [beta + alpha * complex(x, y) for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    cv2.fillConvexPoly(square, np.array([[round(z.real), round(z.imag)] for z in corners], np.int32), 255)
    reading = read_face(cv2.bitwise_and(face, square), dist, dl)
    if reading.value not in (None, value):
        # (the face reader saw other marks on the square: a die seen, but which value is not known)
        return FaceReading(None, reading.center, 0.0, reading.side, f"{len(group)} pips, read as {reading.value}")
    return reading
