"""More ray-marched scenes for the hardest class: light dice on light surfaces.

The accuracy target's phone photos include "several dice of mixed colours on a white surface";
of those, the light dice (white, ivory, yellow, pastel) differ from the paper or table mostly by
their shading, their edges, their shadow and their pips, not by their colour. ``tests/dice_raymarch``
draws few such dice; this file uses its renderer (dice, table, light and camera unchanged) to
draw more of them, in three kinds of scene:

* ``light_on_white``: two to seven light dice on white paper or a white table, a phone photo;
* ``flash``: mixed colours on white under a light near the camera (a phone's flash or a ring
  light): the shadows fall behind the dice and are small, so a light die's outline is faint all
  round;
* ``pastel``: pastel and light dice with dark pips on white, some touching-close.

The die colours added here (pastels) are jittered like the others. Test-side only.
"""

from __future__ import annotations

import math

import numpy as np

from tests import dice_raymarch as rm

LIGHT_STYLES = ("white", "ivory", "yellow_black", "translucent_clear")
# pastel bodies (BGR) with dark pips, after common light-coloured dice sets
PASTELS = {
    "pastel_pink": ((200, 190, 245), (40, 35, 60)),
    "pastel_blue": ((240, 215, 180), (60, 40, 30)),
    "pastel_mint": ((205, 240, 200), (40, 60, 40)),
    "pastel_lilac": ((235, 200, 215), (60, 30, 50)),
    "cream": ((205, 235, 245), (40, 30, 25)),
}
KINDS = ("light_on_white", "flash", "pastel")


def render_light(seed: int, kind: str | None = None) -> rm.RayScene:
    """One seeded scene of light dice on a light surface (``kind`` one of :data:`KINDS`)."""
    rng = np.random.default_rng([seed, 777, 4242])
    kind = kind or KINDS[int(rng.integers(0, len(KINDS)))]
    if kind not in KINDS:
        raise ValueError(f"unknown scene kind {kind!r}")
    w = int(rng.choice([1600, 2000, 3000, 4000]))
    h = w * 3 // 4
    n = int(rng.integers(2, 8))
    die_px = float(math.exp(rng.uniform(math.log(40), math.log(250))))
    if kind == "light_on_white":
        styles = [str(rng.choice(LIGHT_STYLES)) for _ in range(n)]
    elif kind == "pastel":
        styles = [str(rng.choice(list(PASTELS) + list(LIGHT_STYLES))) for _ in range(n)]
    else:
        styles = [str(rng.choice(list(rm.STYLES) + list(PASTELS))) for _ in range(n)]
    surface = str(rng.choice(["white_table", "white_paper"]))
    hfov = math.radians(rng.uniform(60, 72))
    f = w / 2 / math.tan(hfov / 2)
    tilt = float(rng.choice([0.0, rng.uniform(0, 12), rng.uniform(12, 30)]))
    side = float(rng.uniform(12, 19))
    cam = rm._Cam(w, h, f, f * side / die_px, math.radians(tilt), rng.uniform(0, 2 * math.pi))
    dice = rm.place_dice_styled(rng, cam, styles, side, "phone", PASTELS)
    lights = rm._lights(rng, cam, side)
    if kind == "flash":
        # the main light beside the lens: straight down the camera's line of sight
        lights = [(cam.pos * 1.02 + rng.normal(0, 0.02, 3) * np.linalg.norm(cam.pos), float(rng.uniform(0.7, 1.0)))]
        lights += [(p, 0.5 * pw) for p, pw in rm._lights(rng, cam, side)[:1]]
    img, depth = rm._table(rng, cam, surface, lights, dice)
    truths = rm.draw_dice(rng, cam, dice, lights, img, depth)
    params = {"kind": kind, "surface": surface, "tilt": tilt, "die_px": die_px, "size": (w, h)}
    out = rm._camera(rng, img, depth, "phone", die_px, params)
    return rm.RayScene(out, sorted(truths, key=lambda t: (t.center[1], t.center[0])), params)
