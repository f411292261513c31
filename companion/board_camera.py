"""The overhead board camera, for the calibration wizard's live preview and marker status.

``open_board_camera(spec, box)`` gives a :class:`companion.inputs.camera_source.CameraSource`:
"sim" renders the board from the box profile (the simulated twin: an empty board seen at a slight
tilt, as the demo has no camera), anything else is passed to ``open_camera`` (Picamera2, a webcam
number, a path or URL). Frames are BGR arrays.
"""

from __future__ import annotations

import threading

import cv2

from companion.inputs.camera_source import CameraError, CameraSource, SimulatedCamera, open_camera


def open_board_camera(spec: str, box, size=(1600, 1200)) -> CameraSource:
    if spec == "sim":
        from companion.vision.render import Scene, render

        image, _ = render(box, Scene(sheets=[], width=size[0], height=size[1], seed=1,
                                     camera={"tilt_deg": 12.0, "azimuth_deg": 20.0, "fov_deg": 60.0, "fill": 0.9}))
        return SimulatedCamera([cv2.cvtColor(image, cv2.COLOR_RGB2BGR)], loop=True, name="simulated board camera")
    return open_camera(spec, size)


class BoardCamera:
    """One board camera shared by the pages: opened on first use, a failure reported, never raised."""

    def __init__(self, spec: str, box):
        self.spec, self.box = spec, box
        self._camera: CameraSource | None = None
        self._lock = threading.Lock()
        self.last_error: str | None = None

    def frame(self):
        """The latest frame (BGR), or None with ``last_error`` saying why."""
        with self._lock:
            try:
                if self._camera is None:
                    self._camera = open_board_camera(self.spec, self.box)
                    self._camera.open()
                frame = self._camera.read()
                self.last_error = None
                return frame
            except (CameraError, OSError, ValueError, ImportError) as exc:
                self.last_error = str(exc)
                if self._camera is not None:
                    self._camera.close()
                self._camera = None
                return None

    def close(self) -> None:
        with self._lock:
            if self._camera is not None:
                self._camera.close()
                self._camera = None
