"""The benchmarks: `python -m tests.bench [bench_NAME ...]` runs them (see __main__.py)."""

from __future__ import annotations

from contextlib import contextmanager


@contextmanager
def one_opencv_thread():
    """OpenCV on one thread for the block, as before afterwards: a bench that counts "one core"
    (thread CPU time) must not have OpenCV's own workers do part of the work uncounted."""
    import cv2

    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        yield
    finally:
        cv2.setNumThreads(threads)
