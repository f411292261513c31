"""The quick medians and percentiles (companion/vision/dice_quick_stats.py) are numpy's, bit for bit,
on random, tied and rounded values of every small size, in float32 arrays and lists of floats."""

from __future__ import annotations

import numpy as np

from companion.vision.dice_quick_stats import (mean_px, mean_rows, median_and_p95_px, median_of, median_px, median_rows,
                                               percentile_of)


def _samples(rng, n: int, dtype):
    yield rng.random(n).astype(dtype) * 100
    yield rng.integers(0, 4, n).astype(dtype)  # ties
    yield np.round(rng.normal(30, 10, n), 1).astype(dtype)
    yield (rng.random(n) * 1e-3 + 7).astype(dtype)  # close values: rounding shows


def test_medians_and_percentiles_are_numpys_bit_for_bit():
    rng = np.random.default_rng(0)
    checked = 0
    for n in list(range(1, 40)) + [63, 64, 100, 257, 1000]:
        for _ in range(6):
            for px in _samples(rng, n, np.float32):
                assert median_px(px.copy()) == float(np.median(px))
                med, p95 = median_and_p95_px(px.copy())
                assert (med, p95) == (float(np.median(px)), float(np.percentile(px, 95))), (n, px)
                values = [float(v) for v in px.astype(np.float64) / 3]
                assert median_of(values) == float(np.median(values))
                for q in (75, 95, 50, 10):
                    assert percentile_of(values, q) == float(np.percentile(values, q)), (n, q, values)
                got, want = mean_px(px), px.mean()
                assert type(got) is type(want) and got == want
                rows = np.stack([px, px[::-1], px * 3], axis=1)
                for r in (rows, rows.astype(np.float64)):
                    got, want = median_rows(r.copy()), np.median(r, axis=0)
                    assert got.dtype == want.dtype and np.array_equal(got, want)
                    got, want = mean_rows(r), r.mean(axis=0)
                    assert got.dtype == want.dtype and np.array_equal(got, want)
                checked += 1
    assert checked > 1000


def test_a_wrong_middle_would_fail():
    """(the comparison can fail: the lower middle value is not the median of an even count)"""
    px = np.array([1, 2, 3, 10], np.float32)
    assert median_px(px) == 2.5 and float(np.partition(px, 1)[1]) != float(np.median(px))
