"""Colour the match counts for part of a sheet only: true at a sheet's blurred edge, not elsewhere.

The colour match (transmission.py) explains a pixel at a sheet's edge as part of that sheet over
whatever lies beneath: the edge is blurred by the lens, and JPEG and phones keep colour at half
resolution.  But that explanation also fits a sheet whose colour is off the profile's in one
channel: a red sheet whose blue channel a phone's contrast and saturation pushed darker reads as
red plus half a yellow sheet (yellow only darkens blue), over the whole red sheet (the first
phone, seeds 38029 and 34018: a red sheet called red and yellow over 8-9 hexes).  A blurred edge
lies next to its sheet: so a pixel with an expedition counted for part of a sheet only, further
than PART_REACH_MM from any pixel where its whole sheet is seen, and with another sheet counted
too, is matched again without that expedition (it may then fit nothing: unknown).  A part sheet over bare paper is kept (a pale sheet, faded by
the light, is still that sheet: dropping it would call its hexes uncovered).
"""

from __future__ import annotations

import cv2
import numpy as np

from .maskparts import _bbox
from .transmission import PART, unpack

PART_REACH_MM = 1.5  # a blurred edge: the lens (~0.5 mm), half-resolution colour, an upscaled sensor


# code -> 255 where part of a sheet is counted over another sheet (two expedition bits or more):
# only there can the part be dropped (a part over bare paper is kept), and one LUT pass finds them
_PART_OVER_SHEET = np.array([255 if (c & PART) and bin(c & 15).count("1") >= 2 else 0 for c in range(256)], np.uint8)


def drop_far_parts(code: np.ndarray, packed: np.ndarray, tab, ppm: float, lookalikes=(),
                   dark_below: float = -np.inf) -> None:
    """Match again, in ``code`` (the colour match's codes, uint8), without its sheet, a pixel
    counted for part of a sheet only, far from its whole sheet, where another sheet is counted too
    (``tab.without``: the rest of the explanation alone may fit badly, then the pixel fits nothing
    -- a deep grey shadow reads as blue and part yellow, and blue alone would call it a sheet).

    ``lookalikes``: (e, a, b) expedition numbers where e's sheet looks like a's and b's overlap
    (colourmasks._lookalikes): a's whole sheet over b's may read as e, so e's colour counts as
    a's (and b's) whole sheet here (seed 33015 through a phone: a yellow sheet lying wholly on a
    blue one, read as green, its edges as blue and part yellow; without them the green was
    never taken for the overlap)."""
    flag = cv2.LUT(code, _PART_OVER_SHEET)
    if cv2.countNonZero(flag) == 0:
        return
    reach = int(round(PART_REACH_MM * ppm))
    k = np.ones((2 * reach + 1,) * 2, np.uint8)
    pts = cv2.findNonZero(flag).reshape(-1, 2)  # numpy's nonzero scans eight times slower
    ys, xs = pts[:, 1], pts[:, 0]
    which = tab.part[tab.best[unpack(packed[ys, xs])]]  # the part sheet's expedition bit
    h, w = code.shape
    mark = np.zeros(code.shape, np.uint8)  # the pixels whose bit may go, by that bit
    mark[ys, xs] = which
    for bit in np.unique(which):
        if bit == 0:
            continue
        sel = which == bit
        y, x = ys[sel], xs[sel]
        if len(y) * k.size < GATHER_MAX:
            # few pixels (the usual case: parts over sheets at overlaps' edges): look round each
            yy = np.clip(y[:, None] + _OFFSETS[reach][0], 0, h - 1)
            xx = np.clip(x[:, None] + _OFFSETS[reach][1], 0, w - 1)
            near = code[yy, xx]
            whole = ((near & _as_whole(bit, lookalikes)) > 0) & (mark[yy, xx] != bit)
            far = ~whole.any(1)
            if far.any():
                code[y[far], x[far]] = tab.without(unpack(packed[y[far], x[far]]), int(bit), dark_below)
            continue
        # many: dilate the whole sheet in the box round them, grown by the reach
        y0, y1 = max(0, int(y.min()) - reach - 1), min(h, int(y.max()) + reach + 2)
        x0, x1 = max(0, int(x.min()) - reach - 1), min(w, int(x.max()) + reach + 2)
        c = code[y0:y1, x0:x1]
        only = mark[y0:y1, x0:x1] == bit
        whole = (cv2.bitwise_and(c, _as_whole(bit, lookalikes)) > 0) & ~only
        fy, fx = np.nonzero(only & ~cv2.dilate(whole.view(np.uint8), k).view(bool))
        if len(fy):
            c[fy, fx] = tab.without(unpack(packed[y0:y1, x0:x1][fy, fx]), int(bit), dark_below)


def _as_whole(bit: int, lookalikes) -> int:
    """The expedition bits whose colour may show ``bit``'s whole sheet: its own, and of any
    look-alike of its overlap with another."""
    out = int(bit)
    for e, a, b in lookalikes:
        if bit in (1 << a, 1 << b):
            out |= 1 << e
    return out


GATHER_MAX = 400_000  # pixel reads: above this, a dilation over the box is cheaper


def _offsets(r: int) -> tuple[np.ndarray, np.ndarray]:
    dy, dx = np.mgrid[-r:r + 1, -r:r + 1]
    return dy.ravel(), dx.ravel()


_OFFSETS = {r: _offsets(r) for r in range(1, 12)}
