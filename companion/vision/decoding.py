"""Decoding a board photo, reduced in the JPEG decoder when the photo has pixels to spare.

The board plane is judged at ``coverage.PPM`` (4 px/mm) and the coverage and equipment targets
are measured on 1600x1200 photos (under 2 px/mm on the 800 mm board).  A 12-megapixel photo
carries twice that in each direction, and decoding it in full costs about twice as much as letting
libjpeg scale the DCT blocks down by two (``cv2.IMREAD_REDUCED_COLOR_2``): so a large JPEG is
decoded at the largest reduction (2, 4 or 8) that still leaves at least ``MIN_SIDES`` pixels,
read from the JPEG header before decoding.  Registrations then refer to the decoded pixels;
``Photo.scale`` says how they relate to the original ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .registration import VisionRefusal

#: never reduce below this (long side, short side): the resolution the accuracy targets are met at
MIN_SIDES = (1600, 1200)
_REDUCED = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}
# start-of-frame markers (baseline, extended, progressive, lossless; Huffman and arithmetic)
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


@dataclass
class Photo:
    bgr: np.ndarray  # as decoded (OpenCV's channel order); warped before any conversion
    gray: np.ndarray
    source: str = ""
    scale: float = 1.0  # decoded pixels per pixel of the original image (0.5: decoded at half size)

    @property
    def rgb(self) -> np.ndarray:
        return cv2.cvtColor(self.bgr, cv2.COLOR_BGR2RGB)

    @property
    def original_size(self) -> tuple[int, int]:
        """(width, height) of the image as stored."""
        h, w = self.bgr.shape[:2]
        return int(round(w / self.scale)), int(round(h / self.scale))


def _header_segments(data: bytes):
    """(marker, offset) of each segment of a JPEG's header, up to and including the first scan's start."""
    i, n = 2, len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            return
        kind = data[i + 1]
        if kind == 0xFF:  # fill byte
            i += 1
            continue
        if kind in (0xD8, 0x01) or 0xD0 <= kind <= 0xD7:  # markers without a length
            i += 2
            continue
        yield kind, i
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if kind == 0xDA or length < 2:
            return
        i += 2 + length


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's start-of-frame segment, or None if there is none to read."""
    if data[:2] != b"\xff\xd8":
        return None
    for kind, i in _header_segments(data):
        if kind in _SOF:
            if i + 9 > len(data):
                return None
            h = int.from_bytes(data[i + 5:i + 7], "big")
            w = int.from_bytes(data[i + 7:i + 9], "big")
            return (w, h) if w and h else None
        if kind == 0xDA:  # image data before any frame header: give up
            return None
    return None


def jpeg_truncated(data: bytes) -> bool:
    """Whether a JPEG stops before its end-of-image marker (OpenCV would decode it with a grey tail).

    The marker is looked for anywhere after the first scan starts, not only in the last bytes:
    phones append data after it (Samsung's trailer, a motion photo's video, a second picture), and
    inside a scan every 0xFF byte is followed by 0x00 or a restart marker, so the first FF D9 after
    the scan's start is the image's own end.  A header that cannot be walked to a scan falls back to
    the end marker among the last 64 bytes (the decoder then says whether it is an image at all).
    """
    if data[:2] != b"\xff\xd8":
        return False
    scan = next((i for kind, i in _header_segments(data) if kind == 0xDA), None)
    if scan is None:
        return b"\xff\xd9" not in data[-64:]
    return data.find(b"\xff\xd9", scan) < 0


def reduction_for(width: int, height: int) -> int:
    """The largest JPEG decoder reduction that keeps at least ``MIN_SIDES`` pixels (1: none)."""
    long_side, short_side = max(width, height), min(width, height)
    for r in (8, 4, 2):
        if long_side // r >= MIN_SIDES[0] and short_side // r >= MIN_SIDES[1]:
            return r
    return 1


def decode(data: bytes, source: str = "", reduce: bool = True) -> Photo:
    """Decode image bytes or refuse: empty, not an image, truncated JPEG.

    ``reduce``: decode a large JPEG at a reduced size (see the module's docstring).
    """
    name = source or "the photo"
    if not data:
        raise VisionRefusal("not an image", f"{name} is empty")
    if jpeg_truncated(data):
        raise VisionRefusal("corrupt image", f"{name} is a truncated JPEG (no end marker)")
    arr = np.frombuffer(data, np.uint8)
    size = jpeg_size(data) if reduce else None
    r = reduction_for(*size) if size else 1
    bgr = cv2.imdecode(arr, _REDUCED[r] if r > 1 else cv2.IMREAD_COLOR)
    if bgr is None or bgr.size == 0:
        raise VisionRefusal("not an image", f"{name} is not an image OpenCV can decode")
    if min(bgr.shape[:2]) < 200:
        raise VisionRefusal("too small", f"{name} is only {bgr.shape[1]}x{bgr.shape[0]} pixels")
    # the decoder rounds reduced sizes up; EXIF rotation may swap the sides
    scale = 1.0
    if r > 1:
        scale = max(bgr.shape[:2]) / max(size)
    return Photo(bgr, cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), source, scale)
