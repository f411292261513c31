"""Pip stage of the still dice reader, with and without this round's additions, on the same ray-marched scenes.

The two readers differ only in the pip stage. This round's additions (each a module switch):

* the blob look at a face region smaller than the crop's die enlarged to FACE_PX first
  (:mod:`companion.vision.dice_face_blobs`);
* a blob by the face's rim, on no pip place and without face all round it, competing with no
  pip; a squeezed blob among round ones no candidate pip (:mod:`companion.vision.dice_pip_blobs`);
* a two or three doubted when pips like its own lie a line's length beside it (a six's column,
  :mod:`companion.vision.dice_one_face`); a one doubted with marks of either kind on its corners,
  any reading with a mark of the other kind on a place a larger value fills (a defocused dark
  die's blend of body and pips taken for its face, :mod:`companion.vision.dice_marks`).

Both read every scene in the same run, in turns, so the figures and the read-time ratio share the
machine's state. Scenes are rendered once each. HELD_OUT_SEEDS were not looked at while the
changes were made (only read for the figures); the dev ranges were.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict

import cv2

import companion.vision.dice_face_blobs as face_blobs
import companion.vision.dice_marks as marks
import companion.vision.dice_one_face as one_face
import companion.vision.dice_pip_blobs as pip_blobs
from companion.vision.dice import read_dice
from companion.vision.dice_eval import Score, score_scene
from tests.bench.bench_dice_raymarch import size_band, tilt_band
from tests.dice_raymarch import RayScene, render_raymarch

HELD_OUT_SEEDS = range(50000, 50080)
DEV_SEEDS = (range(0, 80), range(1000, 1120), range(2000, 2160))

#: this round's switches (module, name): all off is the reader before the round
SWITCHES = ((face_blobs, "BLOB_RESCALE"), (pip_blobs, "RIM_MARKS_IGNORED"),
            (pip_blobs, "SQUEEZED_SKIPPED"), (one_face, "COLUMNS_DOUBTED"), (marks, "CORNERS_LOOKED_AT"))


def _reader(new: bool):
    def read(image):
        for module, name in SWITCHES:
            setattr(module, name, new)
        try:
            return read_dice(image)
        finally:
            for module, name in SWITCHES:
                setattr(module, name, True)
    return read


def compare(seeds) -> tuple[dict, dict, dict]:
    """Per reader ("before", "after"): the total score, scores by category, and read times by width."""
    readers = {"before": _reader(False), "after": _reader(True)}
    total = {k: Score() for k in readers}
    by = {k: defaultdict(lambda: defaultdict(Score)) for k in readers}
    times = {k: defaultdict(list) for k in readers}
    for seed in seeds:
        scene = render_raymarch(seed)
        p = scene.params
        for name, read in readers.items():
            t0 = time.thread_time()
            found = read(scene.image)
            times[name][scene.image.shape[1]].append(time.thread_time() - t0)
            s = score_scene(scene, found)
            total[name].add(s)
            by[name]["blur"][p["blur"]].add(s)
            by[name]["tilt"][tilt_band(p["tilt"])].add(s)
            by[name]["kind"][p["kind"]].add(s)
            for truth in scene.dice:
                one = score_scene(RayScene(scene.image, [truth], p), found)
                one.counts["extra"] = 0
                by[name]["colour"][truth.style.split("_")[0]].add(one)
                by[name]["size"][size_band(truth.side_px)].add(one)
    return total, by, times


def run(seed_sets=(("held-out", HELD_OUT_SEEDS),)) -> list[str]:
    cv2.setNumThreads(1)
    lines = []
    for label, seeds in seed_sets:
        total, by, times = compare(seeds)
        lines.append(f"{label} seeds {seeds.start}-{seeds.stop - 1}:")
        for name in ("before", "after"):
            lines.append(f"  {name:6s} {total[name].line()}")
        for w in sorted(times["after"]):
            b, a = statistics.mean(times["before"][w]), statistics.mean(times["after"][w])
            lines.append(f"  read_dice thread CPU, {w} px wide, mean of {len(times['after'][w])}: "
                         f"before {1000 * b:.1f} ms, after {1000 * a:.1f} ms, ratio {a / max(b, 1e-9):.3f}")
        for cat in ("blur", "tilt", "colour", "size", "kind"):
            for key in sorted(by["after"][cat]):
                lines.append(f"  {cat:6s} {key:12s} before {by['before'][cat][key].line()}")
                lines.append(f"  {'':6s} {'':12s} after  {by['after'][cat][key].line()}")
    return lines


if __name__ == "__main__":
    import sys

    sets = [("held-out", HELD_OUT_SEEDS)] if "dev" not in sys.argv else [("dev", r) for r in DEV_SEEDS]
    print("\n".join(run(sets)))
