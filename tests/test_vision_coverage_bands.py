"""Session 39 (h5): coverage's per-pixel steps in row bands on the adjudication pool
(coverage.ROW_BANDS, coverage_bands.py) give exactly what one band gives."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from companion.vision import coverage as cov
from companion.vision import coverage_bands
from companion.vision.coverage_bands import ALIGN_ROWS, Bands, band_rows


@pytest.fixture(autouse=True)
def _bands_on(monkeypatch):
    # (off in the adjudicator until measured on a 4-core Pi: coverage.py says why)
    monkeypatch.setattr(cov, "ROW_BANDS", True)


def test_band_split_covers_every_row_once():
    for h in (0, 1, 63, 64, 65, 127, 500, 1000, 1127, 1999):
        for n in (1, 2, 3, 4, 7):
            rows = band_rows(h, n)
            assert (1 if h else 0) <= len(rows) <= n
            got = [r for a, b in rows for r in range(a, b)]
            assert got == list(range(h)), (h, n, rows)
            assert all(a % ALIGN_ROWS == 0 for a, _ in rows)  # (the vector loops' alignment)
    assert len(band_rows(1127, 4)) == 4 and len(band_rows(100, 4)) == 2  # never under ALIGN_ROWS rows but the last


def test_bands_taken_back_when_the_pool_is_busy():
    # coverage runs on the pool it bands on: with every worker busy the caller runs every band itself
    pool = ThreadPoolExecutor(1)
    release = threading.Event()
    blocker = pool.submit(release.wait, 10)
    seen = []
    Bands(1000, pool, 4).run(lambda a, b: seen.append((a, b, threading.get_ident())))
    release.set()
    blocker.result()
    assert sorted(s[:2] for s in seen) == band_rows(1000, 4)
    assert {s[2] for s in seen} == {threading.get_ident()}
    pool.shutdown()


def test_a_later_step_is_taken_back_when_no_worker_started_it():
    pool = ThreadPoolExecutor(1)
    release = threading.Event()
    blocker = pool.submit(release.wait, 10)
    soon = Bands(1000, pool, 2).later(lambda x: (x, threading.get_ident()), 7)
    assert soon.result() == (7, threading.get_ident())  # run here: the one worker is busy
    release.set()
    blocker.result()
    assert Bands(1000, pool, 2).later(lambda x: x + 1, 7).result() == 8
    assert Bands(1000).later(lambda x: x + 1, 7).result() == 8  # no pool: called when asked
    pool.shutdown()


def test_band_error_raised_after_every_band():
    pool = ThreadPoolExecutor(2)
    done = []

    def fn(a, b):
        done.append(a)
        if a == 0:
            raise ValueError("band 0")
    with pytest.raises(ValueError):
        Bands(1000, pool, 3).run(fn)
    assert sorted(done) == [a for a, _ in band_rows(1000, 3)]
    pool.shutdown()


@pytest.fixture(scope="module")
def phone_photo(box):
    """A broadened development scene (seed 507) through the first phone (its tone gain 0.65),
    registered."""
    from companion.vision import gridfit
    from companion.vision.adjudicate import decode, registered
    from companion.vision.render import random_scene, render
    from tests.phone_pipeline import phone_pipeline

    scene = random_scene(box, 507, 1600, 1200, broad=True)
    image, _ = render(box, scene)
    photo = decode(phone_pipeline(image, np.random.default_rng(507)))
    return photo, gridfit.refine(registered(photo, box), photo.gray, box)


def _fields(r) -> dict:
    out = {"covered": r.covered, "unknown": r.unknown, "unknown_hexes": r.unknown_hexes,
           "regions": r.unknown_regions, "gain": r.tone_gain, "dark": r.dark_fraction,
           "seen": r.seen_flat, "fit_seen": r.fit_seen, "unknown_work": r.unknown_work}
    for name in ("masks", "fit_masks", "fit_unseen"):
        out[name] = {e: np.asarray(m[e]) for e in m} if (m := getattr(r, name)) is not None else None
    return out


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return a is not None and b is not None and a.dtype == b.dtype and np.array_equal(a, b)
    return a == b


def _side_by_side_counted(monkeypatch) -> list:
    """Every side_by_side call (Bands.run's bands, Bands.each's items) from here on: (items, on a pool)."""
    counts = []
    real = coverage_bands.side_by_side

    def counted(pool, fn, items):
        counts.append((len(items), pool is not None))
        return real(pool, fn, items)
    monkeypatch.setattr(coverage_bands, "side_by_side", counted)
    return counts


@pytest.mark.parametrize("forced", [False, True])
def test_banded_coverage_is_the_whole_image_s(box, phone_photo, monkeypatch, forced):
    photo, reg = phone_photo
    if forced:  # every banded path: a channel's own gain (a clipped channel) besides the tone gain
        monkeypatch.setattr(cov, "channel_gains", lambda *a, **k: (1.0, 1.3, 0.9))
    whole = _fields(cov.measure(photo.bgr, reg, box, bgr=True))
    counts = _side_by_side_counted(monkeypatch)
    pool = ThreadPoolExecutor(3)
    try:
        banded = _fields(cov.measure(photo.bgr, reg, box, bgr=True, pool=pool, workers=3))
        assert _same(whole, banded)
        assert whole["gain"] != 1.0  # (the tone gain's banded step was run)
        assert (3, True) in counts  # the per-pixel steps ran in three bands on the pool
        assert counts.count((4, True)) == 2  # the four expeditions' cleaning and lines side by side
        counts.clear()
        monkeypatch.setattr(cov, "ROW_BANDS", False)
        off = _fields(cov.measure(photo.bgr, reg, box, bgr=True, pool=pool, workers=3))
        assert _same(whole, off) and not any(on for _, on in counts)
    finally:
        pool.shutdown()


@pytest.mark.parametrize("module", ["colourmasks", "coverage_lines"])
def test_expeditions_side_by_side_alone_off(box, phone_photo, monkeypatch, module):
    import importlib

    photo, reg = phone_photo
    whole = _fields(cov.measure(photo.bgr, reg, box, bgr=True))
    counts = _side_by_side_counted(monkeypatch)
    monkeypatch.setattr(importlib.import_module(f"companion.vision.{module}"), "EXPEDITIONS_SIDE_BY_SIDE", False)
    pool = ThreadPoolExecutor(3)
    try:
        got = _fields(cov.measure(photo.bgr, reg, box, bgr=True, pool=pool, workers=3))
        assert _same(whole, got) and (3, True) in counts and counts.count((4, True)) == 1
    finally:
        pool.shutdown()


def test_adjudication_side_by_side_is_the_serial_one(box, phone_photo):
    from companion.vision.adjudicate import adjudicate, to_json

    photo, _ = phone_photo

    def doc(workers):
        d = to_json(box, adjudicate(photo, box, workers=workers), photo, None)
        d.pop("seconds"), d.pop("stage_seconds")
        return d
    serial = doc(1)
    assert doc(2) == serial and doc(4) == serial
