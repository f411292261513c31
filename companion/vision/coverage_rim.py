"""The rim of each hex's region: a colour touching a hex only there is too shallow to call.

A hex's region is its polygon grown by half the printed line width; a sheet covers the hex when it
reaches past the region's outer edge, and a decision whose sheet edge lies within 0.5 mm of that
edge is too close to call.  A sheet's edge is placed to about a pixel of the work grid (3 px/mm):
its colour is blurred by the lens, kept at half resolution by JPEG and phones, and carried onto
printed lines by rules that cannot be exact (coverage_lines.py).  Colour reaching a hex only on
the region's outer RIM_PX pixel layers (0.67 mm) is as likely a sheet ending 0.5-0.8 mm short of
it as one crossing it, so such a hex is left *undecided* for that expedition, never called
covered.  Measured (coverage.measure on registered renders; errors per counted decision):
harsh light 200 scenes 92 -> 72 errors, glare called covered 1 -> 0; the first phone's seeds
33000-33047 53 -> 26; broad 48 scenes 15 -> 13; unknown where visible up 0.7-0.9 points (a 1 px
rim: 86 and 39 errors, the glare case still wrong).  The price: a sheet's corner pointing into a
hex's vertex shows its colour only that far in (the paper between the vertex's lines is narrow),
so such a hex stays undecided even with the corner 2.5 mm over the line.

The other side of the same edge: through a phone (an upscaled sensor, its blurred luma on the
lines) a sheet reaching 0.1-1 mm into a hex past its border line's middle (0.5-1.4 mm past the
region's edge) often shows its colour only up to a pixel or two short of the region, so the hex
was called uncovered (most of the first phone's misses on dev seeds 52000-52047).  Colour lying on
the SKIRT (coverage.SKIRT_PX layers just outside the region), none on the region, leaves the hex
undecided for that expedition too: never called covered, only not "uncovered".
"""

from __future__ import annotations

import cv2
import numpy as np

from .coverage_layout import Layout

_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
RIM_PX = 2  # pixel layers of the region's rim (0.67 mm at 3 px/mm)


def rim_free_index(lay: Layout, rim_px: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(index, offsets) like ``lay.index`` / ``lay.offsets`` of each hex's region less its rim
    (``rim_px`` layers of 4-neighbours, default RIM_PX), then the same of the rim itself; cached on
    the layout (about 13 ms to build for the house board)."""
    rim_px = RIM_PX if rim_px is None else rim_px
    cache = lay.__dict__.setdefault("_rim_free_by", {})
    got = cache.get(rim_px)
    if got is not None:
        return got
    w = lay.shape[1]
    ends = np.r_[lay.offsets[1:], len(lay.index)]
    inner_all, rim_all = [], []
    for start, end in zip(lay.offsets, ends):
        idx = lay.index[start:end]
        ys, xs = np.divmod(idx, w)
        y0, x0 = ys.min() - 1, xs.min() - 1
        local = np.zeros((ys.max() - y0 + 2, xs.max() - x0 + 2), np.uint8)
        local[ys - y0, xs - x0] = 1
        keep = cv2.erode(local, _CROSS, iterations=rim_px, borderValue=0)[ys - y0, xs - x0] > 0
        if not keep.any():  # a region too thin to have an inside: all of it counts
            keep[:] = True
        inner, rim = idx[keep], idx[~keep]
        inner_all.append(inner)
        rim_all.append(rim if len(rim) else idx[:1])  # never empty: reduceat needs a pixel per hex
    out = tuple(x for parts in (inner_all, rim_all)
                for x in (np.concatenate(parts), np.cumsum([0] + [len(p) for p in parts[:-1]])))
    cache[rim_px] = out
    return out


def deep_any(lay: Layout, hexes: np.ndarray, bits: np.ndarray, bit: int, rim_px: int) -> np.ndarray:
    """For the hexes given (numbers), whether ``bit`` is set anywhere on their region less a rim of
    ``rim_px`` layers."""
    index, offsets = rim_free_index(lay, rim_px)[:2]
    ends = np.r_[offsets[1:], len(index)]
    parts = [index[offsets[h]:ends[h]] for h in hexes]
    first = np.r_[0, np.cumsum([len(p) for p in parts])[:-1]]
    return (np.bitwise_or.reduceat(np.take(bits.reshape(-1), np.concatenate(parts)), first) & bit) > 0


def hex_bits(lay: Layout, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per hex the OR of a bit image over its whole region, and over the region less the rim (two
    passes over disjoint pixels: no dearer than one over the whole region)."""
    index, offsets, rim_index, rim_offsets = rim_free_index(lay)
    flat = bits.reshape(-1)
    deep = np.bitwise_or.reduceat(np.take(flat, index), offsets)  # np.take: a third faster than flat[index]
    return deep | np.bitwise_or.reduceat(np.take(flat, rim_index), rim_offsets), deep


def deep_bits(lay: Layout, bits: np.ndarray) -> np.ndarray:
    """Per hex the OR of a bit image over its region less the rim (see rim_free_index)."""
    index, offsets = rim_free_index(lay)[:2]
    return np.bitwise_or.reduceat(bits.reshape(-1)[index], offsets)


def skirt_index(lay: Layout, skirt_px: int) -> tuple[np.ndarray, np.ndarray]:
    """(index, offsets) like ``lay.index`` / ``lay.offsets`` of the ``skirt_px`` pixel layers
    (4-neighbours) just outside each hex's region; cached on the layout."""
    cache = lay.__dict__.setdefault("_skirt_by", {})
    got = cache.get(skirt_px)
    if got is not None:
        return got
    h, w = lay.shape
    ends = np.r_[lay.offsets[1:], len(lay.index)]
    parts = []
    for start, end in zip(lay.offsets, ends):
        ys, xs = np.divmod(lay.index[start:end], w)
        y0, x0 = ys.min() - skirt_px - 1, xs.min() - skirt_px - 1
        local = np.zeros((ys.max() - y0 + skirt_px + 2, xs.max() - x0 + skirt_px + 2), np.uint8)
        local[ys - y0, xs - x0] = 1
        grown = cv2.dilate(local, _CROSS, iterations=skirt_px)
        sy, sx = np.nonzero(grown & (local == 0))
        sy, sx = sy + y0, sx + x0
        ok = (sy >= 0) & (sy < h) & (sx >= 0) & (sx < w)
        flat = sy[ok] * w + sx[ok]
        parts.append(flat if len(flat) else lay.index[start:start + 1])  # reduceat needs a pixel per hex
    out = np.concatenate(parts), np.cumsum([0] + [len(p) for p in parts[:-1]])
    cache[skirt_px] = out
    return out


def skirt_bits(lay: Layout, bits: np.ndarray, skirt_px: int) -> np.ndarray:
    """Per hex the OR of a bit image over the ``skirt_px`` layers just outside its region."""
    index, offsets = skirt_index(lay, skirt_px)
    return np.bitwise_or.reduceat(np.take(bits.reshape(-1), index), offsets)
