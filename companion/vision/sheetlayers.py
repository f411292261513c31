"""Where two of one expedition's sheets overlap: the colour mask merges them, the photo does not.

A sheet is a coloured filter, and filters multiply: under two sheets of one expedition the light
has passed the same filter twice, so its log-transmission is twice one sheet's.  Coverage's colour
mask says only "this expedition's colour"; the darker overlap is read here from the photo itself,
on the fitter's fine grid, so the fitter can explain a merged blob as two sheets (each explains
one layer; the overlap's second layer is left to the other).

Each pixel's log colour against the drawn board (the paper or the loch's print under it), with the
grey part taken out (shade and light's brightness scale all channels alike) and the light's tint
(the median of the loch's paper) too, is projected on the expedition's own colour (likewise grey
free): ``r`` = how many layers of that colour it looks like.  The photo's print run and camera
move one layer's ``r`` off 1, so one layer's level is this photo's own: the median ``r`` of the
expedition's pixels that read as one layer or less.  A pixel is a second layer only when its ``r``
is at least ``DOUBLE_RATIO`` times that level and what the projection leaves (another hue, glare,
an edge's mixed colour) is small; specks are dropped.  A pixel missed here is only what the fitter
had before (one layer); a pixel wrongly read as double may grow a sheet that is not there, so the
tests are strict.

Pure numpy/OpenCV; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

DOUBLE_RATIO = 1.5  # one layer's r ~1 (5-95 %: 0.5-1.2 on renders), two layers' ~1.7-2.0
MAX_RATIO = 2.6  # more than this is not two layers of this colour (a darker hue, a shadow's colour)
ONE_LAYER_BAND = (0.4, 1.35)  # r of the pixels that set one layer's level (relative to the profile)
MAX_OFF_AXIS = 0.12  # log units: colour the projection leaves (another hue mixed in) -- larger is not pure
MIN_LAYER_PX = 200  # fewer one-layer pixels than this (50 mm^2): no level, no overlap read
MIN_DOUBLE_MM2 = 12.0  # a smaller patch of second layer is noise or an edge
OPEN_MM = 1.0  # the second layer is opened by this (edges blur one layer into two)
TOO_DARK = 12  # 8-bit channel values under this (as sheetland's)
MIN_COLOUR = 0.99  # fine pixels wholly of the colour only (an edge's pixel mixes paper in)
# A second layer's purity judged against the photo's own one layer.  A second layer is the first
# one's colour twice; in a photo whose one layer sits a little off the colour's axis (the print
# run, a tint the paper's median does not take out) two layers sit twice as far off it
# (development 549 as rendered: an American cage on its own sheet read 2.0 layers but 0.20 log
# off the axis, past MAX_OFF_AXIS, so its darker hexagon was never a second layer).  On: the
# off-axis part of a pixel that may be a second layer is measured from the line of the median
# colour of the pixels read as one layer; how many layers it reads (r, the level) and the
# one-layer pixels are read as before.  Off: from the colour's axis.  Measured (session 27,
# development 500-579 + 600-639, 1,145 sheets; right / wrong types / typed extras): as rendered
# 1,091 / 5 / 6 -> 1,094 / 5 / 5, first phone 1,035 / 8 / 12 -> 1,036 / 9 / 12 (621: a wrong type
# more; 559 a typed extra more, 560 one fewer), second phone 1,060 / 7 / 7 -> 1,060 / 6 / 7;
# coverage identical.  Check set 9200-9239 (357): 340 / 1 / 1 -> 341 / 1 / 1, 325 / 1 / 4 -> 324 /
# 1 / 3, 334 / 0 / 0 -> 333 / 1 / 1 (docs/board-vision.md, twentieth round, part 1).  The lead's
# held-out photos 69144-69335 (1,734 sheets a variant, three variants): right +4 (5 sheets gained on
# 69173, 69182, 69280, 69328, one lost on 69151), wrong types -1 (69306, 69182 gone; 69151 new),
# typed extras **+3** (69146, 69194 first phone, 69268 as rendered); coverage identical.  A typed
# extra is worse than a missed sheet and the check set lost a right sheet: merged switched OFF.
PHOTO_AXIS = False


@dataclass(frozen=True)
class PhotoColour:
    """The photo on the fitter's fine grid, for reading overlaps (its colour is worked out only
    for the pixels an expedition asks about: the whole grid would cost more than the fit)."""

    warped: np.ndarray  # (h, w, 3) uint8 BGR
    valid: np.ndarray  # bool: plain paper in the photo's view, not too dark to read
    log_reference: np.ndarray  # (h, w, 3) float32: the drawn board's log colour, BGR
    colours: dict  # expedition -> its sheet colour (RGB, 0..255) as the photo was judged with
    tint: list = field(default_factory=list)  # the light's tint, once worked out (see ``chroma``)

    def chroma(self, ys: np.ndarray, xs: np.ndarray, px: np.ndarray | None = None) -> np.ndarray:
        """(n, 3) log colour at the pixels against the drawn board's, grey and the light's tint
        taken out (the tint: most of the loch's paper is bare, so the median of it is the paper's).
        ``px``: the photo's pixels there, when the caller has them already."""
        if not self.tint:
            vy, vx = np.nonzero(self.valid[::7, ::7])
            self.tint.append(np.median(self._grey_free(vy * 7, vx * 7), axis=0) if len(vy) else np.zeros(3, np.float32))
        return self._grey_free(ys, xs, px) - self.tint[0]

    def _grey_free(self, ys, xs, px=None) -> np.ndarray:
        # rows of the flattened images by flat index: numpy's two-array indexing of an (h, w, 3)
        # array costs several times as much for the same values
        at = ys * self.warped.shape[1] + xs
        if px is None:
            px = np.take(self.warped.reshape(-1, 3), at, axis=0)
        L = _LOG8[px] - np.take(self.log_reference.reshape(-1, 3), at, axis=0)
        return L - _channel_mean(L)[:, None]


_LOG8 = np.log(np.maximum(np.arange(256, dtype=np.float64), 0.5) / 255.0).astype(np.float32)
_REFERENCE: dict = {}


# Per-pixel sums over the three channels of (n, 3) arrays, as sums of columns: numpy reduces a
# last axis of three ten times slower (0.7 ms against 0.05 for 30,000 pixels).  The same numbers:
# numpy adds the channels in this order too ((c0 + c1) + c2), then divides or takes the root.
def _channel_mean(a: np.ndarray) -> np.ndarray:
    """``a.mean(1)`` of an (n, 3) float32 array."""
    return (a[:, 0] + a[:, 1] + a[:, 2]) / np.float32(3)


def _channel_norm(a: np.ndarray) -> np.ndarray:
    """``np.linalg.norm(a, axis=1)`` of an (n, 3) float32 array."""
    return np.sqrt(a[:, 0] * a[:, 0] + a[:, 1] * a[:, 1] + a[:, 2] * a[:, 2])


def _reference(lay, shape) -> tuple[np.ndarray, np.ndarray]:
    """(the drawn board's log colour, BGR, on the grid of ``shape``; its plain paper there), per layout."""
    key = (id(lay), shape)
    got = _REFERENCE.get(key)
    if got is None:
        h, w = shape
        ref = cv2.resize(lay.reference[:, :, ::-1].astype(np.float32), (w, h), interpolation=cv2.INTER_AREA)
        paper = cv2.resize(lay.paper.view(np.uint8), (w, h), interpolation=cv2.INTER_AREA) >= 1
        got = _REFERENCE[key] = (np.log(np.maximum(ref, 1e-3)), paper)
    return got


def photo_colour(warped_bgr: np.ndarray, inside: np.ndarray, lay, colours: dict) -> PhotoColour:
    """``warped_bgr``: the photo resampled on the fine grid (uint8); ``inside``: where it is in view."""
    ref, paper = _reference(lay, warped_bgr.shape[:2])
    return PhotoColour(warped_bgr, paper & inside, ref, colours)


def _axis(colour) -> np.ndarray:
    """An expedition's one-layer log colour, BGR, grey taken out."""
    c = np.log(np.maximum(np.asarray(colour, np.float32)[::-1], 0.5) / 255)
    return c - c.mean()


def _pure_along(L: np.ndarray, one: np.ndarray) -> np.ndarray:
    """Pixels (chroma ``L``, n x 3) under MAX_OFF_AXIS off the line of the photo's one-layer
    colour ``one`` (PHOTO_AXIS)."""
    r = L @ one / float(one @ one)
    return _channel_norm(L - r[:, None] * one) <= MAX_OFF_AXIS


def second_layer(photo: PhotoColour, expedition: str, colour_share: np.ndarray, r0: int, c0: int,
                 ppm: float) -> np.ndarray | None:
    """The share of each pixel of a window of the fine grid (``colour_share``: this expedition's
    colour there; the window's corner at row ``r0``, column ``c0`` of the grid) under a second
    layer of this expedition's colour; None when none is read."""
    return layers(photo, expedition, colour_share, r0, c0, ppm, single=False)[0]


def layers(photo: PhotoColour, expedition: str, colour_share: np.ndarray, r0: int, c0: int,
           ppm: float, single: bool = True) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(``second_layer``'s answer; with ``single``, the pixels of the window read as plainly one
    layer -- pure colour in the one-layer band, under ``DOUBLE_RATIO`` times the level -- as a
    bool mask, or None when no level is read)."""
    h, w = colour_share.shape
    H, W = photo.valid.shape
    hh, ww = max(min(h, H - r0), 0), max(min(w, W - c0), 0)
    if not hh or not ww:
        return None, None
    sel = (colour_share[:hh, :ww] >= MIN_COLOUR) & photo.valid[r0:r0 + hh, c0:c0 + ww]
    # the pixels in row-major order, as np.nonzero gives them (cv2 scans several times faster)
    pts = cv2.findNonZero(sel.view(np.uint8))
    if pts is None:
        return None, None
    xs, ys = pts.reshape(-1, 2).T
    px = np.take(photo.warped.reshape(-1, 3), (ys + r0) * W + (xs + c0), axis=0)
    # darker: too dark to read a colour (the channels' minimum column by column: see _channel_mean)
    bright = np.minimum(np.minimum(px[:, 0], px[:, 1]), px[:, 2]) >= TOO_DARK
    ys, xs, px = ys[bright], xs[bright], px[bright]
    if len(ys) < MIN_LAYER_PX:
        return None, None
    axis = _axis(photo.colours[expedition])
    L = photo.chroma(ys + r0, xs + c0, px)
    r = L @ axis / float(axis @ axis)
    off = _channel_norm(L - r[:, None] * axis)
    pure = off <= MAX_OFF_AXIS
    one = pure & (r >= ONE_LAYER_BAND[0]) & (r <= ONE_LAYER_BAND[1])
    if np.count_nonzero(one) < MIN_LAYER_PX:
        return None, None
    level = float(np.median(r[one]))
    if PHOTO_AXIS:
        pure = _pure_along(L, np.median(L[one], axis=0))
    two = pure & (r >= DOUBLE_RATIO * level) & (r <= MAX_RATIO * level)
    one_layer = None
    if single:
        one_layer = np.zeros((h, w), bool)
        one_layer[ys[one & ~two], xs[one & ~two]] = True
    if not two.any():
        return None, one_layer
    m = np.zeros((h, w), np.uint8)
    m[ys[two], xs[two]] = 1
    k = int(round(OPEN_MM * ppm)) * 2 + 1
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    keep = stats[:, cv2.CC_STAT_AREA] >= MIN_DOUBLE_MM2 * ppm * ppm
    keep[0] = False
    if not keep[1:].any():
        return None, one_layer
    return keep[labels].astype(np.float32), one_layer
