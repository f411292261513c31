"""Rendered camera streams of a dice tray over several throws, for the streaming tests and bench.

Like :func:`companion.vision.dice_sim.throw_frames`, but a whole session: throw after throw, with
what a real table adds -- hands passing over the tray, a nudge, lamp flicker and a lamp switched on,
sensor noise, dice thrown again without being picked up. Every frame carries the truth:

* ``phase`` -- empty, rolling, rest, passing (a hand over the tray, dice untouched), nudged, hand
  (picking up), gone (the tray empty again);
* ``values`` -- the dice lying in the tray (at rest), else ``()``;
* ``settled`` -- True on the frame where the dice **come to rest**: the first frame after which no
  die moves until the next hand touches them. A throw must be reported at most 3 frames later.

The renderer (:func:`companion.vision.dice_render.render_scene`) gives each picture its own camera
exposure, white balance and vignette; a stream needs one camera, so each rendered frame is divided
by its own smooth gain against the empty tray, and this stream's lighting applied instead.

    >>> frames = tray_stream(seed=1, throws=1)
    >>> sum(f.settled for f in frames)
    1
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .dice_render import SURFACES, render_scene, surface_image
from .dice_sim import draw_hand
from .tray_reader import gain_field

STYLES = ("white", "ivory", "red", "black_white", "green", "blue", "yellow", "purple")


@dataclass
class TrayFrame:
    image: np.ndarray
    phase: str
    values: tuple[int, ...] = ()
    settled: bool = False


class _Stream:
    """One session's camera: its background, lighting and noise, and the frames so far."""

    def __init__(self, seed: int, size: tuple[int, int], die_px: float, flicker: float, noise: float,
                 surface: str | None, style: str | None):
        self.rng = np.random.default_rng(seed)
        self.size, self.die_px, self.flicker, self.noise = size, die_px, flicker, noise
        surface = surface or str(self.rng.choice([s for s in SURFACES if s != "cloth"]))
        self.style = style or str(self.rng.choice(STYLES))
        self.bg = surface_image(seed, size, surface)
        self.bg_f = self.bg.astype(np.float32)
        self.light = 1.0  # the lamp's level; flicker varies around it frame by frame
        self.frames: list[TrayFrame] = []
        self.params = {"surface": surface, "style": self.style}

    def shoot(self, clean: np.ndarray, phase: str, values=(), settled=False) -> None:
        """Add a frame: ``clean`` seen through this stream's camera (lighting, flicker, noise)."""
        g = self.light * (1 + self.rng.uniform(-self.flicker, self.flicker))
        img = clean.astype(np.float32) * g + self.rng.normal(0, self.noise, clean.shape).astype(np.float32)
        self.frames.append(TrayFrame(np.clip(img, 0, 255).astype(np.uint8), phase, tuple(values), settled))

    def render(self, seed: int, positions, values, blur: str = "none") -> np.ndarray:
        """The dice at ``positions`` (mm) on the tray, with the renderer's own exposure removed."""
        n = len(positions)
        img = render_scene(seed, n_dice=n, size=self.size, styles=[self.style] * n, tilt_deg=0.0, blur=blur,
                           touching=False, die_px=self.die_px, values=list(values), glare=False, jpeg=False,
                           noise=0.0, positions=list(positions), background=self.bg).image
        return np.clip(img.astype(np.float32) / gain_field(img, self.bg_f), 0, 255).astype(np.uint8)

    def hand(self, img: np.ndarray, x: float, y: float, scale: float = 1.2) -> np.ndarray:
        return draw_hand(img, x, y, self.die_px * scale, self.rng)


def tray_stream(seed: int, throws: int = 2, n_dice: int = 1, size: tuple[int, int] = (640, 480),
                die_px: float = 48.0, flicker: float = 0.03, noise: float = 2.0, surface: str | None = None,
                style: str | None = None, values: list[list[int]] | None = None,
                places: list[list[tuple[float, float, float]]] | None = None,
                passing: bool = True, nudge: bool = True, lamp: bool = True,
                pick_up: str = "mixed", stagger: bool = False) -> list[TrayFrame]:
    """A session of ``throws`` throws of ``n_dice`` dice, as frames with their truth.

    ``pick_up``: "always", "never" (the next throw is thrown from where the dice lay; the last
    throw is always picked up) or "mixed" (decided per throw). ``values`` pins each throw's values,
    ``places`` where its dice come to rest ((x_mm, y_mm, yaw_rad) from the tray's centre; a die is 16 mm).
    ``lamp``: a lamp may be switched on (the light steps up) while the tray is empty.
    ``stagger``: the dice stop one after another, as real dice do (by default all stop in the same
    frame); a die that has stopped is drawn as it lies at rest, pixel for pixel, while the others roll.
    """
    s = _Stream(seed, size, die_px, flicker, noise, surface, style)
    rng = s.rng
    w, h = size
    f_mm = die_px / 16.0  # render_scene's camera: die_px pixels per 16 mm die at the centre
    half_w, half_h = w / 2 / f_mm * 0.7, h / 2 / f_mm * 0.7
    for _ in range(int(rng.integers(4, 7))):  # the companion starts before the first throw
        s.shoot(s.bg, "empty")
    lying: list[tuple[float, float, float]] | None = None  # dice left in the tray by the last throw
    for t in range(throws):
        vals = list(values[t]) if values else [int(v) for v in rng.integers(1, 7, n_dice)]
        final: list[tuple[float, float, float]] = list(places[t]) if places else []
        apart, tries = 40.0, 0  # mm between dice centres (a die is 16 mm; a 45-degree die 23 mm across)
        while len(final) < n_dice:
            c = (rng.uniform(-half_w * 0.7, half_w * 0.7), rng.uniform(-half_h * 0.7, half_h * 0.7), rng.uniform(0, 1.5))
            if all(math.hypot(c[0] - p[0], c[1] - p[1]) > apart for p in final):
                final.append(c)
            tries += 1
            if tries % 200 == 0:  # the first dice left no room (5-6 dice): start again, closer after a while
                final = list(places[t]) if places else []
                apart = max(28.0, apart - 2.0)
        rseed = int(rng.integers(0, 2**31))
        start = lying or [(p[0] - rng.uniform(60, 120), p[1] + rng.uniform(-40, 40), p[2] + 2) for p in final]
        rolling = int(rng.integers(3, 8))
        # the frame each die stops in (by default all in the last): a die rolls in frames k < its stop
        stops = [rolling] * n_dice
        if stagger:
            stops = [int(v) for v in rng.integers(1, rolling + 1, n_dice)]
            stops[int(rng.integers(0, n_dice))] = rolling  # the last die stops as the rolling ends
        still = s.render(rseed, final, vals)
        for k in range(rolling):
            if min(stops) > k:  # every die rolls
                a = (k + 1) / (rolling + 1)
                pos = [(p0[0] + (p1[0] - p0[0]) * a, p0[1] + (p1[1] - p0[1]) * a, p0[2] + (p1[2] - p0[2]) * a)
                       for p0, p1 in zip(start, final)]
                img = s.render(rseed + k + 1, pos, [int(v) for v in rng.integers(1, 7, n_dice)], blur="motion")
            else:
                img = _some_stopped(s, rseed, k, still, start, final, vals, stops)
            if k == 0:
                img = s.hand(img, w * rng.uniform(0.05, 0.3), h * rng.uniform(0.7, 0.95))
            s.shoot(img, "rolling")
        for k in range(int(rng.integers(5, 9))):
            s.shoot(still, "rest", vals, settled=k == 0)
        if passing and rng.random() < 0.6:  # a hand reaching across the tray, touching nothing
            far = (w * 0.1, h * 0.15) if final[0][0] > 0 else (w * 0.9, h * 0.15)
            for k in range(2):
                s.shoot(s.hand(still, far[0], far[1] + k * h * 0.1, 1.0), "passing", vals)
            for k in range(int(rng.integers(4, 7))):
                s.shoot(still, "rest", vals)
        if nudge and rng.random() < 0.5:  # a die pushed a few mm: the same throw
            moved = [(p[0] + rng.uniform(3, 6), p[1] + rng.uniform(-3, 3), p[2] + 0.1) for p in final]
            s.shoot(s.hand(still, w * 0.5, h * 0.95, 1.0), "hand", vals)
            final, still = moved, s.render(rseed, moved, vals)
            for k in range(int(rng.integers(4, 7))):
                s.shoot(still, "nudged", vals)
        last = t == throws - 1
        if pick_up == "always" or last or (pick_up == "mixed" and rng.random() < 0.7):
            s.shoot(s.hand(still, w * 0.5, h * 0.6, 1.3), "hand")
            for _ in range(int(rng.integers(3, 6))):
                s.shoot(s.bg, "gone")
            if lamp and rng.random() < 0.3:
                s.light *= rng.uniform(1.08, 1.2)  # a lamp switched on over the empty tray
                for _ in range(3):
                    s.shoot(s.bg, "gone")
            lying = None
        else:
            lying = final
    return s.frames


def _some_stopped(s: _Stream, rseed: int, k: int, still: np.ndarray, start, final, vals, stops) -> np.ndarray:
    """Frame ``k`` of a roll in which the dice with ``stops[i] <= k`` lie where they stopped: the
    still picture, the rolling dice taken out (the tray where each lies at rest, its shadow too) and
    drawn where they are now (rendered on their own, pasted where they differ from the tray)."""
    moving = [i for i, stop in enumerate(stops) if stop > k]
    img = still.copy()
    for i in moving:
        alone = s.render(rseed, [final[i]], [vals[i]])
        there = _differs(alone, s.bg, s.die_px)
        img[there] = s.bg[there]
    pos = []
    for i in moving:
        a = (k + 1) / (stops[i] + 1)
        p0, p1 = start[i], final[i]
        pos.append((p0[0] + (p1[0] - p0[0]) * a, p0[1] + (p1[1] - p0[1]) * a, p0[2] + (p1[2] - p0[2]) * a))
    rolling = s.render(rseed + k + 1, pos, [int(v) for v in s.rng.integers(1, 7, len(moving))], blur="motion")
    there = _differs(rolling, s.bg, s.die_px)
    img[there] = rolling[there]
    return img


#: a part of a render that differs from the tray is a die (or its shadow, its motion blur) only if it
#: is at least this share of a die's square: a render with its own exposure taken out still differs
#: from the tray by more than the level in thousands of specks of a few pixels (3,069 components in a
#: render of two dice, all but the two dice's of 18 pixels or fewer), and pasting those over the
#: picture put bits of tray into the stopped dice every frame, so no stopped die was ever still
DIE_PART = 0.25


def _differs(img: np.ndarray, bg: np.ndarray, die_px: float) -> np.ndarray:
    """Where ``img`` differs from the tray ``bg`` by a die (a die, its shadow), grown by a few pixels (bool)."""
    diff = np.abs(img.astype(np.int16) - bg.astype(np.int16)).max(axis=2)
    n, labels, stats, _ = cv2.connectedComponentsWithStats((diff > 6).astype(np.uint8), connectivity=8)
    keep = (stats[:, cv2.CC_STAT_AREA] >= DIE_PART * die_px * die_px).astype(np.uint8)
    keep[0] = 0
    return cv2.dilate(keep[labels], np.ones((5, 5), np.uint8)) > 0
