"""Medians and percentiles of the few values a face reading measures, bit for bit numpy's, at a
fraction of the cost.

``np.median`` and ``np.percentile`` go through layers of Python (axis handling, NaN checks, the
general interpolation) that cost 45 and 110 microseconds a call on this machine whatever the size:
a pip's handful of pixels, a face's four pips. A crop read made about 30 such calls, 1.5-2 ms of
its 8-9 ms. Here the same order statistics come from one partition (or a sort of a short list) and
the same arithmetic in the same precision: the median of an even count is the two middle values'
sum halved (``np.mean`` of two), a percentile is numpy's "linear" interpolation (``_lerp``: from
the lower value below a half, from the upper one from a half on); means are numpy's own sum and
division without ``ndarray.mean``'s wrapper. NaNs are not looked for: colour
distances and measurements of pips have none. ``tests/test_dice_quick_stats.py`` compares them
with numpy's on random and tied values of every small size.
"""

from __future__ import annotations

import math
import statistics

import numpy as np


def median_of(values: list[float]) -> float:
    """``float(np.median(values))`` for a non-empty list of Python floats (numpy takes them as
    float64): the standard library's median, whose even case is the same two middle values halved."""
    return float(statistics.median(values))


def percentile_of(values: list[float], q: float) -> float:
    """``float(np.percentile(values, q))`` (linear) for a non-empty list of Python floats."""
    s = sorted(values)
    return _lerp_at(s, len(s), q / 100, float)


def median_px(px: np.ndarray) -> float:
    """``float(np.median(px))`` for a non-empty 1-D float32 array."""
    n = px.size
    k = n // 2
    if n % 2:
        return float(np.partition(px, k)[k])
    p = np.partition(px, (k - 1, k))
    return float((p[k - 1] + p[k]) / np.float32(2))


def median_and_p95_px(px: np.ndarray) -> tuple[float, float]:
    """(``float(np.median(px))``, ``float(np.percentile(px, 95))``) for a non-empty 1-D float32
    array, from one partition (the order statistics are the same whatever else is partitioned)."""
    n = px.size
    k = n // 2
    at = (n - 1) * 0.95
    lo = math.floor(at)
    kth = {k, n - 1, min(lo + 1, n - 1), lo}
    if n % 2 == 0:
        kth.add(k - 1)
    p = np.partition(px, sorted(kth))
    med = float(p[k]) if n % 2 else float((p[k - 1] + p[k]) / np.float32(2))
    return med, _lerp_at(p, n, 0.95, float)


def median_rows(rows: np.ndarray) -> np.ndarray:
    """``np.median(rows, axis=0)`` for a 2-D array of at least one row (its dtype kept)."""
    n = rows.shape[0]
    k = n // 2
    if n % 2:
        return np.partition(rows, k, axis=0)[k]
    p = np.partition(rows, (k - 1, k), axis=0)
    return (p[k - 1] + p[k]) / rows.dtype.type(2)


def mean_px(px: np.ndarray) -> np.floating:
    """``px.mean()`` for a non-empty 1-D array: numpy's own sum (``np.add.reduce``, the same
    pairwise float32 sum) divided by the count as ``ndarray.mean`` divides it, without its wrapper
    (15 microseconds a call here)."""
    total = np.add.reduce(px, None, None, None, False)
    return total.dtype.type(total / np.intp(px.size))


def mean_rows(rows: np.ndarray) -> np.ndarray:
    """``rows.mean(axis=0)`` for a 2-D array of at least one row, as :func:`mean_px`."""
    total = np.add.reduce(rows, 0, None, None, False)
    return np.true_divide(total, np.intp(rows.shape[0]), out=total, casting="unsafe", subok=False)


def _lerp_at(s, n: int, quantile: float, out=float) -> float:
    """numpy's linear percentile from ``s``, sorted at least where it is read (``_quantile``, ``_lerp``)."""
    at = (n - 1) * quantile
    if at >= n - 1:
        return out(s[n - 1])
    lo = math.floor(at)
    t = at - lo
    a, b = s[lo], s[lo + 1]
    d = b - a
    # (numpy's arithmetic in the values' own precision: a float32 value times a Python float
    # stays float32, as in numpy's ``diff_b_a * t``)
    if t >= 0.5:
        return out(b - d * (1 - t))
    return out(a + d * t)
