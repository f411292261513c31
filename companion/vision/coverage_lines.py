"""Each expedition's colour seen on paper carried onto the printed hex lines it really covers.

A hex counts as covered when a sheet lies on any part of it *or its border lines*, so a sheet whose
edge stops a millimetre short of a line must leave the line (and the hex beyond it) alone.  On the
lines themselves the light is too dim and the drawing too rough for the full colour match, and a
photo's colour is blurry: JPEG and phones keep colour at half resolution, an upscaled sensor blurs
it more, so a sheet's hue spreads about 1 mm past its edge, onto a line it does not reach.  Its
brightness (luma, Y) is kept at full resolution.  So a line pixel takes a sheet's colour by one of
two routes, each asking for the sheet's hue *and* a sheet's darkening where the hue alone misleads:

- bridged: the sheet's colour lies on the paper on both sides of the line (a closing of the colour
  by an octagon of BRIDGE_MM: a sheet is a polygon with straight edges, and a closing extends a
  straight edge across a line no further than the edge itself goes);
- crossed: the sheet reaches the line through the paper next to it (the margin the colour match
  leaves out by each line), CROSS_MM at most, every margin pixel on the way darkened by the
  sheet's luma transmission; then ONTO_STEPS pixels into the line, dark too.  Hue spread past
  an edge is not dark: the luma stops it where the sheet stops.  "Dark" is judged after taking
  out what the photo shows on uncovered lines, per shade of the drawing (_luma_bias): a phone's
  tone curve, a line printed wider or lying a fraction of a pixel off darken a margin too.

The hue test takes out the hue of other expeditions' colour seen on the paper right beside a
pixel (their sheets may lie on the line too).
"""

from __future__ import annotations

import cv2
import numpy as np

from .colourmasks import EXPEDITIONS
from .coverage_layout import Layout
from .maskparts import _bbox

TINT_SHARE = 0.5  # a line pixel takes a sheet's colour when it shows this share of its hue
LUMA_SHARE = 0.5  # ... and, on the crossing route, this share of its darkening (log luma)
NEAR_MM = 1.5  # another expedition's colour this close to a line pixel is taken to lie on it too
BRIDGE_MM = 1.5  # closes margin + line + margin (about 2.3 mm) and the hub where three lines meet
CROSS_MM = 1.0  # the margin by a line is 0.67 mm wide, plus the drawing's antialiased edge
LUMA_BIAS = True  # take out the luma by the lines that no sheet explains (_luma_bias)
ONTO_STEPS = 2  # px into the line from a margin reached (the line's middle at 3 px/mm)
# The four expeditions' colour carried onto the lines side by side on the adjudication's pool when
# coverage gives it one (coverage.ROW_BANDS): each reads the shared inputs and makes its own mask,
# the same masks.  Session 39 (s39h5).
EXPEDITIONS_SIDE_BY_SIDE = True
# luma weights (ITU-R BT.601, as JPEG): the channel mix JPEG keeps at full resolution
LUMA = np.array([0.299, 0.587, 0.114], np.float32)


def onto_lines(L: np.ndarray, line_px: np.ndarray, masks_on_paper, lay: Layout, cols, ppm: float,
               ref_bins: np.ndarray | None = None, shown=None, side_by_side=None) -> dict:
    """Per expedition its colour on paper (``masks_on_paper``) plus the line pixels it covers.

    ``L``: the log-transmission (h x w x 3, the drawn reference and the light divided out);
    ``line_px``: the seen pixels off the plain paper (printed lines and the margin beside them);
    ``ref_bins``: grey_bins of the drawn reference, to measure how far off it is by the lines;
    ``shown``: every colour the photo shows on paper, per expedition (default ``masks_on_paper``;
    more where colour was taken out as no sheet's), for the other colours' hue near a line and the
    lines' luma where no colour is near.  ``side_by_side``: ``f(fn, items)`` -> ``[fn(*item) for
    item in items]`` run side by side (coverage_bands.Bands.each): the four expeditions so
    (EXPEDITIONS_SIDE_BY_SIDE).
    """
    shown = masks_on_paper if shown is None else shown
    tints = np.log(np.clip(np.asarray([cols[e] for e in EXPEDITIONS], np.float64) / 255.0, 1e-3, 1.0))
    # a sheet's luma transmission: the darkening a pixel under it shows at full resolution
    sheet_luma = np.log(np.exp(tints) @ LUMA.astype(np.float64))
    tints -= tints.mean(-1, keepdims=True)
    norm2 = (tints * tints).sum(1)
    # the tints have no grey part, so hue . tint = log-transmission . tint: one linear map gives
    # every expedition's share of its own hue
    proj = (tints / norm2[:, None]).astype(np.float32)
    gram = (tints @ tints.T) / norm2[None, :]  # [o, i]: tint o's share of tint i's hue
    rn = int(round(NEAR_MM * ppm))
    kn = np.ones((rn * 2 + 1,) * 2, np.uint8)
    rb = int(round(BRIDGE_MM * ppm))
    cross = int(np.ceil(CROSS_MM * ppm - 1e-6))
    reach_px = cross + ONTO_STEPS
    reach = max(rb, reach_px)
    # cross and square steps in turn: an octagon, near enough a disc
    steps = (cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3)), np.ones((3, 3), np.uint8))
    margin = line_px & ~lay.printed
    present = [e for e in EXPEDITIONS if masks_on_paper[e].any()]
    near_colour = [e for e in EXPEDITIONS if shown[e].any()]
    bias = None if ref_bins is None or not LUMA_BIAS else _luma_bias(L, line_px, shown, ref_bins, ppm)

    def one(i: int, e: str) -> np.ndarray:
        """Expedition ``e``'s (number ``i``) colour carried onto the lines: reads the shared inputs
        only, so the four can run side by side (EXPEDITIONS_SIDE_BY_SIDE)."""
        out_e = np.zeros(lay.shape, bool)
        if e not in present:
            return out_e
        # the colour where measured, worked out in the box round the colour (the rest is empty)
        outer = _bbox(masks_on_paper[e].view(np.uint8), 0)
        if outer is None:
            return out_e
        osl = np.s_[outer[0]:outer[1], outer[2]:outer[3]]
        m = np.zeros(lay.shape, np.uint8)
        m[osl] = (masks_on_paper[e][osl] & lay.measured[osl]).view(np.uint8)
        box_ = _bbox(m, reach + 2)
        if box_ is None:
            return out_e
        # all the work in the box round this colour: the line pixels it may reach lie there
        sl = np.s_[box_[0]:box_[1], box_[2]:box_[3]]
        Ls = L[sl]
        own = cv2.transform(Ls, proj[i:i + 1])
        for j, o in enumerate(EXPEDITIONS):
            if o != e and o in near_colour:
                # the other colour grown by NEAR_MM, from a box that reaches rn past this one
                y0, y1, x0, x1 = box_
                Y0, Y1, X0, X1 = max(0, y0 - rn), min(lay.shape[0], y1 + rn), max(0, x0 - rn), min(lay.shape[1], x1 + rn)
                nb = cv2.dilate(shown[o][Y0:Y1, X0:X1].view(np.uint8), kn)[y0 - Y0:y1 - Y0, x0 - X0:x1 - X0]
                cv2.subtract(own, float(gram[j, i]), dst=own, mask=nb)  # masked: no float copy of nb
        mm = m[sl]
        tinted = (own > TINT_SHARE) & line_px[sl]
        bridged = _closed(mm, rb, steps).view(bool) & tinted
        # darkened by a sheet: asked only where the hue says so, within reach and not bridged (few pixels)
        near = cv2.dilate(mm, np.ones((2 * reach_px + 1,) * 2, np.uint8)).view(bool)
        # (row-major, as np.nonzero: cv2 scans several times faster)
        pts = cv2.findNonZero((tinted & near & ~bridged).view(np.uint8))
        ys, xs = (pts[:, 0, 1], pts[:, 0, 0]) if pts is not None else (np.empty(0, np.intp),) * 2
        limit = np.float32(np.exp(LUMA_SHARE * sheet_luma[i]))
        if bias is not None:
            limit = limit * bias[ref_bins[sl][ys, xs]]
        dark = np.zeros(tinted.shape, bool)
        dark[ys, xs] = np.exp(Ls[ys, xs]) @ LUMA < limit
        mg = margin[sl]
        passable = (tinted & mg & (dark | bridged)).view(np.uint8) | mm
        r = mm
        for n in range(cross):
            r = cv2.dilate(r, steps[n % 2]) & passable
        onto = r & mg.view(np.uint8)
        lined = (tinted & dark & ~mg).view(np.uint8)
        for n in range(ONTO_STEPS):
            onto = cv2.dilate(onto, steps[(n + 1) % 2]) & (lined | onto)
        out_e[sl] = r.view(bool) | bridged | (onto.view(bool) & ~mg)
        return out_e

    each = list(enumerate(EXPEDITIONS))
    done = side_by_side(one, each) if side_by_side is not None and EXPEDITIONS_SIDE_BY_SIDE else [one(*x) for x in each]
    return {e: m for (_, e), m in zip(each, done)}


def _closed(mask: np.ndarray, r: int, steps) -> np.ndarray:
    """A closing by an octagon of radius ``r`` (cross and square steps in turn: near enough a
    disc, and far cheaper than a disc kernel)."""
    out = mask
    for n in range(r):
        out = cv2.dilate(out, steps[n % 2])
    for n in range(r):
        out = cv2.erode(out, steps[n % 2])
    return out


BIAS_BINS = 16  # of the drawing's log grey, from GREY_FLOOR to the paper's white
GREY_FLOOR = -3.0  # log grey of the darkest drawn line, softened (the bins below it are merged)
BIAS_CLEAR_MM = 2.0  # line pixels this far from any colour seen on paper: no sheet on them
BIAS_MIN = 100  # samples per bin to say anything
BIAS_STEP = 4  # sampled every this many pixels each way (1.3 mm at 3 px/mm): plenty for a median per bin


def grey_bins(log_ref: np.ndarray) -> np.ndarray:
    """Each pixel's bin of the drawing's log grey (uint8), for _luma_bias."""
    g = cv2.transform(log_ref, np.full((1, 3), 1 / 3, np.float32))
    return np.clip((g - GREY_FLOOR) * (BIAS_BINS / -GREY_FLOOR), 0, BIAS_BINS - 1).astype(np.uint8)


def _luma_bias(L, line_px, masks_on_paper, bins, ppm) -> np.ndarray | None:
    """Per bin of the drawing's grey (``bins``: grey_bins), the luma the photo shows on uncovered
    lines and their margins, as a share of the drawing's; None when too few are seen.

    Next to a line the drawing and the photo differ in ways that have nothing to do with sheets: a
    phone's tone curve bends dark and middle greys, the photo's line may be wider or softer than
    drawn, or lie a fraction of a pixel off.  Measured on the lines no sheet lies near, per shade
    of the drawing, and taken out before asking whether a sheet darkens a pixel."""
    st = BIAS_STEP
    anywhere = np.zeros(line_px[::st, ::st].shape, np.uint8)
    for m in masks_on_paper.values():
        anywhere |= m[::st, ::st].view(np.uint8)
    k = 2 * int(round(BIAS_CLEAR_MM * ppm / st)) + 1
    sel = line_px[::st, ::st] & ~cv2.dilate(anywhere, np.ones((k, k), np.uint8)).view(bool)
    b = bins[::st, ::st][sel]
    if len(b) < BIAS_MIN * 4:
        return None
    luma = np.exp(np.compress(sel.ravel(), L[::st, ::st].reshape(-1, 3), axis=0)) @ LUMA  # (boolean indexing: 4x the cost)
    # medians from a histogram per bin (levels of 1 % of the paper's luma): no sorting
    q = np.minimum((luma * 100).astype(np.int32), 299)
    hist = np.bincount(b.astype(np.int32) * 300 + q, minlength=BIAS_BINS * 300).reshape(BIAS_BINS, 300)
    counts = hist.sum(1)
    below = np.cumsum(hist, 1) < (counts[:, None] + 1) // 2
    out = np.ones(BIAS_BINS, np.float32)
    ok = counts >= BIAS_MIN
    out[ok] = (below.sum(1)[ok] + 0.5) / 100
    return out  # a factor of the linear luma
