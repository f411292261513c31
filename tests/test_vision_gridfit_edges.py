"""gridfit's edge image is the exact gradient magnitude, whatever the heap (decisions reproducible)."""

import cv2
import numpy as np

from companion.vision.gridfit import _edges


def test_the_edges_are_the_exact_root_of_the_squared_gradients():
    # cv2.magnitude rounded about a third of these pixels an ulp off, which ones depending on where
    # its output array lay in memory: the same photo was registered (and adjudicated) two ways
    img = np.random.default_rng(0).random((260, 1516)).astype(np.float32)
    g = cv2.GaussianBlur(img, (0, 0), 0.8)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    exact = np.sqrt(gx * gx + gy * gy)
    for _ in range(3):  # and the same each time, arrays allocated in between
        assert np.array_equal(_edges(img), exact)
        _ = [np.ones(n, np.uint8) for n in (17, 4096 + 8, 200000)]
