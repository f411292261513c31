"""The stream's garbage-collection policy (companion/inputs/stream_gc.py): no collection inside a
frame that reads dice, the collections held back run in the next frame with no read, and memory
stays bounded over a long session."""

from __future__ import annotations

import gc
import threading

import pytest

from companion.inputs import stream_gc
from companion.inputs.camera_dice import CameraDice
from companion.inputs.camera_source import SimulatedCamera
from companion.vision.tray_sim import tray_stream


@pytest.fixture
def often():
    """Young collections every 100 new objects (a read makes more than that), as before afterwards."""
    was = gc.get_threshold()
    gc.set_threshold(100, 10, 10)
    try:
        yield
    finally:
        gc.set_threshold(*was)


class _Collections:
    """Collections seen (``gc.callbacks``), each marked with whether it ran inside a frame that read:
    one that lent time to a read, or ended with one under way."""

    def __init__(self):
        self.in_reading_frame = 0
        self.elsewhere = 0
        self.reading_frame = False
        self._lock = threading.Lock()

    def __call__(self, phase, info):
        if phase == "start":
            with self._lock:
                if self.reading_frame:
                    self.in_reading_frame += 1
                else:
                    self.elsewhere += 1


def _feed(source, frames, seen):
    events = []
    for f in frames:
        seen.reading_frame = True  # (sorted after the frame: one that read nothing, its collections moved)
        before = seen.in_reading_frame
        got = source.process_frame(f.image)
        if not (source.lent_s or source.reading):
            seen.elsewhere += seen.in_reading_frame - before  # no read in this frame: not a reading frame
            seen.in_reading_frame = before
        seen.reading_frame = False
        events += got
    return events


def test_no_collection_runs_in_a_frame_that_reads_dice_and_the_held_back_ones_run_after(often, monkeypatch):
    """Fails with ``GC_BETWEEN_READS = False``: collections every 100 objects land in the reads'
    frames (27 in these three sessions, measured)."""
    monkeypatch.setattr(stream_gc, "GC_BETWEEN_READS", True)
    seen = _Collections()
    gc.callbacks.append(seen)
    try:
        for seed in (300, 301, 302):
            frames = tray_stream(seed, throws=3)
            source = CameraDice(SimulatedCamera([]))
            events = _feed(source, frames, seen)
            assert [e.value for e in events] == [f.values[0] for f in frames if f.settled]
            assert not source.reading and gc.get_threshold() == (100, 10, 10)  # as before once no read
    finally:
        gc.callbacks.remove(seen)
    assert seen.in_reading_frame == 0
    assert seen.elsewhere > 0  # the collector still runs: between reads


def test_the_switch_off_leaves_the_collector_as_it_was(often, monkeypatch):
    monkeypatch.setattr(stream_gc, "GC_BETWEEN_READS", False)
    source = CameraDice(SimulatedCamera([]))
    for f in tray_stream(300, throws=1)[:30]:
        source.process_frame(f.image)
        assert gc.get_threshold() == (100, 10, 10)


def test_a_source_dropped_in_the_middle_of_a_read_gives_the_thresholds_back():
    was = gc.get_threshold()
    frames = tray_stream(301, throws=1)
    source = CameraDice(SimulatedCamera([]), frame_budget_ms=0.5)  # reads last many frames
    settled = next(i for i, f in enumerate(frames) if f.settled)
    for f in frames[:settled + 1]:
        source.process_frame(f.image)
    assert source.reading and stream_gc.held_back()
    source._release()  # (as close() does)
    assert gc.get_threshold() == was and not stream_gc.held_back()
    source = CameraDice(SimulatedCamera([]), frame_budget_ms=0.5)
    for f in frames[:settled + 1]:
        source.process_frame(f.image)
    assert source.reading and stream_gc.held_back()
    del source, f  # dropped without closing (a test, a lost reference)
    gc.collect()
    assert gc.get_threshold() == was and not stream_gc.held_back()


def test_memory_stays_bounded_over_a_long_session(monkeypatch):
    """One source fed 9 sessions back to back (about 600 frames, 27 throws), the service making
    cyclic garbage meanwhile (50 cycles a frame): the objects the collector tracks do not grow from
    the third session to the last, and the cycles are collected (between reads)."""
    monkeypatch.setattr(stream_gc, "GC_BETWEEN_READS", True)
    source = CameraDice(SimulatedCamera([]), expected_dice=0)
    tracked = []
    for seed in range(300, 309):
        for f in tray_stream(seed, throws=3):
            source.process_frame(f.image)
            for _ in range(50):
                a = {}
                a["self"] = a  # garbage only the cyclic collector frees
        tracked.append(len(gc.get_objects()))
    assert max(tracked[2:]) <= tracked[2] * 1.05 + 2000, tracked
