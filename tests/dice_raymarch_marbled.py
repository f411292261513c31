"""More ray-marched scenes of marbled dice, on every table (``dice.MARBLED_PIPS_BY_RINGS``'s data).

``tests/dice_raymarch`` draws a marbled die in about one of six phone dice and none on a webcam;
the ringed-pips look (:mod:`companion.vision.dice_ringed_pips`) is asked only of such dice, so its
wrong values need many of them to be seen. This file uses that renderer (dice, tables, light and
camera unchanged; this file draws only which dice and where) to draw scenes whose dice are mostly
marbled:

* ``phone``: two to seven dice, ~40-250 px, on any of the renderer's tables (felt, white, wood);
* ``webcam``: one to three dice, ~25-70 px, 640x480, on any table, half of them through the
  webcam's own pipeline (``tests/dice_raymarch_webcam``).

Four in five dice are marbled, of the renderer's three marbled styles and four more here (red,
white, black and yellow bodies: the vein is the body's colour darker or lighter, as the renderer
draws it); the rest of any style. Tilt as the renderer draws it (none, slight, strong). A new
generator (session 29): no seed of it is held out. Test-side only.
"""

from __future__ import annotations

import math

import numpy as np

from tests import dice_raymarch as rm
from tests.dice_raymarch_webcam import webcam_pipeline as webcam_pipeline_of

#: marbled bodies (BGR) with their pips, beside the renderer's marbled_blue, _green and _purple
MORE_MARBLED = {
    "marbled_red": ((50, 45, 190), (240, 240, 240)),
    "marbled_white": ((225, 228, 230), (30, 30, 30)),
    "marbled_black": ((45, 42, 45), (235, 235, 235)),
    "marbled_yellow": ((50, 190, 225), (30, 30, 30)),
}
SURFACES = rm.PHONE_SURFACES + rm.WEBCAM_SURFACES
KINDS = ("phone", "webcam")
MARBLED_SHARE = 0.8


def marbled_styles() -> list[str]:
    return [s for s in rm.STYLES if s.startswith("marbled")] + list(MORE_MARBLED)


def render_marbled(seed: int, kind: str | None = None) -> rm.RayScene:
    """One seeded scene of mostly marbled dice (``kind`` one of :data:`KINDS`)."""
    rng = np.random.default_rng([seed, 2929, 4242])
    kind = kind or KINDS[int(rng.integers(0, len(KINDS)))]
    if kind not in KINDS:
        raise ValueError(f"unknown scene kind {kind!r}")
    if kind == "phone":
        w = int(rng.choice([1600, 2000, 3000, 4000]))
        n = int(rng.integers(2, 8))
        die_px = float(math.exp(rng.uniform(math.log(40), math.log(250))))
        hfov = math.radians(rng.uniform(60, 72))
    else:
        w = 640
        n = int(rng.integers(1, 4))
        die_px = float(rng.uniform(25, 70))
        hfov = math.radians(rng.uniform(55, 70))
    h = w * 3 // 4
    marbled = marbled_styles()
    others = [s for s in rm.STYLES if not s.startswith("marbled")]
    styles = [str(rng.choice(marbled if rng.random() < MARBLED_SHARE else others)) for _ in range(n)]
    surface = str(rng.choice(SURFACES))
    f = w / 2 / math.tan(hfov / 2)
    tilt = float(rng.choice([0.0, rng.uniform(0, 12), rng.uniform(12, 30)]))
    side = float(rng.uniform(12, 19))
    cam = rm._Cam(w, h, f, f * side / die_px, math.radians(tilt), rng.uniform(0, 2 * math.pi))
    dice = rm.place_dice_styled(rng, cam, styles, side, kind, MORE_MARBLED)
    lights = rm._lights(rng, cam, side)
    img, depth = rm._table(rng, cam, surface, lights, dice)
    truths = rm.draw_dice(rng, cam, dice, lights, img, depth)
    piped = kind == "webcam" and rng.random() < 0.5
    params = {"kind": kind, "surface": surface, "tilt": tilt, "die_px": die_px, "size": (w, h), "pipeline": piped}
    pipeline = (lambda im: webcam_pipeline_of(seed, im, params)) if piped else None
    out = rm._camera(rng, img, depth, kind, die_px, params, pipeline)
    return rm.RayScene(out, sorted(truths, key=lambda t: (t.center[1], t.center[0])), params)
