"""Light dice on light surfaces (issue 4): the still reader on tests/dice_raymarch_light.py scenes.

Scenes: light dice on white paper or a white table, mixed colours on white under a light beside
the lens (a phone's flash), pastel dice on white. The reader is scored twice in the same run:
as it is, and without its pips-first look (``dice._read_around``: companion/vision/dice_pip_squares.py),
the baseline, so the ratio is the look's own gain on the same scenes and the same machine.

DEV_SEEDS were looked at while the look was built; HELD_OUT_SEEDS only for the figures. Time is
thread CPU time per read (one OpenCV thread).

    .venv/bin/python -m tests.bench bench_dice_light
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict

import cv2

from companion.vision import dice as dice_reader
from companion.vision.dice_eval import Score, score_scene
from tests.dice_raymarch import RayScene
from tests.dice_raymarch_light import LIGHT_STYLES, PASTELS, render_light

DEV_SEEDS = range(0, 60)
HELD_OUT_SEEDS = range(2000, 2040)
LIGHT = set(LIGHT_STYLES) | set(PASTELS)


def evaluate(scenes, without_pip_squares: bool = False):
    """(total, by category, read seconds) over the scenes."""
    saved = dice_reader._read_around
    if without_pip_squares:
        dice_reader._read_around = lambda *a, **k: []
    try:
        total = Score()
        by: dict[str, dict[str, Score]] = defaultdict(lambda: defaultdict(Score))
        times = []
        for scene in scenes:
            t0 = time.thread_time()
            found = dice_reader.read_dice(scene.image)
            times.append(time.thread_time() - t0)
            s = score_scene(scene, found)
            total.add(s)
            by["kind"][scene.params["kind"]].add(s)
            by["blur"][scene.params["blur"]].add(s)
            for truth in scene.dice:
                one = score_scene(RayScene(scene.image, [truth], scene.params), found)
                one.counts["extra"] = 0
                by["die"]["light die" if truth.style in LIGHT else "other die"].add(one)
                by["value"][str(truth.value)].add(one)
        return total, by, times
    finally:
        dice_reader._read_around = saved


def run(seeds=HELD_OUT_SEEDS, label: str = "held-out") -> list[str]:
    cv2.setNumThreads(1)
    scenes = [render_light(seed) for seed in seeds]
    lines = []
    base, base_by, base_t = evaluate(scenes, without_pip_squares=True)
    total, by, times = evaluate(scenes)
    lines.append(f"{label} seeds {seeds.start}-{seeds.stop - 1} ({len(scenes)} scenes): {total.line()}")
    lines.append(f"  without the pips-first look: {base.line()}; ratio {total.accuracy / max(base.accuracy, 1e-9):.2f}x")
    lines.append(f"  read_dice thread CPU time, median {1000 * statistics.median(times):.0f} ms "
                 f"(without: {1000 * statistics.median(base_t):.0f} ms); total {sum(times):.1f} s "
                 f"(without: {sum(base_t):.1f} s)")
    for cat in ("kind", "die", "value", "blur"):
        for key, score in sorted(by[cat].items()):
            lines.append(f"  {cat:6s} {key:16s} {score.line()}   without: {base_by[cat][key].line()}")
    return lines


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["dev"]:
        print("\n".join(run(DEV_SEEDS, "dev")))
    else:
        print("\n".join(run()))
