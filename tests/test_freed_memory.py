"""Freed memory kept for the next frame's arrays (companion/freed_memory.py)."""

from __future__ import annotations

import resource

import numpy as np
import pytest

from companion.freed_memory import keep_freed_memory


def _faults(fn) -> int:
    before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    fn()
    return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before


def test_a_frames_arrays_made_and_dropped_again_land_on_pages_mapped_already():
    """A read makes several tray-sized arrays at once and drops them (tray_reader.changes: a dozen
    of 0.9 MB); by default the allocator hands the freed pages back and the next frame faults each
    4 kB page in again (643 faults a call measured). Kept, the next frames fault none."""
    if not hasattr(resource, "RUSAGE_THREAD") or not keep_freed_memory():
        pytest.skip("no glibc allocator to ask (or no per-thread fault count)")

    def frame():
        arrays = [np.ones((240, 320, 3), np.float32) for _ in range(6)]  # 5.5 MB at once, then dropped
        del arrays

    frame()  # (the first one maps its pages)
    faults = _faults(lambda: [frame() for _ in range(20)])
    assert faults < 100, faults  # 20 frames x 6 x 225 pages = 27,000 faults if they were handed back
