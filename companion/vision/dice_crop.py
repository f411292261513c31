"""Reading the faces in a die's crop: the step every look of the still reader and every die of the
streaming reader ends in (a crop normalised so a die is about FACE_PX across, and a mask of where
the die may be).

The crop's face colour is found, the pixels near it are the face, faces of touching dice are cut
apart at their thin joins, and each face part is read by the face reader (:func:`_read_region`).
Each step here is done the cheap way with the same result as the plain way (kept as the tests'
reference in ``tests/dice_crop_reference.py``, which the tests compare field for field):

* the face colour's histogram is OpenCV's ``calcHist`` over the 8-bit Lab picture (the float
  picture holds that one's values: a value's bin, ``v // 16``, is the same), and its "near the
  fullest bin" test is the squared distance (whole numbers, exact in float32) against 24 squared;
  the mean of those pixels is numpy's over the same float32 array;
* one face part (a lone die, the usual crop): the face pixels within reach of it by a distance
  transform without labels (the same chamfer distances as the labelled transform);
* the Lab offset from the face colour once per colour, not once per part.

Measured: a crop read costs 0.85x the plain way's CPU (2,189 crops of two stream bench runs), which
is most of a 6-dice read in the stream.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import cv2
import numpy as np

from .blob_labels import components_with_areas
from .dice_groups import group_pips_into_dice
from .dice_face_reading import face_px, quick_look
from .dice_quick_face import quick_face
from .dice_pips import FACE_PX, FaceReading, fill_holes, read_face
from .dice_side_faces import side_face_readings
from .dice_split import _die_like, _nearest_component, split_faces

REACH = 0.25  # how far a face pixel may lie from a face part and be grown back to it, in faces' sides
# (_nearest_component's default reach)
ERODE = np.ones((5, 5), np.uint8)
CLEAR = np.ones((7, 7), np.uint8)  # the margin a read face is cleared away with (its rim, bevel)
#: the margin an *unread* colour region is cleared away with. Such a region is often the table, a
#: shadow or a defocused die's halo round the die (the crop's commonest colour); cleared with CLEAR,
#: it took a band of the die's face inside it and opened the corner pips to the outside. Measured on
#: the ray-marched dev seeds (0-79, 1000-1119, 2000-2159; 1,259 dice): 7x7 1142 right, 2 wrong;
#: 3x3 1155, 1 wrong; 1x1 (none) 1155, 3 wrong (slivers of the rim read with a face).
UNREAD_CLEAR = np.ones((3, 3), np.uint8)
OPEN_FACE = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
OPEN_CUT = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))


def crop_lab(crop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A normalised crop in Lab, as 8-bit and as float: smoothed at sigma 0.8 first, which takes the
    JPEG blocks and sensor noise off the face while a pip (some 15 px at FACE_PX) keeps its edge."""
    lab8 = cv2.cvtColor(cv2.GaussianBlur(crop, (0, 0), 0.8), cv2.COLOR_BGR2LAB)
    return lab8, lab8.astype(np.float32)


def lab_window(img: np.ndarray, center, side_px: float, reach_sides: float,
               work_side: float) -> tuple[np.ndarray, float, tuple[int, int]] | None:
    """The photo within ``reach_sides`` read sides of ``center`` (plus 2 px), scaled by ``g`` so
    the side is at most ``work_side`` pixels, as Lab (float32), with ``g`` and the window's origin
    in the photo; None for a die under 4 px or a window under 3 px.  A look at a die's
    surroundings then costs the same whatever the die's size in pixels (dice_pips_beyond,
    dice_face_runs_on)."""
    x, y = center
    H, W = img.shape[:2]
    R = int(reach_sides * side_px) + 2
    x0, y0, x1, y1 = max(0, int(x - R)), max(0, int(y - R)), min(W, int(x + R) + 1), min(H, int(y + R) + 1)
    if side_px < 4 or x1 - x0 < 3 or y1 - y0 < 3:
        return None
    g = min(1.0, work_side / side_px)
    win = np.ascontiguousarray(img[y0:y1, x0:x1])
    if g < 1.0:
        win = cv2.resize(win, (max(3, round((x1 - x0) * g)), max(3, round((y1 - y0) * g))), interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(win, cv2.COLOR_BGR2LAB).astype(np.float32), g, (x0, y0)


@functools.lru_cache(maxsize=4)
def _kernels(px: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ERODE, CLEAR, OPEN_CUT) for a face ``px`` across: made for FACE_PX, their sides scaled with
    the face (odd, as near as rounding gets: 5 and 7 at 96 px, 3 and 5 at 48)."""
    if px == FACE_PX:
        return ERODE, CLEAR, OPEN_CUT
    side = lambda n: max(1, int(round(n * px / FACE_PX)) | 1)
    cut = side(7)
    return (np.ones((side(5), side(5)), np.uint8), np.ones((cut, cut), np.uint8),
            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (cut, cut)))
NEAR_SQ = 24 * 24  # (_face_colour's "within 24 of the fullest bin's centre", squared)
SQUARES = np.repeat((np.arange(256, dtype=np.float32) ** 2).reshape(1, 256, 1), 3, axis=2)  # |d| -> d * d
SUM3 = np.ones((1, 3), np.float32)


def read_crop(crop: np.ndarray, mask: np.ndarray) -> list[FaceReading]:
    """The faces in a normalised crop (a die about FACE_PX across) within ``mask``."""
    if quick_look() and QUICK_FACES:
        results, quick = _read_crop(crop, mask, True)
        if not quick or len(results) == 1:
            return results
        # a quick reading has no pips measured, which the check for a tilted die's side face read
        # as a die of its own needs: a crop of more than one face is read the full way
    return _read_crop(crop, mask, False)[0]


#: a quick look (the stream's 48 px first look) reads a clean face the quick way
#: (:mod:`.dice_quick_face`) before the full face reading (False: always the full reading)
QUICK_FACES = True


def _read_crop(crop: np.ndarray, mask: np.ndarray, quick_faces: bool) -> tuple[list[FaceReading], bool]:
    """:func:`read_crop`'s readings, and whether a face was read the quick way."""
    lab8, lab = crop_lab(crop)
    px = face_px()
    expected = px * px
    erode, clear, open_cut = _kernels(px)
    remaining = mask.copy()
    results: list[FaceReading] = []
    quick = False
    for look in range(8):
        if cv2.countNonZero(remaining) < 0.25 * expected:
            break
        if look and not _room_for_a_face(remaining, expected, open_cut):
            break  # (no later look can find a face part: exactly what the looks would read)
        inner = cv2.erode(remaining, erode)
        colour = face_colour(lab8, lab, inner if cv2.countNonZero(inner) > 50 else remaining)
        offset = cv2.subtract(lab, (*colour.tolist(), 0.0))  # (lab - colour, float32 both: the same, 10x cheaper)
        dist = distance_of(offset)
        inside = remaining > 0
        vals = dist[inside]
        otsu, _ = cv2.threshold(np.clip(vals, 0, 255).astype(np.uint8).reshape(-1, 1), 0, 255,
                                cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        t = float(np.clip(otsu, 14, 40))
        face = ((dist < t) & inside).astype(np.uint8) * 255
        face = cv2.morphologyEx(face, cv2.MORPH_OPEN, OPEN_FACE)
        # faces of touching dice meet at a corner or along a thin line: cut those, label, grow back
        cut = cv2.morphologyEx(face, cv2.MORPH_OPEN, open_cut)
        n, labels, areas = components_with_areas(cut)
        big = [i for i in range(1, n) if areas[i] >= 0.2 * expected]
        if not big:  # this colour is no face (a shadow, side faces): look past it
            remaining[face > 0] = 0
            remaining = cv2.morphologyEx(remaining, cv2.MORPH_OPEN, erode)
            continue
        # each part grown back over the face pixels nearer to it than to any other (the opening
        # also ate the thin margin between the pips and the die's edge)
        for i, part in face_parts(labels, big, face, REACH * px):
            filled = fill_holes(part)  # (the region read, the face read and the clearing below all take it)
            clean = quick_face(part, filled, dist, t, px) if quick_faces else None
            quick = quick or clean is not None
            got = [clean] if clean is not None else _read_region(part, dist, crop, t, offset, filled)
            # a read face takes its pips with it; an unread region only its own pixels and a thin
            # margin (it may be the dark outline ring, the table or a halo round other dice, whose
            # faces must stay whole to be looked at)
            read = any(r.value is not None for r in got)
            if RING_HOLES_KEPT and len(got) == 1 and not read:
                got = [_with_its_hole(got[0], part, filled, expected)]
            results.extend(got)
            gone = filled if read else part
            remaining[cv2.dilate(gone, clear if read else UNREAD_CLEAR) > 0] = 0
    if SIDE_FACES_GIVE_WAY:
        # a tilted die's top face and a side face, each read: the side face is no die
        sides = side_face_readings(results)
        results = [r for r in results if not any(r is s for s in sides)]
    return results, quick


SIDE_FACES_GIVE_WAY = True  # (False: both readings kept, and the overlap check leaves both unreadable)


#: a region of no pips that is a ring round a die -- the table or the die's shadow, the commonest
#: colour of a crop scaled from a blob that holds the die and its shadow -- keeps what it holds
#: (its hole, the die) for the caller to read at the die's own scale (:func:`.dice._read_ring_holes`):
#: here the die is too small for its face's parts to count as a face (a marbled die's veins break it
#: into parts under 0.2 of a face). False: not kept, the old rule
RING_HOLES_KEPT = True
#: ... a hole this many crop faces (FACE_PX squared) at least: the least face part the crop read
#: takes for a face (0.2, above); a light die's lone pip or a glare spot is smaller
RING_HOLE_LEAST = 0.2
#: ... and the ring's filled area at least this many times the ring itself (traced on development:
#: faces of no pips that took their pips in filled 1.01-1.02 times themselves, the rings round ray
#: 4007, 2099, 4221, 1068 and light 3163's dice 1.7-2.8; set between)
RING_FILLS = 1.4


def _with_its_hole(r: FaceReading, part: np.ndarray, filled: np.ndarray, expected: float) -> FaceReading:
    """``r`` with its ``hole`` set, when it is a region of no pips round a hole die-sized at least
    (the hole's largest part); ``r`` as it is otherwise."""
    if r.reason != "no pips":
        return r
    area = cv2.countNonZero(filled)
    if area < RING_FILLS * cv2.countNonZero(part):
        return r
    hole = cv2.subtract(filled, part)
    n, labels, areas = components_with_areas(hole)
    if n < 2 or int(areas[1:].max()) < RING_HOLE_LEAST * expected:
        return r
    largest = 1 + int(np.argmax(areas[1:]))
    return replace(r, hole=(labels == largest).astype(np.uint8) * 255)


def _room_for_a_face(remaining: np.ndarray, expected: float, open_cut: np.ndarray = OPEN_CUT) -> bool:
    """Could a look at what is left find a face part (a part of ``cut`` of 0.2 of a face or more)?
    Each look's ``cut`` is an opening by OPEN_CUT of pixels within ``remaining``, and ``remaining``
    only shrinks from look to look; an opening of a smaller mask lies within that of a larger one,
    so every part a look could cut lies inside a part of this opening. If none of those is big
    enough, no look reads anything more: the loop may end here with the same readings. (After a
    die's face is read, its side faces and shadow often leave just enough for another look, whose
    colour and distances cost about 1 ms: on a third of the stream's crops.)"""
    _, _, areas = components_with_areas(cv2.morphologyEx(remaining, cv2.MORPH_OPEN, open_cut))
    return bool(areas[1:].size) and int(areas[1:].max()) >= 0.2 * expected


def distance_of(d: np.ndarray) -> np.ndarray:
    """``dice_pips._colour_distance(lab, colour)`` from ``d = lab - colour`` (the Lab offset
    the face reading takes too, so it is taken once)."""
    l, a, b = cv2.split(d)  # (contiguous channels: the same float32 sums, in place, at half the cost)
    np.multiply(l, l, out=l)
    l *= 0.6
    l += a * a
    l += b * b
    return np.sqrt(l, out=l)


def face_colour(lab8: np.ndarray, lab: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``dice_pips._face_colour(lab, mask)`` (``lab8``: the same picture in 8 bits)."""
    x, y, w, h = cv2.boundingRect(mask)
    if w == 0:
        return np.array([128, 128, 128], np.float32)
    lab8, lab, mask = lab8[y:y + h, x:x + w], lab[y:y + h, x:x + w], mask[y:y + h, x:x + w]
    hist = cv2.calcHist([lab8], [0, 1, 2], mask, [16, 16, 16], [0, 256, 0, 256, 0, 256])
    counts = cv2.GaussianBlur(hist.reshape(16, 256), (3, 3), 0)
    k = int(np.argmax(counts))
    centre = np.array([k // 256, (k // 16) % 16, k % 16], np.float32) * 16 + 8
    # squared distances from the centre: whole numbers, so the sum is exact (as the float one was)
    sq = cv2.transform(cv2.LUT(cv2.absdiff(lab8, (*centre.tolist(), 0.0)), SQUARES), SUM3)
    near = cv2.bitwise_and(cv2.compare(sq, NEAR_SQ, cv2.CMP_LT), mask)  # (whole numbers: exact)
    n = cv2.countNonZero(near)
    if n <= 10:
        return centre
    return _mean_where(lab, near, n)


def _mean_where(lab: np.ndarray, where: np.ndarray, n: int) -> np.ndarray:
    """``lab[where > 0].mean(axis=0)`` (``n`` pixels), bit for bit: numpy's mean over the rows of a
    (pixels, 3) float32 array adds them one after another in float32 and divides by the count (an
    integer), which is what OpenCV's row reduction does too -- and the pixels left out, zeros in
    between, add nothing. Without the boolean index's copy: 0.16 ms against 0.38 on a die's crop."""
    kept = np.zeros(lab.shape, np.float32)
    cv2.copyTo(lab, where, kept)
    total = cv2.reduce(kept.reshape(-1, 3), 0, cv2.REDUCE_SUM, dtype=cv2.CV_32F)[0]
    return np.true_divide(total, np.intp(n), out=total, casting="unsafe")


def face_parts(labels: np.ndarray, big: list[int], face: np.ndarray, reach: float | None = None):
    """(label, part mask) for each face part: the face pixels nearer to it than to any other part,
    within reach (``dice_split._nearest_component``); a lone part without labelling."""
    reach = REACH * face_px() if reach is None else reach
    if len(big) > 1:
        nearest = _nearest_component(labels, big, reach)
        for i in big:
            yield i, ((nearest == i) & (face > 0)).astype(np.uint8) * 255
        return
    i = big[0]
    src = (labels == i).astype(np.uint8)
    x, y, w, h = cv2.boundingRect(src)
    m = int(np.ceil(reach)) + 2
    H, W = labels.shape
    y0, y1, x0, x1 = max(0, y - m), min(H, y + h + m), max(0, x - m), min(W, x + w + m)
    dist = cv2.distanceTransform(1 - src[y0:y1, x0:x1], cv2.DIST_L2, 5)
    part = np.zeros(labels.shape, np.uint8)
    part[y0:y1, x0:x1] = ((dist <= reach) & (face[y0:y1, x0:x1] > 0)).astype(np.uint8) * 255
    yield i, part


def _read_region(part: np.ndarray, dist: np.ndarray, crop: np.ndarray, t: float = 30.0,
                 dl: np.ndarray | None = None, filled: np.ndarray | None = None) -> list[FaceReading]:
    """One face region; if it is too big or reads badly, try it as several touching faces.
    ``filled``: ``fill_holes(part)``, if the caller has it."""
    expected = face_px() * face_px()
    filled = fill_holes(part) if filled is None else filled
    area = cv2.countNonZero(filled)
    whole = read_face(part, dist, dl, filled)
    if whole.value is not None and area < 1.6 * expected:
        return [whole]
    pieces = split_faces(part, crop, dist, t)
    if len(pieces) >= 2:
        readings = [read_face(p, dist, dl) for p in pieces]
        good = [r for r in readings if r.value is not None]
        if len(good) > (1 if whole.value is not None else 0):
            return good + [r for r in readings if r.value is None and _die_like(r.face_mask)]
    if whole.value is None and area >= 1.6 * expected:
        grouped = group_pips_into_dice(part, dist, area / (0.9 * expected), dl)
        if grouped:
            return grouped
    if whole.value is None and not _die_like(whole.face_mask):
        return []
    return [whole]
