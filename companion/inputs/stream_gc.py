"""The garbage collector's collections held back while the stream reads dice, run in the next
frame that reads none.

Python's cyclic collector runs when the young generation's count of new container objects passes
its threshold (700): in whichever thread makes the object that passes it, in the middle of
whatever runs. In the stream that is nearly always a read (session 23: every one of the 59-63
collections a bench run made inside a frame came in a frame that lent time to a read, none in the
1,950 frames with no read under way; 0.2-1.9 ms each, 23-35 ms a run): a read's
slice then overshoots by the collection (the slice's hook does not pause inside one), or the frame
has that much less for its read. The start-up objects are out of the full collections already
(``camera_thread.freeze_startup_objects``).

:func:`hold` raises the young generation's threshold to ``READING_THRESHOLD`` from the start of
each frame, and :func:`release` puts it back at the end of a frame that read nothing (no read
under way, no time lent to one): the collection held back then runs at once, by the collector's own
rules (a full one included when those say so), in that frame (such frames use 0.3-0.5 ms of their 10 at p50). A frame
that reads keeps it raised until such a frame (the frame a read ends in has lent the read its
budget; the frame a read starts in, and a moving frame before it, may already hold a read's
objects). A read makes 30 new objects a frame, net, on average (59 collections of 700 over 1,364
reading frames). The thresholds are the process's: a collection is held back in the service's
other threads too while the stream reads (a few frames), never stopped -- past
``READING_THRESHOLD`` new objects it runs anyway, so memory stays bounded; a closed source gives
them back. ``GC_BETWEEN_READS = False``: the collector as it was.
"""

from __future__ import annotations

import gc
import threading
import weakref

GC_BETWEEN_READS = True  # switch: collections held back while a read goes on (False: as before)
READING_THRESHOLD = 10_000  # the young generation's threshold while a source reads: reads that net 30
# objects a frame (session 23's bench, above) pass it after about 330 frames, longer than any read (the
# longest, a cold start's whole-tray read, 28 frames); a young collection of this many live objects, if
# ever made, walks them in 0.4 ms (session 23: median of 20, 0.5 the most; 700 of them: 0.05 ms)

_lock = threading.RLock()  # (re-entered if a collection inside the lock finalises a dropped source)
_readers: weakref.WeakSet = weakref.WeakSet()
_watched: weakref.WeakSet = weakref.WeakSet()  # sources with a finaliser (one each)
_raised: tuple[int, int, int] | None = None  # the thresholds as set while raised (None: not raised)
_saved: tuple[int, int, int] | None = None  # ... and as they were before


class _Trigger:
    """A container object made only to let a collection held back run (one allocated through the
    collector, not from a free list as a list or a dict may be)."""


def hold(source: object) -> None:
    """``source`` is in a frame (or reading): young collections held back until no source holds them."""
    global _raised, _saved
    if not GC_BETWEEN_READS:
        return
    with _lock:
        if source in _readers:
            return
        if _raised is None:
            _saved = gc.get_threshold()
            _raised = (max(READING_THRESHOLD, _saved[0]), *_saved[1:])
            gc.set_threshold(*_raised)
        _readers.add(source)
        if source not in _watched:
            _watched.add(source)
            weakref.finalize(source, _forget_dropped)


def release(source: object) -> None:
    """``source`` is at the end of a frame that read nothing (or closed); once no source holds them,
    the thresholds are as before and a collection held back runs now (in the caller's thread). A
    source that holds nothing changes nothing."""
    with _lock:
        _readers.discard(source)
        if not _restore():
            return
    _Trigger()  # (its allocation is where the collector checks its count)


def _restore() -> bool:
    """Thresholds as before if no source holds them (and nobody set others meanwhile); True if done.
    Called with the lock held."""
    global _raised, _saved
    if _raised is None or any(True for _ in _readers):  # (live ones: a dropped one may not be out yet)
        return False
    if gc.get_threshold() == _raised:
        gc.set_threshold(*_saved)
    _raised = _saved = None
    return True


def _forget_dropped() -> None:
    """A source was dropped while holding collections back (a test, a lost reference): once no
    source holds them, the thresholds are as before."""
    with _lock:
        _restore()


def held_back() -> bool:
    """Whether collections are held back now (some source holds them)."""
    return _raised is not None
