"""Rendered frame sequences of a dice tray, for the simulated camera and the streaming tests.

A throw is a script of phases, each a few frames: the empty tray, a hand coming in, the dice
tumbling (moving, blurred), the dice at rest, a nudge, the hand picking them up. Frames at rest are
the same picture plus fresh sensor noise, as a real camera gives.

    >>> frames = throw_frames(seed=1, values=[4])
    >>> [f.phase for f in frames][:3]
    ['empty', 'empty', 'empty']
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from .dice_render import render_scene, surface_image


@dataclass
class Frame:
    image: np.ndarray
    phase: str  # empty, hand, rolling, rest, nudged, gone
    values: tuple[int, ...] = ()


def _noisy(img: np.ndarray, rng: np.random.Generator, sigma: float = 1.5) -> np.ndarray:
    return np.clip(img.astype(np.int16) + rng.normal(0, sigma, img.shape).astype(np.int16), 0, 255).astype(np.uint8)


def draw_hand(img: np.ndarray, x: float, y: float, scale: float, rng: np.random.Generator) -> np.ndarray:
    """A crude hand (palm and fingers in a skin tone) reaching in at (x, y)."""
    out = img.copy()
    skin = tuple(int(c) for c in np.array([120, 160, 215]) + rng.normal(0, 15, 3))
    s = scale
    cv2.ellipse(out, (int(x), int(y)), (int(1.1 * s), int(0.9 * s)), 0, 0, 360, skin, -1, cv2.LINE_AA)
    for k in range(4):
        a = math.radians(-60 + 30 * k)
        fx, fy = x + math.sin(a) * 1.6 * s, y - math.cos(a) * 1.6 * s
        cv2.line(out, (int(x), int(y)), (int(fx), int(fy)), skin, max(2, int(0.35 * s)), cv2.LINE_AA)
    cv2.rectangle(out, (int(x - 0.8 * s), int(y)), (int(x + 0.8 * s), img.shape[0] + 10), skin, -1)
    return out


def throw_frames(seed: int, values: list[int] | None = None, size: tuple[int, int] = (640, 480),
                 n_dice: int = 1, style: str | None = None, surface: str | None = None,
                 empty: int = 3, rolling: int = 5, rest: int = 6, nudge: bool = False,
                 pick_up: bool = True, die_px: float = 48.0) -> list[Frame]:
    """One throw as frames: empty tray, the dice tumbling in, at rest (nudged), picked up."""
    rng = np.random.default_rng(seed)
    w, h = size
    values = list(values) if values else [int(v) for v in rng.integers(1, 7, n_dice)]
    n = len(values)
    from .dice_render import DIE_STYLES, SURFACES

    style = style or str(rng.choice(["white", "white", "ivory", "red", "black_white", "green", "blue"]))
    surface = surface or str(rng.choice([s for s in SURFACES if s != "cloth"]))
    bg = surface_image(seed, size, surface)
    assert style in DIE_STYLES
    frames: list[Frame] = [Frame(_noisy(bg, rng), "empty") for _ in range(empty)]

    f_mm = die_px / 16.0 * 1.0  # render_scene's camera: die_px pixels per 16 mm at the centre
    half_w, half_h = w / 2 / f_mm * 0.7, h / 2 / f_mm * 0.7
    # final resting places, apart from each other
    final: list[tuple[float, float, float]] = []
    while len(final) < n:
        c = (rng.uniform(-half_w * 0.7, half_w * 0.7), rng.uniform(-half_h * 0.7, half_h * 0.7), rng.uniform(0, 1.5))
        if all(math.hypot(c[0] - p[0], c[1] - p[1]) > 40 for p in final):
            final.append(c)
    render_seed = int(rng.integers(0, 2**31))

    def scene(pos, blur="none", vals=None):
        return render_scene(render_seed, n_dice=n, size=size, styles=[style] * n, tilt_deg=0.0, blur=blur,
                            touching=False, die_px=die_px, values=vals or values, glare=False, jpeg=False,
                            noise=0.0, positions=pos, background=bg).image

    # tumbling: the dice come from one side, showing other faces, blurred
    start = [(p[0] - rng.uniform(60, 120), p[1] + rng.uniform(-40, 40), p[2] + 2) for p in final]
    for k in range(rolling):
        t = (k + 1) / (rolling + 1)
        pos = [(s[0] + (e[0] - s[0]) * t, s[1] + (e[1] - s[1]) * t, s[2] + (e[2] - s[2]) * t) for s, e in zip(start, final)]
        vals = [int(v) for v in rng.integers(1, 7, n)]
        img = scene(pos, "motion", vals)
        if k == 0:
            img = draw_hand(img, w * 0.15, h * 0.8, die_px * 1.2, rng)
        frames.append(Frame(_noisy(img, rng), "rolling"))
    still = scene(final)
    frames += [Frame(_noisy(still, rng), "rest", tuple(values)) for _ in range(rest)]
    if nudge:
        moved = [(p[0] + rng.uniform(3, 6), p[1] + rng.uniform(-3, 3), p[2] + 0.1) for p in final]
        frames.append(Frame(_noisy(draw_hand(still, w * 0.5, h * 0.9, die_px, rng), rng), "hand", tuple(values)))
        nudged = scene(moved)
        frames += [Frame(_noisy(nudged, rng), "nudged", tuple(values)) for _ in range(rest)]
        still = nudged
    if pick_up:
        frames.append(Frame(_noisy(draw_hand(still, w * 0.5, h * 0.6, die_px * 1.3, rng), rng), "hand"))
        frames += [Frame(_noisy(bg, rng), "gone") for _ in range(empty)]
    return frames


def throw_frames_forever(seed: int = 0, size: tuple[int, int] = (640, 480)) -> Iterator[np.ndarray]:
    """Endless throws of one die for the demo's simulated camera (a new throw about every 20 frames)."""
    k = 0
    while True:
        for frame in throw_frames(seed * 100003 + k, size=size):
            yield frame.image
        k += 1
