"""A quick read of a clean die face: the stream's first look, before the full face reading.

Most dice the streaming reader sees at rest are the easy case: a square face of one colour whose
only marks are 1-6 round holes of one size, sitting on a layout's places. For those the full
reading (:func:`dice_pips.read_face`: marks measured one by one, then a dozen judgements about
glare, side faces and missed pips) costs ~70 % of a 48 px crop read. Here the same face region is
looked at with a few OpenCV calls: its holes' sizes and centres, the face's outline, and the
colour distance everywhere on the face away from the holes. Only a face that passes every test
with a wide margin is read here; anything else (a notch at the rim, a faint mark, an odd pip, a
face that is not a clean square) returns None and the full reading decides, as before.

Used only in a quick look (:func:`dice_face_reading.quick_look`: the stream's 48 px first look,
which the full crop read at 96 follows wherever the look is unsure); the still reader never
comes here. Every threshold is stricter than the full reading's own (see each constant).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .dice_face_reading import FaceReading
from .dice_layouts import fit_frame

# Thresholds: chosen on the 959 face regions of 931 recorded stream crops (601 of the 47 bench sessions, 330
# of 16 development sessions; seeds 3700-3715), where the full reading reads 880. As set, 691 are read here,
# each with the full reading's value (and, from the same hole centres, its centre and side); loosened all
# together (side 0.7-1.3, solid 0.8, square 0.7, aspect 1.4, any pip size, pips 3x apart in area, boxes 2.5
# long, rms 0.16, turn 45 degrees) 707, of which 7 another value (a six's column of pips run together read
# as a two or a four): PIP_ALIKE and PIP_BOX are what keep those out.
RIM_PARTS = 0.35  # the face region's pixels outside its largest part at most, as a share of it: the lit rim
# of a die's rounded edge beyond a dark groove, of the face's colour, which the region grew back over (up to
# 0.31 of it on bench seed 2601's dice; 15 of 34 faces there refused at 0.05). The full reading counts them
# in the face's area too; each pip must lie in the largest part. Loosened to any share on the recorded
# regions: no other value either
SIDE_RANGE = (0.85, 1.2)  # the face region's side (sqrt of its area) over the crop's die side: a whole
# face at the scale the crop was cut for (a side face joined on or a face cut short: the full look)
SOLID = 0.9  # the face region's area over its convex hull's at least: no notch at the rim (a pip cut by
# the face's edge is a notch, not a hole, and would be missed in the count). 0.95 read 638, 0.9 695, 0.8 698
SQUARE = 0.8  # ... and over its fitted rectangle's at least, a rectangle this near a square:
ASPECT = 1.12
PIP_SIZE = (0.1, 0.3)  # a hole's sqrt(area) over the face's side (pips of two to six)
ACE_SIZE = (0.14, 0.34)  # ... for a lone pip (an ace's pip is larger; the full look allows up to 0.36)
PIP_ALIKE = 1.8  # the largest hole's area over the smallest's at most (pips are one size)
PIP_ROUND = 0.55  # a hole's area over its bounding box's at least, and its box's sides within
PIP_BOX = 1.5  # this ratio: one round pip, not two run together (a six's column read as a three)
FIT_RMS = 0.08  # the holes' centres fit the layout with at most this error (half-sides; full look: 0.1 for
# a three, 0.16 else)
FIT_SIZE = (0.8, 1.15)  # the fitted layout's side over the face region's
ACE_OFF = 0.08  # a lone pip's centre from the face's centroid at most (face sides; full look: 0.18)
CENTRE_OFF = 0.08  # a fitted layout's centre from the face's centroid at most (face sides)
TURN = 10.0  # degrees the layout's turn may differ from the face outline's (modulo 90)
CLEAN = 0.5  # nowhere on the face away from its holes and rim is the colour distance this share of the
# face threshold or more: no faint mark (a missed or blurred pip, glare on a pip) the count would miss.
# (Never the deciding test on the recorded crops, up to 1.0: kept as the guard for what they lack; 0.6 read
# 4 faces more)
RIM = 0.12  # the face's rim left out of that test, in face sides (its shading, the bevel)
HOLE_RING = 0.08  # ... and a ring this wide round each hole (its blurred edge)
PIP_OPEN = np.ones((2, 2), np.uint8)  # (dice_pip_finding.find_pips's opening of the marks)


def quick_face(part: np.ndarray, filled: np.ndarray, dist: np.ndarray, t: float, px: int) -> FaceReading | None:
    """The face region ``part`` (uint8, face colour; ``filled``: its holes filled) read as a clean
    face, or None if it is not clearly one. ``dist``: the colour distance from the face colour,
    ``t``: the threshold the face was cut at, ``px``: a die's side in the crop."""
    area = cv2.countNonZero(filled)
    side = math.sqrt(max(area, 1))
    if not SIDE_RANGE[0] * px <= side <= SIDE_RANGE[1] * px:
        return None
    # (opened as the full reading's pip finding opens its marks: the same pips, the same centres -- OpenCV
    # anchors a 2x2 kernel at its (1, 1), so the opening moves them a pixel right and down, both ways alike)
    holes = cv2.morphologyEx(cv2.bitwise_and(filled, cv2.bitwise_not(part)), cv2.MORPH_OPEN, PIP_OPEN)
    n, _, stats, cents = cv2.connectedComponentsWithStats(holes, connectivity=8)
    n -= 1
    if not 1 <= n <= 6:
        return None
    stats, cents = stats[1:], cents[1:]
    areas = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    w, h = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    rel = np.sqrt(areas) / side
    lo, hi = ACE_SIZE if n == 1 else PIP_SIZE
    if rel.min() < lo or rel.max() > hi or areas.max() > PIP_ALIKE * areas.min():
        return None
    if (areas < PIP_ROUND * w * h).any() or (np.maximum(w, h) > PIP_BOX * np.minimum(w, h)).any():
        return None
    contours, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea)
    if len(contours) > 1:
        main = _inside(outline, filled.shape)
        if area - cv2.countNonZero(main) > RIM_PARTS * area or cv2.countNonZero(cv2.bitwise_and(holes, main)) \
                < cv2.countNonZero(holes):
            return None
    if cv2.contourArea(outline) < SOLID * cv2.contourArea(cv2.convexHull(outline)):
        return None
    (rx, ry), (rw, rh), turn = cv2.minAreaRect(outline)
    if min(rw, rh) <= 0 or max(rw, rh) > ASPECT * min(rw, rh) or area < SQUARE * rw * rh:
        return None
    m = cv2.moments(filled, binaryImage=True)
    cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    if not _clean(filled, holes, dist, t, side):
        return None
    if n == 1:
        x, y = cents[0]
        if math.hypot(x - cx, y - cy) > ACE_OFF * side:
            return None
        return FaceReading(1, (float(x), float(y)), 1.0, side, "", filled)
    value, rms, beta, alpha = fit_frame([complex(x, y) for x, y in cents])
    size = 2 * abs(alpha)
    if value != n or rms > FIT_RMS or not FIT_SIZE[0] * side <= size <= FIT_SIZE[1] * side:
        return None
    if abs(beta - complex(cx, cy)) > CENTRE_OFF * side:
        return None
    off = (math.degrees(math.atan2(alpha.imag, alpha.real)) - turn) % 90.0
    if min(off, 90.0 - off) > TURN:
        return None
    return FaceReading(n, (beta.real, beta.imag), 1.0, size, "", filled)


def _inside(outline: np.ndarray, shape: tuple) -> np.ndarray:
    """The pixels inside ``outline`` (an outer contour of a mask of ``shape``), its own included."""
    inside = np.zeros(shape, np.uint8)
    cv2.drawContours(inside, [outline], 0, 255, -1)
    return inside


def _clean(filled: np.ndarray, holes: np.ndarray, dist: np.ndarray, t: float, side: float) -> bool:
    """No mark on the face away from its rim and its holes: the colour distance there stays under
    ``CLEAN`` of the face threshold."""
    rim = max(1, int(round(RIM * side)))
    ring = max(1, int(round(HOLE_RING * side)))
    inner = cv2.erode(filled, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rim + 1, 2 * rim + 1)))
    near = cv2.dilate(holes, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * ring + 1, 2 * ring + 1)))
    away = cv2.bitwise_and(inner, cv2.bitwise_not(near))
    if cv2.countNonZero(away) == 0:
        return False
    return cv2.minMaxLoc(dist, away)[1] < CLEAN * t
