"""A die crop read for the stream: the still reader's :func:`~companion.vision.dice.read_crop`, its
per-colour bookkeeping done the cheap way, with the same result.

A 6-dice read in the stream is mostly six crop reads (3.2-4 ms each, of a read's 22-25 ms), and
the stream lends a read only what three frames leave. Of a crop read, about 1.6 ms went on steps
around the face reading itself (measured over 357 crops of the bench sessions): finding the face's
colour (0.6 ms: a 3-D histogram by ``np.bincount`` over the masked pixels' float Lab values), the
face pixels nearest each face part (0.3 ms: a distance transform with labels, kept for one part
too) and the Lab offset from the face colour, taken once per part. Here:

* the face colour's histogram is OpenCV's ``calcHist`` over the 8-bit Lab picture (the float
  picture is that one's values: a value's bin, ``v // 16``, is the same), and its "near the
  fullest bin" test is the squared distance (whole numbers, exact in float32) against 24 squared;
  the mean of those pixels is numpy's over the same float32 array, as before;
* one face part (a lone die, the usual crop): the face pixels within reach of it by a distance
  transform without labels (the same chamfer distances);
* the Lab offset from the face colour once per colour, not once per part.

Everything else is the still reader's own code, called as it calls it, so the readings are the
same, value, centre, confidence, side, reason and face mask alike (:func:`read_crop_like_still` is
checked against :func:`~companion.vision.dice.read_crop` on rendered crops by the tests, so a change
to the still reader's loop that is not made here too fails them).
"""

from __future__ import annotations

import cv2
import numpy as np

from .blob_labels import components_with_areas
from .dice import _read_region
from .dice_pips import FACE_PX, FaceReading, fill_holes
from .dice_split import _nearest_component

REACH = 0.25 * FACE_PX  # how far a face pixel may lie from a face part and be grown back to it
# (the still reader's default reach in _nearest_component)
ERODE = np.ones((5, 5), np.uint8)
CLEAR = np.ones((7, 7), np.uint8)
OPEN_FACE = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
OPEN_CUT = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
NEAR_SQ = 24 * 24  # (the still reader's "within 24 of the fullest bin's centre", squared)
SQUARES = np.repeat((np.arange(256, dtype=np.float32) ** 2).reshape(1, 256, 1), 3, axis=2)  # |d| -> d * d
SUM3 = np.ones((1, 3), np.float32)


def read_crop_like_still(crop: np.ndarray, mask: np.ndarray) -> list[FaceReading]:
    """What :func:`companion.vision.dice.read_crop` reads in ``crop`` within ``mask``, the same way."""
    lab8 = cv2.cvtColor(cv2.GaussianBlur(crop, (0, 0), 0.8), cv2.COLOR_BGR2LAB)
    lab = lab8.astype(np.float32)
    expected = FACE_PX * FACE_PX
    remaining = mask.copy()
    results: list[FaceReading] = []
    for _ in range(8):
        if cv2.countNonZero(remaining) < 0.25 * expected:
            break
        inner = cv2.erode(remaining, ERODE)
        colour = face_colour(lab8, lab, inner if cv2.countNonZero(inner) > 50 else remaining)
        offset = lab - colour
        dist = distance_of(offset)
        inside = remaining > 0
        vals = dist[inside]
        otsu, _ = cv2.threshold(np.clip(vals, 0, 255).astype(np.uint8).reshape(-1, 1), 0, 255,
                                cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        t = float(np.clip(otsu, 14, 40))
        face = ((dist < t) & inside).astype(np.uint8) * 255
        face = cv2.morphologyEx(face, cv2.MORPH_OPEN, OPEN_FACE)
        cut = cv2.morphologyEx(face, cv2.MORPH_OPEN, OPEN_CUT)
        n, labels, areas = components_with_areas(cut)
        big = [i for i in range(1, n) if areas[i] >= 0.2 * expected]
        if not big:  # this colour is no face (a shadow, side faces): look past it
            remaining[face > 0] = 0
            remaining = cv2.morphologyEx(remaining, cv2.MORPH_OPEN, ERODE)
            continue
        for i, part in face_parts(labels, big, face):
            got = _read_region(part, dist, crop, t, offset)
            results.extend(got)
            gone = fill_holes(part) if any(r.value is not None for r in got) else part
            remaining[cv2.dilate(gone, CLEAR) > 0] = 0
    return results


def distance_of(d: np.ndarray) -> np.ndarray:
    """The still reader's ``_colour_distance(lab, colour)`` from ``d = lab - colour`` (the Lab offset
    the face reading takes too, so it is taken once)."""
    l, a, b = cv2.split(d)  # (contiguous channels: the same float32 sums, in place, at half the cost)
    np.multiply(l, l, out=l)
    l *= 0.6
    l += a * a
    l += b * b
    return np.sqrt(l, out=l)


def face_colour(lab8: np.ndarray, lab: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The still reader's ``_face_colour(lab, mask)`` (``lab8``: the same picture in 8 bits)."""
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
    near = (sq < NEAR_SQ) & (mask > 0)
    if np.count_nonzero(near) <= 10:
        return centre
    return lab[near].mean(axis=0)  # (the same pixels in the same order as the still reader's: the same mean)


def face_parts(labels: np.ndarray, big: list[int], face: np.ndarray):
    """(label, part mask) for each face part: the face pixels nearer to it than to any other part,
    within reach (the still reader's ``_nearest_component``); a lone part without labelling."""
    if len(big) > 1:
        nearest = _nearest_component(labels, big)
        for i in big:
            yield i, ((nearest == i) & (face > 0)).astype(np.uint8) * 255
        return
    i = big[0]
    src = (labels == i).astype(np.uint8)
    x, y, w, h = cv2.boundingRect(src)
    m = int(np.ceil(REACH)) + 2
    H, W = labels.shape
    y0, y1, x0, x1 = max(0, y - m), min(H, y + h + m), max(0, x - m), min(W, x + w + m)
    dist = cv2.distanceTransform(1 - src[y0:y1, x0:x1], cv2.DIST_L2, 5)
    part = np.zeros(labels.shape, np.uint8)
    part[y0:y1, x0:x1] = ((dist <= REACH) & (face[y0:y1, x0:x1] > 0)).astype(np.uint8) * 255
    yield i, part
