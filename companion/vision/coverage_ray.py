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

import cv2

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


# --- a film's dim channels darker under a light with narrow peaks (coverage.DIM_DARKER_SEEN_BY_FITTER) ---
# A film is a transmission curve, a camera channel a band: the channel reads the film's
# transmission averaged over the band, weighted by the light's power there.  Where the film passes
# the whole band (its bright channels) the average is ~1 whatever the light; where it stops most of
# the band or lies on its slope (its dim channels) the average depends on where inside the band the
# light's power sits.  A light whose power comes in narrow peaks (a fluorescent tube's lines, a
# white LED's blue spike and phosphor hump) reads those channels at the film's transmission at the
# peak, mostly far darker than the broad average (the mean of a curve is above its values where it
# is low): on the second generator's development photos a blue film's green at -1.6 .. -5.2 (the
# profile's -0.75), a yellow film's blue at -3.1 .. -5.2 (-1.45), a green film's red at -1.8 .. -3.1
# (-1.04), while their bright channels stay within ~0.2 of the profile's.  Such a film fits no
# candidate (misfit) or has two channels under coverage.DIM_LOG (dim) and the fitter sees none of
# it; nor does photo_hue free it when its colour is off its own ray by more than HUE_SHIFT_MAX or
# past one sheet's gain (the dim channel, not a stack, makes the gain).  So on a photo whose light
# moves films (coverage_between.light_doubted) the photo's own colour of an expedition (the median
# of the misfit and dim pixels the match names it alone, nearer its ray than any other ray) is
# taken when its bright channels (the profile's above BRIGHT_LOG) agree with the profile's within
# BRIGHT_TOL, a grey shift aside, and its dim channels are no lighter than the profile's by more
# than DIM_LIGHTER_TOL: then the pixels near it (within RESIDUAL_MAX, a grey term aside) are seen
# by the fitter.  Every other film darkens a blue film's blue, a yellow film's red or green, a green
# film's green, so an overlap of two expeditions does not pass for one this way -- except a red
# film under another (a red film's only bright channel is red, which a yellow film passes): those
# pixels are named the pair by the match and do not enter the pool.
BRIGHT_LOG = -0.6
BRIGHT_TOL = 0.25
DIM_LIGHTER_TOL = 0.15
SHIFT_RANGE = (-0.6, 0.15)  # the grey shift allowed (colour_adapt.GREY_RANGE's fair light, to a little glare)
# A film's bright channel sinks under a peaky light too, a little: a fluorescent tube puts the blue
# channel's power in a spike (~440 nm in the second generator), not where a blue film passes most, so
# the blue film's blue reads 0.2-0.4 below the profile's while its red stays on the profile's
# -1.1 .. -1.2 and its green sinks to -3 .. -4.6 (second generator, development 16, 116, 154, 158:
# fluorescent).  With one bright channel the grey shift fitted to it takes that loss
# for shade and the red channel, compared with the profile's red *plus the shift*, reads 0.2-0.35
# lighter: the film is refused.  Shade darkens every channel alike and a film's sinking channel only
# takes light away, so on the darker side the dim channels are compared with the profile's own
# (unshaded) level: a pixel in shade only passes more easily (a film and paper blend, lighter in its
# dim channels than the profile by more than DIM_LIGHTER_TOL, still fails; only on the fitter's view).
DIM_AGAINST_UNSHADED = True
# A sunk film fits no candidate, and the match's least-bad explanation of it often names another film
# with it: a blue film at green -3 .. -4.6 comes out "American and British" on half its pixels
# (development 16, 116, fluorescent), so the pool of pixels named it alone is a speckle of a quarter
# of each sheet, which the fitter's masks drop.  Once the photo's own colour of the film (the median of
# that pool) passes the test, its misfit and dim pixels named it *with* another expedition are freed
# for the fitter too, as its own alone (the fitter's copy of the names: a pixel left named both shows
# the other film's sheet to the fitter too -- development 116: a British underwater camera fitted on
# a blue one), when each passes the same test for it and the other film is one that darkens a bright
# channel of it beyond the grey shift and BRIGHT_TOL (``_overlaps_fail``): an overlap with it cannot
# pass.  Not a yellow film with a red or a green one (it passes their only bright channel; development
# 2: a red film's pixels named red and yellow, freed, showed the fitter a Japanese sonar too).
SUNK_NAMED_WITH_OTHERS = True
# ... and the red film's pixels the match named "red and yellow" (development 2, fluorescent: three
# British sheets, green at -2.3 .. -2.5 and blue at -3.5 against the profile's -1.22 and -1.29, named
# British and Japanese on 0.4-0.7 of their pixels, dim, unseen to every fitter; no yellow film on the
# photo).  The red film's only bright channel is red, which the yellow film passes: a red film whose
# dim channels sank and the two films' overlap are one colour, and no test on the pixel tells them
# apart -- but in both readings the red film lies there.  So, once the photo's own red film passes the
# test above (its pool of pixels named it alone), such a pixel that passes ``_dim_darker`` for the red
# film is shown to the red fitter as red, and to the yellow fitter as unseen (neither its colour nor
# paper: the yellow film under it can be neither affirmed nor denied) -- session 39 freed these pixels
# named both, and the yellow fitter fitted a Japanese sonar on them.  A yellow film alone does not
# pass: the red film's dim test puts its green at -1.07 or below (the profile's -1.22 plus
# DIM_LIGHTER_TOL), 0.9 under the yellow film's -0.17, and a light moves the yellow film's green by
# 0.3-0.6 (session 39).  Only the red film: the green film's one bright channel is passed by the yellow
# film too, but yellow over blue reads green (a look-alike), a third reading without the green film.
# The fitter's view only; coverage's names and decisions are unchanged.  OFF since session 41's held-out
# read: on the second generator's held-out photos it moved no count, and on the first renderer's through
# the first phone it named one sheet a wrong type (69282, with a typed extra) and left two right sheets
# unidentified (69537); its tests switch it on (docs/board-vision.md, thirty-fourth round).
RED_UNDER_YELLOW_FOR_RED = False
RED_FILM, PASSES_RED = "british", "japanese"  # the red film, and the film that passes its bright channel
# ... but not where the yellow film shows itself beside the pair's pixels: two films' overlap has each
# film alone somewhere round it (unless one lies wholly within the other), so a patch of "red and
# yellow" touching the yellow film alone (within YELLOW_NEAR_MM, that colour opened by YELLOW_OPEN_MM
# to drop the speckle of blends at film edges) may be their overlap, and what the yellow fitter made
# of it before is kept (the first renderer's development 523 through the first phone: freed there, a
# Japanese eye witness and a British surface camera went from named to unidentified)
YELLOW_NEAR_MM = 2.0
YELLOW_OPEN_MM = 1.0


def _dim_darker(m: np.ndarray, a: np.ndarray, bright: np.ndarray | None = None) -> np.ndarray:
    """Whether each colour of ``m`` (n x 3) is the profile's ``a`` (3,) with its dim channels
    darker: its bright channels within BRIGHT_TOL of ``a``'s after the grey shift that fits them
    best (within SHIFT_RANGE), its dim channels no lighter than ``a``'s (plus that shift) by more
    than DIM_LIGHTER_TOL.  A film passing every channel or none has no such test: all False."""
    bright = a > BRIGHT_LOG if bright is None else bright
    if not bright.any() or bright.all():
        return np.zeros(len(m), bool)
    s = np.clip((m[:, bright] - a[bright]).mean(1, keepdims=True), *SHIFT_RANGE)
    r = m - a[None] - s
    # the dim channels against the profile's unshaded (see DIM_AGAINST_UNSHADED)
    rd = m - a[None] - np.maximum(s, 0.0) if DIM_AGAINST_UNSHADED else r
    return np.all(np.abs(r[:, bright]) <= BRIGHT_TOL, 1) & np.all(rd[:, ~bright] <= DIM_LIGHTER_TOL, 1)


def dim_darker_hue(L: np.ndarray, code: np.ndarray, where: np.ndarray, colours: dict, expeditions,
                   ppm: float, plain: np.ndarray | None = None, alone: np.ndarray | None = None,
                   moved: dict | None = None, unseen_to: dict | None = None) -> np.ndarray:
    """Of ``where`` (bool: misfit or dim pixels the fitter cannot see), those whose code names one
    expedition and whose colour is the profile's with its dim channels darker (``_dim_darker``),
    when the median colour of all such pixels of that expedition (HUE_MIN_MM2 of them at least) is
    so too and lies nearer the expedition's ray than any other ray.  ``alone`` (uint8, in place; with
    SUNK_NAMED_WITH_OTHERS): the expedition's bit where a pixel freed was named with another.
    ``moved``: expedition index -> its film's colour as the photo shows it (log, 3), judged in place
    of the profile's (its bright channels still the profile's: coverage_photo_middle.moved_films).
    ``unseen_to`` (a dict, filled; with RED_UNDER_YELLOW_FOR_RED and ``alone``): expedition -> the
    pixels freed for another film that are unseen to its fit (the yellow film's under the red one)."""
    out = np.zeros(where.shape, bool)
    bits = code & np.uint8(15)
    dirs, ray_bits = _rays(colours, expeditions)
    a = np.log(np.clip(np.asarray([colours[e] for e in expeditions], np.float64) / 255.0, 1e-3, 1.0))
    min_px = HUE_MIN_MM2 * ppm * ppm
    a_seen = a.copy()  # each film's colour as judged: the profile's, or the photo's own (``moved``)
    for k, v in (moved or {}).items():
        a_seen[k] = v
    for i in range(len(expeditions)):
        ys, xs = nonzero_yx(where & (bits == (1 << i)))
        if len(ys) < min_px:
            continue
        if (PLAIN_FILM_GUARD and plain is not None
                and _plain_px(L, code, plain, a[i], 1 << i, ppm) >= max(min_px, PLAIN_SHARE * len(ys))):
            continue
        X = L[ys, xs].astype(np.float32)
        m = np.median(X[::SAMPLE_STEP], 0)[None].astype(np.float32)
        # (the ray's own grey range: shade and glare as the colour match allows them)
        res = np.array([_ray_fit(m, d, SHIFT_RANGE[0], SHIFT_RANGE[1])[0][0] for d in dirs])
        bright = a[i] > BRIGHT_LOG
        if ray_bits[int(res.argmin())] != (1 << i) or not _dim_darker(m.astype(np.float64), a_seen[i], bright)[0]:
            continue
        ok = _dim_darker(X.astype(np.float64), a_seen[i], bright)
        out[ys[ok], xs[ok]] = True
        if SUNK_NAMED_WITH_OTHERS:  # ... and its pixels the match named it with another (see there)
            others = np.uint8(sum(1 << k for k in _overlaps_fail(a, i)))
            passing = 0  # the film that passes this one's bright channel (see RED_UNDER_YELLOW_FOR_RED)
            if (RED_UNDER_YELLOW_FOR_RED and alone is not None and unseen_to is not None
                    and expeditions[i] == RED_FILM and PASSES_RED in expeditions):
                passing = 1 << list(expeditions).index(PASSES_RED)
                others = np.uint8(others | passing)
            with_other = ((bits & np.uint8(1 << i)) > 0) & ((bits & others) > 0) & ((bits & ~np.uint8((1 << i) | others)) == 0)
            ys, xs = nonzero_yx(where & with_other)
            if len(ys):
                ok = _dim_darker(L[ys, xs].astype(np.float64), a_seen[i], bright)
                out[ys[ok], xs[ok]] = True
                if alone is not None:
                    alone[ys[ok], xs[ok]] = np.uint8(1 << i)
                if passing:  # ... the film under it neither seen nor denied
                    under = (bits[ys, xs] & np.uint8(passing)) > 0
                    if (ok & under).any():  # not beside the yellow film alone (see YELLOW_NEAR_MM)
                        keep = _away_from(where.shape, ys[ok & under], xs[ok & under], bits == passing, ppm)
                        drop = np.flatnonzero(ok & under)[~keep]
                        if len(drop):
                            ok[drop] = False
                            out[ys[drop], xs[drop]] = False
                            if alone is not None:
                                alone[ys[drop], xs[drop]] = 0
                    if (ok & under).any():
                        k = PASSES_RED
                        if k not in unseen_to:
                            unseen_to[k] = np.zeros(where.shape, bool)
                        unseen_to[k][ys[ok & under], xs[ok & under]] = True
    return out


def _away_from(shape, ys, xs, other_alone: np.ndarray, ppm: float) -> np.ndarray:
    """For the pixels (ys, xs): False where their connected patch comes within YELLOW_NEAR_MM of
    ``other_alone`` (bool; opened by YELLOW_OPEN_MM first), True elsewhere."""
    ko = 2 * int(round(YELLOW_OPEN_MM * ppm)) + 1
    seen = cv2.morphologyEx(other_alone.view(np.uint8), cv2.MORPH_OPEN, np.ones((ko, ko), np.uint8))
    if not seen.any():
        return np.ones(len(ys), bool)
    kn = 2 * int(round(YELLOW_NEAR_MM * ppm)) + 1
    near = cv2.dilate(seen, np.ones((kn, kn), np.uint8)) > 0
    cand = np.zeros(shape, np.uint8)
    cand[ys, xs] = 1
    n, lab = cv2.connectedComponents(cand, connectivity=8)
    bad = np.unique(lab[near & (cand > 0)])
    return ~np.isin(lab[ys, xs], bad[bad > 0])


def _overlaps_fail(a: np.ndarray, i: int) -> list[int]:
    """The expeditions whose film over film ``i`` darkens one of its bright channels (the profile's
    above BRIGHT_LOG) beyond what the grey shift and BRIGHT_TOL absorb: an overlap with them fails
    ``_dim_darker`` for ``i``, so a pixel named with them that passes is film ``i`` alone."""
    bright = a[i] > BRIGHT_LOG
    return [k for k in range(len(a)) if k != i and bright.any()
            and a[k][bright].min() < SHIFT_RANGE[0] - BRIGHT_TOL]


# One light, one film per expedition: where the photo shows an expedition's film mostly at the
# profile's colour (pixels named it alone, neither misfit nor dim nor glare, on its ray within
# PLAIN_RESIDUAL at one sheet's gain, PLAIN_EDGE_MM in from their region's edge: HUE_MIN_MM2 of them
# and PLAIN_SHARE of its pool of misfit and dim pixels at least), its dim channels did not sink
# under this light, and its darker pixels are something else -- mostly two of its sheets stacked
# (development 12, daylight: two blue sheets' overlap alone freed, the fitter named it an eye
# witness where an underwater camera lies).  A film mostly sunk shows patches at the profile's
# colour too: its blurred edge (a blend of three parts film and one of paper passes for it) and
# spots a veil of glare lifts (development 43, a yellow film at blue -4.1 .. -4.5: 100 mm^2 of it at
# -1.6 inside its sheets, 2 % of its pool; 48, a blue film at red -4.0: 95 mm^2, 3 %); two blue
# sheets stacked on 12 lie beside 1,500 px (70 % of the pool) of them at the profile's colour.
PLAIN_FILM_GUARD = True
PLAIN_RESIDUAL = 0.15
PLAIN_GAIN = (0.7, RAY_STACK_RATIO)
PLAIN_EDGE_MM = 0.8
PLAIN_SHARE = 0.25


def _plain_px(L: np.ndarray, code: np.ndarray, plain: np.ndarray, a: np.ndarray, bit: int, ppm: float) -> float:
    """How many ``plain`` pixels the code names ``bit`` alone, PLAIN_EDGE_MM in from their region's
    edge, show that film at its profile colour ``a`` (counted every SAMPLE_STEP each way)."""
    sel = plain & ((code & np.uint8(15)) == bit)
    k = 2 * int(round(PLAIN_EDGE_MM * ppm)) + 1
    sel = cv2.erode(sel.view(np.uint8), np.ones((k, k), np.uint8)).view(bool)
    X = L[::SAMPLE_STEP, ::SAMPLE_STEP][sel[::SAMPLE_STEP, ::SAMPLE_STEP]].astype(np.float32)
    if not len(X):
        return 0.0
    res, c = _ray_fit(X, a.astype(np.float32), SHIFT_RANGE[0], SHIFT_RANGE[1])
    ok = (res <= PLAIN_RESIDUAL) & (c >= PLAIN_GAIN[0]) & (c <= PLAIN_GAIN[1])
    return float(np.count_nonzero(ok) * SAMPLE_STEP * SAMPLE_STEP)
