"""A photo smeared by motion, measured from its pips and undone, so its unread dice can be read.

A pip is a round dark (or light) spot on its face; a camera or a die moving while the shutter is
open smears every pip along one line.  Blurring adds the line's spread to the pip's own: for a
pip's darkness taken as a weight, its second moments grow by ``L**2 / 12`` along the motion and not
across it, whatever the pip's size.  So the pips of the dice already read tell the motion's
direction (they all agree on it) and its length, and a Wiener filter with that line undoes most of
the smear: the dice left unreadable are read again in the sharpened photo and take the values read
there (the dice read stay as they were).

Measured on 80 development scenes smeared by a line of 16 px (most of their dice 30-190 px):
read as smeared 177 of 299 right; the same photos sharpened with the true line 276 -- the ceiling
a measured line can reach (the lead's record, docs/dice-camera.md, thirtieth round).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: the pips' smear directions must agree: this share of the pips measured lies within
#: ``MOTION_TURN_DEG`` of their mean direction (a tilt foreshortens pips toward the photo's middle,
#: round dice in different directions, noise at random; a pip merged with its neighbour in the
#: smear points elsewhere); house values, set on the development scenes smeared by the lead's probe
MOTION_AGREEMENT = 0.6
MOTION_TURN_DEG = 20.0
#: the least smear taken as motion, in pixels and as a share of the median pip's radius (a pip a
#: little out of round is no motion to undo), and the most, in radii (longer: pips merged along
#: the smear measure the pair, not the motion); house values
MOTION_LEAST_PX = 3.0
MOTION_LEAST_RADII = 0.8
MOTION_MOST_RADII = 3.5
#: the least pips measured for a photo's motion
MOTION_LEAST_PIPS = 3
#: the Wiener filter's noise-to-signal ratio (higher: less ringing, less sharpening)
WIENER_NSR = 0.01


@dataclass(frozen=True)
class Motion:
    angle: float  # radians, 0..pi, in image axes (x right, y down)
    length: float  # pixels


def pip_smear(gray: np.ndarray, x: float, y: float, r: float, reach: float) -> tuple[float, float] | None:
    """The smear (angle, length) of the pip at (x, y) of radius ``r`` in ``gray``, from its
    darkness' second moments within ``reach`` of it (None at the photo's edge or without a pip)."""
    R = int(round(r + reach / 2 + 2))
    x0, y0 = int(round(x)) - R, int(round(y)) - R
    if x0 < 0 or y0 < 0 or x0 + 2 * R + 1 > gray.shape[1] or y0 + 2 * R + 1 > gray.shape[0]:
        return None
    win = gray[y0:y0 + 2 * R + 1, x0:x0 + 2 * R + 1].astype(np.float32)
    rim = float(np.median(np.concatenate([win[0], win[-1], win[:, 0], win[:, -1]])))
    middle = float(win[R - 1:R + 2, R - 1:R + 2].mean())
    weight = np.clip((rim - win) if middle < rim else (win - rim), 0, None)
    peak = float(weight[R, R])
    if peak <= 0:
        return None
    # the pip's own smear: its connected part above a low share of its middle (not a neighbour's)
    _, labels = cv2.connectedComponents((weight > 0.15 * peak).astype(np.uint8))
    if labels[R, R] == 0:
        return None
    m = cv2.moments(np.where(labels == labels[R, R], weight, 0).astype(np.float32))
    if m["m00"] <= 0:
        return None
    cov = np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / m["m00"]
    values, vectors = np.linalg.eigh(cov)
    length = math.sqrt(max(0.0, 12.0 * (values[1] - values[0])))
    return math.atan2(vectors[1, 1], vectors[0, 1]) % math.pi, length


def photo_motion(image: np.ndarray, dice) -> Motion | None:
    """The motion the read dice's pips agree on, or None (too few pips, no agreement, too short)."""
    pips = [(p, d.side_px) for d in dice if d.value is not None and d.pips for p in d.pips]
    if len(pips) < MOTION_LEAST_PIPS:
        return None
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    smears = [s for s in (pip_smear(gray, x, y, r, 0.4 * side) for (x, y, r), side in pips) if s is not None]
    if len(smears) < MOTION_LEAST_PIPS:
        return None
    doubled = np.mean([complex(math.cos(2 * a), math.sin(2 * a)) for a, _ in smears])
    angle = math.atan2(doubled.imag, doubled.real) / 2 % math.pi
    along = [length for a, length in smears if _turn_deg(a, angle) <= MOTION_TURN_DEG]
    if len(along) < max(MOTION_LEAST_PIPS, MOTION_AGREEMENT * len(smears)):
        return None
    length = float(np.median(along))
    radius = float(np.median([r for (_, _, r), _ in pips]))
    if not max(MOTION_LEAST_PX, MOTION_LEAST_RADII * radius) <= length <= MOTION_MOST_RADII * radius:
        return None
    return Motion(angle, length)


def _turn_deg(a: float, b: float) -> float:
    """The angle between two undirected lines, in degrees (0..90)."""
    return abs((math.degrees(a - b) + 90.0) % 180.0 - 90.0)


def line_kernel(motion: Motion) -> np.ndarray:
    """The motion's point spread: a line of its length and angle (anti-aliased), summing to 1."""
    n = max(3, int(math.ceil(motion.length)) + 2)
    k = np.zeros((n, n), np.float32)
    c = (n - 1) / 2
    dx, dy = math.cos(motion.angle) * (motion.length - 1) / 2, math.sin(motion.angle) * (motion.length - 1) / 2
    shift = 4  # (sub-pixel ends: coordinates in 1/16 px)
    cv2.line(k, (round((c - dx) * 16), round((c - dy) * 16)), (round((c + dx) * 16), round((c + dy) * 16)),
             1.0, 1, cv2.LINE_AA, shift)
    return k / max(float(k.sum()), 1e-6)


def unsmeared(image: np.ndarray, motion: Motion, nsr: float = WIENER_NSR) -> np.ndarray:
    """``image`` with the motion's line undone by a Wiener filter.

    The image is padded by reflection on every side (the filter is circular: the seam where the
    padding wraps round lies a kernel's length from the photo), and the filter's gain at zero
    frequency is kept at 1 (a plain Wiener filter darkens a flat table by ``1 / (1 + nsr)``)."""
    k = line_kernel(motion)
    h, w = image.shape[:2]
    m = 2 * k.shape[0]
    H, W = cv2.getOptimalDFTSize(h + 2 * m), cv2.getOptimalDFTSize(w + 2 * m)
    padded = cv2.copyMakeBorder(image, m, H - h - m, m, W - w - m, cv2.BORDER_REFLECT)
    kp = np.zeros((H, W), np.float32)
    kp[:k.shape[0], :k.shape[1]] = k
    kp = np.roll(kp, (-(k.shape[0] // 2), -(k.shape[1] // 2)), (0, 1))
    K = np.fft.rfft2(kp)
    gain = np.conj(K) * (1.0 + nsr) / (np.abs(K) ** 2 + nsr)
    channels = padded.reshape(H, W, -1)
    out = np.empty((h, w, channels.shape[2]), np.uint8)
    for c in range(channels.shape[2]):
        sharp = np.fft.irfft2(np.fft.rfft2(channels[..., c].astype(np.float32)) * gain, s=(H, W))
        out[..., c] = np.clip(sharp[m:m + h, m:m + w] + 0.5, 0, 255)
    return out.reshape(image.shape)
