"""Where camera frames come from: one small interface, three backends.

A :class:`CameraSource` must implement ``read()`` (the next frame as a BGR ``uint8`` array, or
raise :class:`CameraError`) and may implement ``open()``/``close()``. Backends:

* :class:`PicameraSource` -- the Raspberry Pi camera through Picamera2 (imported only when opened,
  so the rest of the companion runs where Picamera2 is not installed);
* :class:`OpenCVCamera` -- a USB webcam, a video file or a stream URL through ``cv2.VideoCapture``;
* :class:`SimulatedCamera` -- plays frames it is given (rendered dice throws for the demo and
  the tests), and can be told to "unplug" and "replug".

``open_camera(spec)`` picks one from a config string: ``"auto"`` (Picamera2 if importable, else
webcam 0), ``"picamera"``, ``"sim"``, a device number (``"0"``), a path or a URL.

    >>> cam = SimulatedCamera([np.zeros((4, 4, 3), np.uint8)], loop=True)
    >>> cam.read().shape
    (4, 4, 3)
"""

from __future__ import annotations

import abc
import importlib.util
import threading
from collections.abc import Iterable, Iterator

import cv2
import numpy as np

from companion.errors import CompanionError


class CameraError(CompanionError, OSError):
    """The camera cannot be opened or stopped delivering frames."""


class CameraSource(abc.ABC):
    """Base of the camera backends: override :meth:`read`; :meth:`open`/:meth:`close` if needed."""

    name = "camera"

    def open(self) -> None:
        """Acquire the device (may raise :class:`CameraError`). Called again after a failure."""

    @abc.abstractmethod
    def read(self) -> np.ndarray:
        """The next frame as a BGR ``uint8`` array, or raise :class:`CameraError`."""

    def close(self) -> None:
        """Release the device; safe to call twice."""

    def describe(self) -> str:
        return self.name

    def __enter__(self):
        self.open()
        return self

    def __exit__(self, *exc):
        self.close()


class OpenCVCamera(CameraSource):
    """A webcam (device number), a video file or a stream URL through ``cv2.VideoCapture``."""

    def __init__(self, device: int | str = 0, size: tuple[int, int] | None = (640, 480)):
        self.device, self.size = device, size
        self.name = f"opencv:{device}"
        self._cap: cv2.VideoCapture | None = None

    def open(self) -> None:
        self.close()
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            raise CameraError(f"{self.name}: cannot open")
        if self.size and isinstance(self.device, int):
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        # the newest frame, not one queued in the driver: live mode reads a few frames a second
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self._cap = cap

    def read(self) -> np.ndarray:
        if self._cap is None:
            self.open()
        ok, frame = self._cap.read()
        if not ok or frame is None:
            raise CameraError(f"{self.name}: no frame (unplugged or end of stream)")
        return frame

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class PicameraSource(CameraSource):
    """The Raspberry Pi camera through Picamera2; imported when opened, not at import time."""

    def __init__(self, size: tuple[int, int] = (640, 480)):
        self.size = size
        self.name = "picamera2"
        self._cam = None

    def open(self) -> None:
        self.close()
        try:
            from picamera2 import Picamera2  # noqa: PLC0415 - optional, only on a Pi
        except ImportError as exc:
            raise CameraError("picamera2 is not installed (apt install python3-picamera2)") from exc
        try:
            cam = Picamera2()
            cam.configure(cam.create_video_configuration(main={"size": tuple(self.size), "format": "RGB888"}))
            cam.start()
        except Exception as exc:  # the library raises many kinds when no camera is attached
            raise CameraError(f"picamera2: {exc}") from exc
        self._cam = cam

    def read(self) -> np.ndarray:
        if self._cam is None:
            self.open()
        try:
            frame = self._cam.capture_array("main")
        except Exception as exc:
            raise CameraError(f"picamera2: {exc}") from exc
        # Picamera2's "RGB888" is laid out B, G, R in memory: already OpenCV's order
        return np.ascontiguousarray(frame[..., :3])

    def close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.stop()
                self._cam.close()
            except Exception:  # closing a vanished camera must not raise
                pass
            self._cam = None


class SimulatedCamera(CameraSource):
    """Plays the frames it is given; ``unplug()``/``replug()`` simulate a cable pulled and put back.

    ``frames`` may be a list (``loop=True`` repeats it) or any iterator (a generator rendering a
    throw as it goes). When the frames run out, ``read`` raises :class:`CameraError`.
    """

    def __init__(self, frames: Iterable[np.ndarray], loop: bool = False, name: str = "simulated camera"):
        self.name = name
        self._frames = list(frames) if loop else None
        self._iter: Iterator[np.ndarray] = iter(self._frames if loop else frames)
        self._loop = loop
        self._lock = threading.Lock()
        self.unplugged = False
        self.frames_read = 0

    def unplug(self) -> None:
        self.unplugged = True

    def replug(self) -> None:
        self.unplugged = False

    def read(self) -> np.ndarray:
        with self._lock:
            if self.unplugged:
                raise CameraError(f"{self.name}: unplugged")
            try:
                frame = next(self._iter)
            except StopIteration:
                if not self._loop or not self._frames:
                    raise CameraError(f"{self.name}: no more frames") from None
                self._iter = iter(self._frames)
                frame = next(self._iter)
            self.frames_read += 1
            return frame


def open_camera(spec: str = "auto", size: tuple[int, int] = (640, 480), seed: int = 0) -> CameraSource:
    """A camera from a config string: "auto", "picamera", "sim", a device number, a path or URL."""
    spec = str(spec).strip()
    if spec == "auto":
        if importlib.util.find_spec("picamera2") is not None:
            return PicameraSource(size)
        return OpenCVCamera(0, size)
    if spec == "picamera":
        return PicameraSource(size)
    if spec == "sim":
        from companion.vision.dice_sim import throw_frames_forever

        return SimulatedCamera(throw_frames_forever(seed, size), name="simulated dice tray")
    if spec.isdigit():
        return OpenCVCamera(int(spec), size)
    return OpenCVCamera(spec, None)
