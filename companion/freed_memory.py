"""Freed memory kept by the C allocator for the next frame, not handed back to the system.

Every frame's reading makes and drops arrays of a few hundred kilobytes to a few megabytes (the
tray at 320x240 as float32 is 0.9 MB; the comparison with the empty tray makes a dozen such). The
C library's allocator (glibc's malloc) serves such sizes from fresh pages of the system (``mmap``)
or gives freed memory at the top of its heap back (``trim``), so the next frame's arrays land on
pages the kernel must map and zero again: a page fault each 4 kB. Measured on this project's VM
(session 20): ``tray_reader.changes`` on a 320x240 tray made 643 page faults a call and took
4.3-4.8 ms of CPU (median of 300); with the freed memory kept, no fault and 2.7-3.2 ms.

:func:`keep_freed_memory` tells the allocator, once per process, to serve blocks up to
``MMAP_ABOVE`` from its heap and to keep up to ``TRIM_ABOVE`` of freed memory. Where there is no
glibc (another C library, Windows, macOS) it does nothing.
"""

from __future__ import annotations

import ctypes
import threading

M_TRIM_THRESHOLD = -1  # mallopt's parameter numbers (glibc's malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_ABOVE = 16 * 2**20  # blocks bigger than this still get their own pages: a full-resolution frame as
# float32 (640x480x3: 3.7 MB; a 1280x720 one 11 MB) comes from the heap, a rare bigger one does not
TRIM_ABOVE = 64 * 2**20  # freed memory kept at the heap's top, per allocator arena: a few frames' worth of
# arrays (a read's whole working set is 5-20 MB), a bounded cost for a long-running service

_lock = threading.Lock()
_done = False


def keep_freed_memory() -> bool:
    """Once per process: freed memory kept for reuse (see the module's summary). True if the
    allocator took the settings (glibc), False where it could not be asked."""
    global _done
    with _lock:
        if _done:
            return True
        try:
            mallopt = ctypes.CDLL(None).mallopt  # (the C library the interpreter runs on)
        except (OSError, AttributeError, TypeError):
            return False  # no glibc: its allocator settings do not apply
        mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
        _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_ABOVE)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_ABOVE))
        return _done
