"""Still dice reader on ray-marched scenes (tests/dice_raymarch.py): right / wrong / unreadable by category.

The scenes come from a second generator that shares no code or assumptions with the reader or
with ``dice_render``: rounded dice, dimpled shaded pips, translucent and marbled bodies, textured
tables in perspective, phone photos up to 4000x3000 and blurred, noisy webcam frames.

Two seed ranges: DEV_SEEDS were looked at while the reader was improved; HELD_OUT_SEEDS were
only read for the figures reported. The plain classical reader of bench_dice (Otsu threshold,
HoughCircles pips) is scored on the same scenes for scale.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict

import cv2

from companion.vision.dice import read_dice
from companion.vision.dice_eval import Score, score_scene
from tests.bench.bench_dice import hough_baseline
from tests.dice_raymarch import RayScene, render_raymarch

DEV_SEEDS = range(0, 80)
HELD_OUT_SEEDS = range(50000, 50080)


def size_band(px: float) -> str:
    return "<40 px" if px < 40 else "40-80 px" if px < 80 else "80-150 px" if px < 150 else ">=150 px"


def tilt_band(deg: float) -> str:
    return "0 deg" if deg == 0 else "<12 deg" if deg < 12 else "12-30 deg"


def evaluate_raymarch(seeds, baseline: bool = True):
    """Read every scene; (total, by category, baseline total, read seconds by image width)."""
    total, base = Score(), Score()
    by: dict[str, dict[str, Score]] = defaultdict(lambda: defaultdict(Score))
    times: dict[int, list[float]] = defaultdict(list)
    for seed in seeds:
        scene = render_raymarch(seed)
        t0 = time.thread_time()
        found = read_dice(scene.image)
        times[scene.image.shape[1]].append(time.thread_time() - t0)
        s = score_scene(scene, found)
        total.add(s)
        p = scene.params
        by["kind"][p["kind"]].add(s)
        by["surface"][p["surface"]].add(s)
        by["tilt"][tilt_band(p["tilt"])].add(s)
        by["blur"][p["blur"]].add(s)
        for truth in scene.dice:  # per die: colour and size; extras are not split
            one = score_scene(RayScene(scene.image, [truth], p), found)
            one.counts["extra"] = 0
            by["colour"][truth.style].add(one)
            by["size"][size_band(truth.side_px)].add(one)
        if baseline:
            base.add(score_scene(scene, hough_baseline(scene.image)))
    return total, by, base, times


def run(seeds=HELD_OUT_SEEDS, label: str = "held-out", details: bool = True) -> list[str]:
    cv2.setNumThreads(1)
    lines = []
    for name, rng in ((label, seeds), ("dev", DEV_SEEDS)) if details else ((label, seeds),):
        total, by, base, times = evaluate_raymarch(rng)
        lines.append(f"{name} seeds {rng.start}-{rng.stop - 1}: {total.line()}")
        lines.append(f"  baseline Otsu + HoughCircles: {base.line()}; ratio {total.accuracy / max(base.accuracy, 1e-9):.1f}x")
        spent = ", ".join(f"{w} px wide {1000 * statistics.median(t):.0f} ms (n={len(t)})" for w, t in sorted(times.items()))
        lines.append(f"  read_dice thread CPU time, median: {spent}")
        if name == label:
            for cat in ("kind", "colour", "surface", "size", "tilt", "blur"):
                for key, score in sorted(by[cat].items()):
                    lines.append(f"  {cat:8s} {key:18s} {score.line()}")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
