"""Colour that runs to the shore: its reach beyond the shore line cannot be seen.

Coverage judges only the hexes' regions and the paper: the land round the loch is not looked at.
A sheet lying on the land may come back across the shore line into a shore hex (its tip crossing
the hex's corner from the land side), with no colour anywhere on that hex's paper beside it: the
colour seen on the next hex, run up to the shore line, is all that shows it.  So where a colour
runs to the unjudged land, the shore line within reach of it is doubtful for that expedition (its
hexes left undecided unless they show the colour).  It only ever turns decisions into undecided.
"""
from __future__ import annotations

import cv2
import numpy as np

from .coverage_layout import Layout
from .maskparts import _grown

SHORE_DOUBT = True
# colour this close to the unjudged land runs to the shore: across the shore line (about 1 mm, the
# region's edge) and the paper's margin and blur beside it (43001: 2.2 mm)
SHORE_TOUCH_MM = 2.5
SHORE_LINE_MM = 1.5  # a hex's pixels this close to the unjudged land are its shore line
# how far along the shore a sheet's unseen part may come back into a hex: second phone seed 43001's
# yellow sheet was seen 3.1 mm from the corner of the hex (C5a) its tip crossed from the land.  At
# 4.0 unknown where visible rose 0.21-0.23 points on the two as-rendered sets (over the +0.2 allowed)
SHORE_REACH_MM = 3.5
# gaps between the regions of two hexes (the middle of a shared line) narrower than this are not land
GAP_MM = 2.5

_cache: dict = {}


def _shore(lay: Layout) -> tuple[np.ndarray, np.ndarray]:
    """(pixels within SHORE_TOUCH_MM of the unjudged land, the hexes' pixels within a line of it), per layout."""
    key = id(lay)
    hit = _cache.get(key)
    if hit is not None and hit[0] is lay:
        return hit[1], hit[2]
    h, w = lay.shape
    judged = np.zeros(h * w, np.uint8)
    judged[lay.index] = 1
    judged = judged.reshape(h, w)
    in_hex = judged > 0
    judged |= lay.paper.view(np.uint8)
    ko = int(round(GAP_MM * lay.ppm)) | 1
    outside = cv2.morphologyEx(1 - judged, cv2.MORPH_OPEN, np.ones((ko, ko), np.uint8))
    kt = 2 * int(round(SHORE_TOUCH_MM * lay.ppm)) + 1
    touch = cv2.dilate(outside, np.ones((kt, kt), np.uint8)) > 0
    kl = 2 * int(round(SHORE_LINE_MM * lay.ppm)) + 1
    line = (cv2.dilate(outside, np.ones((kl, kl), np.uint8)) > 0) & in_hex
    _cache.clear()
    _cache[key] = (lay, touch, line)
    return touch, line


def shore_doubt(lay: Layout, colour: np.ndarray) -> np.ndarray | None:
    """The hexes' pixels on the shore line within SHORE_REACH_MM of ``colour`` (bool, the layout's
    grid) that runs to the unjudged land, less the colour itself; or None."""
    if not SHORE_DOUBT:
        return None
    touch, line = _shore(lay)
    runs = colour & touch
    if not runs.any():
        return None
    kr = 2 * int(round(SHORE_REACH_MM * lay.ppm)) + 1
    doubt = _grown(runs, np.ones((kr, kr), np.uint8)) & line & ~colour
    return doubt if doubt.any() else None
