"""Decoding board photos: large JPEGs reduced in the decoder, small ones untouched, bad files refused."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.decoding import MIN_SIDES, decode, jpeg_size, jpeg_truncated, reduction_for
from companion.vision.evaluate import hex_centre_error_mm
from companion.vision.gridfit import refine
from companion.vision.registration import VisionRefusal, register
from companion.vision.render import encode_jpeg, random_scene, render


def _jpeg(w: int, h: int, **params) -> bytes:
    rng = np.random.default_rng(w + h)
    img = cv2.resize(rng.integers(0, 255, (h // 16, w // 16, 3), np.uint8), (w, h))
    flags = [cv2.IMWRITE_JPEG_PROGRESSIVE, 1] if params.get("progressive") else []
    return cv2.imencode(".jpg", img, flags)[1].tobytes()


@pytest.mark.parametrize("w,h,progressive", [(1600, 1200, False), (4000, 3000, False), (3000, 4000, True),
                                             (1234, 987, True)])
def test_jpeg_size_is_read_from_the_header(w, h, progressive):
    assert jpeg_size(_jpeg(w, h, progressive=progressive)) == (w, h)


def test_no_size_without_a_frame_header():
    png = cv2.imencode(".png", np.zeros((300, 300, 3), np.uint8))[1].tobytes()
    assert jpeg_size(png) is None
    assert jpeg_size(b"\xff\xd8\xff\xe0\x00") is None


def test_reduction_keeps_the_resolution_the_targets_are_measured_at():
    assert reduction_for(1600, 1200) == 1
    assert reduction_for(4000, 3000) == 2 and reduction_for(3000, 4000) == 2
    assert reduction_for(8000, 6000) == 4
    for w, h in ((4000, 3000), (6000, 4000), (3264, 2448), (12800, 9600)):
        r = reduction_for(w, h)
        assert max(w, h) // r >= MIN_SIDES[0] and min(w, h) // r >= MIN_SIDES[1]


def test_a_twelve_megapixel_jpeg_is_decoded_at_half_size():
    p = decode(_jpeg(4000, 3000), "big.jpg")
    assert p.bgr.shape == (1500, 2000, 3) and p.gray.shape == (1500, 2000)
    assert p.scale == 0.5 and p.original_size == (4000, 3000)
    full = decode(_jpeg(4000, 3000), "big.jpg", reduce=False)
    assert full.bgr.shape == (3000, 4000, 3) and full.scale == 1.0
    small = decode(_jpeg(1600, 1200))
    assert small.bgr.shape == (1200, 1600, 3) and small.scale == 1.0


def test_truncated_and_foreign_files_are_still_refused():
    data = _jpeg(4000, 3000)
    with pytest.raises(VisionRefusal) as exc:
        decode(data[: len(data) // 2])
    assert exc.value.reason == "corrupt image"
    with pytest.raises(VisionRefusal) as exc:
        decode(b"\xff\xd8" + b"\x00" * 100 + b"\xff\xd9")
    assert exc.value.reason == "not an image"


def _with_thumbnail(data: bytes) -> bytes:
    """An APP1 segment holding a small JPEG (its own end marker inside the header), as phones write."""
    thumb = _jpeg(160, 120)
    body = b"Exif\x00\x00" + thumb
    return data[:2] + b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body + data[2:]


def test_data_after_the_end_marker_is_no_truncation():
    """Phones append data after a JPEG's end (Samsung's trailer, a motion photo's video): the photo
    is whole and decodes; cut inside its scan it is refused, even with a thumbnail's end marker in
    its header or bytes appended after the cut."""
    data = _with_thumbnail(_jpeg(1600, 1200, progressive=True))
    trailer = b"SEFH" + bytes(range(256)) * 40  # 10 KB after the end marker
    assert not jpeg_truncated(data) and not jpeg_truncated(data + trailer)
    assert decode(data + trailer).bgr.shape == (1200, 1600, 3)
    cut = data[: len(data) * 2 // 3]
    assert jpeg_truncated(cut) and jpeg_truncated(cut + bytes(4000))
    with pytest.raises(VisionRefusal) as exc:
        decode(cut + bytes(4000))
    assert exc.value.reason == "corrupt image"


def test_registration_on_a_reduced_photo_is_as_good(box):
    """A 3200x2400 render decodes at 1600x1200; the hex centres land where the camera put them."""
    scene = random_scene(box, 41, 3200, 2400)
    scene.supersample = 1
    photo, truth = render(box, scene)
    p = decode(encode_jpeg(photo, 90))
    assert p.scale == 0.5
    reg = refine(register(p.gray, box), p.gray, box)
    # the truth is in the original's pixels: bring it to the decoded ones (pixel centres at integers)
    half = {a: [(x + 0.5) * p.scale - 0.5, (y + 0.5) * p.scale - 0.5] for a, (x, y) in truth["hex_centres_px"].items()}
    assert hex_centre_error_mm(box, reg, {"hex_centres_px": half}).max() < 0.5
