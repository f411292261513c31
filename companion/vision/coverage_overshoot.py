"""A saturated film's bright channel above the paper, taken for glare: not glare, to the sheet fitter
(OVERSHOOT_NOT_GLARE_FOR_FITTER).

Coverage calls a pixel glare when its brightest channel passes the paper's by coverage.GLARE_LOG
(0.22 log) and grows that core by half its radius again (coverage._glare_grown).  A phone's colour
matrix has negative terms off its diagonal (it undoes the camera's overlapping channel curves): a
film that passes one band and stops the others comes out with that one channel *above* the paper
(the paper's other channels subtract from it, the film's do not).  On the second generator's
development photo 9 (warm LED, mixed white balance) three blue sheets read (-3.1, -5.2, +0.16) and a
yellow one (+0.19, -0.19, -5.0) against the paper: a quarter to two fifths of each sheet's own part is
"glare" by brightness, the core grown over the whole sheet (0.94-0.99 of it glare), and the fitter saw
none of the four.

Glare is white light *added*: a reflection that lifts the brightest channel of a film over the paper
by GLARE_LOG adds at least exp(GLARE_LOG) - 1 = 0.25 of the paper's white to every channel, so no
channel of the pixel can lie below log(0.25) = -1.4 (in the photo's encoded values; in linear light
the bound is higher still).  A "bright" pixel with a channel under OVERSHOOT_DIM_LOG is the film's own
colour pushed over the paper, not a reflection: it is left out of the glare cores the fitter's glare
is grown from (what the pixels round it are -- the film's colour, misfit, dim -- the fitter's other
rules decide, as anywhere else).  The pixel itself stays unseen to the fitter: its colour is off every
profile (the colour match names it nothing, so shown it would be paper in the middle of the film:
development 9, five American cages fitted round such holes in a biological unit).  Coverage's own
glare and decisions are unchanged: only the fitter's view.
"""

from __future__ import annotations

import numpy as np

OVERSHOOT_NOT_GLARE_FOR_FITTER = True
# A cage fitted mostly on what this rule freed is reported unidentified (coverage_glare_rim's guard,
# CAGE_RIM_SHARE): the freed film is ringed by its own unseen overshoot, so the fitter sees its
# rim in scraps and favours the smallest shape on one (development 9: an American cage on the rim of
# a biological unit whose middle overshoots)
CAGE_ON_FREED_UNNAMED = True
# log(exp(GLARE_LOG) - 1) with coverage.GLARE_LOG = 0.22: the least any channel keeps under added
# white light bright enough to lift a channel that far over the paper (see above)
OVERSHOOT_DIM_LOG = -1.4


def overshoot(bright: np.ndarray, Lmin: np.ndarray) -> np.ndarray | None:
    """Of ``bright`` (glare by brightness), the pixels with a channel (``Lmin``: the darkest channel's
    log-transmission) under OVERSHOOT_DIM_LOG: a film's colour over the paper, not a reflection.
    None: none."""
    if not OVERSHOOT_NOT_GLARE_FOR_FITTER or not bright.any():
        return None
    out = bright & (Lmin < OVERSHOOT_DIM_LOG)
    return out if out.any() else None
