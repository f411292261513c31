"""Still dice reader, finding side: CPU time of a 640x480 read of 5-6 dice, and of light dice on white.

Two kinds of frame, one OpenCV thread, thread CPU time (``time.thread_time``), median of repeats:

* rest frames of 5 and 6 dice in the simulated tray (``tray_sim.tray_stream``, seeds chosen for
  this bench, not the stream bench's): ``read_dice`` on the whole frame, and the share of it spent
  finding the dice's pixels (``dice_foreground._Foreground``);
* ray-marched light dice on white paper or a white table (``tests/dice_raymarch_light.py``)
  scaled to 640x480: every blob there goes through the second looks, the slowest case seen
  (seed 4 took 1.1-1.4 s before this round's cuts: the erosion loop of ``split_faces`` over whole
  crops, crops sized by a loose region's window, retries at a scale already read).

Baseline measured in the same run: one 5x5 GaussianBlur of the same frame.

    .venv/bin/python -m tests.bench bench_dice_finding
"""

from __future__ import annotations

import statistics
import time

import cv2

from companion.vision.dice import read_dice
from companion.vision.dice_foreground import _Foreground
from companion.vision.tray_sim import tray_stream
from tests.bench import one_opencv_thread
from tests.dice_raymarch_light import render_light

TRAY_SEEDS = {5: range(8500, 8503), 6: range(8600, 8603)}
LIGHT_SEEDS = (4, 11)  # a flash scene and a light_on_white scene
REPEAT = 3


def _cpu_ms(fn) -> float:
    """Median thread CPU milliseconds of REPEAT calls."""
    times = []
    for _ in range(REPEAT):
        t0 = time.thread_time()
        fn()
        times.append(time.thread_time() - t0)
    return 1000 * statistics.median(times)


def _rest_frames() -> list:
    frames = []
    for n, seeds in TRAY_SEEDS.items():
        for seed in seeds:
            stream = tray_stream(seed, throws=2, n_dice=n)
            frames += [f.image for k, f in enumerate(stream) if f.settled and (k == 0 or not stream[k - 1].settled)]
    return frames


def run() -> list[str]:
    with one_opencv_thread():
        return _run()


def _run() -> list[str]:
    lines = []
    frames = _rest_frames()
    read_dice(frames[0])  # first-call costs out of the way
    blur = statistics.median(_cpu_ms(lambda f=f: cv2.GaussianBlur(f, (5, 5), 0)) for f in frames)
    reads = [_cpu_ms(lambda f=f: read_dice(f)) for f in frames]
    fores = [_cpu_ms(lambda f=f: _Foreground(f, 4.0)) for f in frames]
    lines.append(f"baseline: one 5x5 GaussianBlur of a 640x480 frame {blur:.2f} ms (median)")
    lines.append(f"5-6 dice at rest, 640x480 ({len(frames)} frames): read_dice median {statistics.median(reads):.1f} ms, "
                 f"max {max(reads):.1f} ms; {statistics.median(reads) / blur:.0f}x the blur")
    lines.append(f"  of which finding the dice's pixels (foreground): median {statistics.median(fores):.1f} ms "
                 f"({100 * statistics.median(fores) / statistics.median(reads):.0f} %)")
    for seed in LIGHT_SEEDS:
        scene = render_light(seed)
        img = cv2.resize(scene.image, (640, 480), interpolation=cv2.INTER_AREA)
        now = _cpu_ms(lambda: read_dice(img))
        lines.append(f"light dice on white, seed {seed} ({scene.params['kind']}, {len(scene.dice)} dice) at 640x480: "
                     f"read_dice {now:.0f} ms; {now / blur:.0f}x the blur")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
