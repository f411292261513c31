"""Sheet fitting: equipment type right for >= 99 % of sheets (issue 5), pose error, missed/extra, time.

Two inputs per rendered scene: the TRUE colour masks (each expedition's sheets rasterised from the
truth: an upper bound that isolates the fitter) and the MEASURED masks (coverage.measure on the
rendered 1600x1200 JPEG: what adjudication really gets).  Two seed ranges: one the fitter was
developed on, one held out.  Sheets are paired with the truth by outline overlap
(companion/vision/sheetscore.py); "unidentified" sheets (too unsure to name) are not counted right.
"In clear view": at least half the sheet seen and under none of its own expedition's other sheets
(one expedition's overlaps merge in its colour mask, so a sheet mostly under its own kind cannot
be told by its shape).
Fitting time is per expedition on the 4 px/mm board grid.
"""

from __future__ import annotations

import time

import numpy as np

from companion.box_profiles import load_box
from companion.vision import coverage as cov
from companion.vision.adjudicate import adjudicate, decode
from companion.vision.render import encode_jpeg, random_scene, render
from companion.vision.sheetfit import fit_expedition
from companion.vision.sheetscore import SheetScore, clear_shares, score_sheets, true_masks

DEV_SEEDS = range(0, 20)
HELD_OUT_SEEDS = range(9000, 9020)


def _fit_all(box, lay, masks, seen, times) -> list:
    found = []
    for e in cov.EXPEDITIONS:
        t = time.process_time()  # CPU time: the machine is shared, wall time is noise
        found += fit_expedition(box, e, masks[e], seen, lay.x0, lay.y0, lay.ppm, unidentified=True)
        times.append(time.process_time() - t)
    return found


def _line(name: str, s: SheetScore) -> str:
    c = np.asarray(s.centre_mm or [np.nan])
    a = np.asarray(s.angle_deg or [np.nan])
    return (f"{name}: type right {s.right}/{s.truth} = {100 * s.type_accuracy:.1f} % (target 99 %), "
            f"of sheets in clear view {s.clear_right}/{s.clear} = {100 * s.clear_accuracy:.1f} %; "
            f"wrong type {s.wrong}, unidentified {s.unidentified}, missed {s.missed}, extra {s.extra} "
            f"(with a type: {s.extra_named}); "
            f"pose error of right ones: centre median {np.median(c):.2f} mm p95 {np.percentile(c, 95):.2f} mm, "
            f"angle median {np.median(a):.2f} deg p95 {np.percentile(a, 95):.2f} deg")


def run() -> list[str]:
    box = load_box()
    lay = cov.layout(box)
    flat = lay.paper | lay.land
    lines = []
    times: list[float] = []
    for label, seeds in (("development seeds", DEV_SEEDS), ("held-out seeds", HELD_OUT_SEEDS)):
        ideal, measured = SheetScore(), SheetScore()
        for seed in seeds:
            scene = random_scene(box, seed, 1600, 1200)
            photo, _truth = render(box, scene)
            tm = true_masks(box, scene.sheets, lay.x0, lay.y0, lay.ppm, lay.shape)
            masks = {e: tm[e] & flat if e in tm else np.zeros(lay.shape, bool) for e in cov.EXPEDITIONS}
            everywhere = np.ones(lay.shape, bool)
            ideal.add(score_sheets(box, scene.sheets, _fit_all(box, lay, masks, flat, []),
                                   clear_shares(box, scene.sheets, everywhere, lay.x0, lay.y0, lay.ppm)))
            adj = adjudicate(decode(encode_jpeg(photo, scene.jpeg_quality)), box, fit_sheets=False)
            r = adj.coverage
            shares = clear_shares(box, scene.sheets, ~r.unknown_mask, lay.x0, lay.y0, lay.ppm)
            measured.add(score_sheets(box, scene.sheets, _fit_all(box, lay, r.fit_masks, r.seen_flat, times), shares))
        lines.append(f"{label} {seeds.start}-{seeds.stop - 1} ({len(seeds)} rendered scenes):")
        lines.append("  " + _line("true masks    ", ideal))
        lines.append("  " + _line("measured masks", measured))
    t = np.asarray(times) * 1000
    lines.append(f"fitting CPU time per expedition (measured masks, 4 px/mm): median {np.median(t):.0f} ms, "
                 f"p95 {np.percentile(t, 95):.0f} ms, max {t.max():.0f} ms; four expeditions per photo: "
                 f"median {4 * np.median(t):.0f} ms (budget ~20 ms)")
    return lines
