"""Two films seen apart in one photo: each side of the photo's own middle keeps only its own name.

Read without calibration under a light that moves films' colours (coverage_between.light_doubted),
the red and the yellow films both move, and both the same way: under a warm LED whose phosphor
peaks at 590-615 nm the yellow film's green-to-red ratio sinks and the red film's rises, so the red
film lands where the profile puts the yellow one (second generator, development 67 and 178: the
red film at 0.19 of the way from the yellow profile colour to the red one, the yellow film at
-0.28 and -0.48).  The colour match, judging against the profile's colours, then calls the red
film yellow, and the middle band of coverage_between (fixed on the profile's scale) does not reach
it.  The photo itself still shows two films apart: along the same ratio its pixels of the pair
form two clusters with (almost) nothing between them.  The lower cluster is the yellow film as
this light shows it, the upper the red one (the light moves both, it does not swap them), so a
pixel the colour match calls yellow on the red film's side of the photo's own middle, or red on
the yellow film's side, is given to neither (unknown: safe, no evidence).  A photo whose pixels
of the pair show one cluster, or no clear gap, is left as it is.
Calibrated photos (measured colours) are not judged here.
"""

from __future__ import annotations

import cv2
import numpy as np

from .coverage_between import OPEN_MM, SAMPLE_STEP, pair_axes
from .transmission import MISFIT

#: the pairs judged (expedition names): the red and the yellow films, whose colours differ only in
#: the 540-600 nm band where warm LEDs' phosphor and fluorescent tubes' lines sit (the only pair
#: the second generator's development photos showed moved onto each other; docs/board-vision.md,
#: twenty-ninth round, h2)
PAIRS = (("japanese", "british"),)
#: the film whose bit the pair's pixels may carry too when clustered: a yellow film a warm light
#: greens is often explained as yellow over green (development 178's Japanese sonar) -- but only
#: where it passes more than the green film itself does, by ALSO_BRIGHTER (log) in the channel both
#: pass best: under the green film it could not (films only take light away), so such a pixel is
#: one film, not an overlap.  (Set after seeing development 178: the yellow film 0.55 brighter in
#: red than the green film alone; real overlaps and blends of the two on 67, 118, 142: 0.17-0.2.
#: Without it, 142's overlaps of the two (tungsten) made a lower cluster and its yellow films the
#: upper, which was given to neither: 6 right sheets lost.)
ALSO = "independent"
ALSO_BRIGHTER = 0.4
#: the histogram of the pair's pixels along its ratio (in units of the way from one profile colour
#: to the other): bins this wide, over this range
BIN = 0.1
RANGE = (-1.5, 2.0)
#: two clusters at least this far apart (a yellow film's own pixels spread ~0.26 under one light,
#: p10-p90, development photos 0-59; the two films lay 0.47-0.67 apart on 67, 178, 120, 121)
MIN_APART = 0.35  # (four bins: peaks at bin centres 0.4 apart pass)
#: ... each of at least this many sampled pixels (coverage_between.MIN_PIXELS)
MIN_PEAK = 150
#: ... and between them no bin above this share of the smaller cluster's peak (a gap; set after
#: seeing development 178, 67, 120, 131: 0.0-0.14, and 118, 173, where the films' colours run into
#: each other without a gap: 0.5 and more)
GAP_SHARE = 0.25


def _clusters(t: np.ndarray) -> tuple[float, float] | None:
    """The two clusters' peaks (lower, upper) of ``t`` when they lie MIN_APART apart with a gap, else None."""
    edges = np.arange(RANGE[0], RANGE[1] + BIN / 2, BIN)
    h = np.histogram(t, edges)[0].astype(float)
    hs = np.convolve(np.pad(h, 1), [0.25, 0.5, 0.25], "valid")
    centres = (edges[:-1] + edges[1:]) / 2
    peaks = [k for k in range(len(hs)) if hs[k] >= MIN_PEAK / 2 and h[k] >= MIN_PEAK / 4
             and (k == 0 or hs[k] >= hs[k - 1]) and (k == len(hs) - 1 or hs[k] > hs[k + 1])]
    peaks.sort(key=lambda k: -hs[k])
    for a in range(len(peaks)):
        for b in range(a + 1, len(peaks)):
            lo, hi = sorted((peaks[a], peaks[b]))
            if centres[hi] - centres[lo] < MIN_APART:
                continue
            if min(hs[lo], hs[hi]) < MIN_PEAK / 2:
                continue
            if hs[lo + 1:hi].min() <= GAP_SHARE * min(hs[lo], hs[hi]):
                return float(centres[lo]), float(centres[hi])
            return None  # the two largest clusters this far apart run into each other
    return None


def named_across(L: np.ndarray, code: np.ndarray, colours: dict, expeditions, ppm: float) -> np.ndarray | None:
    """The pixels (bool) the colour match names one film of a pair on the other film's side of the
    photo's own middle between them; None when no pair shows two clusters apart."""
    names = code & np.uint8(15)
    st = SAMPLE_STEP
    out = None
    axes = {(i, j): (ref, axis, xi, xj) for i, j, ref, axis, xi, xj in pair_axes(colours, expeditions)}
    for a, b in PAIRS:
        i, j = sorted((expeditions.index(a), expeditions.index(b)))
        if (i, j) not in axes:
            continue
        ref, axis, xi, xj = axes[(i, j)]
        bi, bj = np.uint8(1 << i), np.uint8(1 << j)
        t = (L[..., axis] - L[..., ref] - np.float32(xi)) * np.float32(1.0 / (xj - xi))
        # the pair's pixels: either named (with any other film but the two others of the four, whose
        # own colour moves the ratio; Independent stays: a yellow film the light greens is often
        # explained as yellow over green)
        ba = np.uint8(1 << expeditions.index(ALSO))
        ns, Ls = names[::st, ::st], L[::st, ::st]
        mine = ((ns & (bi | bj)) > 0) & ((ns & ~(bi | bj)) == 0)
        also = ns == ba
        if np.count_nonzero(also) >= MIN_PEAK:  # ... and those named with ALSO but brighter than it alone
            lit = np.float32(np.median(Ls[..., ref][also]) + ALSO_BRIGHTER)
            mine |= ((ns & (bi | bj)) > 0) & ((ns & ~(bi | bj | ba)) == 0) & (Ls[..., ref] > lit)
        found = _clusters(t[::st, ::st][mine])
        if found is None:
            continue
        mid = np.float32((found[0] + found[1]) / 2)
        # i's profile colour is at t = 0, j's at 1: the lower cluster is i's film, the upper j's.
        # (a pixel named both, an overlap's explanation, is left: a real overlap lies beyond the
        # upper cluster, and the pair's naming it is not the error seen)
        across = ((names == bi) & (t > mid)) | ((names == bj) & (t < mid))
        out = across if out is None else out | across
    if out is None:
        return None
    k = int(round(OPEN_MM * ppm)) | 1
    out = cv2.morphologyEx(out.view(np.uint8), cv2.MORPH_OPEN, np.ones((k, k), np.uint8)) > 0
    return out if out.any() else None


def given_to_neither(code: np.ndarray, across: np.ndarray) -> None:
    """``code`` (in place): the ``across`` pixels fit no expedition (MISFIT alone: unknown)."""
    code[across] = MISFIT
