"""A last look at a die no other look read anything in: its face taken as two colours (a marbled die).

The crop read (:mod:`.dice_crop`) takes the commonest colour of a blob as the face's and the pixels
near it as the face region. A marbled (swirled) die's body is two colours: the region of either one
is a patchwork of veins that runs across the die's edges onto its side faces, and the top face's
pips lie on its ragged border instead of in its holes -- no region is shaped like a face, and no
look reports anything (ray 4314, 4376, 1085, 1116: clear white pips on blue and purple marbled
dice, every look empty; the first two read here).

Here the face is the pixels near *either* of two colours: a colour of a face-sized region (each in
turn, the commonest first, as the crop read takes them) and the commonest colour of what it leaves
in its patches' hull (the veins, never the table round the die), so the veins are face and the
pips, unlike both, are its holes; the regions are then cut and read as the crop read does, with
every check of the face reader. It is read only where no look reported anything in the blob, so no
reading or report another look made is changed.
"""

from __future__ import annotations

import cv2
import numpy as np

from .blob_labels import components_with_areas
from .dice_crop import _kernels, _read_region, crop_lab, distance_of, face_colour, face_parts
from .dice_face_reading import FaceReading, face_px
from .dice_marks import _GRID
from .dice_pips import fill_holes
from .dice_ringed_pips import SIZE, _WEIGHT, LEAST_STEP, _ring_window, _round_pip, spot_and_sectors

OPEN_FACE = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))  # (the crop read's own)
# The crop read's face level: Otsu's on the colour distances, within these bounds (dice_crop's).
LEVEL_RANGE = (14.0, 40.0)
# The second colour is looked for only where the first colour leaves at least this much of a face
# in its patches' hull (veins, pips, side faces), and must cover at least SECOND_SHARE of it: a
# marbled die's veins are a large part of its body, a few pips or a rim's highlight are no second
# body colour. (Both set beforehand, not tuned on the renders.)
REST_LEAST = 0.1
SECOND_SHARE = 0.25
# A colour looked past before the die's (the table, a shadow) may have taken the veins, when they
# are nearer to it than to the die's other colour (light blue veins on white paper, ray 4376): where
# the two colours in what the looks before left read nothing, the second colour is looked for in the
# whole mask, and the face kept to the first colour's hull (False: only what the looks left)
VEINS_TAKEN_BEFORE = True
# How far past the hull of the first colour's patches the face may reach, in faces' sides: a vein of
# the second colour along the die's edge (set beforehand: about a vein's width, half a pip's radius)
HULL_GROW = 0.05
# A one is not read here: with two colours taken as face, a mark of either colour is face too (a
# blurred light pip on a clear die, a pip in a vein's colour), and a lone hole left of a larger
# value reads as a one -- light 33, a defocused clear two read as a one beside its shadow (the
# defocus look refuses ones for the like reason: a lone mark is the least evidence of a face).
# False: ones read, the first try. (ONES_WITH_PLAIN_PLACES, below, reads a one where its other
# places are seen empty.)
ONES_READ = False
# Every pip a value is read from must be unlike both colours over its middle (this share of its
# radius: its rim is unlike the face on any die, anti-aliased or shaded), or a pip of one of the
# face's colours may have vanished where a vein of that colour runs (False: not checked)
PIPS_UNLIKE_BOTH = True
PIP_MIDDLE = 0.5
# Colours looked at in turn, the commonest first (the table round the blob, a shadow, the die's):
# the crop read looks 8 times for several faces in a crop, a lone die needs fewer (set beforehand)
LOOKS = 4


def read_two_tone(crop: np.ndarray, mask: np.ndarray, **_ignored) -> list[FaceReading]:
    """The faces in a normalised crop (a die about FACE_PX across) within ``mask``, a face being
    the pixels near either of two colours (the module's docstring); readings with a value only."""
    lab8, lab = crop_lab(crop)
    px = face_px()
    expected = px * px
    erode, _, open_cut = _kernels(px)
    remaining = mask.copy()
    for _ in range(LOOKS):
        # each colour in turn as the crop read takes them, the commonest left first: a colour none
        # of whose regions is of a face's size (the table round the blob), or whose two-colour
        # face reads nothing (a shadow), is looked past
        if cv2.countNonZero(remaining) < 0.25 * expected:
            break
        inner = cv2.erode(remaining, erode)
        first = face_colour(lab8, lab, inner if cv2.countNonZero(inner) > 50 else remaining)
        offset = cv2.subtract(lab, (*first.tolist(), 0.0))
        dist1 = distance_of(offset)
        level1 = _level(dist1, remaining > 0)
        body = cv2.morphologyEx(((dist1 < level1) & (remaining > 0)).astype(np.uint8) * 255, cv2.MORPH_OPEN, OPEN_FACE)
        n, labels, areas = components_with_areas(cv2.morphologyEx(body, cv2.MORPH_OPEN, open_cut))
        big = [i for i in range(1, n) if areas[i] >= 0.2 * expected]
        if big:
            got = _read_with_second_colour(crop, lab8, lab, remaining, offset, dist1, level1, labels, big, False)
            if not got and VEINS_TAKEN_BEFORE:
                got = _read_with_second_colour(crop, lab8, lab, mask, offset, dist1, level1, labels, big, True)
            if got:
                return got
            # (as the crop read: a region of a face's size that read nothing takes only itself
            # away; the rest of its colour's pixels may be the die's veins, ray 4376, 4383)
            body = np.isin(labels, big).astype(np.uint8) * 255
        remaining[body > 0] = 0
        remaining = cv2.morphologyEx(remaining, cv2.MORPH_OPEN, erode)
    return []


def _read_with_second_colour(crop, lab8, lab, region, offset, dist1, level1, labels, big,
                             in_hull: bool) -> list[FaceReading]:
    """The faces read with the face taken as the first colour's pixels (``dist1`` under
    ``level1``) and those of the commonest colour among its patches (``big``, parts of
    ``labels``), within ``region`` (and, ``in_hull``, within their hull)."""
    px = face_px()
    expected = px * px
    _, _, open_cut = _kernels(px)
    # the second colour among the first one's patches, in their hull (not the table round them)
    hull = np.zeros(region.shape, np.uint8)
    cv2.fillConvexPoly(hull, cv2.convexHull(cv2.findNonZero(np.isin(labels, big).astype(np.uint8))), 255)
    if in_hull:
        # (the face too kept to the hull, grown by a vein along the die's edge: the region here is
        # the whole mask, the table round the die with it)
        reach = 2 * int(HULL_GROW * px) + 1
        hull = cv2.dilate(hull, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach)))
        within = cv2.bitwise_and(region, hull)
    else:
        within = region
    rest = ((dist1 >= level1) & (region > 0) & (hull > 0)).astype(np.uint8) * 255
    if cv2.countNonZero(rest) < REST_LEAST * expected:
        return []
    second = face_colour(lab8, lab, rest)
    dist2 = distance_of(cv2.subtract(lab, (*second.tolist(), 0.0)))
    level2 = _level(dist2, rest > 0)
    if cv2.countNonZero(((dist2 < level2) & (rest > 0)).astype(np.uint8)) < SECOND_SHARE * cv2.countNonZero(rest):
        return []
    dist = np.minimum(dist1, dist2)
    inside = within > 0
    t = _level(dist, inside)
    face = ((dist < t) & inside).astype(np.uint8) * 255
    face = cv2.morphologyEx(face, cv2.MORPH_OPEN, OPEN_FACE)
    cut = cv2.morphologyEx(face, cv2.MORPH_OPEN, open_cut)
    n, parts, areas = components_with_areas(cut)
    large = [i for i in range(1, n) if areas[i] >= 0.2 * expected]
    if not large:
        return []
    results: list[FaceReading] = []
    for _, part in face_parts(parts, large, face):
        results.extend(r for r in _read_region(part, dist, crop, t, offset, fill_holes(part))
                       if r.value is not None and (ONES_READ or r.value != 1 or _a_lone_ringed_pip(crop, r))
                       and (not PIPS_UNLIKE_BOTH or _pips_unlike_both(r, dist, t)))
    return results


#: ... but a one is read when its lone pip is a round spot unlike its face *all round it* (the
#: ringed look's test: a step from every sector of the ring round it, :mod:`.dice_ringed_pips`) on
#: a face of a die's size, and every place any other value puts a pip, in any turn of the face, is
#: seen empty (below). Ones were the largest group by value of the marbled dice left unread on
#: development (8 of 35, session 35), and the ringed look reads no ones. False: no ones read here,
#: the old rule
ONES_WITH_PLAIN_PLACES = True
#: a place is empty when no spot there steps from every sector of its ring towards the pip's colour
#: by FAINT_SHARE of the pip's own least step: a pip, however faint (blurred, under a glare; drawn
#: at 0.15 of its colour), steps from all round it, a vein only across it (along the vein its
#: ring holds the vein's own colour). Set beforehand: a tenth of the pip.
FAINT_SHARE = 0.1
#: ... and is seen to be empty only where a pip there would stand out: the spot at least SEEN_SHARE
#: of the pip's own step from the pip's colour. A marbled die whose veins are of its pips' colour
#: hides a pip lying in a vein. Set beforehand: half the pip's step.
SEEN_SHARE = 0.5
#: the turns the places are looked at in, over a quarter turn (the layouts repeat each quarter):
#: steps of 3 degrees move a corner place (0.35 of the side out) a tenth of a pip's radius
TURNS = 30


def _a_lone_ringed_pip(crop: np.ndarray, reading: FaceReading) -> bool:
    """Is ``reading``, a one, a lone round pip on a face of a die's size with every other
    value's places empty round it (ONES_WITH_PLAIN_PLACES)?"""
    if not ONES_WITH_PLAIN_PLACES or reading.value != 1 or not reading.pips or len(reading.pips) != 1:
        return False
    if not SIZE[0] <= reading.side / face_px() <= SIZE[1]:
        return False  # (a patch of one colour holding the pip, not a die's face: its places lie too near)
    if ONE_FACES_SQUARE and not _square(reading.face_mask):
        return False
    _, lab = crop_lab(crop)
    w = lab * _WEIGHT
    pip = reading.pips[0]
    r = float(np.sqrt(pip.area / np.pi))
    z0 = complex(pip.x, pip.y)
    cut = _ring_window(w, pip.x, pip.y, r)
    if cut is None:
        return False
    colour, sectors = spot_and_sectors(cut, r)
    steps = colour - sectors
    u0 = steps.mean(axis=0) / max(float(np.linalg.norm(steps.mean(axis=0))), 1e-6)
    own_least, own = float(np.min(steps @ u0)), float(steps.mean(axis=0) @ u0)
    if not own_least >= LEAST_STEP:
        return False  # (no round spot unlike the face all round it; NaN: a ring too small to have sectors)
    if not _round_pip(w, (pip.x, pip.y, own_least, r, u0), reading.side):
        return False
    half = 0.5 * reading.side
    for k in range(TURNS):
        turn = np.exp(1j * (0.5 * np.pi * k / TURNS))
        for c in _GRID:
            if c != 0 and not _seen_empty(w, z0 + half * c * turn, r, u0, colour, own, own_least):
                return False
    return True


#: ... on a face region that is square: its hull fills SQUARE_FILL of its least rectangle at least
#: (a square fills all of it, a disc pi/4, 0.785). A close-up die's large dark pip, a blob of its
#: own, with its glint read as a one's pip on it (development light 3267: an ivory three's pip read
#: as a one, an extra; its region's hull 0.81 of its rectangle, the ones read right 0.875-0.95; the
#: bound set after seeing that case, so named). False: not checked
ONE_FACES_SQUARE = True
SQUARE_FILL = 0.85


def _square(face: np.ndarray | None) -> bool:
    """Does ``face`` (a region's mask) fill SQUARE_FILL of its least rectangle with its hull?"""
    if face is None:
        return False
    cnts, _ = cv2.findContours((face > 0).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return False
    outline = max(cnts, key=cv2.contourArea)
    (_, _), (rw, rh), _ = cv2.minAreaRect(outline)
    return rw * rh > 0 and cv2.contourArea(cv2.convexHull(outline)) >= SQUARE_FILL * rw * rh


def _seen_empty(w: np.ndarray, z: complex, r: float, u0: np.ndarray, colour: np.ndarray, own: float,
                own_least: float) -> bool:
    """Is the place ``z`` seen, with no round spot of the pip's colour on it (FAINT_SHARE, SEEN_SHARE)?"""
    cut = _ring_window(w, z.real, z.imag, r)
    if cut is None:
        return False  # (a place off the crop is not seen, so not known to be empty)
    spot, sectors = spot_and_sectors(cut, r)
    if float(np.min((spot - sectors) @ u0)) >= FAINT_SHARE * own_least:
        return False  # (a spot stepping from all round it towards the pip's colour: a pip, maybe faint)
    return float((colour - spot) @ u0) >= SEEN_SHARE * own


def _pips_unlike_both(reading: FaceReading, dist: np.ndarray, t: float) -> bool:
    """Is every pip the value was read from unlike both face colours inside it (the distance to
    the nearer colour over its middle above the face level ``t``)? A pip of one of the face's
    colours is a hole only by its rim; where a vein of that colour runs, a pip vanishes in it
    and a larger value reads smaller (a drawn three with a vein of its white pips' colour read as
    a two). Readings without their pips (the blob look's) are not kept either."""
    if not reading.pips:
        return False
    h, w = dist.shape
    for p in reading.pips:
        r = max(1, int(PIP_MIDDLE * np.sqrt(p.area / np.pi)))
        x, y = int(round(p.x)), int(round(p.y))
        disc = np.zeros((2 * r + 1, 2 * r + 1), np.uint8)
        cv2.circle(disc, (r, r), r, 1, -1)
        y0, y1, x0, x1 = max(0, y - r), min(h, y + r + 1), max(0, x - r), min(w, x + r + 1)
        inside = dist[y0:y1, x0:x1][disc[y0 - y + r:y1 - y + r, x0 - x + r:x1 - x + r] > 0]
        if inside.size == 0 or float(np.median(inside)) <= t:
            return False
    return True


def _level(dist: np.ndarray, where: np.ndarray) -> float:
    """The crop read's face level: Otsu's threshold on the distances in ``where``, bounded."""
    vals = np.clip(dist[where], 0, 255).astype(np.uint8).reshape(-1, 1)
    otsu, _ = cv2.threshold(vals, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return float(np.clip(otsu, *LEVEL_RANGE))
