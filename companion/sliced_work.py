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

Costs: the trace hook makes the work's Python calls some 10-20 % dearer (measured on die crops);
the CPU clock (a system call) is read only once the wall clock says the slice could be spent, since
a thread cannot use more CPU than time passes. A slice overshoots by the longest stretch without a
Python call (one OpenCV call: well under a millisecond on a die crop).
"""

from __future__ import annotations

import inspect
import sys
import threading
import time
from collections.abc import Callable


CANCEL_WAIT_S = 0.005
_GENERATORS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_current = threading.local()  # the SlicedWork a worker thread runs


def expect_long_steps(seconds: float) -> None:
    """Said by the work itself: from here on, a stretch without a Python call may last about
    ``seconds`` (numpy and OpenCV on whole frames rather than die crops), so each slice ends that
    much early and the lender's budget holds. No effect outside a worker."""
    work = getattr(_current, "work", None)
    if work is not None:
        work._reserve = seconds
        work._check_at = 0.0


class Cancelled(BaseException):
    """Raised inside the worker to unwind cancelled work (a BaseException: the work's own
    ``except Exception`` must not swallow it)."""


class SlicedWork:
    """``fn(*args)`` run in a worker thread, a slice of CPU time at a time (:meth:`run_for`)."""

    def __init__(self, fn: Callable, *args, name: str = "sliced work"):
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
        if self._thread is None:
            self._thread = threading.Thread(target=self._main, name=self._name, daemon=True)
            self._thread.start()
        else:
            self._resume.set()
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
        sys.settrace(self._fast_hook())
        try:
            self._result = self._fn(*self._args)
        except Cancelled:
            pass
        except BaseException as exc:  # handed to the lender by result()
            self._error = exc
        finally:
            sys.settrace(self._chained)
            now = time.thread_time()
            self.cpu_s = now - cpu0
            self.slice_cpu_s = now - self._slice_cpu0
            self.done = True
            self._paused.set()

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
        if frame.f_code.co_flags & _GENERATORS:
            return
        left = self._cpu_end - time.thread_time() - self._held_back()
        if left > 0:
            self._check_at = time.perf_counter() + left
        else:
            self._pause()

    def _pause(self) -> None:
        self.slice_cpu_s = time.thread_time() - self._slice_cpu0
        self._resume.clear()  # before _paused is set: the lender's next set() must not be lost
        self._paused.set()
        self._resume.wait()
        if self._cancel:
            raise Cancelled
        self._start_slice()
