"""Bool-mask helpers for coverage: work only in the box round a mask's pixels, grow, label and
drop connected parts (labelling a whole board of empty pixels costs as much as a full one)."""

from __future__ import annotations

import cv2
import numpy as np

#: list a mask's pixels with cv2.findNonZero (one scan in C, row-major) instead of np.nonzero (a
#: count and a fill, several times slower on the board-sized masks the fitter and coverage list):
#: the same coordinates in the same order, so the same results (tests/test_vision_sheets.py
#: checks them against np.nonzero).  Off: np.nonzero, as before session 29.
NONZERO_BY_CV2 = True
_NO_PIXELS = np.empty(0, np.intp)
_NO_PIXELS.flags.writeable = False


def nonzero_yx(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero`` of a 2-D mask (bool or uint8; other dtypes compared with 0 first): (rows,
    columns) of its nonzero pixels in row-major order, as ``np.intp``."""
    if not NONZERO_BY_CV2:
        return np.nonzero(mask)
    if mask.dtype == bool:
        m = mask.view(np.uint8)
    elif mask.dtype == np.uint8:
        m = mask
    else:
        m = (mask != 0).view(np.uint8)
    pts = cv2.findNonZero(m if m.flags.c_contiguous else np.ascontiguousarray(m))
    if pts is None:
        return _NO_PIXELS, _NO_PIXELS
    xy = pts.reshape(-1, 2).astype(np.intp)
    return xy[:, 1], xy[:, 0]


def _bbox(mask: np.ndarray, pad: int):
    """(y0, y1, x0, x1) of a mask's pixels grown by ``pad``, or None if empty."""
    m = mask.view(np.uint8) if mask.dtype == bool else mask
    # the rows holding a pixel (OR along each row: nonzero where the row's maximum is, in half the
    # time), then the columns of those rows OR-ed: a third of cv2.boundingRect's time on the sparse
    # masks coverage asks about (it scans every pixel; 39 calls cost ~7 ms of a 12 MP photo's coverage)
    rows = np.flatnonzero(np.bitwise_or.reduce(m, 1))
    if len(rows) == 0:
        return None
    y, y1 = int(rows[0]), int(rows[-1]) + 1
    cols = np.flatnonzero(np.bitwise_or.reduce(m[y:y1], 0))
    x, x1 = int(cols[0]), int(cols[-1]) + 1
    h, w = mask.shape
    return (max(0, y - pad), min(h, y1 + pad), max(0, x - pad), min(w, x1 + pad))


def _grown(mask: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """A bool mask dilated by ``kernel``, worked only in the box round its pixels."""
    return _roi_apply(lambda m: cv2.dilate(m.view(np.uint8), kernel) > 0, mask.astype(bool, copy=False), (),
                      max(kernel.shape) // 2 + 1)


def _roi_apply(fn, mask: np.ndarray, extra: tuple, pad: int, *args) -> np.ndarray:
    """``fn(mask, *extra, *args)`` run only on the box round the mask's pixels (grown by ``pad``):
    the same answer, without labelling a whole board of empty pixels."""
    b = _bbox(mask.view(np.uint8), pad)
    if b is None:
        return np.zeros(mask.shape, bool)
    sl = np.s_[b[0]:b[1], b[2]:b[3]]
    out = np.zeros(mask.shape, bool)
    out[sl] = fn(mask[sl], *[x[sl] for x in extra], *args)
    return out


def _labelled(mask: np.ndarray, areas: bool = True):
    """(n, labels, areas) of a mask's 8-connected parts (``areas`` None unless asked; areas[0],
    the background, is not counted).

    cv2.connectedComponentsWithStats costs ten times what labelling alone does (OpenCV 5.0),
    so the areas are counted from the labels, of the mask's pixels only.
    """
    m = mask.view(np.uint8) if mask.dtype == bool and mask.flags.c_contiguous else mask.astype(np.uint8)
    n, labels = cv2.connectedComponents(m, connectivity=8)
    if not areas:
        return n, labels, None
    return n, labels, np.bincount(labels[mask if mask.dtype == bool else m > 0], minlength=n)


def _drop_small(mask: np.ndarray, min_px: float) -> np.ndarray:
    return _roi_apply(_drop_small_here, mask.astype(bool, copy=False), (), 2, min_px)


def _drop_small_here(mask: np.ndarray, min_px: float) -> np.ndarray:
    n, labels, areas = _labelled(mask)
    if n <= 1:
        return mask.astype(bool)
    keep = areas >= min_px
    if keep[1:].all():  # nothing small: skip the per-pixel lookup
        return mask.astype(bool, copy=False)
    keep[0] = False
    return np.take(keep, labels)


def _drop_mostly_in(mask: np.ndarray, region: np.ndarray, share: float) -> np.ndarray:
    """Remove the connected parts of ``mask`` lying ``share`` or more inside ``region``."""
    n, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    if n <= 1:
        return mask
    total = np.bincount(labels[mask], minlength=n)  # label 0 (background) not counted: never dropped
    inside = np.bincount(labels[region & mask], minlength=n)
    drop = inside >= share * np.maximum(total, 1)
    drop[0] = False
    if not drop.any():
        return mask
    return mask & ~np.take(drop, labels)


def _joined_parts(mask: np.ndarray, bridge_px: int):
    """(n, labels) of a mask's parts joined across gaps up to ``bridge_px`` (the printed lines)."""
    k = bridge_px | 1
    joined = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    return cv2.connectedComponents(joined, connectivity=8)


def _part_boxes(labels: np.ndarray, n: int) -> np.ndarray:
    """(y0, y1, x0, x1) per label 1..n-1 (row 0 unused), from one pass over the labelled pixels."""
    ys, xs = nonzero_yx(labels)
    lab = labels[ys, xs]
    order = np.argsort(lab, kind="stable")
    ys, xs = ys[order], xs[order]
    first = np.searchsorted(lab[order], np.arange(1, n))
    boxes = np.zeros((n, 4), np.int64)
    boxes[1:, 0] = np.minimum.reduceat(ys, first)
    boxes[1:, 1] = np.maximum.reduceat(ys, first) + 1
    boxes[1:, 2] = np.minimum.reduceat(xs, first)
    boxes[1:, 3] = np.maximum.reduceat(xs, first) + 1
    return boxes


def _set_bit(bits: np.ndarray, mask: np.ndarray, bit: int) -> None:
    """``bits |= bit`` where ``mask``, worked only in the box round the mask's pixels."""
    b = _bbox(mask.view(np.uint8), 0)
    if b is not None:
        sl = np.s_[b[0]:b[1], b[2]:b[3]]
        bits[sl] |= mask[sl].astype(bits.dtype) * bits.dtype.type(bit)
