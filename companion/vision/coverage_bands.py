"""Coverage's per-pixel steps in row bands on the adjudication pool (coverage.ROW_BANDS).

A per-pixel step (the warp, the log, dividing out the light, the gains, the colour map, the table
bins, the planes) gives every pixel of the work grid from the same pixel of its inputs, so it can
run on horizontal bands of rows side by side and give exactly the whole image's result.  What
needs the whole image (the lighting field, the tone gain, the land's median, the colour map's fit,
the table lookup with its lazily filled table, every connected-part rule) stays whole, computed
once between the banded steps and handed to the bands.

Exactness: OpenCV's vector loops treat a continuous image as one long row, and a few of them (an
``addWeighted``'s fused multiply-add, a scaled conversion) round the last few values past the
vector width differently from the vector body.  The bands therefore start at multiples of
``ALIGN_ROWS`` rows: every value of a band lies at the same place in its vector as in the whole
image's, and only the last band has a tail, the whole image's own.

Deadlock-free on the shared pool: coverage itself runs on the pool, so it runs the first band in
its own thread and, when done, takes back (``Future.cancel``) every band no worker has started,
running it too; it waits only for bands a worker is running.
"""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Callable

ALIGN_ROWS = 64  # bands start at multiples of this (see above); a 12 MP photo's work grid has ~1,000 rows


def band_rows(h: int, n: int, align: int = ALIGN_ROWS) -> list[tuple[int, int]]:
    """Rows 0..h split into at most ``n`` bands (start, stop), every row in exactly one, each band
    starting at a multiple of ``align``; one band (0, h) when ``n`` <= 1 or ``h`` is too short."""
    n = max(1, min(int(n), -(-h // align) if h > 0 else 1))
    cuts = [0] + [min(h, int(round(h * i / n / align)) * align) for i in range(1, n)] + [h]
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


class Bands:
    """The row bands of a work grid ``h`` rows high and how they are run: on ``pool`` (None: all
    in the calling thread, one band) in ``n`` bands."""

    def __init__(self, h: int, pool: Executor | None = None, n: int = 1):
        self.h = h
        self.rows = band_rows(h, n) if pool is not None else [(0, h)]
        self.pool = pool if len(self.rows) > 1 else None
        self._given = pool

    def run(self, fn: Callable[[int, int], object]) -> None:
        """``fn(start, stop)`` for every band; returns when all are done (the first band's error,
        in band order, is raised)."""
        side_by_side(self.pool, fn, self.rows)

    def each(self, fn: Callable, items: list) -> list:
        """``[fn(*item) for item in items]``, side by side on the pool (whole steps that read
        shared inputs and return their own results: colourmasks.EXPEDITIONS_SIDE_BY_SIDE)."""
        return side_by_side(self._given, fn, items)

    def later(self, fn: Callable, *args, **kwargs) -> "Later":
        """``fn(*args, **kwargs)`` started on the pool now, its result asked for later (no pool:
        called then, in the asking thread)."""
        return Later(self._given, fn, *args, **kwargs)


def side_by_side(pool: Executor | None, fn: Callable, items: list) -> list:
    """``[fn(*item) for item in items]``: the first in this thread, the others on ``pool``, taken
    back and run here when no worker has started them (None pool: all here, in order).  Returns
    when all are done; the first error in item order is raised."""
    if pool is None or len(items) < 2:
        return [fn(*x) for x in items]
    futures = [pool.submit(fn, *x) for x in items[1:]]
    out: list = [None] * len(items)
    first = None
    try:
        out[0] = fn(*items[0])
    except BaseException as exc:  # the others are still waited for: they may write the caller's arrays
        first = exc
    for k, (f, x) in enumerate(zip(futures, items[1:]), 1):
        try:
            # not started: run here (a worker may be busy with the land or a fit)
            out[k] = fn(*x) if f.cancel() else f.result()
        except BaseException as exc:
            first = first or exc
    if first is not None:
        raise first
    return out


class Later:
    """A whole step started on ``pool`` beside the steps after it; ``result()`` takes it back and
    runs it in the asking thread when no worker has started it (None pool: always so)."""

    def __init__(self, pool: Executor | None, fn: Callable, *args, **kwargs):
        self._call = (fn, args, kwargs)
        self._future = pool.submit(fn, *args, **kwargs) if pool is not None else None

    def result(self):
        if self._future is None or self._future.cancel():
            fn, args, kwargs = self._call
            return fn(*args, **kwargs)
        return self._future.result()
