"""Loading a photo for the dice reader: a file into a BGR array, or a clear error saying why not."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.vision.decoding import jpeg_truncated


class DiceImageError(CompanionError, ValueError):
    """A photo that cannot be read: missing, empty, corrupt, or not an image."""


def load_image(path: str | Path) -> np.ndarray:
    """Read a photo file into a BGR array, or raise :class:`DiceImageError` saying why not."""
    p = Path(path)
    if not p.exists():
        raise DiceImageError(f"{path}: no such file")
    if p.is_dir():
        raise DiceImageError(f"{path}: is a directory")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise DiceImageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not data:
        raise DiceImageError(f"{path}: empty file")
    if jpeg_truncated(data):
        # OpenCV decodes a truncated JPEG with a grey tail; a cut-off photo is not to be trusted
        raise DiceImageError(f"{path}: truncated JPEG")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None or img.size == 0:
        raise DiceImageError(f"{path}: not a readable image (corrupt or unknown format)")
    return img


def _as_bgr(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.size == 0:
        raise DiceImageError("not an image")
    if image.dtype != np.uint8:
        if np.issubdtype(image.dtype, np.floating) and image.max() <= 1.0:
            image = image * 255.0
        image = np.clip(image, 0, 255).astype(np.uint8)
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    raise DiceImageError(f"not a BGR image: shape {image.shape}")
