"""Dark and table-coloured dice on dark tables: accuracy by die style x surface, and read time.

Black dice (white or red pips), dark red dice and translucent dice (which take the table's
colour) on the dark surfaces of the renderer. The seeds here (``HELD_OUT``) were not looked at
while the foreground was tuned (``DEV`` seeds were). Time is thread CPU time per read, so the other
processes on the machine shift it less; the baseline is one 5x5 GaussianBlur of the same photos.

    .venv/bin/python -m tests.bench bench_dice_dark
    .venv/bin/python -m tests.bench.bench_dice_dark dev      # the tuning seeds, per style x surface
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict

import cv2

from companion.vision.dice import read_dice
from companion.vision.dice_eval import Score, score_scene
from companion.vision.dice_render import render_scene

STYLES = ("black_white", "black_red", "dark_red", "translucent_red", "translucent_blue", "translucent_green")
SURFACES = ("felt_black", "dark_table", "felt_blue", "wood_dark", "felt_green")
DEV = range(7000, 7008)
HELD_OUT = range(7500, 7512)


def measure(seeds) -> tuple[dict[tuple[str, str], Score], float, float]:
    """Score per (style, surface); mean thread seconds per read and per baseline blur."""
    cv2.setNumThreads(1)  # thread CPU time counts this thread only
    by: dict[tuple[str, str], Score] = defaultdict(Score)
    t_read = t_blur = 0.0
    n = 0
    for k, seed in enumerate(seeds):
        for i, style in enumerate(STYLES):
            for j, surface in enumerate(SURFACES):
                # the seed is varied per cell so no two cells share a layout
                scene = render_scene(seed * 100 + i * 10 + j, styles=[style] * 6, surface=surface)
                t0 = time.thread_time()
                found = read_dice(scene.image)
                t1 = time.thread_time()
                cv2.GaussianBlur(scene.image, (5, 5), 0)
                t_blur += time.thread_time() - t1
                t_read += t1 - t0
                n += 1
                by[style, surface].add(score_scene(scene, found))
    return by, t_read / max(n, 1), t_blur / max(n, 1)


def report(by: dict[tuple[str, str], Score], label: str) -> list[str]:
    lines = []
    total = Score()
    for style in STYLES:
        row = Score()
        cells = []
        for surface in SURFACES:
            s = by[style, surface]
            row.add(s)
            c = s.counts
            cells.append(f"{surface}={c['right']}/{s.dice} w{c['wrong']} u{c['unread']} m{c['missed']} x{c['extra']}")
        total.add(row)
        lines.append(f"  {label} {style:17s} {row.line()}")
        lines.append("      " + "  ".join(cells))
    lines.insert(0, f"{label} all dark styles x surfaces: {total.line()}")
    return lines


def run(seeds=HELD_OUT, label: str = "held-out") -> list[str]:
    by, t_read, t_blur = measure(seeds)
    lines = report(by, f"{label} (seeds {seeds.start}-{seeds.stop - 1})")
    lines.append(f"read_dice: {1000 * t_read:.1f} ms thread CPU per photo; one 5x5 GaussianBlur "
                 f"{1000 * t_blur:.2f} ms; ratio {t_read / max(t_blur, 1e-9):.0f}x")
    return lines


if __name__ == "__main__":
    dev = len(sys.argv) > 1 and sys.argv[1] == "dev"
    print("\n".join(run(DEV, "dev") if dev else run()))
