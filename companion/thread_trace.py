"""Switching a trace hook on in another thread, so sliced work runs untraced until its slice ends.

:mod:`companion.sliced_work` pauses a worker thread from a trace hook. A hook makes CPython 3.11
run every bytecode of that thread through its tracing path (line numbers looked up, no
specialised instructions): a 6-dice tray read took 14 % more CPU with a hook that does nothing
at all (a C builtin as the hook: 13.8 %; a Python one: 13.7 %), so the cost is the tracing mode,
not the hook. ``sys.settrace`` only reaches the calling thread, but the C function behind it,
``_PyEval_SetTrace(tstate, func, arg)``, takes any thread's state (CPython says so in its source:
it audits in the calling thread "not in tstate which can be a different thread state", and 3.12's
``PyEval_SetTraceAllThreads`` is built on it). So the lender lets the worker run untraced and, as
the slice nears its end, :func:`arm` gives the worker's thread a C-level trace function whose
first call, made in the worker, puts the worker's own Python hook in place with ``sys.settrace``.

Only on CPython 3.11 and 3.12 (where that function is known to behave so); elsewhere
:func:`available` is False and the work is traced from its start, as before. The worker's thread
state must be alive while it is armed: the caller holds a lock the worker takes before it ends.
"""

from __future__ import annotations

import ctypes
import sys
import threading

_TRACE_FUNC = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
_hooks = threading.local()  # in each armed thread: the Python hook to put in place


def _install_hook(obj, frame, what, arg) -> int:
    """The C-level trace function :func:`arm` gives a thread: its first call (in that thread) puts
    the thread's Python hook in place, which replaces this function from then on."""
    sys.settrace(getattr(_hooks, "hook", None))
    return 0


_install_hook_c = _TRACE_FUNC(_install_hook)  # kept alive for as long as the process runs


def _set_trace_function():
    if sys.implementation.name != "cpython" or sys.version_info[:2] not in ((3, 11), (3, 12)):
        return None
    try:
        fn = ctypes.pythonapi._PyEval_SetTrace
    except AttributeError:
        return None
    fn.argtypes = (ctypes.c_void_p, _TRACE_FUNC, ctypes.c_void_p)
    fn.restype = ctypes.c_int
    return fn


_set_trace = _set_trace_function()
_get_state = ctypes.pythonapi.PyThreadState_Get if _set_trace is not None else None
if _get_state is not None:
    _get_state.restype = ctypes.c_void_p


def available() -> bool:
    """Whether a trace hook can be switched on in another thread here."""
    return _set_trace is not None


def this_thread(hook) -> int:
    """Called in the worker: its thread state (for :func:`arm`), with ``hook`` as the Python trace
    hook that arming puts in place."""
    _hooks.hook = hook
    return _get_state()


def arm(state: int) -> None:
    """Switch tracing on in the thread whose state is ``state`` (from :func:`this_thread`, in a
    thread still alive): its next Python call puts its hook in place. Holds the GIL throughout."""
    if _set_trace(state, _install_hook_c, None) != 0:
        raise RuntimeError("could not switch tracing on in the worker thread")
