"""Camera dice reader on images through a phone's pipeline our dice renderer never makes.

The accuracy target is judged on real photographs we do not have.  This bench reads the same fresh
renders (seeds never used while tuning) as rendered -- the baseline -- and after a phone's
non-geometric pipeline (tests/phone_pipeline.py: white balance, tone curve, saturation, sharpening
halos, 4:2:0 chroma, lower sensor resolution, shot noise, a second harsher JPEG), scored as
dice_eval does (a die is right when a reading with its value lies within half a die of its centre).
"""

from __future__ import annotations

import numpy as np

from companion.vision.dice import read_dice
from companion.vision.dice_eval import Score, scenario, score_scene
from companion.vision.dice_render import render_scene
from tests.phone_pipeline import EFFECTS, phone_image_bgr

SEEDS = range(41000, 41060)  # fresh: not in any other bench, test or tuning run


def _scenes(seeds):
    for seed in seeds:
        yield render_scene(seed)
    for seed in seeds[: len(seeds) // 2]:
        yield render_scene(seed, **scenario("phone", seed))
        yield render_scene(seed, **scenario("webcam", seed))


def run(seeds=SEEDS) -> list[str]:
    plain, phone = Score(), Score()
    per_effect = {e: Score() for e in EFFECTS}
    for scene in _scenes(seeds):
        plain.add(score_scene(scene, read_dice(scene.image)))
        seed = int(scene.params.get("seed", 0)) if hasattr(scene, "params") else 0
        rng = np.random.default_rng(seed + len(scene.dice))
        phone.add(score_scene(scene, read_dice(phone_image_bgr(scene.image, rng))))
    lines = [f"as rendered (default, phone-like and webcam-like scenes, seeds {seeds.start}-{seeds.stop - 1}): {plain.line()}",
             f"the same through a phone's whole pipeline: {phone.line()}"]
    few = range(seeds.start, seeds.start + 20)
    base = Score()
    for scene in _scenes(few):
        base.add(score_scene(scene, read_dice(scene.image)))
    lines.append(f"  as rendered ({few.start}-{few.stop - 1}): {base.line()}")
    for effect in EFFECTS:
        for scene in _scenes(few):
            rng = np.random.default_rng(len(scene.dice))
            per_effect[effect].add(score_scene(scene, read_dice(phone_image_bgr(scene.image, rng, (effect,)))))
        lines.append(f"  {effect} alone ({few.start}-{few.stop - 1}): {per_effect[effect].line()}")
    lines.append("target: 99.5 % of dice right on real photographs; a die not read is better than a wrong value")
    return lines
