"""Work spread over slices of CPU time (companion/sliced_work.py)."""

from __future__ import annotations

import math
import sys
import threading
import time

import pytest

from companion import sliced_work, thread_trace
from companion.sliced_work import SlicedWork, expect_long_steps


def busy(n: int) -> int:
    """Python work with many calls (the worker pauses at a call once its slice is spent)."""
    def step(i: int) -> int:
        return (i * i) % 7

    return sum(step(i) for i in range(n))


def test_unlimited_slice_runs_to_the_end():
    work = SlicedWork(busy, 1000)
    assert work.run_for(math.inf)
    assert work.result() == busy(1000) and work.slices == 1


def test_small_slices_spread_the_work_and_give_the_same_result():
    work = SlicedWork(busy, 400_000)
    first = work.run_for(0.001)
    assert not first  # far more than a millisecond of Python calls: paused
    while not work.run_for(0.001):
        pass
    assert work.result() == busy(400_000)
    assert work.slices > 3
    assert work.cpu_s > 0


def test_result_before_the_end_is_an_error():
    work = SlicedWork(busy, 400_000)
    work.run_for(0.0005)
    with pytest.raises(RuntimeError):
        work.result()
    work.cancel()


def test_cancelled_work_unwinds_and_its_thread_ends():
    finished = []

    def watched():
        try:
            busy(10_000_000)
        finally:
            finished.append(True)  # the worker's own cleanup runs

    work = SlicedWork(watched)
    assert not work.run_for(0.001)
    work.cancel()  # waits CANCEL_WAIT_S (5 ms) for the unwinding: a loaded machine may need longer
    work._thread.join(timeout=5)
    assert not work._thread.is_alive()
    assert work.done and finished == [True]
    with pytest.raises(RuntimeError, match="cancelled"):  # a cancelled work has no result
        work.result()


def test_cancel_before_it_ran_starts_no_thread():
    work = SlicedWork(busy, 10)
    work.cancel()
    assert work.done and work._thread is None


def test_an_error_in_the_work_reaches_the_lender():
    def broken():
        busy(100)
        raise ValueError("boom")

    work = SlicedWork(broken)
    assert work.run_for(math.inf)
    with pytest.raises(ValueError, match="boom"):
        work.result()


def test_a_tracer_already_on_the_thread_keeps_working():
    seen = []

    def tracer(frame, event, arg):
        if frame.f_code.co_name == "busy":
            seen.append(event)
        return None

    previous = threading.gettrace()
    threading.settrace(tracer)  # as coverage does for new threads
    try:
        work = SlicedWork(busy, 100)
        assert work.run_for(math.inf)
    finally:
        threading.settrace(previous)
    assert "call" in seen


def test_work_that_expects_long_steps_pauses_earlier():
    def told():
        expect_long_steps(0.002)
        return busy(300_000)

    short, plain = SlicedWork(told), SlicedWork(busy, 300_000)
    while not short.run_for(0.004):
        pass
    while not plain.run_for(0.004):
        pass
    assert short.result() == plain.result()
    assert short.slices > plain.slices  # about half of each slice was kept in reserve
    expect_long_steps(0.5)  # outside a worker: nothing happens


def test_cancelled_work_full_of_closed_generators_stops():
    """A generator left unfinished (``any`` stops early) is entered once more to be closed; a
    Cancelled raised there would be swallowed and the work would run on to its end."""
    finished = []

    def work():
        for k in range(200_000):
            any(busy(2) >= 0 for _ in range(5))  # true at once: the generator is closed unfinished
        finished.append(True)

    _paused_and_cancelled(work)
    assert not finished


def test_a_reserve_bigger_than_the_slice_still_lets_the_work_on():
    """A whole-tray step reserve (2.5-4.5 ms) lent 1 ms slices: each slice keeps back at most
    half of itself, so the work gets on (before, each slice ended at its first call)."""
    def told():
        expect_long_steps(0.005)
        return busy(300_000)

    work, plain = SlicedWork(told), SlicedWork(busy, 300_000)
    while not plain.run_for(0.001):
        pass
    while not work.run_for(0.001):
        assert work.slices < 20 * plain.slices + 100, "the work does not get on"
    assert work.result() == plain.result()


def _noop():
    pass


def test_a_slice_tells_the_cpu_the_worker_used():
    """The worker's CPU is not on the lender's clock: a frame that lends to two pieces of work must
    count the first one's slice before lending to the second (the camera source adds it up)."""
    def spin():
        t = time.thread_time()
        while time.thread_time() - t < 0.2:
            _noop()  # a Python call: where the worker can pause

    work = SlicedWork(spin)
    own = time.thread_time()
    assert not work.run_for(0.005)
    own = time.thread_time() - own
    assert 0.005 <= work.slice_cpu_s < 0.02
    assert own < work.slice_cpu_s  # the lender's own clock missed most of it
    assert not work.run_for(0.0) and work.slice_cpu_s == 0.0  # no slice, no CPU
    work.cancel()


def _traced_then_busy(seen: list) -> int:
    seen.append(sys.gettrace())  # the worker's trace hook as the work starts
    return busy(400_000)


@pytest.mark.parametrize("untraced", [True, False])
def test_the_worker_runs_untraced_until_its_slice_is_nearly_spent(untraced):
    """A trace hook slows all of the worker's Python (14 % on a tray read), so where the hook can be
    switched on from the lender it is off at the start of a slice; the work still pauses in its
    slices and gives the same result. ``untraced=False``: the hook is on from the start."""
    seen: list = []
    work = SlicedWork(_traced_then_busy, seen, untraced=untraced)
    assert not work.run_for(0.005)  # the hook went on near the slice's end: paused
    while not work.run_for(0.002):
        pass
    assert work.result() == busy(400_000) and work.slices > 3
    off = untraced and thread_trace.available() and sys.gettrace() is None
    assert (seen[0] is None) == off, seen
    work._thread.join(timeout=5)
    assert not work._thread.is_alive()  # the hook switched on at the end does not keep the thread


def test_a_cancelled_untraced_work_unwinds():
    for _ in range(20):  # cancelled in slices at different points, some before the hook went on
        work = SlicedWork(busy, 10_000_000, untraced=True)
        assert not work.run_for(0.0005)
        work.cancel()
        assert work.done
        work._thread.join(timeout=5)
        assert not work._thread.is_alive()


def test_cancelled_work_never_pauses_in_a_weakref_callback(monkeypatch):
    """A WeakSet's ``_remove`` runs when a member is freed, from the deallocation: a Cancelled
    raised there was printed ("Exception ignored in") and swallowed, and the work ran on."""
    import weakref

    swallowed = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: swallowed.append(u))

    class Thing:
        pass

    def churn():
        members = weakref.WeakSet()
        for _ in range(2_000_000):
            t = Thing()
            members.add(t)
            del t  # freed here: the WeakSet's callback runs
            _noop()  # where the work may pause

    _paused_and_cancelled(churn)
    assert not swallowed


def test_work_never_pauses_in_a_garbage_collection_callback():
    """gc.callbacks run inside whatever Python call made the collection: a Cancelled raised there
    is swallowed ("Exception ignored in"), so the work is never paused inside one -- even in a
    callback added after this module (hypothesis adds one in the tests)."""
    import gc

    seen = []

    def late_callback(phase, info):
        seen.append((phase, sliced_work._in_collection[0]))

    gc.callbacks.append(late_callback)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(late_callback)
    assert seen and all(marked for _, marked in seen), seen
    assert sliced_work._in_collection[0] is False


def _paused_and_cancelled(fn, times: int = 20) -> None:
    """Run ``fn`` as sliced work for a 0.3 ms slice and cancel it, ``times`` times (the pauses
    fall at different calls): each worker must unwind and end."""
    for _ in range(times):
        work = SlicedWork(fn)
        assert not work.run_for(0.0003)
        work.cancel()
        work._thread.join(timeout=10)
        assert not work._thread.is_alive()


def test_work_never_pauses_entering_the_collection_marks(monkeypatch):
    """The hook sees the call of the start mark itself before the mark is set: a Cancelled raised
    there would be swallowed ("Exception ignored in") like any other in a gc callback."""
    import gc

    finished, swallowed = [], []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: swallowed.append(u.exc_type))
    was = gc.get_threshold()
    gc.set_threshold(50)  # collections often, so pauses fall on the marks' calls

    def work():
        for _ in range(300):
            [[] for _ in range(500)]
        finished.append(True)

    try:
        _paused_and_cancelled(work, times=40)
    finally:
        gc.set_threshold(*was)
    assert not finished
    assert not swallowed
