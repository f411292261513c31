"""The plain way of reading a die's crop, kept as the reference the tests hold
:func:`companion.vision.dice_crop.read_crop` to: the face colour by ``dice_pips._face_colour`` (a
histogram of the float Lab values), the colour distance by ``dice_pips._colour_distance``, every
face part grown back by the labelled ``_nearest_component``, the Lab offset taken per part. This is
the still reader's ``read_crop`` as it was before its steps were made cheaper (0.85x the CPU)."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.blob_labels import components_with_areas
from companion.vision.dice_crop import _read_region
from companion.vision.dice_pips import FACE_PX, FaceReading, _colour_distance, _face_colour, fill_holes
from companion.vision.dice_side_faces import side_face_readings
from companion.vision.dice_split import _nearest_component


def read_crop_plainly(crop: np.ndarray, mask: np.ndarray) -> list[FaceReading]:
    lab = cv2.cvtColor(cv2.GaussianBlur(crop, (0, 0), 0.8), cv2.COLOR_BGR2LAB).astype(np.float32)
    expected = FACE_PX * FACE_PX
    remaining = mask.copy()
    results: list[FaceReading] = []
    for _ in range(8):
        if cv2.countNonZero(remaining) < 0.25 * expected:
            break
        inner = cv2.erode(remaining, np.ones((5, 5), np.uint8))
        colour = _face_colour(lab, inner if cv2.countNonZero(inner) > 50 else remaining)
        dist = _colour_distance(lab, colour)
        vals = dist[remaining > 0]
        otsu, _ = cv2.threshold(np.clip(vals, 0, 255).astype(np.uint8).reshape(-1, 1), 0, 255,
                                cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        t = float(np.clip(otsu, 14, 40))
        face = ((dist < t) & (remaining > 0)).astype(np.uint8) * 255
        face = cv2.morphologyEx(face, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
        cut = cv2.morphologyEx(face, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
        n, labels, areas = components_with_areas(cut)
        big = [i for i in range(1, n) if areas[i] >= 0.2 * expected]
        nearest = _nearest_component(labels, big) if big else None
        for i in big:
            part = ((nearest == i) & (face > 0)).astype(np.uint8) * 255
            got = _read_region(part, dist, crop, t, lab - colour)
            results.extend(got)
            read = any(r.value is not None for r in got)
            gone = fill_holes(part) if read else part
            remaining[cv2.dilate(gone, np.ones((7, 7) if read else (3, 3), np.uint8)) > 0] = 0
        if not big:
            remaining[face > 0] = 0
            remaining = cv2.morphologyEx(remaining, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    sides = side_face_readings(results)
    return [r for r in results if not any(r is s for s in sides)]
