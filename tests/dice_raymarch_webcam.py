"""A webcam's own image pipeline for the ray-marched webcam frames (an option of the ``webcam``
kind: ``render_raymarch(seed, "webcam", webcam_pipeline=True)``).

The plain ``webcam`` kind exposes every frame at about the same level with mild noise. A real USB
webcam on a desk does more, and each step changes what the reader sees:

* **Room light, not daylight**: a warm lamp (tungsten to warm-white LED) casts the scene orange,
  and the light level is often low.
* **Auto white balance** (grey world, partly converged): on a brown desk it pulls the frame toward
  grey, so the white dice turn bluish.
* **Auto exposure**: the camera meters the frame (centre-weighted) to mid-grey. On a dark desk
  with small white dice this raises the gain until the dice clip; in dim light the gain also
  raises the noise (shot noise by its square root, read noise with it).
* **The webcam's own processing**: chroma noise smoothed away, luma smoothed a little where
  noisy, then sharpened (halos at the dice's edges and pips), and a low MJPEG quality.

Numbers are drawn from a stream of their own (``[seed, 4243]``), so the scene, its dice and its blur
are those of ``render_raymarch(seed, "webcam")``; only the camera differs. Test-side only.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

# the metering target: mid-grey in linear light (18 % grey, sRGB about 118), as cameras aim for
AE_TARGET = 0.18
# how far a webcam's exposure settles from that target (its bias and slow convergence), as a factor
AE_SPREAD = (0.7, 1.4)
# the gain an auto exposure may apply either way (webcams' analog plus digital gain range)
AE_GAIN_RANGE = (0.25, 12.0)
# how many times fewer photons than the plain kind's bright scene (a desk lamp to a dim room)
DIMNESS = (1.0, 6.0)
# the plain webcam kind's noise at gain 1 (tests/dice_raymarch.py _camera): shot and read
SHOT_NOISE, READ_NOISE = 0.025, 0.012
# MJPEG quality of webcam frames (lower than the plain kind's 45-85 at the low end)
JPEG_QUALITY = (35, 80)


def webcam_pipeline(seed: int, img: np.ndarray, params: dict) -> np.ndarray:
    """From a blurred linear BGR frame (float32) to the JPEG-decoded 8-bit webcam frame."""
    rng = np.random.default_rng([seed, 4243])
    h, w = img.shape[:2]
    # a warm room light: red up, blue down (a colour temperature of about 2700-5000 K)
    warmth = float(rng.uniform(0.0, 1.0))
    img = img * np.array([1 - 0.45 * warmth, 1 - 0.12 * warmth, 1.0], np.float32)
    # auto white balance, grey world, converged only partly
    awb = float(rng.uniform(0.4, 1.0))
    means = img.reshape(-1, 3).mean(axis=0)
    img = img * ((means.mean() / np.maximum(means, 1e-6)) ** awb).astype(np.float32)
    # auto exposure: a centre-weighted mean of the luminance brought to the target
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    weight = np.exp(-(((xs - w / 2) / (0.4 * w)) ** 2 + ((ys - h / 2) / (0.4 * h)) ** 2))
    lum = img[..., 0] * 0.114 + img[..., 1] * 0.587 + img[..., 2] * 0.299
    meter = float((lum * weight).sum() / weight.sum())
    gain = float(np.clip(AE_TARGET * rng.uniform(*AE_SPREAD) / max(meter, 1e-6), *AE_GAIN_RANGE))
    dim = float(math.exp(rng.uniform(math.log(DIMNESS[0]), math.log(DIMNESS[1]))))
    img = np.clip(img * gain, 0, 1)  # the sensor clips: white dice on a dark desk burn out
    # sensor noise at the total gain (fewer photons, more amplification)
    g = gain * dim
    sd = np.sqrt((READ_NOISE * g) ** 2 + SHOT_NOISE ** 2 * g * img)
    img = img + rng.standard_normal(img.shape, dtype=np.float32) * sd.astype(np.float32)
    lut = (np.linspace(0, 1, 4096) ** (1 / 2.2) * 255 + 0.5).astype(np.uint8)
    out = lut[np.clip(img * 4095, 0, 4095).astype(np.uint16)]
    # the webcam's processing: chroma smoothed hard, luma a little (more when noisy), sharpened
    ycc = cv2.cvtColor(out, cv2.COLOR_BGR2YCrCb)
    for c in (1, 2):
        ycc[..., c] = cv2.GaussianBlur(ycc[..., c], (0, 0), 1.5)
    noise8 = 255 * READ_NOISE * g
    ycc[..., 0] = cv2.bilateralFilter(ycc[..., 0], 5, float(np.clip(2.5 * noise8, 5, 60)), 2.0)
    out = cv2.cvtColor(ycc, cv2.COLOR_YCrCb2BGR)
    amount = float(rng.uniform(0.2, 1.0))
    soft = cv2.GaussianBlur(out, (0, 0), 1.0)
    out = cv2.addWeighted(out, 1 + amount, soft, -amount, 0)
    q = int(rng.uniform(*JPEG_QUALITY))
    params.update(webcam_pipeline=True, warmth=round(warmth, 2), awb=round(awb, 2), gain=round(gain, 2),
                  dim=round(dim, 2), sharpen=round(amount, 2), jpeg=q)
    return cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])[1], cv2.IMREAD_COLOR)
