"""Per-channel log-contrast gains: a camera channel whose paper level is clipped or rolled off.

Warm light on a white board (tungsten, or the warm end of our renders' range) drives the paper's
red channel to the top of the 8-bit range: the paper clips there (or the phone's tone curve rolls
it off) while the sheets, darker, do not.  Every sheet's red transmission (sheet / paper) then
comes out too pale -- a green sheet's red at 0.57 of the paper instead of 0.35 (log -0.56 against
-1.05, about half the contrast) -- while the other channels are nearly right.  One tone gain for all three channels
(colour_adapt.tone_gain) cannot undo that, and the 3x3 colour map caps how far it moves a hue, so
such sheets fit no expedition's colour and are lost.

A gain, not an offset: a sheet near-white in the clipped channel stays at log 0 (clipped with the
paper), which a gain keeps at 0.  Only a channel whose paper pixels lie at the top of the range is
tried (``CLIP_LEVEL``; red only, see ``TRIED``): a photo without one is not searched at all, and
a gain is taken only when it explains the coloured pixels clearly better than none, scored as
colour_adapt.tone_gain scores its gains (the residual in the photo's own log units plus the colour match's per-sheet penalty,
which keeps a true photo at 1).
"""

from __future__ import annotations

import numpy as np

from .colour_adapt import GAIN_MAX_SAMPLES, MIN_SAMPLES, SAMPLE_STEP, _samples, hue_samples, match_residuals
from .transmission import table

NO_GAIN = (1.0, 1.0, 1.0)
# A channel whose bright paper reaches this 8-bit level is clipped or rolled off by the camera:
# only such a channel is searched.  The paper's level is taken at PAPER_PERCENTILE (its brightest
# part: vignetting and a light gradient leave the rest lower).  The forced-warm development renders
# (seeds 62000-62023, 3500-3800 K) put the paper's red at 243-255 through the second phone; that
# phone's shadow lift puts most photos' paper near the top anyway, so there the margin below is
# what keeps a photo at 1, not this level.
CLIP_LEVEL = 240
PAPER_PERCENTILE = 90
# Only red is tried: warm indoor light (tungsten, 2700-3800 K) on white paper is what drives one
# channel to the top while the others stay below, and a camera's red is then the one that clips.
# Blue and green were tried too on the development sets: a blue gain of 2.3 on one cool first-phone
# photo (seed 54018) called a hex covered 104 mm from any sheet, a green one fixed 4 hexes of another
# (46009); red alone changes neither.
TRIED = (0,)
GAINS = (1.2, 1.4, 1.6, 1.8, 2.0, 2.2)  # a clipped channel's gains tried (1: none), then 0.1 either side of the best
CHANNEL_MARGIN = 0.03  # a gain must explain the coloured pixels this much better (mean cost) than none
GAIN_RANGE = (1.0, 2.5)  # clamp: a clipped channel's contrast is only ever compressed, never stretched
# The smallest gain taken.  At 1.35 (a smaller shift, ~0.17 log RMS, left to the colour map) the
# forced-warm stress set kept errors a gain of 1.2 fixes; at 1.2 the second phone's ordinary photos
# (43024, 43040) took gains of 1.2 that made no decision right or wrong but, while the glare veil
# was judged through the gain, left more undecided (43040: 118 of 913 decisions, unknown +0.26
# points on 43000-43047).  With the unseen tests reading the photo as taken (coverage.UNSEEN_AS_TAKEN)
# that cost is gone: 1.35 -> 1.2 with it, the forced-warm 62000-62023 went 14 -> 10 errors through
# the first phone, 4 -> 2 through the second, 2 -> 2 as rendered; no development set had more
# errors, unknown where visible -0.19..+0.07 points (second phone 43000-43047 +0.07).
MIN_GAIN = 1.2


def clipped_channels(photo: np.ndarray, paper: np.ndarray) -> list[int]:
    """The channels (0-2) of the warped 8-bit photo whose paper lies at the top of the range."""
    step = SAMPLE_STEP
    px = _samples(photo, paper, step)
    if len(px) < 4 * MIN_SAMPLES:
        return []
    levels = np.percentile(px, PAPER_PERCENTILE, axis=0)
    return [c for c in TRIED if levels[c] >= CLIP_LEVEL]


def channel_gains(L: np.ndarray, photo: np.ndarray, paper: np.ndarray, usable: np.ndarray, colours: dict,
                  expeditions, s_lo: float, s_hi: float) -> tuple[float, float, float]:
    """The gains (one per channel; ``NO_GAIN`` when none is clearly better) by which this photo's
    log-transmissions ``L`` must be multiplied, channel by channel, to match the profile's sheets.

    ``photo`` is the warped 8-bit photo (RGB) and ``paper`` its seen paper: they say which channels
    are clipped.  Only those are searched, one at a time (the others held at 1).
    """
    chans = clipped_channels(photo, paper)
    if not chans:
        return NO_GAIN
    Ls, keep = hue_samples(L, usable)
    Ls = Ls[keep]
    if len(Ls) < 4 * MIN_SAMPLES:
        return NO_GAIN
    Ls = np.ascontiguousarray(Ls[::max(1, len(Ls) // GAIN_MAX_SAMPLES)]).reshape(-1, 1, 3)
    key = tuple(tuple(float(v) for v in colours[e]) for e in expeditions)
    tab = table(key, s_lo, s_hi)
    gains = np.ones(3)
    for c in chans:
        def tried(values):
            G = np.tile(gains, (len(values), 1))
            G[:, c] = values
            return G
        values = [1.0, *GAINS]
        costs = dict(zip(values, _costs(Ls, tried(values), tab, s_lo, s_hi)))
        best = min(costs, key=costs.get)
        if best != 1.0:
            fine = [round(best - 0.1, 2), round(best + 0.1, 2)]
            costs.update(zip(fine, _costs(Ls, tried(fine), tab, s_lo, s_hi)))
            best = min(costs, key=costs.get)
        if best >= MIN_GAIN and costs[1.0] - costs[best] > CHANNEL_MARGIN:
            gains[c] = float(np.clip(best, *GAIN_RANGE))
    return tuple(round(float(g), 2) for g in gains)


def _costs(Ls: np.ndarray, gains: np.ndarray, tab, s_lo: float, s_hi: float) -> np.ndarray:
    """The mean cost of explaining the pixels ``Ls`` (n x 1 x 3) with each row of ``gains`` (k x 3)
    applied channel by channel: colour_adapt._gain_costs with a gain per channel (the residual is
    measured in the photo's own log units: each channel's divided by its gain)."""
    n = len(Ls)
    G = np.asarray(gains, np.float32)
    X = (Ls[None, :, 0, :] * G[:, None, :]).reshape(-1, 1, 3)
    d, w, ws, best = match_residuals(X, tab, s_lo, s_hi)
    d /= np.repeat(G, n, axis=0)  # back to the photo's own log units
    raw = np.sqrt(((w * d * d) @ np.ones(3, np.float32)) * 3 / ws)
    per = np.minimum(raw, 0.3) + tab.pen[best]
    return per.reshape(len(G), n).mean(1)


def apply_gains(L: np.ndarray, log_ref: np.ndarray, gains) -> np.ndarray:
    """``L`` with each channel's darkening (photo below the light) multiplied by its gain, in place.

    As coverage applies the tone gain, the photo's own log (``L + log_ref``: the reference is the
    print, not the photo) is what is scaled; but only below the light's level: a clipped channel
    shows nothing brighter than its paper, so nothing there is to be stretched (glare and the
    paper's noise stay as they are; on the development sets the decisions came out the same as
    scaling everything).
    """
    for c, g in enumerate(gains):
        if g != 1.0:
            M = L[..., c] + log_ref[..., c]
            L[..., c] += np.float32(g - 1.0) * np.minimum(M, 0)
    return L
