"""Registration study: photos with two to four markers in view, every pair of markers, varied light.

Target (issue 5): registration succeeds on at least 99.9 % of photos with two or more markers
visible.  "Succeeds" here means the whole path adjudication takes before measuring coverage:
markers, hex-grid refinement and the board check (``check_board``), and the registration is
right: its worst hex centre within ``WRONG_MM`` of where the renderer put it (a registration that
passes every check but is wrong is counted apart, as the worse failure).

Photos: ``random_scene`` at 1600x1200 (tilt up to 35 degrees, lens distortion, uneven light,
glare, shadows, JPEG), cycling through: each of the six marker pairs, each of the four triples and
all four markers; every other photo with the broadened scene (colour cast, strong vignetting,
sheet print runs, cut edges) and every third with harsh light (up to three glare spots, deep
shadows).  ``python -m tests.bench.bench_registration N FIRST_SEED`` runs N photos from a seed
(the default, ``run()``, takes 1000 photos from seed 21000; about 25 minutes on a quiet machine).
"""

from __future__ import annotations

import itertools
import sys
import time
from collections import Counter

import cv2
import numpy as np

from companion.box_profiles import load_box
from companion.vision import gridfit
from companion.vision.adjudicate import check_board, decode, registered
from companion.vision.evaluate import hex_centre_error_mm
from companion.vision.registration import VisionRefusal
from companion.vision.render import encode_jpeg, harsh_light, random_scene, render

#: a registration this far off at its worst hex centre is wrong (a hex is 15 mm across; coverage
#: decisions need about a millimetre, and the two-marker fits measured are under 2 mm)
WRONG_MM = 3.0
#: scene_for cycles through the marker sets by the seed's distance from this one
ORIGIN = 20000
#: run() takes these: 21000-21999 were run once, after the last change, never looked into to tune
#: (20000-20599 were: seeds 20092 and 20507 led to reading corners at full resolution and to the
#: board check's 0.10 gate)
FIRST_SEED, COUNT = 21000, 1000
MARKER_SETS = [tuple(p) for p in itertools.combinations(range(4), 2)] * 2 \
    + [tuple(t) for t in itertools.combinations(range(4), 3)] + [(0, 1, 2, 3)]


def scene_for(box, seed: int, width: int = 1600, height: int = 1200):
    """The study's scene for a seed: which markers are in view, broadened and harsh light by turn."""
    i = seed - ORIGIN
    seen = MARKER_SETS[i % len(MARKER_SETS)]
    hidden = tuple(sorted(set(range(4)) - set(seen)))
    scene = random_scene(box, seed, width, height, hidden_markers=hidden, broad=(i % 2 == 1))
    if i % 3 == 2:
        scene = harsh_light(box, scene, np.random.default_rng([seed, 2]))
    return scene, seen


def register_photo(box, scene) -> tuple[str, float]:
    """('ok' or the refusal's reason or 'wrong', worst hex centre error in mm (nan when refused))."""
    photo, truth = render(box, scene)
    p = decode(encode_jpeg(photo, scene.jpeg_quality))
    try:
        reg = gridfit.refine(registered(p, box), p.gray, box)
        check_board(p, reg, box)
    except VisionRefusal as exc:
        return exc.reason, float("nan")
    err = float(hex_centre_error_mm(box, reg, truth).max())
    return ("ok" if err <= WRONG_MM else "wrong"), err


def study(box, seeds, log=None) -> dict:
    out = {"n": 0, "ok": 0, "by_markers": Counter(), "ok_by_markers": Counter(), "failures": [], "errors": []}
    for seed in seeds:
        scene, seen = scene_for(box, seed)
        outcome, err = register_photo(box, scene)
        key = len(seen)
        out["n"] += 1
        out["by_markers"][key] += 1
        if outcome == "ok":
            out["ok"] += 1
            out["ok_by_markers"][key] += 1
            out["errors"].append(err)
        else:
            out["failures"].append(f"seed {seed} markers {seen}: {outcome}" + (f" ({err:.1f} mm)" if err == err else ""))
        if log:
            log(f"seed {seed} markers {seen}: {outcome} {err:.2f}")
    return out


def report(out: dict, seconds: float, first: int = FIRST_SEED) -> list[str]:
    lines = [f"registration study, {out['n']} rendered 1600x1200 photos from seed {first}: "
             f"{out['ok']}/{out['n']} = {100 * out['ok'] / max(out['n'], 1):.2f} % registered and right "
             f"(worst hex centre <= {WRONG_MM} mm; target 99.9 %)"]
    for k in sorted(out["by_markers"]):
        lines.append(f"  {k} markers: {out['ok_by_markers'][k]}/{out['by_markers'][k]}")
    if out["errors"]:
        e = np.array(out["errors"])
        lines.append(f"  worst hex centre: median {np.median(e):.2f} mm, 99th percentile {np.percentile(e, 99):.2f} mm, "
                     f"max {e.max():.2f} mm")
    lines.append(f"  failures: {'; '.join(out['failures']) or 'none'}")
    lines.append(f"  ({seconds:.0f} s, rendering included)")
    return lines


def run(count: int = COUNT, first: int = FIRST_SEED) -> list[str]:
    cv2.setNumThreads(1)
    box = load_box()
    t = time.perf_counter()
    out = study(box, range(first, first + count))
    return report(out, time.perf_counter() - t, first)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else COUNT
    first = int(sys.argv[2]) if len(sys.argv) > 2 else FIRST_SEED
    box = load_box()
    t0 = time.perf_counter()
    res = study(box, range(first, first + n), log=lambda s: print(s, flush=True))
    print("\n".join(report(res, time.perf_counter() - t0, first)))
