"""The blob look at a face that read nothing by its colour: the face's pips as blobs of the
lightness at several scales (:mod:`.dice_pip_blobs`), for faces whose pips defocus or marbling has
made too faint or too ragged to be holes in a region of one colour. Its readings are tentative
(confidence at most :data:`BLOB_CONFIDENCE`): the reader's later looks may replace them.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .dice_face_reading import FaceReading, face_px, fill_holes
from .dice_pip_blobs import read_blobs
from .dice_pip_finding import face_hull


def read_face_blobs(face: np.ndarray, dl: np.ndarray) -> FaceReading | None:
    """The blob look of :mod:`.dice_pip_blobs` over the face region and its hull: a reading, or None."""
    filled = fill_holes(face)
    area = cv2.countNonZero(filled)
    if not BLOB_AREA[0] * face_px() * face_px() <= area <= BLOB_AREA[1] * face_px() * face_px():
        return None
    region = cv2.bitwise_or(filled, face_hull(face))
    light = np.ascontiguousarray(dl[..., 0])
    k = _to_face_scale(area)
    if k != 1.0:
        # the blob scales and the face sizes are in FACE_PX: a face region clearly smaller than
        # that (the crop was scaled from a blob swollen by the blur's halo or a shadow) is read
        # enlarged to it, or its pips fall under the smallest scale and the whole face, now
        # pip-sized, is the strongest blob
        # (only the region's box and the blob look's margin round it are enlarged)
        x, y, bw, bh = cv2.boundingRect(region)
        m = int(BLOB_MARGIN * face_px() / k) + 1
        h, w = light.shape
        x0, y0, x1, y1 = max(0, x - m), max(0, y - m), min(w, x + bw + m), min(h, y + bh + m)
        size = (max(1, round((x1 - x0) * k)), max(1, round((y1 - y0) * k)))
        light = cv2.resize(light[y0:y1, x0:x1], size, interpolation=cv2.INTER_LINEAR)
        region = cv2.resize(region[y0:y1, x0:x1], size, interpolation=cv2.INTER_NEAREST)
    else:
        x0 = y0 = 0
    got = read_blobs(light, region, float(face_px()))
    if got is None:
        return None
    # (a reading from faint marks: below every first-look reading, so a duplicate gives way to it)
    conf = round(min(BLOB_CONFIDENCE, 0.02 * got.strength), 3)
    centre = (x0 + (got.center[0] + 0.5) / k - 0.5, y0 + (got.center[1] + 0.5) / k - 0.5)
    return FaceReading(got.value, centre, conf, got.side / k, "", filled)


#: a face region under this part of FACE_PX across is looked at for blobs enlarged to FACE_PX
#: (over it, the region may hold side faces or a halo as well as the face: not scaled)
BLOB_RESCALE_UNDER = 0.85
BLOB_RESCALE = True  # (False: the old look, at the crop's scale whatever the face's)
BLOB_MARGIN = 1.0  # FACE_PX: the margin round the region the blob look sees (its rings, blobs beside the face; 0.5 lost a die)


def _to_face_scale(area: float) -> float:
    """The factor that brings a face region of ``area`` crop pixels to FACE_PX across (1 if it is
    near that already, or larger)."""
    side = math.sqrt(max(area, 1.0))
    if not BLOB_RESCALE or side >= BLOB_RESCALE_UNDER * face_px():
        return 1.0
    return face_px() / side


BLOB_CONFIDENCE = 0.1  # the most a blob-look reading is trusted: first looks measured 0.13 and up
BLOB_AREA = (0.3, 3.0)  # face regions (in dice) the blob look is tried on: a die's, or a die in its halo
