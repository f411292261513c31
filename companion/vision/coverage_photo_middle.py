"""The middle band between the yellow and the red films, read on the photo's own two films.

Read without calibration under a light that moves films' colours (coverage_between.light_doubted),
coverage_between gives to neither the pixels whose colour lies in the middle between two
expeditions' colours, on the profile's scale: from one profile colour (0) to the other (1) along
the ratio of the channel the two differ in most to the channel both pass best (for the yellow and
the red films: green to red), BAND 0.3-0.8 of the way.  A light can move a whole film into that
band: the yellow film's edge (~500 nm) lies between the camera's blue and green bands, so how much
of the green channel it stops depends on where the light's power and the camera's own green curve
(broader than the profile's ideal one) sit there, which a white balance and a colour matrix do not
undo.  Under a fluorescent tube (spikes at ~440, 540, 580, 620 nm in the second generator) and
through some cameras under daylight its green reads 0.3-0.6 darker than the profile's while its red
stays, so the yellow film lands 0.3-0.6 of the way to the red one (second generator, development
146, 123, 152, 22, 96: every yellow sheet of the photo there), while the red film, whose edge lies
at the green band's long end, stays on the profile's colour.  The middle band then takes the whole yellow film: every such sheet
is unknown to coverage and unseen by the fitter, so it is missed.

The photo itself still shows the two films apart: along the same ratio the pixels of the pair form
two clusters with (almost) nothing between them.  When the upper cluster lies where the profile
puts the red film (within AT_PROFILE of 1) and the lower one inside the band, the lower cluster is
the yellow film as this light shows it (one light, one film per expedition; a light moves a film,
it does not swap two).  With ``PHOTO_MIDDLE`` on, a pixel of the pair is then given to neither only
when it lies in the band on the profile's scale *and* above the lower part of the band on the
photo's own (BAND[0] of the way from the photo's lower cluster to its upper one): the yellow film and
what lies below it keep the colour match's name.  Under a warm LED it is the red film that moves
down into the band (coverage_two_films, coverage_red_film); its upper cluster is then no longer at
the red film's profile place, and nothing changes (development 35: clusters at 0.75 and 1.35; read
on the photo's scale both ways, 21 hexes were called yellow on a red film).  A photo whose pair shows
one cluster, or no valley between two, is judged on the profile's scale alone, as before.
Calibrated photos (measured colours) are not judged here.
"""

from __future__ import annotations

import numpy as np

#: the rule's switch (read by coverage_between.between_colours)
PHOTO_MIDDLE = True
#: ... and the fitter's: the moved film's pixels the colour match could not explain (misfit: its
#: dim channels sank as well) are judged by coverage_ray.dim_darker_hue against the film's colour as
#: this photo shows it (the profile's, its ratio moved to the photo's lower cluster) -- read by coverage.py
MOVED_FILM_SEEN_BY_FITTER = True
#: two clusters (peaks of the pair's histogram along its ratio, coverage_two_films' bins and range)
#: at least MIN_APART apart (coverage_two_films.MIN_APART), each of MIN_PEAK sampled pixels at least,
#: with a valley between them: some bin at most VALLEY_SHARE of the smaller peak.  The valley is
#: read on the raw histogram, not the smoothed one coverage_two_films judges: a film moved into the
#: band lies closer to the other one (146: peaks 0.4 apart, one bin of 76 between peaks of 738 and
#: 847, which the smoothing fills to 0.4 of them).
VALLEY_SHARE = 0.25
#: the upper cluster lies where the profile puts the upper film (1) within this (bins' centres; the
#: red film's own pixels spread ~0.15 about their median under one light): only then is the lower
#: cluster, inside the band, the lower film moved into it
AT_PROFILE = 0.2


def _photo_band(L: np.ndarray, code: np.ndarray, colours: dict, expeditions, pair_axis) -> tuple | None:
    """The photo's own two clusters (lower, upper) of the pair (i, j) along its ratio, in the
    profile's units (coverage_two_films' selection of the pair's pixels), or None."""
    from .coverage_between import SAMPLE_STEP
    from .coverage_two_films import ALSO, ALSO_BRIGHTER, MIN_PEAK
    i, j, ref, axis, xi, xj = pair_axis
    names = code & np.uint8(15)
    st = SAMPLE_STEP
    bi, bj = np.uint8(1 << i), np.uint8(1 << j)
    ns, Ls = names[::st, ::st], L[::st, ::st]
    t = (Ls[..., axis] - Ls[..., ref] - np.float32(xi)) * np.float32(1.0 / (xj - xi))
    mine = ((ns & (bi | bj)) > 0) & ((ns & ~(bi | bj)) == 0)
    if ALSO in expeditions:
        ba = np.uint8(1 << expeditions.index(ALSO))
        also = ns == ba
        if np.count_nonzero(also) >= MIN_PEAK:
            lit = np.float32(np.median(Ls[..., ref][also]) + ALSO_BRIGHTER)
            mine |= ((ns & (bi | bj)) > 0) & ((ns & ~(bi | bj | ba)) == 0) & (Ls[..., ref] > lit)
    return _two_clusters(t[mine])


def _two_clusters(t: np.ndarray) -> tuple[float, float] | None:
    """The two largest clusters' peaks (lower, upper) of ``t`` when they lie MIN_APART apart with
    a valley between them (a raw bin at most VALLEY_SHARE of the smaller peak), else None."""
    from .coverage_two_films import BIN, MIN_APART, MIN_PEAK, RANGE
    edges = np.arange(RANGE[0], RANGE[1] + BIN / 2, BIN)
    h = np.histogram(t, edges)[0].astype(float)
    hs = np.convolve(np.pad(h, 1), [0.25, 0.5, 0.25], "valid")
    centres = (edges[:-1] + edges[1:]) / 2
    peaks = [k for k in range(len(hs)) if h[k] >= MIN_PEAK / 2
             and (k == 0 or hs[k] >= hs[k - 1]) and (k == len(hs) - 1 or hs[k] > hs[k + 1])]
    peaks.sort(key=lambda k: -hs[k])
    for a in range(len(peaks)):
        for b in range(a + 1, len(peaks)):
            lo, hi = sorted((peaks[a], peaks[b]))
            if centres[hi] - centres[lo] < MIN_APART:
                continue
            if h[lo + 1:hi].min() <= VALLEY_SHARE * min(h[lo], h[hi]):
                return float(centres[lo]), float(centres[hi])
            return None  # the two largest clusters this far apart run into each other
    return None


def outside_photo_band(L: np.ndarray, code: np.ndarray, colours: dict, expeditions, pair_axis,
                       t: np.ndarray, band: tuple) -> np.ndarray | None:
    """For one pair (``pair_axis``: coverage_between.pair_axes' row) whose films the photo shows
    apart (coverage_two_films.PAIRS only): the pixels whose ratio ``t`` (profile units) lies outside
    ``band`` on the photo's own scale (lower cluster 0, upper 1); None when the pair is not judged
    or the photo shows no two clusters."""
    from .coverage_two_films import PAIRS
    i, j = pair_axis[0], pair_axis[1]
    judged = {tuple(sorted((expeditions.index(a), expeditions.index(b))))
              for a, b in PAIRS if a in expeditions and b in expeditions}
    if (i, j) not in judged:
        return None
    found = _photo_band(L, code, colours, expeditions, pair_axis)
    if found is None:
        return None
    lo, hi = found
    # only a film moved into the band beside the other film where the profile puts it: which of the
    # two moved is then plain (under a warm LED the red film moves down into the band, and the pair's
    # clusters there -- the orange red film and overlaps beyond it, development 35: 0.75 and 1.35 --
    # say nothing of the yellow film)
    if not (band[0] < lo < band[1] and abs(hi - 1.0) <= AT_PROFILE):
        return None
    tp = (t - np.float32(lo)) * np.float32(1.0 / (hi - lo))
    return tp <= band[0]


def moved_films(L: np.ndarray, code: np.ndarray, colours: dict, expeditions, band: tuple) -> dict:
    """Expedition index -> its film's colour (log, 3) as this photo shows it, for a film the photo
    shows moved into the band beside the other film where the profile puts it (see above): the
    profile's colour with its ``axis`` channel moved so its ratio lies at the photo's lower cluster."""
    from .coverage_between import pair_axes
    from .coverage_two_films import PAIRS
    out = {}
    for pa in pair_axes(colours, expeditions):
        i, j, ref, axis, xi, xj = pa
        if not any({expeditions[i], expeditions[j]} == {a, b} for a, b in PAIRS):
            continue
        found = _photo_band(L, code, colours, expeditions, pa)
        if found is None or not (band[0] < found[0] < band[1] and abs(found[1] - 1.0) <= AT_PROFILE):
            continue
        a = np.log(np.clip(np.asarray(colours[expeditions[i]], np.float64) / 255.0, 1e-3, 1.0))
        a[axis] += found[0] * (xj - xi)
        out[i] = a
    return out
