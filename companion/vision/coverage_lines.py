"""Each expedition's colour seen on paper carried onto the printed hex lines it really covers.

A hex counts as covered when a sheet lies on any part of it *or its border lines*, so a sheet whose
edge stops a millimetre short of a line must leave the line (and the hex beyond it) alone.  On the
lines themselves the light is too dim and the drawing too rough for the full colour match, and a
photo's colour is blurry: JPEG and phones keep colour at half resolution, an upscaled sensor blurs
it more, so a sheet's hue spreads about 1 mm past its edge, onto a line it does not reach.  Its
brightness (luma, Y) is kept at full resolution.  So a line pixel takes a sheet's colour by one of
two routes, each asking for the sheet's hue *and* a sheet's darkening where the hue alone misleads:

- bridged: the sheet's colour lies on the paper on both sides of the line (a closing of the colour
  by a disc of BRIDGE_MM: a sheet is a polygon with straight edges, and a closing extends a
  straight edge across a line no further than the edge itself goes);
- crossed: the sheet reaches the line through the paper next to it (the margin the colour match
  leaves out by each line), CROSS_MM at most, every margin pixel on the way darkened by the
  sheet's luma transmission; then ONTO_STEPS pixels into the line, dark too.  Hue spread past
  an edge is not dark: the luma stops it where the sheet stops.

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
ONTO_STEPS = 2  # px into the line from a margin reached (the line's middle at 3 px/mm)
# luma weights (ITU-R BT.601, as JPEG): the channel mix JPEG keeps at full resolution
LUMA = np.array([0.299, 0.587, 0.114], np.float32)


def onto_lines(L: np.ndarray, line_px: np.ndarray, masks_on_paper, lay: Layout, cols, ppm: float) -> dict:
    """Per expedition its colour on paper (``masks_on_paper``) plus the line pixels it covers.

    ``L``: the log-transmission (h x w x 3, the drawn reference and the light divided out);
    ``line_px``: the seen pixels off the plain paper (printed lines and the margin beside them).
    """
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
    bridge_disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rb + 1, 2 * rb + 1))
    cross = int(np.ceil(CROSS_MM * ppm - 1e-6))
    reach = max(rb, cross + ONTO_STEPS)
    # cross and square steps in turn: an octagon, near enough a disc
    steps = (cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3)), np.ones((3, 3), np.uint8))
    margin = line_px & ~lay.printed
    present = [e for e in EXPEDITIONS if masks_on_paper[e].any()]
    out = {}
    for i, e in enumerate(EXPEDITIONS):
        out[e] = np.zeros(lay.shape, bool)
        if e not in present:
            continue
        m = (masks_on_paper[e] & lay.measured).view(np.uint8)
        box_ = _bbox(m, reach + 2)
        if box_ is None:
            continue
        # all the work in the box round this colour: the line pixels it may reach lie there
        sl = np.s_[box_[0]:box_[1], box_[2]:box_[3]]
        Ls = L[sl]
        own = cv2.transform(Ls, proj[i:i + 1])
        for j, o in enumerate(EXPEDITIONS):
            if o != e and o in present:
                # the other colour grown by NEAR_MM, from a box that reaches rn past this one
                y0, y1, x0, x1 = box_
                Y0, Y1, X0, X1 = max(0, y0 - rn), min(lay.shape[0], y1 + rn), max(0, x0 - rn), min(lay.shape[1], x1 + rn)
                nb = cv2.dilate(masks_on_paper[o][Y0:Y1, X0:X1].view(np.uint8), kn)[y0 - Y0:y1 - Y0, x0 - X0:x1 - X0]
                own -= nb * np.float32(gram[j, i])
        mm = m[sl]
        tinted = (own > TINT_SHARE) & line_px[sl]
        dark = cv2.transform(cv2.exp(Ls), LUMA[None]) < np.float32(np.exp(LUMA_SHARE * sheet_luma[i]))
        mg = margin[sl]
        bridged = cv2.morphologyEx(mm, cv2.MORPH_CLOSE, bridge_disc).view(bool) & tinted
        passable = (tinted & mg & dark).view(np.uint8) | mm
        r = mm
        for n in range(cross):
            r = cv2.dilate(r, steps[n % 2]) & passable
        onto = r & mg.view(np.uint8)
        lined = (tinted & dark & ~mg).view(np.uint8)
        for n in range(ONTO_STEPS):
            onto = cv2.dilate(onto, steps[(n + 1) % 2]) & (lined | onto)
        out[e][sl] = r.view(bool) | bridged | (onto.view(bool) & ~mg)
    return out
