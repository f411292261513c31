"""Colour a phone's tone curve moved along its own sheet's ray, for the sheet fitter only.

A tone curve (gamma, an S-curve) maps every channel through one rising function, so a sheet's
log-transmission a (per channel, against the paper) comes out near c * a: gamma multiplies every
log by itself, the S-curve darkens the darks further (c grows with how dark the channel is), and
a white-balance error is divided out with the paper's own light.  Shade adds a grey term s to
every channel.  So a sheet seen through a phone lies near the ray {c a + s} of its expedition's
colour, and two of its sheets stacked near {c 2a + s}: the same ray.  Coverage's colour match
knows only a and 2a (plus s), so between and past them it calls the colour a misfit (no table
entry fits) or, where two channels sink under coverage.DIM_LOG, too dim to read -- and the fitter,
which is told the same, sees nothing of the sheet (development through the first phone:
tests/phone_pipeline.phone_pipeline).

``on_own_ray`` finds the pixels the match names one expedition whose colour its ray explains
better than any other ray (any other expedition's, any two expeditions' stacked), within the
match's own RESIDUAL_MAX.  Comparing rays keeps an overlap of two expeditions that passes for a
third's hue (colourmasks' look-alikes: yellow over blue reads green) with the pair.
"""

from __future__ import annotations

import itertools

import numpy as np

from .colour_adapt import MIN_SAMPLES, SAMPLE_STEP
from .maskparts import nonzero_yx
from .transmission import MISFIT, RESIDUAL_MAX

# The ray's gains tried: c from RAY_GAIN_LO to RAY_GAIN_HI times the profile's colour.  One sheet
# as rendered is c ~ 1 (print runs), two stacked c ~ 2; the tone gains coverage accepts for a whole
# photo run 0.6-2.2 (colour_adapt.GAINS), i.e. log-contrast scaled by 1/2.2-1/0.6 = 0.45-1.67.
# The ray spans one sheet paled by the lowest to two sheets stretched by the highest of those:
# 0.45 * 1 .. 1.67 * 2 ~ 3.3 (the only range tried).
RAY_GAIN_LO = 0.45
RAY_GAIN_HI = 3.3
# A photo has one tone curve: its sheets of one expedition share one gain c1, measured as the
# median c of the pixels the match reads plainly as that expedition (not misfit, not dim).  A pixel
# is freed only up to RAY_STACK_RATIO times it: past that it is nearer two sheets stacked (2 c1)
# than one -- a stack the match, which knows two sheets, could not read, left unseen as before
# (development through the first phone: freed stacks at 2.2-2.4 c1 merged seeds 537's and 633's
# blobs of one colour into wrong types; single sheets freed at 1.1-1.3 c1, 523, 514, 567, 611).
# The ratio is the geometric midpoint of one sheet and two (sqrt 2; the only value tried).
RAY_ONE_SHEET = True
RAY_STACK_RATIO = 2 ** 0.5


def _rays(colours: dict, expeditions) -> tuple[np.ndarray, np.ndarray]:
    """Ray directions (n x 3, log) and their expedition bits: each expedition alone, each two."""
    a = np.log(np.clip(np.asarray([colours[e] for e in expeditions], np.float64) / 255.0, 1e-3, 1.0))
    dirs, bits = [], []
    for i in range(len(expeditions)):
        dirs.append(a[i])
        bits.append(1 << i)
    for i, j in itertools.combinations(range(len(expeditions)), 2):
        dirs.append(a[i] + a[j])
        bits.append((1 << i) | (1 << j))
    return np.asarray(dirs, np.float32), np.asarray(bits, np.uint8)


def _weights(X: np.ndarray) -> np.ndarray:
    """Each channel's weight for pixels X (m x 3, log transmission), as the colour match weighs
    them: a channel a filter all but shuts (exp(X) under 0.3) says less about the colour."""
    return np.clip(np.exp(X) / 0.3, 0.2, 1.0).astype(np.float32)


def _ray_fit(X: np.ndarray, d: np.ndarray, s_lo: float, s_hi: float) -> tuple[np.ndarray, np.ndarray]:
    """(weighted RMS residual, as the colour match weighs channels; gain c) of pixels X (m x 3) on
    the ray {c d + s}, c in [RAY_GAIN_LO, RAY_GAIN_HI], s in [s_lo, s_hi]."""
    w = _weights(X)
    ws = w.sum(1)
    wd, wdd = (w * d).sum(1), (w * d * d).sum(1)
    wx, wdx = (w * X).sum(1), (w * d * X).sum(1)
    det = np.maximum(wdd * ws - wd * wd, 1e-9)
    c = np.clip((wdx * ws - wd * wx) / det, RAY_GAIN_LO, RAY_GAIN_HI)
    s = np.clip((wx - c * wd) / ws, s_lo, s_hi)
    r = X - c[:, None] * d[None] - s[:, None]
    return np.sqrt((w * r * r).sum(1) * 3.0 / ws), c


def _one_sheet_gain(L: np.ndarray, one_of: np.ndarray, d: np.ndarray, s_lo: float, s_hi: float) -> float | None:
    """This photo's gain of one sheet of the expedition on ray ``d``: the median c of the pixels
    the match reads plainly as it (``one_of``), sampled every SAMPLE_STEP; None if too few."""
    X = L[::SAMPLE_STEP, ::SAMPLE_STEP][one_of[::SAMPLE_STEP, ::SAMPLE_STEP]].astype(np.float32)
    if len(X) < MIN_SAMPLES:
        return None
    return float(np.median(_ray_fit(X, d, s_lo, s_hi)[1]))


def on_own_ray(L: np.ndarray, code: np.ndarray, where: np.ndarray, colours: dict, expeditions,
               s_lo: float, s_hi: float) -> np.ndarray:
    """Of ``where`` (bool), the pixels whose code names one expedition and whose log-transmission
    ``L`` (h x w x 3) that expedition's ray explains best of all rays, within RESIDUAL_MAX (and,
    with RAY_ONE_SHEET, at a gain under RAY_STACK_RATIO times this photo's gain of one sheet)."""
    out = np.zeros(where.shape, bool)
    bits = code & np.uint8(15)
    one = (bits != 0) & ((bits & (bits - np.uint8(1))) == 0)
    ys, xs = nonzero_yx(where & one)
    if not len(ys):
        return out
    X = L[ys, xs].astype(np.float32)
    dirs, ray_bits = _rays(colours, expeditions)
    fits = [_ray_fit(X, d, s_lo, s_hi) for d in dirs]
    res = np.stack([f[0] for f in fits], 1)
    best = res.argmin(1)
    ok = (ray_bits[best] == bits[ys, xs]) & (res[np.arange(len(best)), best] <= RESIDUAL_MAX)
    if RAY_ONE_SHEET:  # not past this photo's stretch of one sheet towards two (see RAY_STACK_RATIO)
        for i in range(len(expeditions)):
            mine = ok & (best == i)
            if not mine.any():
                continue
            c1 = _one_sheet_gain(L, one & ~where & (bits == (1 << i)), dirs[i], s_lo, s_hi)
            ok[mine] = False if c1 is None else fits[i][1][mine] <= RAY_STACK_RATIO * c1
    out[ys[ok], xs[ok]] = True
    return out


# --- the photo's own hue of an expedition (coverage.HUE_SEEN_BY_FITTER) ---------------------------
# A phone white-balances in linear light, *before* its tone curve and saturation boost: the channel
# it lifts or lowers then goes through the curve at another level than the paper did, so dividing
# the paper's light out no longer brings a sheet back onto its ray -- its channels move apart (a
# red sheet's green and blue, equal as printed, 0.5 log apart through the first phone).  Every
# sheet of one expedition is moved alike (one map per photo), so the pixels the match names that
# expedition but calls misfit gather round one colour of their own: this photo's colour of the
# expedition.  Pixels near it are the sheet as this photo shows it.
# Fewer misfit pixels of one expedition than half the smallest sheet (a cage, 122 mm^2): no colour
# of the photo's own is measured (one whole cage is enough to say where the photo puts it).
HUE_MIN_MM2 = 61.0
# The photo's colour must stay nearer its expedition's ray than any other ray, single or paired
# (a look-alike overlap -- yellow over blue reads green -- stays with the pair), and within twice
# the match's own tolerance of it: a phone moves a colour, it does not make a new one.
HUE_SHIFT_MAX = 2 * RESIDUAL_MAX


def _weighted_rms(r: np.ndarray, X: np.ndarray) -> np.ndarray:
    """RMS of residuals r (m x 3), weighted per channel as the colour match weighs them (by X)."""
    w = _weights(X)
    return np.sqrt((w * r * r).sum(1) * 3.0 / w.sum(1))


def photo_hue(L: np.ndarray, code: np.ndarray, where: np.ndarray, colours: dict, expeditions,
              s_lo: float, s_hi: float, ppm: float) -> np.ndarray:
    """Of ``where`` (bool: misfit pixels), those whose code names one expedition and whose colour
    lies within RESIDUAL_MAX (a grey term aside) of the median colour of all such pixels of that
    expedition -- when that median is nearer the expedition's ray than any other ray, within
    HUE_SHIFT_MAX of it, and not past one sheet (with RAY_ONE_SHEET, as ``on_own_ray``)."""
    out = np.zeros(where.shape, bool)
    bits = code & np.uint8(15)
    dirs, ray_bits = _rays(colours, expeditions)
    min_px = HUE_MIN_MM2 * ppm * ppm
    for i in range(len(expeditions)):
        pool = where & (bits == (1 << i))
        ys, xs = nonzero_yx(pool)
        if len(ys) < min_px:
            continue
        X = L[ys, xs].astype(np.float32)
        m = np.median(X[::SAMPLE_STEP], 0)[None].astype(np.float32)
        fits = [_ray_fit(m, d, s_lo, s_hi) for d in dirs]
        res = np.array([f[0][0] for f in fits])
        if ray_bits[int(res.argmin())] != (1 << i) or res[i] > HUE_SHIFT_MAX:
            continue
        if RAY_ONE_SHEET:
            one = (bits == (1 << i)) & ((code & np.uint8(MISFIT)) == 0)
            c1 = _one_sheet_gain(L, one, dirs[i], s_lo, s_hi)
            if c1 is not None and fits[i][1][0] > RAY_STACK_RATIO * c1:
                continue
        d = X - m
        s = np.clip(d.mean(1, keepdims=True), s_lo, s_hi)
        ok = _weighted_rms(d - s, X) <= RESIDUAL_MAX
        out[ys[ok], xs[ok]] = True
    return out
