"""Colour the match counts for part of a sheet only: true at a sheet's blurred edge, not elsewhere.

The colour match (transmission.py) explains a pixel at a sheet's edge as part of that sheet over
whatever lies beneath: the edge is blurred by the lens, and JPEG and phones keep colour at half
resolution.  But that explanation also fits a sheet whose colour is off the profile's in one
channel: a red sheet whose blue channel a phone's contrast and saturation pushed darker reads as
red plus half a yellow sheet (yellow only darkens blue), over the whole red sheet (the first
phone, seeds 38029 and 34018: a red sheet called red and yellow over 8-9 hexes).  A blurred edge
lies next to its sheet: so a pixel with an expedition counted for part of a sheet only, further
than PART_REACH_MM from any pixel where its whole sheet is seen, and with another sheet counted
too, is matched again without that expedition (it may then fit nothing: unknown).  Over bare
paper (OVER_PAPER_TOO) such a pixel is plain paper if it fits as paper in some shade, else it fits
nothing: a shadow that a phone's white balance cooled (a channel clipped on the paper, not in the
shade) reads as half a blue sheet over a wide patch (seed 40009 through the first phone: 17 hexes
called blue, 3 of them under glare).  Matched again freely, a tinted shade passed for another
sheet in shade (harsh light, 200 scenes: 6 shadowed hexes called covered); left unknown whenever,
it cost 0.5-2 points of unknown where visible for 7 fewer errors in 8 sets (183 -> 176).
"""

from __future__ import annotations

import cv2
import numpy as np

from .maskparts import _bbox
from .transmission import MISFIT, PART, unpack

PART_REACH_MM = 1.5  # a blurred edge: the lens (~0.5 mm), half-resolution colour, an upscaled sensor


OVER_PAPER_TOO = True  # part of a sheet over bare paper too (else: only over another sheet)
# code -> 255 where part of a sheet is counted (over another sheet: two expedition bits or more):
# one LUT pass finds them
_PART_OVER_SHEET = np.array([255 if (c & PART) and bin(c & 15).count("1") >= 2 else 0 for c in range(256)], np.uint8)
_PART_ANY = np.array([255 if c & PART else 0 for c in range(256)], np.uint8)


def drop_far_parts(code: np.ndarray, packed: np.ndarray, tab, ppm: float, lookalikes=(),
                   dark_below: float = -np.inf) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Match again, in ``code`` (the colour match's codes, uint8), without its sheet, a pixel
    counted for part of a sheet only, far from its whole sheet (_again: over another sheet, the
    rest of the explanation alone may fit badly, then the pixel fits nothing -- a deep grey shadow
    reads as blue and part yellow, and blue alone would call it a sheet).

    ``lookalikes``: (e, a, b) expedition numbers where e's sheet looks like a's and b's overlap
    (colourmasks._lookalikes): a's whole sheet over b's may read as e, so e's colour counts as
    a's (and b's) whole sheet here (seed 33015 through a phone: a yellow sheet lying wholly on a
    blue one, read as green, its edges as blue and part yellow; without them the green was
    never taken for the overlap).

    Returns the pixels counted for part of a sheet only, (ys, xs, the part's expedition bit; 0 for
    none), as they were before any was matched again, or None when there are none."""
    flag = cv2.LUT(code, _PART_ANY if OVER_PAPER_TOO else _PART_OVER_SHEET)
    if cv2.countNonZero(flag) == 0:
        return None
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
        # the whole sheet dilated in the box round them, grown by the reach
        y0, y1 = max(0, int(y.min()) - reach - 1), min(h, int(y.max()) + reach + 2)
        x0, x1 = max(0, int(x.min()) - reach - 1), min(w, int(x.max()) + reach + 2)
        c = code[y0:y1, x0:x1]
        # in cv2's 8-bit ops throughout (numpy's boolean ops and nonzero cost several times more)
        only = cv2.compare(mark[y0:y1, x0:x1], int(bit), cv2.CMP_EQ)
        whole = cv2.compare(cv2.bitwise_and(c, _as_whole(bit, lookalikes)), 0, cv2.CMP_GT)
        whole = cv2.bitwise_and(whole, cv2.bitwise_not(only))
        far = cv2.findNonZero(cv2.bitwise_and(only, cv2.bitwise_not(cv2.dilate(whole, k))))
        if far is not None:
            fx, fy = far.reshape(-1, 2).T
            c[fy, fx] = _again(c[fy, fx], packed[y0:y1, x0:x1][fy, fx], int(bit), tab, dark_below)
    return ys, xs, which


def _again(codes: np.ndarray, packed: np.ndarray, bit: int, tab, dark_below: float) -> np.ndarray:
    """New codes for pixels whose part of expedition ``bit``'s sheet is not believed: over another
    sheet, matched again without it; over bare paper, plain paper (in shade) if it fits as that,
    else fitting nothing (matched again freely, a tinted shade passed for part of another sheet,
    or a whole one in shade)."""
    flat = unpack(packed)
    out = tab.without(flat, bit, dark_below)
    on_paper = (codes & 15) == bit
    if on_paper.any():
        plain = tab.without(flat[on_paper], bit, dark_below, whole_only=True)
        out[on_paper] = np.where(plain & (15 | MISFIT), np.uint8(MISFIT), plain)
    return out


def _as_whole(bit: int, lookalikes) -> int:
    """The expedition bits whose colour may show ``bit``'s whole sheet: its own, and of any
    look-alike of its overlap with another."""
    out = int(bit)
    for e, a, b in lookalikes:
        if bit in (1 << a, 1 << b):
            out |= 1 << e
    return out
