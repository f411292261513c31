"""Camera dice reader: read time per frame, streaming cost per frame, accuracy by category on fresh renders.

Also accuracy on renders of the broader ("wide") variation, and two scenarios shaped like the
target's photos (``dice_eval.scenario``): webcam frames of white dice on wood, and phone photos of
mixed dice on paper or felt. Neither seed range here was looked at while the reader was tuned.

Baselines measured in the same run: one cv2.GaussianBlur of the same frame (time), and a plain
classical reader (Otsu threshold for dice, cv2.HoughCircles for pips) on the same renders (accuracy).
"""

from __future__ import annotations

import statistics
import time

import cv2
import numpy as np

from companion.inputs.camera_dice import CameraDice
from companion.inputs.camera_source import SimulatedCamera
from companion.vision.dice import Die, read_dice
from companion.vision.dice_eval import Score, evaluate, evaluate_scenario, score_scene
from companion.vision.dice_render import render_scene

ACCURACY_SEEDS = range(5000, 5120)
WIDE_SEEDS = range(6000, 6100)  # render_scene(wide=True): broader sizes, tilts, pips, light, colours


def _time(fn, repeat: int) -> float:
    """Median seconds of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def hough_baseline(image: np.ndarray) -> list[Die]:
    """The textbook reader: Otsu for the dice, HoughCircles for the pips, pips counted per die."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    _, fg = cv2.threshold(cv2.GaussianBlur(gray, (5, 5), 0), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if np.count_nonzero(fg) > fg.size / 2:
        fg = cv2.bitwise_not(fg)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(fg)
    dice = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if area < 100 or max(w, h) > 0.5 * min(gray.shape):
            continue
        roi = gray[y:y + h, x:x + w]
        side = max(w, h)
        circles = cv2.HoughCircles(roi, cv2.HOUGH_GRADIENT, 1.2, side / 6, param1=100, param2=12,
                                   minRadius=max(1, int(side * 0.05)), maxRadius=max(2, int(side * 0.16)))
        count = 0 if circles is None else len(circles[0])
        if 1 <= count <= 6:
            dice.append(Die(count, (float(cents[i][0]), float(cents[i][1])), 0.5, float(side)))
    return dice


def run() -> list[str]:
    lines = []
    for size, die_px in (((640, 480), 48), ((1920, 1080), 110)):
        scene = render_scene(77, n_dice=3, size=size, die_px=die_px, tilt_deg=5, blur="none", touching=False)
        img = scene.image
        t_read = _time(lambda: read_dice(img), 7)
        t_blur = _time(lambda: cv2.GaussianBlur(img, (5, 5), 0), 21)
        lines.append(f"read_dice {size[0]}x{size[1]} (3 dice): {1000 * t_read:.1f} ms per frame; "
                     f"one 5x5 GaussianBlur {1000 * t_blur:.2f} ms; ratio {t_read / t_blur:.0f}x")

    # streaming: what a frame costs while nothing is read (the target is 10 ms at 640x480)
    scene = render_scene(78, n_dice=1, size=(640, 480), die_px=48, tilt_deg=0, blur="none")
    source = CameraDice(SimulatedCamera([]))
    frames = [scene.image, scene.image.copy()]
    source.process_frame(frames[0])
    t_frame = _time(lambda: source.process_frame(frames[1]), 200)
    t_blur = _time(lambda: cv2.GaussianBlur(frames[1], (5, 5), 0), 200)
    lines.append(f"CameraDice.process_frame 640x480 between reads: {1000 * t_frame:.2f} ms (target <= 10 ms); "
                 f"ratio to one GaussianBlur {t_frame / t_blur:.1f}x")

    t0 = time.perf_counter()
    total, by = evaluate(ACCURACY_SEEDS)
    took = time.perf_counter() - t0
    base = Score()
    for seed in ACCURACY_SEEDS:
        s = render_scene(seed)
        base.add(score_scene(s, hough_baseline(s.image)))
    lines.append(f"accuracy over {len(ACCURACY_SEEDS)} fresh renders (seeds {ACCURACY_SEEDS.start}-"
                 f"{ACCURACY_SEEDS.stop - 1}): {total.line()}  [{took / len(ACCURACY_SEEDS) * 1000:.0f} ms per "
                 f"scene incl. rendering]")
    lines.append(f"baseline Otsu + HoughCircles on the same renders: {base.line()}; "
                 f"ratio {total.accuracy / max(base.accuracy, 1e-9):.1f}x")
    t0 = time.perf_counter()
    wide, wide_by = evaluate(WIDE_SEEDS, wide=True)
    took = time.perf_counter() - t0
    lines.append(f"accuracy over {len(WIDE_SEEDS)} wide renders (seeds {WIDE_SEEDS.start}-{WIDE_SEEDS.stop - 1}): "
                 f"{wide.line()}  [{took / len(WIDE_SEEDS) * 1000:.0f} ms per scene incl. rendering]")
    for cat in ("tilt", "touching"):
        for key, score in sorted(wide_by[cat].items()):
            lines.append(f"  wide {cat:8s} {key:13s} {score.line()}")
    for name, seeds in (("webcam", range(100, 200)), ("phone", range(100, 160))):
        lines.append(f"scenario {name} (seeds {seeds.start}-{seeds.stop - 1}): {evaluate_scenario(name, seeds).line()}")
    for cat in ("colour", "surface", "tilt", "blur", "touching"):
        for key, score in sorted(by[cat].items()):
            lines.append(f"  {cat:8s} {key:18s} {score.line()}")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
