"""Work done in slices of CPU time lent by a frame loop: one long read spread over several frames.

A streaming reader must keep every frame under a CPU budget, but one step of a read (the still
reader on a die crop: hundreds of Python calls into OpenCV and numpy) can take longer than what
is left of a frame, and Python cannot pause a function from outside. A thread can pause itself,
though: the work runs in a worker thread whose trace hook, called at each Python function call,
looks at the thread's CPU clock and, once the slice it was lent is spent, waits for the next one.
The lender waits while the worker runs, so only one of them runs at a time (one core), and the
result does not depend on where the slices fell -- only the frame it is ready on does.

    >>> work = SlicedWork(sorted, [3, 1, 2])
    >>> while not work.run_for(0.005):
    ...     pass
    >>> work.result()
    [1, 2, 3]

Costs: a trace hook puts the whole thread in CPython's tracing mode, which made a 6-dice tray read
14 % dearer whatever the hook did. With ``untraced=True`` the worker runs untraced for most of each
slice: the lender waits until the slice is nearly spent (by the wall clock: a thread cannot use
more CPU than time passes) and only then switches the hook on in the worker
(:mod:`companion.thread_trace`); the hook switches itself off when the next slice starts. Where
that cannot be done (another Python, or a tracer such as coverage already on the thread) the work
is traced from its start. It is off by default: the lender must get a core in time, and one that
did not made a frame overshoot its budget (docs/dice-stream.md has the runs). The CPU clock
(a system call) is read only once the wall clock says the slice could be spent. A slice overshoots
by the longest stretch without a Python call (one OpenCV call: well under a millisecond on a die
crop).
"""

from __future__ import annotations

import gc
import inspect
import math
import sys
import threading
import time
from collections.abc import Callable

from companion import thread_trace


CANCEL_WAIT_S = 0.005
ARM_EARLY_S = 0.003  # the hook is switched on this long before the slice could be spent: the lender
# needs a core (a woken thread waited up to a few ms on this loaded machine: 1.5 ms here left 1-4
# frames a bench run over 10 ms) and the GIL, which a worker in Python code hands over at its next
# OpenCV call (mostly well under a millisecond on a die crop; at worst the switch interval, cut to:)
SWITCH_INTERVAL_S = 0.0003
MAX_WAKE_DELAY_S = 0.01  # a lender's wake-up delay counted at most this (beyond it: traced all slice anyway)
_GENERATORS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_current = threading.local()  # the SlicedWork a worker thread runs
# ... nor in the standard library's weakref callbacks (a WeakSet's ``_remove``): they run from a
# deallocation, where the Cancelled would be printed and swallowed ("Exception ignored in")
_CALLBACK_FILES = ("_weakrefset.py", "weakref.py")
# ... nor in a garbage collection's callbacks (``gc.callbacks``: hypothesis times collections so,
# in the tests): a Cancelled raised there is swallowed the same way.  One callback first in the
# list marks the collection's start, one last marks its end, so every other runs marked (callbacks
# added later are appended after the end mark: the start moves the end mark back to the end of
# the list, which CPython walks by index, so the move is seen in the same collection).
_in_collection = [False]


def _collection_starts(phase: str, info: dict) -> None:
    if phase == "start":
        _in_collection[0] = True
        callbacks = gc.callbacks
        if callbacks and callbacks[-1] is not _collection_ends and _collection_ends in callbacks:
            callbacks.remove(_collection_ends)
            callbacks.append(_collection_ends)


def _collection_ends(phase: str, info: dict) -> None:
    if phase == "stop":
        _in_collection[0] = False


gc.callbacks.insert(0, _collection_starts)
gc.callbacks.append(_collection_ends)
_MARKERS = (_collection_starts.__code__, _collection_ends.__code__)  # entered before the mark is set


def expect_long_steps(seconds: float) -> None:
    """Said by the work itself: from here on, a stretch without a Python call may last about
    ``seconds`` (numpy and OpenCV on whole frames rather than die crops), so each slice ends that
    much early and the lender's budget holds. No effect outside a worker."""
    work = getattr(_current, "work", None)
    if work is not None:
        work._reserve = seconds
        work._check_at = 0.0
        if seconds > 0:
            work._trace_now()  # the lender switches the hook on by a timer set for the old reserve


class _WakeDelay:
    """How late the lender has woken up to switch the hook on, lately: on a loaded machine the
    thread may wait milliseconds for a core while the worker runs on, so the hook goes on that
    much earlier (twice the recent delay: a peak that decays by a tenth a slice)."""

    def __init__(self):
        self.recent = 0.0

    def saw(self, delay: float) -> None:
        self.recent = max(min(delay, MAX_WAKE_DELAY_S), 0.9 * self.recent)


_wake_delay = _WakeDelay()  # one process, one machine: shared by all sliced work


class _short_switch_interval:
    """The interpreter's switch interval at most ``SWITCH_INTERVAL_S`` while any lender waits to
    switch a hook on (it is process-wide: counted, so overlapping lenders restore it once)."""

    _lock = threading.Lock()
    _users = 0
    _saved = 0.0

    def __enter__(self):
        cls = type(self)
        with cls._lock:
            if cls._users == 0:
                cls._saved = sys.getswitchinterval()
                sys.setswitchinterval(min(cls._saved, SWITCH_INTERVAL_S))
            cls._users += 1

    def __exit__(self, *exc):
        cls = type(self)
        with cls._lock:
            cls._users -= 1
            if cls._users == 0:
                sys.setswitchinterval(cls._saved)


class Cancelled(BaseException):
    """Raised inside the worker to unwind cancelled work (a BaseException: the work's own
    ``except Exception`` must not swallow it)."""


class SlicedWork:
    """``fn(*args)`` run in a worker thread, a slice of CPU time at a time (:meth:`run_for`).
    ``untraced``: the worker runs untraced until each slice is nearly spent, where it can (see the
    module's summary): less CPU, but a lender that wakes late lets a slice overshoot (measured: a
    frame over 10 ms in most bench runs, by 0.3-0.4 ms when quiet). False (the default): the
    pause hook is on all along."""

    def __init__(self, fn: Callable, *args, name: str = "sliced work", untraced: bool = False):
        self._fn, self._args, self._name = fn, args, name
        self._resume = threading.Event()  # set by the lender: run another slice
        self._paused = threading.Event()  # set by the worker: slice spent, or finished
        self._thread: threading.Thread | None = None
        self._slice = 0.0
        self._cpu_end = 0.0  # the worker's CPU clock at which this slice is spent
        self._check_box = [0.0]  # perf_counter before which the slice cannot be spent (CPU <= wall time)
        self._cancel = False
        self._reserve = 0.0  # a slice ends when this much of it is left (expect_long_steps)
        self._chained: Callable | None = None  # a tracer already on the thread (coverage), kept working
        self._result = None
        self._error: BaseException | None = None
        self.done = False
        self.slices = 0  # how many slices the work has had
        self.cpu_s = 0.0  # the CPU time the worker used, once done
        self.slice_cpu_s = 0.0  # the worker's CPU time in the last slice (the lender's own clock misses it)
        self._slice_cpu0 = 0.0
        # untraced until near each slice's end (thread_trace): the worker's thread state while it is
        # alive (None before it starts and once it ends; the lock keeps it alive while it is armed)
        self._untraced = untraced and thread_trace.available()  # False: traced all along (as before)
        self._state_lock = threading.Lock()
        self._state: int | None = None
        self._armed = False  # the hook is on (or about to be) in this slice
        self._hook_fn: Callable | None = None

    def run_for(self, seconds: float) -> bool:
        """Let the work run for about ``seconds`` of CPU time (it pauses at its next Python call
        after that); True once it has finished. ``math.inf``: run it to the end."""
        self.slice_cpu_s = 0.0
        if self.done:
            return True
        if seconds <= 0:
            return False
        self._slice = seconds
        self.slices += 1
        self._paused.clear()
        self._armed = False  # (the worker is paused: no race)
        if self._thread is None:
            self._thread = threading.Thread(target=self._main, name=self._name, daemon=True)
            self._thread.start()
        else:
            self._resume.set()
        if self._untraced and seconds != math.inf:
            # untraced until the slice is nearly spent (wall time >= the worker's CPU time); to switch
            # the hook on the lender needs the GIL, which a worker in pure Python holds for the
            # interpreter's switch interval (5 ms): shortened meanwhile
            with _short_switch_interval():
                early = ARM_EARLY_S + 2 * _wake_delay.recent
                at = time.perf_counter() + max(0.0, seconds - self._held_back() - early)
                if not self._paused.wait(max(0.0, at - time.perf_counter())):
                    _wake_delay.saw(time.perf_counter() - at)
                    self._arm()
        self._paused.wait()
        return self.done

    def result(self):
        """The work's return value (raises what the work raised)."""
        if not self.done or self._cancel:
            raise RuntimeError("the work was cancelled" if self._cancel else "the work has not finished")
        if self._error is not None:
            raise self._error
        return self._result

    def cancel(self) -> None:
        """Stop the work: a paused worker unwinds (a few microseconds) and its thread ends."""
        if self.done:
            return
        self._cancel = True
        if self._thread is None:
            self.done = True
            return
        self._paused.clear()
        self._resume.set()
        # the worker unwinds in microseconds; should a finaliser still swallow the Cancelled, it is
        # left to end on its own rather than run inside the caller's frame
        self._paused.wait(CANCEL_WAIT_S)

    # ------------------------------------------------------------ in the worker thread

    def _main(self) -> None:
        _current.work = self
        self._chained = sys.gettrace()
        cpu0 = time.thread_time()
        self._start_slice()
        self._hook_fn = self._fast_hook()
        with self._state_lock:
            self._untraced = self._untraced and self._chained is None  # a tracer (coverage) stays on anyway
            if self._untraced:
                self._state = thread_trace.this_thread(self._hook_fn)
            if not self._untraced or self._armed:  # armed before the state was known: at once
                sys.settrace(self._hook_fn)
        try:
            self._result = self._fn(*self._args)
        except Cancelled:
            pass
        except BaseException as exc:  # handed to the lender by result()
            self._error = exc
        finally:
            sys.settrace(self._chained)
            with self._state_lock:  # (no Python call in here: nothing the hook could pause in)
                self._state = None  # this thread state ends with the thread: no arming from here on
            sys.settrace(self._chained)  # (in case the lender switched it on meanwhile)
            now = time.thread_time()
            self.cpu_s = now - cpu0
            self.slice_cpu_s = now - self._slice_cpu0
            self.done = True
            self._paused.set()

    def _arm(self) -> None:
        """In the lender: the slice is nearly spent, so the worker's hook goes on."""
        with self._state_lock:
            if self._armed:
                return
            self._armed = True
            if self._state is not None:
                thread_trace.arm(self._state)

    def _trace_now(self) -> None:
        """In the worker: the hook on for the rest of this slice."""
        if self._untraced and not self._armed:
            self._armed = True
            sys.settrace(self._hook_fn)

    def _held_back(self) -> float:
        """What a slice keeps back for a long step: the reserve said, but at most half the slice
        (a slice smaller than the reserve would otherwise end at once, time after time)."""
        return min(self._reserve, self._slice / 2)

    def _start_slice(self) -> None:
        self._slice_cpu0 = time.thread_time()
        self._cpu_end = self._slice_cpu0 + self._slice
        self._check_at = time.perf_counter() + self._slice - self._held_back()

    def _fast_hook(self) -> Callable:
        """The trace hook: called at every Python call of the work (10-15 thousand in a 6-dice
        read), so its common path is one clock read and one comparison on local names -- a closure
        over a one-item list rather than attributes of ``self`` (163 against 226 ns a call
        measured: 0.7 ms of a 6-dice read)."""
        clock, check_at, slow, chained = time.perf_counter, self._check_box, self._hook, self._chained
        if chained is None:
            def hook(frame, event, arg):
                if clock() >= check_at[0]:
                    slow(frame)
        else:
            def hook(frame, event, arg):
                if clock() >= check_at[0]:
                    slow(frame)
                return chained(frame, event, arg)
        return hook

    @property
    def _check_at(self) -> float:
        return self._check_box[0]

    @_check_at.setter
    def _check_at(self, value: float) -> None:
        self._check_box[0] = value

    def _hook(self, frame) -> None:
        """The slice could be spent (by the wall clock): look at the CPU clock, pause if it is."""
        # never pause in a generator's frame: one is also entered to be closed, where the
        # Cancelled raised on resuming would be swallowed ("exception ignored") and the work run on
        if (frame.f_code.co_flags & _GENERATORS or frame.f_code.co_filename.endswith(_CALLBACK_FILES)
                or _in_collection[0] or frame.f_code in _MARKERS):
            return
        left = self._cpu_end - time.thread_time() - self._held_back()
        if left > 0:
            self._check_at = time.perf_counter() + left
        else:
            self._pause()

    def _pause(self) -> None:
        if self._cancel:  # cancelled already: a Cancelled raised where it was swallowed (a weakref
            raise Cancelled  # callback run from a deallocation, say); the resume it had is used up
        self.slice_cpu_s = time.thread_time() - self._slice_cpu0
        self._resume.clear()  # before _paused is set: the lender's next set() must not be lost
        self._paused.set()
        self._resume.wait()
        if self._cancel:
            raise Cancelled
        self._start_slice()
        if self._untraced:  # off again until the lender sees this slice nearly spent
            with self._state_lock:
                if not self._armed:  # (the lender may have switched it on for this slice already)
                    sys.settrace(None)
