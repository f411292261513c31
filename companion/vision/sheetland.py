"""The land round the loch, measured for sheet fitting: which sheets' colour lies on it, and where it is plain.

Coverage judges the loch; the 16 mm of land round it (layout margin) was never measured, so to the
fitter it was unseen: a pointed sheet's tip running on up the bank, or a bigger shape spilling
over the shore, explained a shore-side patch of colour as well as the sheet that really ends at
the shore (a cage in a shore hex, a sonar by the loch's end).  The rulebook puts pointed sheets'
points on the shore, so sheets do reach onto the land, and plain land beside a patch of colour
says where the sheet ends.

The land is judged on its own terms: against the plain land's colour in this photo (the median hue
of its pixels and their median brightness: sheets cover a small part of the land and change its
hue; the light and shade change its brightness, which the grey term takes; a per-cell light
envelope failed where a sheet lay over 40 mm of the land past a loch's end).  What a pixel passes
against it is matched with no sheet, one sheet of each expedition, or two of different
expeditions, each with a grey term for shade.  A pixel nothing explains well (a printed track,
glare, a hand, an edge's mixed colour, a print unlike the drawing) stays unseen, as all the land
was before: this only ever adds evidence the fitter can trust.  Colour on the land counts only
when it joins colour of its expedition in the loch (a sheet lies on the loch; colour on the land
alone is something else).

Pure numpy/OpenCV; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from .colour_adapt import GAINS
from .colourmasks import EXPEDITIONS
from .registration import board_maps
from .sheetlayers import photo_colour

LAND_PPM = 2.0  # the fitter's fine grid (sheetfit.FINE_PPM): measured straight onto it
SHORE_CLEAR_MM = 2.0  # land this close to a printed line (the shore's own line) is not judged: a photo's colour
# is blurred there (half-resolution chroma spreads a sheet's hue ~1 mm past its edge, the line's blur
# reaches as far), and a point laid a few mm up the bank shows as a sliver that reads as plain land
# (1 mm: 17 wrong types on the 1,492 development sheets, 2 mm: 10; 1,422 and 1,424 named right)
MIN_LAND_PX = 2000  # less land in view than this (500 mm^2): nothing measured
GREY_LO, GREY_HI = -0.7, 0.15  # the grey (shade) term's range, log units (coverage's is alike)
# a pixel's best explanation must leave at most this squared log residual (summed over the three
# channels; ~0.1 per channel): JPEG noise and a phone's colour leave less, an edge's mixed colour,
# a printed mark or a hand more
MAX_RESIDUAL = 0.03
# and beat plain land by this much (squared log): a faint tint over shaded land is not a sheet
MIN_LEAD = 0.04
MIN_BLOB_MM2 = 2.0  # smaller colour specks on the land are noise
JOIN_MM = 6.0  # land colour counts when within this of its expedition's colour in the loch (the shore line
# and the unjudged margins either side of it, ~4.5 mm, lie between; at 3 mm a sonar lying over the land past
# the loch's end stayed cut off)
TOO_DARK = 12  # 8-bit channel values under this are too dark to judge
LAYERS = True  # also read the loch's photo colour for overlaps of one expedition's sheets (sheetlayers.py)
# A phone's tone curve compresses the land's log-contrast as it does the loch's, but the land is
# measured against the plain land's own colour, in the photo's units: a sheet over the land reads
# paler than the profile's colour and past MAX_RESIDUAL, so the land beside it is unseen and the fitter
# sees only the sheet's loch part (development through the second phone, whose shadow lift brightens
# the land from (125, 153, 137) to (185, 184, 174): 7 of the 38 sheets named right as rendered and
# lost through it lay over the land past a loch's end, the land coloured under 0.00-0.31 of each
# against 0.73-0.95 as rendered).  On (with_tone_gain): when coverage measured a tone gain g on the
# loch, the land is read again at each gain from 1 to g on colour_adapt's grid of gains, and the gain
# under which most land pixels read as some sheet's colour is kept (1: the reading as before; no
# new constant).  Not g itself: the curve's slope differs at the land's darker level (six of those
# sheets matched their colour best at 1.2-1.6 where the loch's g was 1.45-1.75, 618's at 1.8-2.0 by
# a g of 1.75).  Off: the land read at gain 1 only, as before.
LAND_TONE_GAIN = True


@dataclass(frozen=True)
class LandMeasure:
    """On the fitter's fine grid (``LAND_PPM``, from the layout's corner): per expedition its
    colour on the land, and the land seen (plain, or explained by some sheet's colour)."""

    colour: dict  # expedition -> bool mask
    seen: np.ndarray  # bool mask
    ppm: float
    photo: object = None  # sheetlayers.PhotoColour of the loch on the same grid (overlaps of one colour)
    # the land's pixels (log against the plain land's colour, usable, where on the grid), the
    # colours and how many pixels read as a sheet's colour: kept for a reading at another gain
    # (with_tone_gain)
    pixels: tuple | None = field(default=None, repr=False, compare=False)
    gain: float = 1.0  # the gain the land was read at (with_tone_gain)


_REGIONS: dict = {}


def land_region(lay, shore, ppm: float = LAND_PPM) -> np.ndarray:
    """Plain land on a grid at ``ppm`` over the layout: outside the loch, drawn in the land's own
    colour, at least ``SHORE_CLEAR_MM`` from any other drawing (the shore line, tracks)."""
    key = (id(lay), ppm)
    if key not in _REGIONS:
        k = lay.ppm / ppm
        h, w = int(round(lay.shape[0] / k)), int(round(lay.shape[1] / k))
        ref = cv2.resize(lay.reference, (w, h), interpolation=cv2.INTER_AREA)
        inside = np.zeros((h, w), np.uint8)
        pts = (np.asarray(shore, float) - [lay.x0, lay.y0]) * ppm - 0.5
        cv2.fillPoly(inside, [np.round(pts * 16).astype(np.int32)], 1, shift=4)
        outside = inside == 0
        land_colour = np.median(ref[outside], axis=0)
        like = (np.abs(ref - land_colour).max(-1) < 0.06) & outside
        r = int(math.ceil(SHORE_CLEAR_MM * ppm))
        like = cv2.erode(like.view(np.uint8), np.ones((2 * r + 1, 2 * r + 1), np.uint8)) > 0
        ys, xs = np.nonzero(like)
        flat = np.flatnonzero(like)
        for a in (like, ys, xs, flat):
            a.flags.writeable = False
        _REGIONS[key] = (like, ys, xs, flat)
    return _REGIONS[key]


def _sheet_logs(cols: dict):
    """Log-transmissions (BGR order) of each expedition's sheet and of each pair of two
    expeditions' sheets, and the expeditions in each."""
    t = [np.log(np.clip(np.asarray(cols[e], float)[::-1] / 255.0, 1e-3, 1.0)) for e in EXPEDITIONS]
    n = len(EXPEDITIONS)
    members = [(i,) for i in range(n)] + [(i, j) for i in range(n) for j in range(i + 1, n)]
    return np.asarray([sum(t[i] for i in m) for m in members], np.float32), members


def _land_colour(L: np.ndarray) -> np.ndarray:
    """The plain land's colour (log, per channel) from a sample of its pixels: the median hue (each
    channel less the pixel's mean) and the median brightness.  Sheets change the hue and cover a
    small part of the land; light and shade change the brightness, which the grey term takes."""
    s = L[::max(1, len(L) // 5000)]
    mean = s.mean(-1, keepdims=True)
    return (np.median(s - mean, axis=0) + np.median(mean)).astype(np.float32)


def measure_warped(box, warped_bgr: np.ndarray, valid: np.ndarray, lay, colours: dict | None = None) -> LandMeasure:
    """The land measured on the photo already resampled on the layout's grid (any ppm; BGR)."""
    size = (int(round(lay.shape[1] * LAND_PPM / lay.ppm)), int(round(lay.shape[0] * LAND_PPM / lay.ppm)))
    if warped_bgr.shape[1::-1] != size:
        warped_bgr = cv2.resize(warped_bgr, size, interpolation=cv2.INTER_AREA)
        valid = cv2.resize(valid.view(np.uint8), size, interpolation=cv2.INTER_AREA) == 1
    land, ys, xs, flat = land_region(lay, box.loch.shore_outline)
    ok = valid[ys, xs]
    return _classify(warped_bgr[ys[ok], xs[ok]], flat[ok], land.shape, colours or box.sheet_colours)


def measure(photo_bgr: np.ndarray, reg, box, lay, colours: dict | None = None) -> LandMeasure:
    """The land round the loch measured from a registered photo (OpenCV's BGR), straight onto the
    fitter's fine grid."""
    land, ys, xs, flat = land_region(lay, box.loch.shore_outline)
    h, w = land.shape
    # the whole grid is warped (2 ms at 2 px/mm) and the land picked out: cheaper than mapping
    # just the land's points exactly
    mx, my = board_maps(reg, lay.x0, lay.y0, lay.x0 + w / LAND_PPM, lay.y0 + h / LAND_PPM, LAND_PPM)
    warped = cv2.remap(photo_bgr, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    ph, pw = photo_bgr.shape[:2]
    u, v = mx.ravel().take(flat), my.ravel().take(flat)
    ok = (u >= 0) & (u <= pw - 1) & (v >= 0) & (v <= ph - 1)
    px = warped.reshape(-1, 3).take(flat, axis=0)
    if not ok.all():
        px, flat = px[ok], flat[ok]
    cols = colours or box.sheet_colours
    out = _classify(px, flat, land.shape, cols)
    if not LAYERS:
        return out
    inside = (mx >= 0) & (mx <= pw - 1) & (my >= 0) & (my <= ph - 1)
    return replace(out, photo=photo_colour(warped, inside, lay, cols))


_LOG8 = np.log(np.maximum(np.arange(256, dtype=np.float64), 0.5) / 255.0).astype(np.float32)


def _classify(px: np.ndarray, flat: np.ndarray, shape, cols: dict) -> LandMeasure:
    """Each land pixel (``px``: its BGR values, at ``flat`` in the grid of ``shape``) read as
    plain, a sheet's colour or unseen."""
    none = LandMeasure({e: np.zeros(shape, bool) for e in EXPEDITIONS}, np.zeros(shape, bool), LAND_PPM)
    if len(px) < MIN_LAND_PX:
        return none
    L = cv2.LUT(px.reshape(-1, 1, 3), _LOG8).reshape(-1, 3)
    L -= _land_colour(L)  # (n, 3): what each land pixel passes
    ok = np.minimum(np.minimum(px[:, 0], px[:, 1]), px[:, 2]) >= TOO_DARK
    out, n = _read(L, ok, flat, shape, cols)
    return replace(out, pixels=(L, ok, flat, shape, cols, n)) if LAND_TONE_GAIN else out


def with_tone_gain(land: LandMeasure | None, g: float) -> LandMeasure | None:
    """The land read again for a photo whose loch coverage read at tone gain ``g`` (see
    LAND_TONE_GAIN): at each gain from 1 to g, the one under which most land pixels read as a
    sheet's colour kept (the first of equals; 1: ``land`` itself)."""
    if not LAND_TONE_GAIN or land is None or land.pixels is None or g == 1.0:
        return land
    L, ok, flat, shape, cols, best_n = land.pixels
    lo, hi = min(1.0, g), max(1.0, g)
    gains = sorted({round(float(x), 2) for x in GAINS if lo < x < hi} | {float(g)})
    best, best_gain = land, 1.0
    for x in gains:
        out, n = _read(L * np.float32(x), ok, flat, shape, cols)
        if n > best_n:
            best, best_n, best_gain = out, n, x
    return best if best is land else replace(best, photo=land.photo, pixels=land.pixels, gain=best_gain)


def _read(L: np.ndarray, ok: np.ndarray, flat: np.ndarray, shape, cols: dict) -> tuple[LandMeasure, int]:
    """The land's pixels (``L``: log against the plain land, ``ok``: bright enough) read as plain,
    a sheet's colour or unseen; and how many read as a sheet's colour."""
    # plain land first (most of it): shade alone explains it (channel by channel: numpy is slow
    # along a last axis of three)
    c = [np.ascontiguousarray(L[:, i]) for i in range(3)]
    g0 = np.clip((c[0] + c[1] + c[2]) * np.float32(1 / 3), GREY_LO, GREY_HI)
    res0 = (c[0] - g0) ** 2
    res0 += (c[1] - g0) ** 2
    res0 += (c[2] - g0) ** 2
    seen = np.zeros(shape, bool)
    seen.ravel()[flat[ok & (res0 <= MAX_RESIDUAL)]] = True
    # the rest: matched against every sheet and pair of sheets
    rest = np.flatnonzero(ok & (res0 > MIN_LEAD))
    cands, members = _sheet_logs(cols)
    r = L[rest, None, :] - cands[None]  # (n, candidates, 3)
    # the channels' mean and sum column by column: numpy reduces a last axis of three ten times
    # slower; the same numbers (it adds them in this order too)
    g = np.clip((r[..., 0] + r[..., 1] + r[..., 2]) / np.float32(3), GREY_LO, GREY_HI)[..., None]
    d = (r - g) ** 2
    res = d[..., 0] + d[..., 1] + d[..., 2]
    best = res.argmin(1)
    best_res = res[np.arange(len(best)), best]
    coloured = (best_res <= MAX_RESIDUAL) & (res0[rest] - best_res >= MIN_LEAD)
    colour = {}
    for i, e in enumerate(EXPEDITIONS):
        sel = flat[rest[coloured & np.isin(best, [c for c, m in enumerate(members) if i in m])]]
        colour[e] = _without_specks(sel // shape[1], sel % shape[1], shape, MIN_BLOB_MM2 * LAND_PPM ** 2)
        seen |= colour[e]
    return LandMeasure(colour, seen, LAND_PPM), int(np.count_nonzero(coloured))


def _without_specks(ys: np.ndarray, xs: np.ndarray, shape, min_px: float) -> np.ndarray:
    """The pixels as a bool mask, parts smaller than ``min_px`` left out (labelled within their
    bounding box only: the whole grid would cost more than all the rest)."""
    out = np.zeros(shape, bool)
    if not len(ys):
        return out
    y0, x0 = ys.min(), xs.min()
    m = np.zeros((ys.max() - y0 + 1, xs.max() - x0 + 1), np.uint8)
    m[ys - y0, xs - x0] = 1
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    keep = stats[:, cv2.CC_STAT_AREA] >= min_px
    keep[0] = False
    out[y0:y0 + m.shape[0], x0:x0 + m.shape[1]] = keep[labels]
    return out


def joined(land_colour: np.ndarray, loch_colour: np.ndarray) -> np.ndarray:
    """The parts of an expedition's colour on the land (bool) that join its colour in the loch
    (``loch_colour``: shares on the same grid, possibly padded larger): a sheet lies on the loch."""
    h, w = land_colour.shape
    ys, xs = np.nonzero(land_colour.any(1))[0], np.nonzero(land_colour.any(0))[0]
    if not len(ys):
        return land_colour
    r = int(math.ceil(JOIN_MM * LAND_PPM))
    # worked within the land colour's box (grown by the reach): the whole grid costs ten times more
    y0, y1 = max(ys[0] - r, 0), min(ys[-1] + r + 1, h)
    x0, x1 = max(xs[0] - r, 0), min(xs[-1] + r + 1, w)
    lc = np.ascontiguousarray(land_colour[y0:y1, x0:x1])
    ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    near = cv2.dilate((loch_colour[y0:y1, x0:x1] > 0.5).view(np.uint8), ker) > 0
    n, labels = cv2.connectedComponents(lc.view(np.uint8), connectivity=8)
    keep = np.zeros(n, bool)
    keep[np.unique(labels[near & lc])] = True
    keep[0] = False
    out = np.zeros_like(land_colour)
    out[y0:y1, x0:x1] = keep[labels]
    return out
