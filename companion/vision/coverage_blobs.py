"""Small unknown blobs ringed by seen pixels: undecided only for the colours round them.

A hex with unseen pixels is left undecided for every expedition not seen covering it: a sheet
could lie under them.  But a sheet is far larger than a blob of a few millimetres (a cut edge
crossing a dark overlap, a crease of glare, a patch that fits no colour), and the film is
continuous: a sheet reaching under a small blob crosses the ring of seen pixels round it, where
its colour shows.  So for a blob under BLOB_MAX_MM2 whose ring (RING_MM wide) is wholly seen, the
hexes it touches stay undecided only for the expeditions whose colour lies in the ring -- the raw
colour match's (before any cleaning: a sheet's corner shows there as a speck too small to keep),
the colour carried onto lines, and colour dropped as untrustworthy.  Bigger blobs, and blobs
touching other unseen pixels or the photo's edge, leave every expedition undecided as before.
"""

from __future__ import annotations

import cv2
import numpy as np

from .maskparts import _bbox, _labelled

BLOB_MAX_MM2 = 64.0  # 8 x 8 mm: far smaller than any sheet (its pointed end included, it spans several cm)
RING_MM = 1.5  # seen pixels round a blob: wide enough that a sheet's corner under it shows here


def explained_blobs(unknown: np.ndarray, colour_at, n_colours: int, ppm: float):
    """(unknown less the small ringed blobs, [per expedition: those blobs whose ring shows its
    colour]) -- or (``unknown``, None) when there are no such blobs.

    ``colour_at(i, sl)``: a bool crop (``sl``) of expedition i's colour in any form (raw, on
    lines, dropped): asked only round the blobs.
    """
    b = _bbox(unknown.view(np.uint8), 1)
    if b is None:
        return unknown, None
    sl0 = np.s_[b[0]:b[1], b[2]:b[3]]
    n, labels, areas = _labelled(unknown[sl0])
    small = np.flatnonzero(areas[1:] <= BLOB_MAX_MM2 * ppm * ppm) + 1
    if len(small) == 0:
        return unknown, None
    r = max(1, int(round(RING_MM * ppm)))
    k = np.ones((2 * r + 1,) * 2, np.uint8)
    h, w = unknown.shape
    ys, xs = np.nonzero(np.isin(labels, small))
    lab = labels[ys, xs]
    order = np.argsort(lab, kind="stable")
    ys, xs, lab = ys[order] + b[0], xs[order] + b[2], lab[order]
    starts = np.searchsorted(lab, small)
    ends = np.r_[starts[1:], len(lab)]
    kept = unknown.copy()
    near = [np.zeros(unknown.shape, bool) for _ in range(n_colours)]
    found = False
    for c, s, e in zip(small, starts, ends):
        y, x = ys[s:e], xs[s:e]
        y0, y1 = max(0, int(y.min()) - r), min(h, int(y.max()) + r + 1)
        x0, x1 = max(0, int(x.min()) - r), min(w, int(x.max()) + r + 1)
        if y0 == 0 or x0 == 0 or y1 == h or x1 == w:
            continue  # the ring would leave the grid: not seen whole
        blob = np.zeros((y1 - y0, x1 - x0), np.uint8)
        blob[y - y0, x - x0] = 1
        ring = (cv2.dilate(blob, k) > 0) & (blob == 0)
        if np.any(ring & unknown[y0:y1, x0:x1]):
            continue  # other unseen pixels nearby: the ring is not seen whole
        found = True
        inside = blob.view(bool)
        kept[y0:y1, x0:x1] &= ~inside
        for i in range(n_colours):
            if np.any(ring & colour_at(i, np.s_[y0:y1, x0:x1])):
                near[i][y0:y1, x0:x1] |= inside
    return (kept, near) if found else (unknown, None)
