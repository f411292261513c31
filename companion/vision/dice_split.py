"""Face regions of touching dice: split where they meet, and which piece each pixel is nearest."""

from __future__ import annotations

import math

import cv2
import numpy as np

from .blob_labels import components_with_areas
from .dice_face_reading import face_px
from .dice_pips import fill_holes


def _nearest_component(labels: np.ndarray, keep: list[int], reach: float | None = None) -> np.ndarray:
    """For every pixel, which of the ``keep`` components is nearest (0: none within ``reach``; by
    default a quarter of the face's side).

    Only the box round the kept components, ``reach`` wider on every side, can be within reach
    (the distance is at least the larger of the x and y steps), so the distance is taken there.
    """
    if reach is None:
        reach = 0.25 * face_px()
    src = np.isin(labels, keep)
    out = np.zeros(labels.shape, np.int32)
    x, y, w, h = cv2.boundingRect(src.astype(np.uint8))
    if w == 0:
        return out
    m = int(math.ceil(reach)) + 2
    H, W = labels.shape
    y0, y1, x0, x1 = max(0, y - m), min(H, y + h + m), max(0, x - m), min(W, x + w + m)
    win = src[y0:y1, x0:x1]
    dist, cc = cv2.distanceTransformWithLabels((~win).astype(np.uint8), cv2.DIST_L2, 5,
                                               labelType=cv2.DIST_LABEL_CCOMP)
    lookup = np.zeros(int(cc.max()) + 1, np.int32)
    lookup[cc[win]] = labels[y0:y1, x0:x1][win]
    near = lookup[cc]
    near[dist > reach] = 0
    out[y0:y1, x0:x1] = near
    return out


def split_faces(part: np.ndarray, crop: np.ndarray, dist: np.ndarray | None = None, t: float = 30.0) -> list[np.ndarray]:
    """Split a face region of touching dice, then grow the pieces back over the region (watershed).

    The seeds are the region's purest face colour (the groove between two dice is darker or
    lighter than either face), or else what is left when the region is eroded into most pieces.
    The work is done inside the region's box (a region of a crop that runs far over the table can
    be a small part of it), and the pieces are returned at the crop's size.
    """
    box = _work_box(part)
    if box is None:
        return []
    y0, y1, x0, x1 = box
    pieces = _split_in_box(part[y0:y1, x0:x1], crop[y0:y1, x0:x1], None if dist is None else dist[y0:y1, x0:x1], t)
    out = []
    for piece in pieces:
        full = np.zeros(part.shape, np.uint8)
        full[y0:y1, x0:x1] = piece
        out.append(full)
    return out


# Margin kept round the region's box: more than the reach of every kernel and of the watershed's
# look at its neighbours, so the box gives exactly what the whole crop would (where the region
# meets the crop's edge, the box keeps that edge).
BOX_MARGIN = 4


def _work_box(part: np.ndarray) -> tuple[int, int, int, int] | None:
    x, y, w, h = cv2.boundingRect(part)
    if w == 0 or h == 0:
        return None
    H, W = part.shape
    return max(0, y - BOX_MARGIN), min(H, y + h + BOX_MARGIN), max(0, x - BOX_MARGIN), min(W, x + w + BOX_MARGIN)


def _split_in_box(part: np.ndarray, crop: np.ndarray, dist: np.ndarray | None, t: float) -> list[np.ndarray]:
    filled = fill_holes(part)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    min_piece = 0.03 * face_px() * face_px()
    best: tuple[int, np.ndarray | None, list[int]] = (1, None, [])
    if dist is not None:
        for frac in (0.6, 0.45, 0.3):
            pure = ((dist < frac * t) & (part > 0)).astype(np.uint8) * 255
            pure = cv2.erode(cv2.morphologyEx(pure, cv2.MORPH_OPEN, kernel), kernel, iterations=2)
            n, labels, areas = components_with_areas(pure)
            big = [i for i in range(1, n) if areas[i] >= 0.12 * face_px() * face_px()]
            if len(big) > best[0]:
                best = (len(big), labels, big)
    core = filled.copy()
    step = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    for _ in range(face_px() // 5):
        core = cv2.erode(core, step)
        # erosion only shrinks the core: once it cannot hold more pieces than the best so far, stop
        if cv2.countNonZero(core) < (best[0] + 1) * min_piece:
            break
        n, labels, areas = components_with_areas(core)
        big = [i for i in range(1, n) if areas[i] >= min_piece]
        if len(big) > best[0]:
            best = (len(big), labels, big)
        if not big:
            break
    if best[1] is None:
        return []
    _, labels, big = best
    markers = np.zeros(part.shape, np.int32)
    for k, i in enumerate(big, start=1):
        markers[labels == i] = k
    markers[filled == 0] = len(big) + 1
    cv2.watershed(crop, markers)
    pieces = []
    for k in range(1, len(big) + 1):
        piece = ((markers == k) & (part > 0)).astype(np.uint8) * 255
        if cv2.countNonZero(piece) >= 0.2 * face_px() * face_px():
            pieces.append(piece)
    return pieces


def _die_like(filled: np.ndarray | None) -> bool:
    """Does an unread region look like a die's face (square-ish, full, die-sized)?"""
    if filled is None:
        return False
    area = cv2.countNonZero(filled)
    if not 0.35 * face_px() ** 2 <= area <= 2.0 * face_px() ** 2:
        return False
    cnts, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return False
    (_, _), (rw, rh), _ = cv2.minAreaRect(max(cnts, key=cv2.contourArea))
    return rw > 0 and rh > 0 and max(rw, rh) / min(rw, rh) < 1.4 and area / (rw * rh) > 0.7
