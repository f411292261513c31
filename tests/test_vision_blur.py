"""Blur read off the markers' edges, in mm on the board: what tells a blurred photo from another board."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.blur import BLURRED_MM, markers_blur_mm
from companion.vision.registration import detect_board_markers
from companion.vision.render import encode_jpeg, random_scene, render


def _blur(box, seed, blur_px):
    scene = random_scene(box, seed, 1600, 1200, glare=False, shadows=False)
    scene.blur_px = blur_px
    gray = cv2.imdecode(np.frombuffer(encode_jpeg(render(box, scene)[0], 90), np.uint8), cv2.IMREAD_GRAYSCALE)
    return markers_blur_mm(gray, box, detect_board_markers(gray, box))


def test_blur_grows_with_the_camera_blur_and_sharp_photos_are_under_the_limit(box):
    for seed in (500, 501, 502):
        sharp, soft, softer = _blur(box, seed, 0.5), _blur(box, seed, 2.0), _blur(box, seed, 3.0)
        assert sharp < BLURRED_MM < soft < softer, (seed, sharp, soft, softer)


def test_no_markers_no_measure(box):
    assert markers_blur_mm(np.full((600, 800), 128, np.uint8), box, {}) is None
