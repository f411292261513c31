"""Board vision on photos our renderer never makes: a phone's image pipeline applied after rendering.

Issue 5's targets are also measured on scenes "rendered by a generator the team does not have".
This bench estimates how far our figures travel: the same fresh scenes (seeds never used while
tuning) adjudicated twice in one run, as rendered (the baseline) and after a phone-camera pipeline
our renderer does not model -- a white-balance error, a tone curve, a saturation boost, unsharp-mask
halos, 4:2:0 chroma subsampling, a lower resolution sensor upscaled, luminance-dependent noise and a
second, harsher JPEG (a photo sent through a messaging app).  None of these moves anything on the
board, so the render's truth (coverage per hex, the sheets) still holds.

Printed per variant: coverage errors per (hex, expedition) decision (evaluate.py's rules: the 0.5 mm
too-close-to-call margin; hidden hexes may be unknown), uncovered hexes under glare called covered,
sheets named with the right equipment type (all sheets, and those in clear view), and photos refused.
A second phone (tests/phone_pipeline.second_phone: a soft lens, a shadow-lifting tone curve, hard
colour denoising) is a further check, added after the first one's figures were worked on.  Glare and
shadow must never pass for a sheet, through a phone too: fresh scenes under ``render.harsh_light``
(one to three glare spots, one or two shadows) through both phones (coverage only; added in issue
5's sixth round, when two glare hexes were called covered through the first phone).
"""

from __future__ import annotations

import numpy as np

from companion.box_profiles import load_box
from companion.vision import coverage as cov
from companion.vision.adjudicate import adjudicate, decode
from companion.vision.evaluate import CoverageScore, near_border_hexes, score_coverage
from companion.vision.registration import VisionRefusal
from companion.vision.render import encode_jpeg, harsh_light, random_scene, render
from companion.vision.sheetscore import SheetScore, clear_shares, score_sheets
from tests.phone_pipeline import EFFECTS, phone_pipeline, second_phone

SEEDS = range(31000, 31024)  # fresh: not in any other bench, test or tuning run
ABLATION_SEEDS = range(31100, 31108)
HARSH_SEEDS = range(31200, 31224)  # fresh as well: harsh light through both phones


class Tally:
    def __init__(self):
        self.coverage, self.sheets, self.refused = CoverageScore(), SheetScore(), []

    def line(self, name: str, n: int) -> str:
        c, s = self.coverage, self.sheets
        return (f"{name}: coverage {c.errors} errors / {c.decisions} decisions = {100 * c.error_rate:.3f} % "
                f"(covered-when-not {c.false_covered}, uncovered-when-covered {c.false_uncovered}; "
                f"unknown where visible {c.unknown_visible}); glare called covered {c.glare_false_covered}, "
                f"deep shadow called covered {c.shadow_false_covered}; "
                f"equipment type right {s.right}/{s.truth} = {100 * s.type_accuracy:.1f} % "
                f"(in clear view {s.clear_right}/{s.clear} = {100 * s.clear_accuracy:.1f} %; named wrong {s.wrong}, "
                f"unidentified {s.unidentified}, missed {s.missed}, extra named {s.extra_named}); "
                f"refused {len(self.refused)}/{n}" + (f" ({'; '.join(self.refused[:3])})" if self.refused else ""))


def _adjudicate_into(box, data: bytes, scene, truth, tally: Tally) -> None:
    try:
        photo = decode(data, "bench")
        adj = adjudicate(photo, box)
    except VisionRefusal as exc:
        tally.refused.append(f"seed {scene.seed}: {exc.reason}")
        return
    res = adj.coverage
    tally.coverage.add(score_coverage(box, truth, res.covered, res.unknown, near_border_hexes(box, scene.sheets)))
    found = [f for fits in adj.sheets.values() for f in fits]
    lay = cov.layout(box)
    shares = clear_shares(box, scene.sheets, ~res.unknown_mask, lay.x0, lay.y0, lay.ppm)
    tally.sheets.add(score_sheets(box, scene.sheets, found, shares))


def _harsh_lines(box, seeds) -> list[str]:
    """Coverage alone (registered as the referee does) on harsh-light scenes through both phones."""
    from tests.bench.bench_coverage import _registered

    out = []
    for name, pipeline in (("the phone", phone_pipeline), ("the second phone", second_phone)):
        score, refused = CoverageScore(), 0
        for seed in seeds:
            scene = random_scene(box, seed, 1600, 1200, broad=True)
            scene = harsh_light(box, scene, np.random.default_rng([seed, 2]))
            image, truth = render(box, scene)
            try:
                photo, reg = _registered(box, pipeline(image, np.random.default_rng(seed)))
            except VisionRefusal:
                refused += 1
                continue
            res = cov.measure(photo.bgr, reg, box, bgr=True)
            score.add(score_coverage(box, truth, res.covered, res.unknown, near_border_hexes(box, scene.sheets)))
        out.append(f"harsh light through {name} ({len(seeds)} scenes, seeds {seeds.start}-{seeds.stop - 1}): coverage "
                   f"{score.errors} errors / {score.decisions} decisions = {100 * score.error_rate:.3f} % "
                   f"(unknown where visible {score.unknown_visible}); glare called covered "
                   f"{score.glare_false_covered}, deep shadow called covered {score.shadow_false_covered}; "
                   f"refused {refused}")
    return out


def run(seeds=SEEDS, ablation_seeds=ABLATION_SEEDS, harsh_seeds=HARSH_SEEDS) -> list[str]:
    box = load_box()
    plain, phone, other = Tally(), Tally(), Tally()
    for seed in seeds:
        scene = random_scene(box, seed, 1600, 1200, broad=True)
        image, truth = render(box, scene)
        _adjudicate_into(box, encode_jpeg(image, scene.jpeg_quality), scene, truth, plain)
        _adjudicate_into(box, phone_pipeline(image, np.random.default_rng(seed)), scene, truth, phone)
        _adjudicate_into(box, second_phone(image, np.random.default_rng(seed)), scene, truth, other)
    lines = [plain.line(f"as rendered ({len(seeds)} broad scenes, seeds {seeds.start}-{seeds.stop - 1})", len(seeds)),
             phone.line("the same through a phone's whole pipeline", len(seeds)),
             other.line("the same through a second phone (soft lens, shadow lift, colour denoising; "
                        "never tuned on)", len(seeds))]
    scenes = [(scene, *render(box, scene)) for scene in
              (random_scene(box, seed, 1600, 1200, broad=True) for seed in ablation_seeds)]
    for effect in (None, *EFFECTS):  # which step of the pipeline hurts: one at a time
        tally = Tally()
        for scene, image, truth in scenes:
            steps = () if effect is None else (effect,)
            _adjudicate_into(box, phone_pipeline(image, np.random.default_rng(scene.seed), steps), scene, truth, tally)
        what = "the phone's JPEG only" if effect is None else f"{effect} alone"
        lines.append(tally.line(f"  {what} (seeds {ablation_seeds.start}-{ablation_seeds.stop - 1})", len(scenes)))
    lines += _harsh_lines(box, harsh_seeds)
    lines.append("targets: coverage errors at most 0.05 %, no glare or shadow called covered, equipment type right "
                 "for 99 %")
    return lines
