"""A red film a warm light turned orange, placed by the photo's own yellow film: the fitter sees it, coverage not.

Read without calibration under a light that moves films' colours (coverage_between.light_doubted),
the red film's green-to-red ratio rises: a red film passes red whole and stops green on the slope of
its edge, and a warm LED puts its green-channel power at the band's long end (its phosphor's hump
at 590-615 nm), where the red film's edge passes most.  White balance cannot move it back: it moves
every film's ratio by the same amount (a gain per channel is a shift in log), and the yellow film,
passing red and green whole, shows that amount.  So the photo's own yellow film is where the
profile's yellow would be under this light and white balance; the red film lies up the same ratio
from it by less than the profile's distance (second generator, development 0-159, warm LED: the red
film's own pixels at 0.2-0.9 of the profile's way from the photo's yellow film, mostly 0.35-0.7;
under daylight 0.9-1.2).  coverage_between gives such pixels to neither where they lie in the
profile's middle band (unknown: safe for coverage), and the sheet fitter, seeing nothing of them,
missed the sheet (development 0-159, warm LED: 69 of 85 British sheets missed, 3 more unidentified);
the rest of the film, below the band, stayed named the yellow film (Japanese called covered there).

Here, on a doubted photo: the photo's own yellow film is the median ratio of the pixels the colour
match still names yellow alone (not misfit; MIN_PIXELS samples or more).  The red film's orange is
what the colour match had named the yellow and / or the red film only (before the middle band and
the two-clusters rule took their share), whose red channel the red film passes (RED_BRIGHT_LOG: a
blue or green film's would be far darker; no brighter than the paper, RED_MAX_LOG: a sheen), lying
at RED_T (or more) of the profile's way up from the photo's own yellow film.  Where some of it is
unseen (misfit, or given to neither) a film's width across (coverage_between.OPEN_MM: a blurred edge
blending a film with paper is narrower), that part and the rest of the orange joined to it
(WHOLE_FILM) are the red film's: shown to the fitter as such (coverage.RED_FILM_SEEN_BY_FITTER), and
the part the colour match still names the yellow film, or both, is given to neither for coverage
(coverage.RED_FILM_NEITHER: unknown, as coverage_between's middle band).  An overlap of the yellow
film over the red one lies there too: a red sheet is under it, which is what the fitter is told;
coverage leaves it unknown.
Calibrated photos (measured colours) are not judged here.
"""

from __future__ import annotations

import cv2
import numpy as np

from .coverage_between import MIN_PIXELS, OPEN_MM, SAMPLE_STEP, pair_axes
from .transmission import MISFIT

#: the yellow and the red expedition (profile colours: the pair coverage_between judges on green / red)
YELLOW, RED = "japanese", "british"
#: the least share of the profile's way from yellow to red (along log green / red) above the photo's
#: own yellow film a pixel must lie to be the red film's.  (The yellow film's own pixels spread
#: ~0.26 p10-p90 under one light, i.e. +-0.13 about its median; development warm-LED red films lay
#: 0.11-0.22 on 48 and 106, 0.33-0.9 elsewhere.)
RED_T = 0.25
#: ... and no further than this beyond the profile's red (an overlap with a darker film lies further)
RED_T_MAX = 1.4
#: the red channel a red film passes (log): above this (the profile's red film -0.13; the blue and
#: green films -1.16 and -1.04, so neither alone nor in a blend with the red film reaches it)
RED_BRIGHT_LOG = -0.45
#: ... but, a patch of film (its orange pixels' median), no brighter than the paper by more than
#: this (log): a film passes no more light than the paper beside it reflects; a film brighter than
#: the paper is lifted by a sheen whose colour is the light's, not the film's (development 22,
#: daylight, and 151: yellow films at red +0.1..+0.16, green sunk: a sheen; the red films the rule
#: is for lay at -0.27..+0.02, medians; a pixel's red is noisy, ~0.05)
RED_MAX_LOG = 0.05
#: with the pixels freed, the rest of the film: pixels of the same colour (the same tests) joined
#: to them that the colour match named the yellow film, the red one or both -- seen, so not freed,
#: but named the yellow film for the fitter, which cut the freed parts into cages between them
WHOLE_FILM = True
#: ... joined across gaps this wide (closed): the printed lines between hexes (named nothing: off
#: the flat area, and blurred) cut a film's colour into one patch a hex, and noise breaks those up
#: further (development 80: a British sonar's orange in ~40 patches of ~1,000 px, two of them
#: touching its freed part; 1 mm joined nothing more, 2 mm little, 3 mm the film).  Only the orange
#: pixels of a joined patch are taken, never what lies between them.
JOIN_MM = 3.0


def red_film_for_fitter(L: np.ndarray, code_before: np.ndarray, code: np.ndarray, where: np.ndarray,
                        colours: dict, expeditions, ppm: float) -> np.ndarray | None:
    """The pixels shown to the fitter as the red film's (bool), or None: of ``where`` (what the
    fitter cannot see), those the module's doc describes, and with them (WHOLE_FILM) the pixels of
    the same colour joined to them that the colour match names the pair; None when the photo shows no
    yellow film to place them by, or none is found.  ``code_before``: the colour match's names
    before coverage_between / coverage_two_films; ``code``: after (the yellow film is measured on the
    pixels still named it alone, not misfit)."""
    i, j = expeditions.index(YELLOW), expeditions.index(RED)
    axes = {(a, b): (ref, axis, xa, xb) for a, b, ref, axis, xa, xb in pair_axes(colours, expeditions)}
    key = (min(i, j), max(i, j))
    if key not in axes or not where.any():
        return None
    ref, axis, xa, xb = axes[key]
    x_yellow, x_red = (xa, xb) if i < j else (xb, xa)
    st = SAMPLE_STEP
    cs = code[::st, ::st]
    yellow = cs == np.uint8(1 << i)  # named yellow alone, not misfit
    if np.count_nonzero(yellow) < MIN_PIXELS:
        return None
    Ls = L[::st, ::st]
    x_photo = float(np.median(Ls[..., axis][yellow] - Ls[..., ref][yellow]))
    pair = np.uint8((1 << i) | (1 << j))
    names = code_before & np.uint8(15)
    t = (L[..., axis] - L[..., ref] - np.float32(x_photo)) * np.float32(1.0 / (x_red - x_yellow))
    named = (names != 0) & ((names & ~pair) == 0)
    orange = (named & (L[..., ref] > np.float32(RED_BRIGHT_LOG))
              & (t >= np.float32(RED_T)) & (t <= np.float32(RED_T_MAX)))
    cand = orange & where
    if not cand.any():
        return None
    k = int(round(OPEN_MM * ppm)) | 1
    red = cv2.morphologyEx(cand.view(np.uint8), cv2.MORPH_OPEN, np.ones((k, k), np.uint8)) > 0
    if not red.any():
        return None
    # the film's patches (its pixels pass the tests patchily: noise, and the printed lines between
    # hexes, which carry no colour) joined across JOIN_MM
    kj = int(round(JOIN_MM * ppm)) | 1
    joined = cv2.morphologyEx(orange.view(np.uint8), cv2.MORPH_CLOSE, np.ones((kj, kj), np.uint8))
    n, lab = cv2.connectedComponents(joined, connectivity=8)
    hit = np.zeros(n, bool)
    hit[np.unique(lab[red])] = True
    hit[0] = False
    # ... each no brighter in red than the paper (RED_MAX_LOG, its orange pixels' median): a sheen
    ids = np.flatnonzero(hit)
    lo = lab[orange]
    r_of = L[..., ref][orange]
    keep = np.isin(lo, ids)
    lo, r_of = lo[keep], r_of[keep]
    order = np.argsort(lo, kind="stable")
    lo, r_of = lo[order], r_of[order]
    starts = np.searchsorted(lo, ids)
    ends = np.searchsorted(lo, ids, side="right")
    for v, s0, s1 in zip(ids, starts, ends):
        if s1 <= s0 or float(np.median(r_of[s0:s1])) > RED_MAX_LOG:
            hit[v] = False
    if not hit.any():
        return None
    if WHOLE_FILM:  # the film's other pixels of its colour, joined to it
        return hit[lab] & orange
    return red & hit[lab]


def shown_as_red(code: np.ndarray, red: np.ndarray, expeditions) -> None:
    """``code`` (in place; the fitter's own copy): the ``red`` pixels named the red film alone."""
    code[red] = np.uint8(1 << expeditions.index(RED))
