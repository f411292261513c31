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
its profile -- as long as no channel clips (a clipped channel stops rising while the others still do,
and the hue turns: ANY_CLIPPED).  So a pixel in the fade that the colour match still names one
expedition alone, not misfit (within the profile's tolerance), with no channel at the photo's top, is
that film.  The bright core itself (brighter than the paper: glare), the haze (every channel above the
paper's) and clipped pixels stay unseen; clipped pixels are unknown (neither this colour nor its
absence): the fitter charges them as unseen, not as paper.  Coverage's own decisions are unchanged:
only the fitter's view.

What the fitter makes of a film seen only beside a reflection: its colour there is bounded on the
glare side by the reflection's edge, not the sheet's, and the fitter (which charges every unseen pixel
of an outline) then favours the smallest shape -- a cage -- on such scraps.  A cage fitted mostly on the
freed fade is reported unidentified (CAGE_ON_RIM_UNNAMED): a sheet is there, its type not clear.
"""

from __future__ import annotations

import numpy as np

GLARE_RIM_SEEN_BY_FITTER = True

# Pixels darker on average than coverage.DEEP_SHADOW_LOG (passed in as ``deep_log``: under two films
# or more) kept unseen too?  Off: a single film in the glare's fade is often that dark (the green and
# red films' means lie at -0.78 and -0.88 on the profile, lower in shade), and on the photos that
# changed (0-159) it kept 4 of 6 sheets gained unseen (right +2 instead of +6); the colour match's one
# name alone, not misfit, is the test kept (an overlap is named two expeditions, or misfit).
OVERLAP_UNSEEN = False
MIN_RIM_PX = 40  # fewer freed pixels than this (about 4 mm2 at 3 px/mm): noise, nothing changed
# A cage (the smallest sheet) fitted where the fitter sees colour mostly thanks to the freed fade is
# reported unidentified: the patch is bounded on its glare side by the reflection's edge, not the
# sheet's, so a cage there cannot be told from the visible corner of a bigger sheet (session 40: of
# the typed extras the freed fade added on 0-159, nearly all were cages on such scraps).
CAGE_ON_RIM_UNNAMED = True
CAGE_RIM_SHARE = 0.15  # share of the cage outline's colour pixels that lie in the freed fade (0.3: one more typed extra on 0-159's glare photos, 109/158)
# A pixel with any channel at the photo's top stays unseen: once one channel clips it stops rising
# while the others still do, so the added light no longer keeps the film's hue (a blue film lifted
# until its blue clips turns towards yellow)
ANY_CLIPPED = True
CLIP_MARGIN = 6  # a channel within this many levels (of 255) of the photo's top is clipped


def rim_seen_by_fitter(fit_glare: np.ndarray, bright: np.ndarray, haze: np.ndarray, clipped: np.ndarray,
                       code: np.ndarray, Lc: list, deep_log: float, one_bit: np.ndarray, misfit_bit: int,
                       ppm: float = 3.0, wmin: np.ndarray | None = None, wmax: np.ndarray | None = None) -> np.ndarray | None:
    """The pixels of the fitter's glare (``fit_glare``) the fitter may see: named one expedition
    alone (``one_bit``), not misfit, not the bright core, the haze or clipped, not under an overlap
    (mean log-transmission at or above ``deep_log``).  None: nothing (or too little) to free."""
    cand = fit_glare & ~bright & ~haze & ~clipped & one_bit & ((code & np.uint8(misfit_bit)) == 0)
    if ANY_CLIPPED and wmax is not None and cand.any():
        # the photo's top: the brightest level any pixel in the glare reaches in its dimmest channel
        # (a clipped core is flat there; a phone's white balance can put it under 255)
        top = int(np.percentile(wmin[fit_glare], 99.5)) if fit_glare.any() else 255
        cand &= wmax < max(top - CLIP_MARGIN, 1)
    if np.count_nonzero(cand) < MIN_RIM_PX:
        return None
    if OVERLAP_UNSEEN:
        mean_log = (Lc[0] + Lc[1] + Lc[2]) * np.float32(1 / 3)
        cand &= mean_log >= deep_log
    return cand if np.count_nonzero(cand) >= MIN_RIM_PX else None


def cages_on_rim(box, sheets: dict, rim: np.ndarray | None, fit_masks, x0: float, y0: float, ppm: float) -> dict:
    """``sheets`` (expedition -> fitted sheets) with each cage whose colour lies mostly in the freed
    fade (``rim``, on the fit masks' grid) reported unidentified (CAGE_ON_RIM_UNNAMED)."""
    if not CAGE_ON_RIM_UNNAMED or rim is None or not rim.any():
        return sheets
    import cv2
    from dataclasses import replace

    from .sheets import outline

    out = {}
    for e, fits in sheets.items():
        new = []
        for f in fits:
            if f.identified and f.pose.equipment == "cage":
                m = np.zeros(rim.shape, np.uint8)
                poly = (np.asarray(outline(box, f.pose), float) - [x0, y0]) * ppm - 0.5
                cv2.fillPoly(m, [np.round(poly * 16).astype(np.int32)], 1, shift=4)
                inside = (m > 0) & np.asarray(fit_masks[e], bool)
                n = np.count_nonzero(inside)
                if n and np.count_nonzero(inside & rim) >= CAGE_RIM_SHARE * n:
                    f = replace(f, identified=False)
            new.append(f)
        out[e] = new
    return out
