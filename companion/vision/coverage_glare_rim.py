"""A film's colour beside clipped glare, shown to the sheet fitter (GLARE_RIM_SEEN_BY_FITTER).

A glossy transparency mirrors the room's light: where the reflection is bright the photo clips
(every channel at the photo's top), and there nothing of the film's colour is left.  Round that core
the reflection fades, and coverage hides the fade too (coverage._glare_grown: the core grown by about
half its radius, the haze of added white light with it), because added white light pales a film's
colour and a hex ruling from a paled colour may be wrong.  The fitter was given the same mask, so on a
sheet whose middle is clipped it saw none of the rim where the film still shows its own colour: the
sheet was missed (session 40, development 0-159 of the second generator: of 52 sheets "washed out"
under glare, 18 showed their expedition's colour -- named it alone by the colour match -- on 10-33 %
of their pixels under no other sheet, of which the fitter saw under half; e.g. 28, 76, 89, 101).

Physically: glare is light *added* to what the film passes, the same in every channel (a dielectric's
specular reflection keeps the light's colour).  Added white light lifts every channel and pulls a
colour towards grey; it cannot make a grey or another film's colour into one expedition's colour on
its profile.  So a pixel in the fade that the colour match still names one expedition alone, not
misfit (within the profile's tolerance), is that film.  The exceptions are kept unseen: the bright
core itself (brighter than the paper: glare), the haze (every channel above the paper's), clipped
pixels, and what lies under two or more films (too dark on average: a veil lifts the dim channels
of an overlap most and so moves its hue towards another expedition's -- coverage.VEIL_DARK_UNSEEN_BY_FITTER's
reason).  Clipped pixels stay unknown (neither this colour nor its absence): the fitter charges them
as unseen, not as paper.  Coverage's own decisions are unchanged: only the fitter's view.
"""

from __future__ import annotations

import numpy as np

GLARE_RIM_SEEN_BY_FITTER = True

# a pixel under two films or more is darker than this on average (natural log, the three channels'
# mean; coverage.DEEP_SHADOW_LOG's value, passed in): there a veil moves the hue, so it stays unseen
OVERLAP_UNSEEN = False  # (experiment)
MIN_RIM_PX = 40  # fewer freed pixels than this (about 4 mm2 at 3 px/mm): noise, nothing changed


def rim_seen_by_fitter(fit_glare: np.ndarray, bright: np.ndarray, haze: np.ndarray, clipped: np.ndarray,
                       code: np.ndarray, Lc: list, deep_log: float, one_bit: np.ndarray, misfit_bit: int) -> np.ndarray | None:
    """The pixels of the fitter's glare (``fit_glare``) the fitter may see: named one expedition
    alone (``one_bit``), not misfit, not the bright core, the haze or clipped, not under an overlap
    (mean log-transmission at or above ``deep_log``).  None: nothing (or too little) to free."""
    cand = fit_glare & ~bright & ~haze & ~clipped & one_bit & ((code & np.uint8(misfit_bit)) == 0)
    if np.count_nonzero(cand) < MIN_RIM_PX:
        return None
    if OVERLAP_UNSEEN:
        mean_log = (Lc[0] + Lc[1] + Lc[2]) * np.float32(1 / 3)
        cand &= mean_log >= deep_log
    return cand if np.count_nonzero(cand) >= MIN_RIM_PX else None
