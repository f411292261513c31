"""The camera thread of a camera source: frames read at a steady rate, faults survived.

:class:`CameraThread` is the part of :class:`companion.inputs.camera_dice.CameraDice` that runs in
its own thread: it opens the camera, reads a frame each period and hands it to
``process_frame``; a camera that raises or stops is retried with a growing pause, counted in the
health record (``camera_errors``) and marked disconnected after ``stale_after_s``. The subclass
says what a frame means (``process_frame``), what a lost view means (``_interrupted``) and what
to let go of when it closes (``_release``).
"""

from __future__ import annotations

import gc
import threading
import time

from .base import DiceSource
from .camera_source import CameraError, CameraSource


_frozen = threading.Lock()
_froze = False


def freeze_startup_objects() -> None:
    """Once per process, when the first camera source is made: the objects alive then (modules,
    the reader's tables: 26 thousand in a bare process) are taken out of the garbage collector's
    full collections (``gc.freeze``), which otherwise walk them all -- 7.4 ms measured, paid by
    whichever frame happens to allocate past the collector's threshold (a frame over its 10 ms).
    Garbage is collected first; frozen objects are still freed when nothing refers to them."""
    global _froze
    with _frozen:
        if not _froze:
            gc.collect()
            gc.freeze()
            _froze = True


class CameraThread(DiceSource):
    """A :class:`DiceSource` fed by a camera in its own thread (see the module's summary)."""

    camera: CameraSource
    fps: float
    stale_after_s: float

    def __init__(self, name: str):
        super().__init__(name)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def process_frame(self, frame) -> list:
        """One frame in, the events it completes out: each camera source (the dice camera) says how."""
        raise NotImplementedError  # abstract: CameraDice implements it; the base only runs the thread

    def _interrupted(self) -> None:
        """The view was lost for a while (the subclass forgets what no longer holds)."""

    def _release(self) -> None:
        """What the subclass lets go of when the source closes."""


    def start(self, callback) -> None:
        super().start(callback)
        self.health.connected = False  # until the first frame arrives
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"{self.name} reader", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        period = 1.0 / self.fps if self.fps > 0 else 0.0
        last_frame = time.monotonic()
        backoff = 0.1
        opened = False
        while not self._stop.is_set():
            t0 = time.monotonic()
            try:
                if not opened:
                    self.camera.open()
                    opened = True
                frame = self.camera.read()
            except Exception as exc:  # a CameraError, or a driver's own exception: handled alike
                self._camera_down(str(exc) if isinstance(exc, CameraError) else
                                  f"camera: {type(exc).__name__}: {exc}", last_frame)
                opened = False
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 2.0)
                continue
            backoff = 0.1
            last_frame = time.monotonic()
            if not self.health.connected:
                self.health.connected = True
                self.health.details["recovered_at"] = time.time()
            try:
                self.process_frame(frame)
            except Exception as exc:  # never let one frame end the thread
                self.fail(f"frame failed: {type(exc).__name__}: {exc}")
            if period:
                self._stop.wait(max(0.0, period - (time.monotonic() - t0)))

    def _camera_down(self, message: str, last_frame: float) -> None:
        self.fail(message)
        self.health.details["camera_errors"] = self.health.details.get("camera_errors", 0) + 1
        if time.monotonic() - last_frame >= self.stale_after_s or self.health.connected:
            self.health.connected = False
        self._interrupted()  # the view may have changed while the camera was away

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._thread = None
        self._release()
        try:
            self.camera.close()
        finally:
            super().close()
