"""What coverage cannot see: hex lines gone (something opaque over the loch), and the unknown
regions reported with their reasons and hexes."""

from __future__ import annotations

import cv2
import numpy as np

from .coverage_layout import Layout
from .maskparts import _bbox, _labelled, nonzero_yx

OCCLUDED_FRACTION = 0.35  # hex lines fainter than this share of their usual contrast: hidden


def _printed8(lay: Layout) -> np.ndarray:
    """The printed lines as a 0/255 mask (cached on the layout)."""
    if getattr(lay, "_printed8", None) is None:
        lay._printed8 = lay.printed.view(np.uint8) * np.uint8(255)
    return lay._printed8


def grey_and_paper(warped: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The photo's grey (mean of the channels, uint8) and its brightest within 4 px (the paper
    beside a line): for _occluded and line_blur.  All in uint8: the channel mean rounds to 8
    bits anyway, and a local maximum minus the pixel is exact in 8 bits."""
    g = cv2.transform(warped, np.full((1, 3), 1 / 3))
    return g, cv2.dilate(g, np.ones((9, 9), np.uint8))


def _occluded(warped: np.ndarray, lay: Layout, valid: np.ndarray, block_mm: float = 8.0,
              grey: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Where the printed hex lines have vanished: something opaque (a hand) lies over the loch.

    A transparency darkens a line and the paper beside it alike, so the line's contrast survives
    under any number of sheets; an opaque object or glare wipes it out.  ``grey``:
    grey_and_paper(warped) when already computed.
    """
    g, bg = grey if grey is not None else grey_and_paper(warped)
    h, w = g.shape
    whole = bool(valid.all())
    line = lay.printed if whole else lay.printed & valid
    line8 = _printed8(lay) if whole else line.view(np.uint8) * np.uint8(255)
    diff = cv2.bitwise_and(cv2.subtract(bg, g), line8)  # 0 off the lines
    # the quotient of the two 8-bit images, in float: cv2 converts and divides in one pass (the same
    # floats as dividing float copies: checked for all 256 x 256 pairs), without the two copies
    contrast = cv2.divide(diff, cv2.max(bg, 8), dtype=cv2.CV_32F)
    b = max(4, int(block_mm * lay.ppm))
    size = (max(1, w // b), max(1, h // b))
    num = cv2.resize(contrast, size, interpolation=cv2.INTER_AREA)
    # the share of printed line per block: fixed for the layout when the whole loch is in view
    shares = lay.__dict__.setdefault("_line_share", {})
    den = shares.get(size) if whole else None
    if den is None:
        den = cv2.resize(line.astype(np.float32), size, interpolation=cv2.INTER_AREA)
        if whole:
            shares[size] = den
    has = den > 0.01
    if has.sum() < 10:
        return np.zeros((h, w), bool)
    ratio = np.where(has, num / np.maximum(den, 1e-6), 1.0)
    typical = float(np.median(ratio[has]))
    bad = (has & (ratio < OCCLUDED_FRACTION * typical)).astype(np.uint8)
    if not bad.any():  # (the usual case: no block lost its lines, nothing to scale up)
        return np.zeros((h, w), bool)
    bad = cv2.resize(bad, (w, h), interpolation=cv2.INTER_NEAREST) > 0
    return bad & lay.loch


def _hex_ids(lay: Layout) -> np.ndarray:
    """The hex number of every entry of ``lay.index`` (cached on the layout)."""
    if getattr(lay, "_hex_ids", None) is None:
        lay._hex_ids = np.repeat(np.arange(len(lay.addresses)), np.diff(np.r_[lay.offsets, len(lay.index)]))
    return lay._hex_ids


def _regions(unknown, lay: Layout, glare, saturated, dark, outside, occluded=None) -> list[dict]:
    b = _bbox(unknown.view(np.uint8), 1)
    if b is None:
        return []
    # labelled in the box round the unknown pixels (labelling costs as much on empty board)
    n, part_labels, _ = _labelled(unknown[b[0]:b[1], b[2]:b[3]], areas=False)
    if n <= 1:
        return []
    labels = np.zeros(unknown.shape, np.int32)
    labels[b[0]:b[1], b[2]:b[3]] = part_labels
    # each part's bounding box (x, y, w, h) from its pixels, grouped by label
    ys, xs = nonzero_yx(part_labels)
    lab_px = part_labels[ys, xs]
    order = np.argsort(lab_px, kind="stable")
    first = np.searchsorted(lab_px[order], np.arange(1, n))
    xs, ys = xs[order], ys[order]
    stats = np.zeros((n, 4), np.int64)
    stats[1:, 0] = np.minimum.reduceat(xs, first) + b[2]
    stats[1:, 1] = np.minimum.reduceat(ys, first) + b[0]
    stats[1:, 2] = np.maximum.reduceat(xs, first) + b[2] + 1 - stats[1:, 0]
    stats[1:, 3] = np.maximum.reduceat(ys, first) + b[0] + 1 - stats[1:, 1]
    # reported in raster order of each part's first pixel (labels' numbering varies with the box)
    first_px = np.minimum.reduceat(ys.astype(np.int64) * unknown.shape[1] + xs, first)
    # every part's kinds and hexes from one pass over the labels (not one full-board mask per part)
    flat = labels.reshape(-1)
    kinds_of = []
    for name, src in (("glare", glare | saturated), ("too dark", dark), ("out of view", outside),
                      ("hex lines hidden (a hand or an object?)", occluded if occluded is not None else outside)):
        kinds_of.append((name, np.bincount(flat[src.reshape(-1)], minlength=n) > 0))
    hex_id = _hex_ids(lay)
    lab = np.take(flat, lay.index)
    on = lab > 0
    pairs = np.unique(lab[on].astype(np.int64) * len(lay.addresses) + hex_id[on])
    part, hx = np.divmod(pairs, len(lay.addresses))  # sorted by part, then by hex (address order)
    starts = np.searchsorted(part, np.arange(n + 1))
    out = []
    for k in 1 + np.argsort(first_px, kind="stable"):
        hexes = [lay.addresses[i] for i in hx[starts[k]:starts[k + 1]]]
        if not hexes:
            continue
        kinds = [name for name, has in kinds_of if has[k]]
        x, y, w, h = stats[k, :4]
        out.append({"reason": ", ".join(kinds) or "unrecognised (a hand or an object?)",
                    "bbox_mm": [round(lay.x0 + x / lay.ppm, 1), round(lay.y0 + y / lay.ppm, 1),
                                round(w / lay.ppm, 1), round(h / lay.ppm, 1)],
                    "hexes": hexes})
    return out
