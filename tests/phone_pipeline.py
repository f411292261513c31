"""A phone's image pipeline, applied to rendered images: what our renderers never model.

Used by the benches that ask how far figures measured on our own renders travel (bench_unseen for
the board, bench_dice_unseen for dice).  Every step is non-geometric, so a render's truth (where
each die, hex and sheet is) still holds afterwards.  The ranges are those of ordinary phones and
messaging apps, not tuned to make anything pass.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.render import encode_jpeg

def _lower_resolution(img, rng):  # a sensor of lower resolution than the output, upscaled by the phone
    h, w = img.shape[:2]
    scale = rng.uniform(0.6, 0.9)
    small = cv2.resize(img, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _shot_noise(img, rng):  # luminance-dependent noise plus a little read noise, per channel
    return img + rng.normal(0.0, 1.0, img.shape).astype(np.float32) * np.sqrt(np.clip(img, 0, 1) * 0.0004 + 0.00002)


def _white_balance(img, rng):
    return np.clip(img * rng.uniform(0.88, 1.12, 3).astype(np.float32), 0, 1)


def _tone_curve(img, rng):  # a gamma, then an S-curve that pushes mid-tones apart
    img = np.clip(img, 0, 1) ** rng.uniform(0.8, 1.2)
    return img + rng.uniform(0.0, 0.35) * img * (1 - img) * (2 * img - 1)


def _saturation(img, rng):
    grey = img.mean(axis=2, keepdims=True)
    return np.clip(grey + (img - grey) * rng.uniform(1.0, 1.35), 0, 1)


def _sharpening(img, rng):  # unsharp mask: halos along every edge
    blurred = cv2.GaussianBlur(img, (0, 0), rng.uniform(1.0, 2.5))
    return np.clip(img + rng.uniform(0.3, 1.2) * (img - blurred), 0, 1)


def _chroma_420(out, rng):
    h, w = out.shape[:2]
    ycc = cv2.cvtColor(out, cv2.COLOR_RGB2YCrCb)
    for c in (1, 2):
        half = cv2.resize(ycc[..., c], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        ycc[..., c] = cv2.resize(half, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB)


FLOAT_EFFECTS = {"lower resolution": _lower_resolution, "shot noise": _shot_noise, "white balance": _white_balance,
                 "tone curve": _tone_curve, "saturation": _saturation, "sharpening": _sharpening}
EFFECTS = (*FLOAT_EFFECTS, "4:2:0 chroma", "second JPEG")


def phone_pipeline(rgb: np.ndarray, rng: np.random.Generator, effects=EFFECTS) -> bytes:
    """What a phone and a messaging app do to a photo (RGB), none of it geometric; returns the JPEG."""
    img = rgb.astype(np.float32) / 255.0
    for name, effect in FLOAT_EFFECTS.items():
        if name in effects:
            img = effect(img, rng)
    out = (np.clip(img, 0, 1) * 255 + 0.5).astype(np.uint8)
    if "4:2:0 chroma" in effects:
        out = _chroma_420(out, rng)
    first = encode_jpeg(out, int(rng.integers(85, 96)))  # the phone's JPEG ...
    if "second JPEG" not in effects:
        return first
    again = cv2.imdecode(np.frombuffer(first, np.uint8), cv2.IMREAD_COLOR)  # ... and the messaging app's
    return encode_jpeg(cv2.cvtColor(again, cv2.COLOR_BGR2RGB), int(rng.integers(55, 80)))


def phone_image_bgr(bgr: np.ndarray, rng: np.random.Generator, effects=EFFECTS) -> np.ndarray:
    """The same for a BGR image, decoded again (BGR), as a reader given the phone's file would see it."""
    data = phone_pipeline(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), rng, effects)
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


# A second phone, for a further held-out check (bench_unseen): what the first pipeline leaves out.
# Its parameters were set from what phones do, before any figure was measured through it.

def _lens_softness(img, rng):  # a lens or focus a little soft: luma and colour alike
    return cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.0))


def _chroma_denoise(img, rng):  # phones smooth colour noise hard: the colour spreads past edges
    ycc = cv2.cvtColor(img, cv2.COLOR_RGB2YCrCb)
    s = rng.uniform(1.0, 2.5)
    for c in (1, 2):
        ycc[..., c] = cv2.GaussianBlur(ycc[..., c], (0, 0), s)
    return cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB)


def _shadow_lift(img, rng):  # local tone mapping's global part: shadows lifted, highlights kept
    a = np.float32(rng.uniform(1.0, 6.0))
    return (np.log1p(a * np.clip(img, 0, 1)) / np.log1p(a)).astype(np.float32)


def second_phone(rgb: np.ndarray, rng: np.random.Generator) -> bytes:
    """Another phone's pipeline (RGB in, JPEG out): soft lens, white balance error, shadow lift,
    colour denoising, sharpening, noise, one JPEG (4:2:0 as every JPEG here)."""
    img = rgb.astype(np.float32) / 255.0
    img = _lens_softness(img, rng)
    img = _white_balance(img, rng)
    img = _shadow_lift(img, rng)
    img = _chroma_denoise(img, rng)
    img = _sharpening(img, rng)
    img = _shot_noise(img, rng)
    out = (np.clip(img, 0, 1) * 255 + 0.5).astype(np.uint8)
    return encode_jpeg(out, int(rng.integers(80, 93)))
