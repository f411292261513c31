"""A colour between two expeditions' colours, under a light that moves films' colours, is neither's.

Read without calibration, a sheet's colour is judged against the box profile's colours, which a
film shows under daylight-like light.  Under a light whose spectrum is peaked (a warm LED's
phosphor, a fluorescent tube's lines) a film's colour moves with the light, and the white balance
cannot move it back: a red film passing little at 540 nm and much at 600 nm photographs orange under
a warm LED whose phosphor peaks at 590-615 nm, and orange lies between the red and the yellow
expeditions' colours -- the colour match then called it yellow (second generator, development:
183 hexes called covered by the wrong expedition, all this).

The photo shows its own light: under a peaked light the films seen alone lie off the profile's
colours in a way print and shade do not move them -- a channel far darker than the profile's (a
yellow film's blue: under daylight within ~0.2 log of the profile's, under a warm LED 1-3 below,
the film passing only the light's few strong bands) or brighter (the red film's green under a warm
LED).  When a photo shows that, its films' colours are known only roughly, and a pixel whose colour
lies in the middle between two expeditions' colours -- judged on the ratio of the channel the two
differ in most to the channel both pass best -- is given to neither, where such colour is a film's
width across: it is unknown (safe: no evidence, no covered hex).  The thresholds were set on the
second generator's development photos 0-59 and the first renderer's development photos the rule
touched (docs/board-vision.md, twenty-eighth round, h2).
Calibrated photos (measured colours) are not judged here.
"""

from __future__ import annotations

import itertools

import cv2
import numpy as np

from . import coverage_photo_middle
from .transmission import MISFIT

#: The middle of the way from one expedition's colour (0) to another's (1), along the one channel
#: ratio they differ in most: given to neither when the light is doubted.  Set after seeing the
#: second generator's development photos: a yellow film's own pixels lay at -0.1..0.16 (p10-p90;
#: 0.27 on fluorescent photo 14), a red one's at 0.84-0.99 under daylight (photo 5) but 0.37-0.59
#: on daylight photo 3 (not doubted: read right) and 0.42-0.8 under warm LEDs (58, 6, 10, 49).
BAND = (0.3, 0.8)
#: The photo's films seen alone (the pixels the colour match gives one expedition) against the
#: profile's colours, per channel (log, medians): a film's channel seen DARKER_DOUBT darker than
#: the profile's, or BRIGHTER_DOUBT brighter, says the light moves films' colours.  Set after
#: seeing the second generator's development photos 0-59: daylight mostly within 0.7 darker and 0.2
#: brighter; warm LED 1.5-4.7 darker or 0.3-0.8 brighter on 17 of 19 photos.  The first renderer's
#: phone photos reach 1.38 darker and 0.42 brighter (a saturation boost): it opens on 16 of its 360
#: development photos (13 through the first phone, 3 the second), where OPEN_MM keeps its cost small.
DARKER_DOUBT, BRIGHTER_DOUBT = 1.0, 0.3
MIN_PIXELS = 150  # pixels (every SAMPLE_STEP-th each way) an expedition alone must show to say so
SAMPLE_STEP = 3
#: a channel darker than this (log) in either colour carries no ratio worth judging
DIM_AXIS_LOG = -2.0
#: a region of between colour is a film's when it is this wide (opened by it): a sheet's blurred
#: edge, which blends a film with paper or another film, is a strip a millimetre or two wide along
#: every edge.  (1 mm, coverage's misfit opening, made more hexes of the first renderer's phone
#: photos unknown and one coverage error more; 3 mm: none; see docs/board-vision.md, h2.)
OPEN_MM = 3.0


def pair_axes(colours: dict, expeditions) -> list[tuple[int, int, int, int, float, float]]:
    """For each pair of expeditions (i, j): the channel both pass best (``ref``), the channel whose
    ratio to it differs most between them (``axis``), and that ratio (log) for each, ``xi`` and ``xj``."""
    logs = [np.log(np.clip(np.asarray(colours[e], float) / 255.0, 1e-3, 1.0)) for e in expeditions]
    out = []
    for i, j in itertools.combinations(range(len(expeditions)), 2):
        a, b = logs[i], logs[j]
        ref = int(np.argmax(np.minimum(a, b)))
        others = [c for c in range(3) if c != ref and max(a[c], b[c]) > DIM_AXIS_LOG]
        if not others:
            continue
        axis = max(others, key=lambda c: abs((a[c] - a[ref]) - (b[c] - b[ref])))
        out.append((i, j, ref, axis, float(a[axis] - a[ref]), float(b[axis] - b[ref])))
    return out


def film_deviations(L: np.ndarray, code: np.ndarray, colours: dict, expeditions) -> list[np.ndarray]:
    """Per expedition shown alone (the colour match names it and no other) on MIN_PIXELS samples or
    more: the median of its pixels' log-transmission less the profile's colour (3 channels;
    positive: brighter than the profile)."""
    st = SAMPLE_STEP
    # (misfit or not: a film the light moved far from its colour fits nothing well)
    Ls, cs = L[::st, ::st].reshape(-1, 3), code[::st, ::st].reshape(-1) & np.uint8(15)
    out = []
    for i, e in enumerate(expeditions):
        alone = cs == (1 << i)
        if np.count_nonzero(alone) >= MIN_PIXELS:
            prof = np.log(np.clip(np.asarray(colours[e], float) / 255.0, 1e-3, 1.0))
            out.append(np.median(Ls[alone], axis=0) - prof)
    return out


def light_doubted(L: np.ndarray, code: np.ndarray, colours: dict, expeditions) -> bool:
    """Whether some film's colour seen alone lies off the profile's by DARKER_DOUBT (darker) or
    BRIGHTER_DOUBT (brighter) in some channel."""
    return any(d.min() < -DARKER_DOUBT or d.max() > BRIGHTER_DOUBT
               for d in film_deviations(L, code, colours, expeditions))


def between_colours(L: np.ndarray, code: np.ndarray, colours: dict, expeditions, ppm: float,
                    doubted: bool | None = None) -> np.ndarray | None:
    """The pixels (bool) whose colour lies in the middle between two expeditions' colours that the
    colour match gives one or both of them (and no other), when the photo's light is doubted;
    None when it is not, or no such pixel is left after opening (a blurred edge is narrower).
    ``doubted``: light_doubted's answer when the caller has it already."""
    if not (light_doubted(L, code, colours, expeditions) if doubted is None else doubted):
        return None
    names = code & np.uint8(15)
    out = np.zeros(code.shape, bool)
    for i, j, ref, axis, xi, xj in pair_axes(colours, expeditions):
        pair = np.uint8((1 << i) | (1 << j))
        only_pair = (names != 0) & ((names & ~pair) == 0)
        t = (L[..., axis] - L[..., ref] - np.float32(xi)) * np.float32(1.0 / (xj - xi))
        mid = only_pair & (t > BAND[0]) & (t < BAND[1])
        if coverage_photo_middle.PHOTO_MIDDLE and mid.any():
            # ... and in the middle on the photo's own scale too, where it shows the two films apart
            # (coverage_photo_middle.py)
            outside = coverage_photo_middle.outside_photo_band(L, code, colours, expeditions,
                                                               (i, j, ref, axis, xi, xj), t, BAND)
            if outside is not None:
                mid &= ~outside
        out |= mid
    k = int(round(OPEN_MM * ppm)) | 1
    out = cv2.morphologyEx(out.view(np.uint8), cv2.MORPH_OPEN, np.ones((k, k), np.uint8)) > 0
    return out if out.any() else None


def given_to_neither(code: np.ndarray, between: np.ndarray) -> None:
    """``code`` (in place): the ``between`` pixels fit no expedition (MISFIT alone: unknown, and
    named to no expedition, so no later rule gives them back to one)."""
    code[between] = MISFIT
