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

from .transmission import MISFIT, packed_bins, table, unpack

MIN_SAMPLES = 150  # sampled pixels (about 1 per 1 mm^2) one sheet alone must show to say where it lies
MAX_SHIFT = 0.25  # log units (RMS over the channels): a larger hue change is not the camera's
GREY_RANGE = (-0.6, 0.12)  # the shade term of pixels trusted: not in deep shade, not glare
SAMPLE_STEP = 3  # every this many pixels each way (1 mm at 3 px/mm): neighbours say nothing new about colour
RIDGE = 0.05  # pull of the identity per matrix entry, against one sheet's squared log error
KEEP_GREY = 10.0  # weight of "grey stays grey" (shade and the paper are not the camera's to colour)


def colour_correction(L: np.ndarray, usable: np.ndarray, colours: dict, expeditions,
                      s_lo: float, s_hi: float) -> np.ndarray | None:
    """The 3x3 map (float32) taking this photo's log-transmissions to the profile's, or None."""
    st = SAMPLE_STEP
    take = usable[::st, ::st]
    Ls = np.ascontiguousarray(L[::st, ::st])
    pb = packed_bins(Ls)[take]
    if len(pb) == 0:
        return None
    Ls = Ls[take]
    key = tuple(tuple(float(v) for v in colours[e]) for e in expeditions)
    tab = table(key, s_lo, s_hi)
    flat = unpack(pb)
    code, grey = tab.lookup(flat)
    best = tab.best[flat]
    a = np.log(np.clip(np.asarray(key, np.float64) / 255.0, 1e-3, 1.0))
    ok = ((code & MISFIT) == 0) & (grey > GREY_RANGE[0]) & (grey < GREY_RANGE[1])
    seen, nominal = [], []
    for i in range(len(expeditions)):
        # the pixels best explained as one whole sheet of expedition i (a sheet boosted so far that
        # it passes for one and a bit, or two, says nothing: the map is then not asked to move it)
        one = np.flatnonzero(np.all(np.abs(tab.vec - a[i].astype(np.float32)) < 1e-4, axis=1))[0]
        sel = ok & (best == one)
        if np.count_nonzero(sel) < MIN_SAMPLES:
            continue
        shift = np.median(Ls[sel] - grey[sel, None] - tab.vec[one], axis=0)
        norm = float(np.sqrt(np.mean(shift ** 2)))
        if norm > MAX_SHIFT:
            shift *= MAX_SHIFT / norm
        seen.append(a[i] + shift)
        nominal.append(a[i])
    if not seen:
        return None
    X, Y = np.asarray(seen), np.asarray(nominal)
    ones = np.ones(3)
    A = X.T @ X + RIDGE * np.eye(3) + KEEP_GREY * np.outer(ones, ones)
    N = np.empty((3, 3))
    for r in range(3):
        N[r] = np.linalg.solve(A, X.T @ Y[:, r] + RIDGE * np.eye(3)[r] + KEEP_GREY * ones)
    return N.astype(np.float32)


def corrected(L: np.ndarray, N: np.ndarray) -> np.ndarray:
    """Every pixel's log-transmission (h x w x 3) through the 3x3 map."""
    return cv2.transform(L, N)
