"""The photo's log-transmissions mapped back to the box profile's colours: a per-photo colour
correction estimated from the sheets actually seen on the board.

A phone's pipeline (its white balance, tone curve, saturation boost) moves every colour of a photo
by a smooth map; the lighting fit removes the white balance, but not the rest: a sheet's
log-transmission then differs from the profile's by a per-photo hue change shared by every sheet of
that expedition.  So the pixels the profile's colours explain as *one* sheet of an expedition, in
good light, are gathered; the median of what the match leaves unexplained (its hue residual: the
grey term takes the brightness) is where this photo puts that sheet.  A 3x3 map of
log-transmissions, as close to the identity as the sheets seen allow and keeping grey grey, takes
those back to the profile's colours; it is applied to every pixel, so overlaps (sums of sheets)
follow, and the colour match keeps its one table.  An expedition with too few pixels says nothing,
and no sheet is moved further than MAX_SHIFT (no expedition can be pulled onto another's colour).
"""

from __future__ import annotations

import cv2
import numpy as np

from .lighting import _every
from .transmission import MISFIT, packed_bins, table, unpack

MIN_SAMPLES = 150  # sampled pixels (about 1 per 1 mm^2) one sheet alone must show to say where it lies
MAX_SHIFT = 0.25  # log units (RMS over the channels): a larger hue change is not the camera's
GREY_RANGE = (-0.6, 0.12)  # the shade term of pixels trusted: not in deep shade, not glare
SAMPLE_STEP = 3  # every this many pixels each way (1 mm at 3 px/mm): neighbours say nothing new about colour
RIDGE = 0.05  # pull of the identity per matrix entry, against one sheet's squared log error
UNSEEN_ANCHOR = 1.0  # weight (a seen sheet's: 1) of "an expedition not on the board stays at the profile's colour"
PRESENT_ANCHOR = 0.25  # ... and of one on the board but never seen alone as one sheet
KEEP_GREY = 10.0  # weight of "grey stays grey" (shade and the paper are not the camera's to colour)


def colour_correction(L: np.ndarray, usable: np.ndarray, colours: dict, expeditions,
                      s_lo: float, s_hi: float) -> np.ndarray | None:
    """The 3x3 map (float32) taking this photo's log-transmissions to the profile's, or None."""
    st = SAMPLE_STEP
    Ls = _samples(L, usable, st)  # (n, 3): only the usable samples are binned
    if len(Ls) == 0:
        return None
    pb = packed_bins(Ls.reshape(-1, 1, 3)).ravel()
    key = tuple(tuple(float(v) for v in colours[e]) for e in expeditions)
    tab = table(key, s_lo, s_hi)
    flat = unpack(pb)
    code, grey = tab.lookup(flat)
    best = tab.best[flat]
    a = np.log(np.clip(np.asarray(key, np.float64) / 255.0, 1e-3, 1.0))
    ok = ((code & MISFIT) == 0) & (grey > GREY_RANGE[0]) & (grey < GREY_RANGE[1])
    seen, nominal, weight, measured = [], [], [], 0
    for i in range(len(expeditions)):
        # the pixels best explained as one whole sheet of expedition i (a sheet boosted so far that
        # it passes for one and a bit, or two, says nothing: the map is then not asked to move it)
        one = np.flatnonzero(np.all(np.abs(tab.vec - a[i].astype(np.float32)) < 1e-4, axis=1))[0]
        sel = ok & (best == one)
        if np.count_nonzero(sel) < MIN_SAMPLES:
            # not measured: the map is asked to leave it where the profile puts it (fitted to the
            # others alone, their print runs' own hues could move it anywhere) -- firmly when it is
            # not on the board, gently when it is (a phone may have moved it too far to pass for
            # one sheet: the others' shifts are then the best guess of its own)
            absent = np.count_nonzero(ok & ((code & (1 << i)) > 0)) < MIN_SAMPLES
            seen.append(a[i])
            nominal.append(a[i])
            weight.append(UNSEEN_ANCHOR if absent else PRESENT_ANCHOR)
            continue
        shift = np.median(Ls[sel] - grey[sel, None] - tab.vec[one], axis=0)
        norm = float(np.sqrt(np.mean(shift ** 2)))
        if norm > MAX_SHIFT:
            shift *= MAX_SHIFT / norm
        seen.append(a[i] + shift)
        nominal.append(a[i])
        weight.append(1.0)
        measured += 1
    if not measured:
        return None
    X, Y, W = np.asarray(seen), np.asarray(nominal), np.asarray(weight)[:, None]
    ones = np.ones(3)
    A = X.T @ (W * X) + RIDGE * np.eye(3) + KEEP_GREY * np.outer(ones, ones)
    N = np.empty((3, 3))
    for r in range(3):
        N[r] = np.linalg.solve(A, X.T @ (W[:, 0] * Y[:, r]) + RIDGE * np.eye(3)[r] + KEEP_GREY * ones)
    return N.astype(np.float32)


def corrected(L: np.ndarray, N: np.ndarray) -> np.ndarray:
    """Every pixel's log-transmission (h x w x 3) through the 3x3 map."""
    return cv2.transform(L, N)


# A phone's tone curve scales log-contrast: a gamma of 1/g multiplies every log-transmission by
# 1/g, and local tone mapping that lifts shadows (log(1 + a x)) does the same near the paper's
# white by up to half (a = 6: 0.46-0.64 from light to dark sheets).  Sheets then look too pale:
# no profile colour fits them, and the 3x3 map (keeping grey grey) cannot stretch them back.
GAINS = np.round(np.arange(0.6, 2.2001, 0.1), 2)  # the log-contrast gains tried, then 0.05 either side of the best
PROBE_GAINS = (0.6, 0.8, 1.0, 1.3, 1.6, 1.9)  # tried first: none better than 1 by half the margin, no gain
GAIN_MARGIN = 0.045  # a gain must explain the coloured pixels this much better than none
# (mean cost: residual, in the photo's log units, plus the colour match's per-sheet penalty).  Our
# renders' best gains (1.0-1.2: print runs of sheet colour) beat 1 by at most 0.038 (broad seeds
# 6000-6047), the shadow-lifting second phone's (1.2-1.95) by 0.048-0.11 (seeds 37000-37031); at
# a margin of 0.025 the renders' small gains cost errors (phone seeds 33000-33047: 53 -> 59).
# A phone's S-curve and gamma can also stretch log-contrast (the first phone of tests/phone_pipeline:
# a single red sheet's green and blue read -2.2 and -2.6 against the profile's -1.2 and -1.3 on
# development seed 510): sheets then read as two of their kind, and their dim channels sink under
# coverage.DIM_LOG, so whole sheets go unseen.  With CONTRAST_STRETCH gains under 1 are tried down
# to 0.6 (0.55 at the finest; off: from 0.8, 0.75 at the finest, as before), with the same margin:
# our renders never want one (development 500-579 and broadened 600-639 as rendered: the best gain
# under 1 beats 1 by at most 0.020), the first phone's photos of the same scenes often do (by 0.01
# or more on half of them).  A margin of 0.025 under 1 named 13 more of their 1,145 sheets right
# but 3 more wrong, and raised coverage errors 16 -> 20: docs/board-vision.md, thirteenth round.
CONTRAST_STRETCH = True
GAIN_SPREAD = 0.12  # pixels whose channels differ by this much (log) show a sheet's hue
GAIN_MAX_SAMPLES = 3000  # spread evenly over the coloured pixels: the mean's noise is then ~0.002


def tone_gain(L: np.ndarray, usable: np.ndarray, colours: dict, expeditions, s_lo: float, s_hi: float) -> float:
    """The gain g (1.0 when none is clearly better) by which this photo's log-transmissions must be
    multiplied to match the profile's sheets.

    Every tried gain is scored by how well the colour match explains the coloured pixels: the
    residual of the best explanation, measured in the photo's own log units (divided by g, else
    any gain above 1 would look better for shrinking the quantisation and noise alike), plus the
    match's penalty per sheet.  The penalty is what keeps a true photo at 1: doubled, every sheet
    would pass for two sheets of its expedition just as well, but at a cost.
    """
    Ls, keep = hue_samples(L, usable)
    Ls = Ls[keep]
    if len(Ls) < 4 * MIN_SAMPLES:
        return 1.0
    Ls = np.ascontiguousarray(Ls[::max(1, len(Ls) // GAIN_MAX_SAMPLES)]).reshape(-1, 1, 3)
    key = tuple(tuple(float(v) for v in colours[e]) for e in expeditions)
    tab = table(key, s_lo, s_hi)
    # most photos need no gain: a few gains spread over the range show it (the cost falls over a
    # broad valley towards the right gain), before the whole grid is scored
    lowest = 0.6 if CONTRAST_STRETCH else 0.8
    probes = np.array([g for g in PROBE_GAINS if g >= lowest])
    costs = dict(zip(probes.tolist(), _gain_costs(Ls, probes, tab, s_lo, s_hi)))
    if min(costs.values()) > costs[1.0] - GAIN_MARGIN / 2:
        return 1.0
    rest = np.array([g for g in GAINS.tolist() if g not in costs and g >= lowest])
    costs.update(zip(rest.tolist(), _gain_costs(Ls, rest, tab, s_lo, s_hi)))
    best = min(costs, key=costs.get)
    fine = np.array([best - 0.05, best + 0.05])
    costs.update(zip(fine.tolist(), _gain_costs(Ls, fine, tab, s_lo, s_hi)))
    best = min(costs, key=costs.get)
    return round(float(best), 2) if costs[1.0] - costs[best] > GAIN_MARGIN else 1.0


def _gain_costs(Ls: np.ndarray, gains: np.ndarray, tab, s_lo: float, s_hi: float, unit: float = 1.0) -> np.ndarray:
    """The mean cost of explaining the pixels ``Ls`` (n x 1 x 3) times each of ``gains`` (see
    tone_gain), all gains in one pass (small arrays: numpy's per-call overhead dominates).  ``unit``:
    how much the residual is scaled back to the photo's own units by a step taken before the gain
    (undoing a saturation boost of k shrinks every hue by about 1 / k: see saturation_boost)."""
    n = len(Ls)
    g = np.repeat(np.asarray(gains, np.float32), n)
    X = (Ls[None, :, 0, :] * np.asarray(gains, np.float32)[:, None, None]).reshape(-1, 1, 3)
    d, w, ws, best = match_residuals(X, tab, s_lo, s_hi)
    raw = np.sqrt(((w * d * d) @ _ONES) * 3 / ws)
    per = np.minimum(raw * (unit / g), 0.3) + tab.pen[best]
    return per.reshape(len(gains), n).mean(1)


_ONES = np.ones(3, np.float32)  # sums over the 3 channels as products: numpy's sum(1) is slow


def match_residuals(X: np.ndarray, tab, s_lo: float, s_hi: float):
    """What the colour match leaves unexplained of the pixels ``X`` (m x 1 x 3 log-transmissions):
    the residual ``d`` (m x 3, its grey shift taken out), the channel weights ``w`` and their sums
    ``ws``, and the best explanation's index ``best`` -- the common part of the gain estimates'
    costs (tone_gain's, channel_gain's)."""
    flat = unpack(packed_bins(X).ravel())
    tab.lookup(flat)  # fills in the bins not seen before
    best = tab.best[flat]
    X = X[:, 0]
    d = X - tab.vec[best]
    w = np.clip(np.exp(X) * np.float32(1 / 0.3), 0.2, 1.0)  # as the colour match weighs the channels
    ws = w @ _ONES
    sh = np.clip(((d * w) @ _ONES) / ws, s_lo, s_hi)
    d -= sh[:, None]
    return d, w, ws, best


def hue_samples(L: np.ndarray, usable: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The log-transmissions of ``usable`` sampled every SAMPLE_STEP pixels (n x 3), and which of
    them show a sheet's hue: channels GAIN_SPREAD apart, no glare, not lost in the dark.  The
    samples the gain and boost estimates are scored on."""
    Ls = _samples(L, usable, SAMPLE_STEP)
    # numpy's max over a last axis of 3 is slow: channel by channel
    hi = np.maximum(np.maximum(Ls[:, 0], Ls[:, 1]), Ls[:, 2])
    lo = np.minimum(np.minimum(Ls[:, 0], Ls[:, 1]), Ls[:, 2])
    return Ls, (hi - lo > GAIN_SPREAD) & (hi < 0.15) & (lo > -3.5)


def _samples(L: np.ndarray, usable: np.ndarray, st: int) -> np.ndarray:
    """``L[::st, ::st][usable[::st, ::st]]`` (n x 3): the same pixels at a quarter of the cost of
    boolean indexing a strided view."""
    return np.compress(usable[::st, ::st].ravel(), _every(L, st).reshape(-1, L.shape[2]), axis=0)


# A phone's saturation boost works on values: v -> m + k (v - m), m the pixel's mean over its
# channels.  It is a linear map of the three values, so the warp, sharpening and the lighting's
# division keep it, and it is undone by the inverse map (coverage.unboost_matrix).  In log terms it
# sinks a sheet's dim channels (a yellow sheet's blue, a red one's) past what the profile's colours
# explain and two sheets' overlaps further still: the colour map (a 3x3 map of logs, MAX_SHIFT)
# cannot follow it, and such sheets read as a sheet and part of another, or as unknown.
BOOSTS = (1.1, 1.15, 1.2, 1.25, 1.3, 1.35, 1.4)  # the boosts tried (the first phone draws 1.0-1.35)
PROBE_BOOST = 1.2  # tried first: not better than none by half the margin, no boost (most photos)
BOOST_MARGIN = 0.025  # a boost must explain the coloured pixels this much better than none (mean
# cost, as GAIN_MARGIN's).  Renders, broad seeds 6000-6047: at most 0.010 (best boost 1.1); the
# second phone (no boost), 43000-43047: at most 0.0205 (43038, 1.25), all others under 0.003; the
# first phone (true k 1.03-1.35), 34000-34023: 0-0.074, 11 of 24 over 0.025
BOOST_SHRINK = 0.75  # share of the best boost's excess over 1 undone: the scores overshoot (on the
# first phone's 34000-34023 the 11 boosts found were 1.25-1.4 for true 1.05-1.35; least squares
# of true on found excess: 0.73), and a boost undone too far pales sheets' edges into paper


def unboosted(v: np.ndarray, k: float) -> np.ndarray:
    """Values (n x 3, float) with a saturation boost of ``k`` about each pixel's mean undone."""
    m = (v[:, 0] + v[:, 1] + v[:, 2]) * np.float32(1.0 / 3.0)
    return m[:, None] + (v - m[:, None]) * np.float32(1.0 / k)


def saturation_boost(warped: np.ndarray, L: np.ndarray, usable: np.ndarray, colours: dict, expeditions,
                     s_lo: float, s_hi: float, gain: float = 1.0) -> float:
    """The saturation boost k (1.0 when none is clearly better) this photo's camera applied.

    ``warped``: the photo on the board plane (uint8, RGB); ``L``: its log-transmission, the light
    divided out (before the tone ``gain``, which the scores apply).  Scored like tone_gain, on the
    same coloured samples: each boost tried is undone on their values and on the paper's under
    them (the photo's paper there is the pixel over its transmission), the colour match's mean cost
    compared; the residual counted in the photo's own units (times k: undoing a boost shrinks every
    hue, noise and quantisation alike, by about 1 / k).  The tone gain scales hue too, so the two
    trade off when scored together (our renders then found boosts up to 1.5): the gain is measured
    first, without a boost, and held."""
    st = SAMPLE_STEP
    Ls, keep = hue_samples(L, usable)
    n = np.count_nonzero(keep)
    if n < 4 * MIN_SAMPLES:
        return 1.0
    pick = np.flatnonzero(keep)[::max(1, n // GAIN_MAX_SAMPLES)]
    p = np.maximum(_samples(warped, usable, st)[pick].astype(np.float32), 0.5)
    paper = p * np.exp(-Ls[pick])
    key = tuple(tuple(float(v) for v in colours[e]) for e in expeditions)
    tab = table(key, s_lo, s_hi)

    def cost(k: float) -> float:
        Lk = np.log(np.maximum(unboosted(p, k), 0.5)) - np.log(np.maximum(unboosted(paper, k), 0.5))
        return float(_gain_costs(Lk.astype(np.float32).reshape(-1, 1, 3), np.array([gain]), tab, s_lo, s_hi, k)[0])

    costs = {1.0: cost(1.0), PROBE_BOOST: cost(PROBE_BOOST)}
    if costs[PROBE_BOOST] > costs[1.0] - BOOST_MARGIN / 2:
        return 1.0
    costs.update((k, cost(k)) for k in BOOSTS if k not in costs)
    best = min(costs, key=costs.get)
    return round(1.0 + BOOST_SHRINK * (best - 1.0), 3) if costs[1.0] - costs[best] > BOOST_MARGIN else 1.0
