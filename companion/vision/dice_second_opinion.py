"""A learned second opinion on a die the reader leaves unread: a small classifier (OpenCV's own
``cv2.ml.ANN_MLP`` on HOG features of the die's crop), trained on our own renders only
(``tools/train_dice_second_opinion.py``, fixed seeds), and taken only when an independent check
agrees: the value's pip layout is found in the crop, pip marks at every one of its places and none
at the grid's other points round them.

Off by default (``LOOK_ON``): measured on the development sets it gave too many wrong values
(docs/dice-camera.md, seventeenth round). The model file sits beside this module; without it the
look is off too.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

MODEL_PATH = Path(__file__).with_name("dice_second_opinion.yml.gz")

CROP_PX = 48  # the crop the classifier sees, in pixels a side (HOG: 8-px cells, 16-px blocks)
#: the crop spans this many of the reader's die sides round its centre: a tilted die's top face
#: lies up to half a side off an unread die's centre (training: the reader's unread dice)
CROP_SIDES = 1.5
CLASSES = (0, 1, 2, 3, 4, 5, 6)  # 0: no face centred in the crop (a side face, a part, no die)

_hog = cv2.HOGDescriptor((CROP_PX, CROP_PX), (16, 16), (8, 8), (8, 8), 9)
_model = None
_model_tried = False


def die_crop(img: np.ndarray, centre: tuple[float, float], side: float, angle_deg: float = 0.0,
             px: int = CROP_PX, sides: float = CROP_SIDES) -> np.ndarray:
    """The grey square of ``sides`` die sides round ``centre`` (turned by ``angle_deg``), ``px``
    pixels a side, stretched to the full 0-255 range (a die's shade and the light say nothing
    about its value)."""
    grey = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    step = sides * side / px  # photo pixels per crop pixel
    t = math.radians(angle_deg)
    ax, ay = complex(math.cos(t), math.sin(t)) * step, complex(-math.sin(t), math.cos(t)) * step
    o = complex(*centre) - (ax + ay) * (px / 2 - 0.5)
    m = np.array([[ax.real, ay.real, o.real], [ax.imag, ay.imag, o.imag]], np.float32)
    # (an area average first when the crop shrinks the photo a lot: no aliasing of small pips)
    if step > 2.0:
        k = int(step) | 1
        grey = cv2.blur(grey, (k, k))
    crop = cv2.warpAffine(grey, m, (px, px), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    lo, hi = np.percentile(crop, (1, 99))
    return np.clip((crop - lo) * (255.0 / max(hi - lo, 1.0)), 0, 255).astype(np.uint8)


def features(crop: np.ndarray) -> np.ndarray:
    """The HOG of a crop (unsigned gradients: dark pips on a light die and light on a dark alike)."""
    return _hog.compute(crop).ravel()


def load_model():
    """The trained classifier, or None when its file is missing (the look is then off)."""
    global _model, _model_tried
    if not _model_tried:
        _model_tried = True
        if MODEL_PATH.exists():
            _model = cv2.ml.ANN_MLP_load(str(MODEL_PATH))
    return _model


def classify(img: np.ndarray, centre: tuple[float, float], side: float):
    """(value 0..6, margin) the classifier gives the crop: the class with the highest output, and
    its lead over the next; None without a model."""
    model = load_model()
    if model is None:
        return None
    x = features(die_crop(img, centre, side))[None, :]
    _, out = model.predict(x)
    out = out.ravel()
    order = np.argsort(out)[::-1]
    return int(CLASSES[order[0]]), float(out[order[0]] - out[order[1]])


# ---------------------------------------------------------------- the check: the layout's pips there

CHECK_PX = 64  # the crop the layout is looked for in, pixels a side ...
CHECK_SIDES = 1.8  # ... spanning this many of the reader's die sides
#: the die's side in the crop is looked for at these many of the reader's side (its unread dice on
#: development are 0.55-1.9 times the true side, but a freer search finds a small one or two in
#: any five: with sizes 0.55-1.85 and centres 0.45 round, 21 of 97 unread dice's best layout was
#: their value, 32 with these sizes and 0.2 round)
SIZES = (0.85, 1.0, 1.2)
CENTRE_REACH = 0.2  # the grid's centre is looked for this many reader sides round the die's centre
CENTRE_STEP = 0.08  # ... in steps of this many of the tried die's sides (at least 1.5 crop px)
ANGLE_STEP = 10  # the grid turned in steps of this many degrees over half a turn (the twos, threes, sixes)
SPACINGS = (0.24, 0.29)  # a corner pip's offset from the face's centre, in die sides (dice: 0.24-0.3)
PIP_SIGMA = 0.065  # the pip-mark response: a Gaussian of this many die sides (a pip's radius / sqrt 2) ...
SURROUND = 3.0  # ... less one this many times wider (the face round the pip)
#: the points looked at: a seven-by-seven grid in half pip spacings (the face's pip places at even
#: points, the face out to 0.4 of a side); a point beside a value's place is neither on nor off
_GRID = [(u / 2, v / 2) for v in range(-3, 4) for u in range(-3, 4)]
_PLACES = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
           5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}
LAYOUT_PLACES = {v: [_GRID.index(p) for p in ps] for v, ps in _PLACES.items()}
OFF_PLACES = {v: [k for k, g in enumerate(_GRID) if all(max(abs(g[0] - p[0]), abs(g[1] - p[1])) > 0.5 for p in ps)]
              for v, ps in _PLACES.items()}
_placements_cache: dict[float, tuple] = {}


def pip_response(crop: np.ndarray, die_px: float) -> tuple[np.ndarray, np.ndarray]:
    """(dark-pip, light-pip) responses of a 0-255 crop to pips of a die ``die_px`` across: a
    pip-sized blob's step from what is round it."""
    f = crop.astype(np.float32)
    small = cv2.GaussianBlur(f, (0, 0), PIP_SIGMA * die_px, borderType=cv2.BORDER_REPLICATE)
    wide = cv2.GaussianBlur(f, (0, 0), SURROUND * PIP_SIGMA * die_px, borderType=cv2.BORDER_REPLICATE)
    return wide - small, small - wide


def _placements(size: float) -> tuple[np.ndarray, np.ndarray]:
    """The crop pixels (ix, iy), each (n, 49), of the grid's points for every placement tried of
    a die ``size`` reader sides across."""
    if size not in _placements_cache:
        unit = CHECK_PX / CHECK_SIDES  # crop px per reader side
        die = size * unit
        step = max(1.5, CENTRE_STEP * die)
        reach = np.arange(-CENTRE_REACH * unit, CENTRE_REACH * unit + 1e-6, step)
        reach -= reach.mean()
        angles = np.radians(np.arange(0, 180, ANGLE_STEP))
        cx, cy, a, s = np.meshgrid(reach + CHECK_PX / 2 - 0.5, reach + CHECK_PX / 2 - 0.5, angles,
                                   np.array(SPACINGS) * die, indexing="ij")
        cx, cy, a, s = (x.ravel()[:, None] for x in (cx, cy, a, s))
        u = np.array([g[0] for g in _GRID], np.float32)[None, :]
        v = np.array([g[1] for g in _GRID], np.float32)[None, :]
        x = cx + s * (u * np.cos(a) - v * np.sin(a))
        y = cy + s * (u * np.sin(a) + v * np.cos(a))
        _placements_cache[size] = (np.clip(np.rint(x).astype(int), 0, CHECK_PX - 1),
                                   np.clip(np.rint(y).astype(int), 0, CHECK_PX - 1))
    return _placements_cache[size]


def layout_scores(img: np.ndarray, centre: tuple[float, float], side: float) -> np.ndarray:
    """For values 1..6 the best, over placements, sizes and both pip shades, of (the weakest mark
    at the value's places less the strongest at the grid's points away from them)."""
    crop = die_crop(img, centre, side, px=CHECK_PX, sides=CHECK_SIDES)
    best = np.full(6, -np.inf)
    for size in SIZES:
        ix, iy = _placements(size)
        for resp in pip_response(crop, size * CHECK_PX / CHECK_SIDES):
            # (a 3x3 maximum first: the grid's points land within a pixel or two of a pip's centre)
            at = cv2.dilate(resp, np.ones((3, 3), np.uint8))[iy, ix]  # (n, 49)
            for value, places in LAYOUT_PLACES.items():
                on = at[:, places].min(axis=1)
                off = at[:, OFF_PLACES[value]].max(axis=1)
                best[value - 1] = max(best[value - 1], float((on - np.maximum(off, 0)).max()))
    return best


# ---------------------------------------------------------------- the two together

#: is the second opinion asked at all? Off: on the development sets' unread dice it gave, with ones,
#: 11 right values for 8 wrong and 4 extras, and without ones a two to a clean four (ray 21)
#: (docs/dice-camera.md, seventeenth round); switched on, it is there to measure and to build on
LOOK_ON = False
#: the classifier's lead over its next class (outputs -1.7..1.7): on clean development dice at
#: their true centres 0.9 and up was right 79-81 % of the time (49-64 % at any lead)
LEAST_MARGIN = 0.9
#: the value's layout score at least this (crop 0-255: weakest pip mark less strongest other), and
#: this much above every other value's: the middle of the three pairs tried on the development
#: sets' unread dice (10/0, 20/5, 30/10); none of them took more right values than wrong ones
LEAST_LAYOUT = 20.0
LAYOUT_MARGIN = 5.0
#: the values the second opinion may give: never a one. A lone mark is what any die shows with the
#: rest of its face hidden (a side face over it, glare, the crop off centre), and both the classifier
#: and the layout check take it for a one: on the development sets' unread dice, of 20 ones they
#: agreed on 12 were wrong or extra (every two they agreed on, 4 of 4, was right)
VALUES_GIVEN = (2, 3, 4, 5, 6)
#: low, as the blurred-layout look's readings (0.05 at most) and a blob look's (0.1 at most) are
SECOND_OPINION_CONFIDENCE = 0.05


def second_opinion(img: np.ndarray, centre: tuple[float, float], side: float) -> int | None:
    """The value of an unread die at ``centre`` (``side`` px), or None: the classifier's value,
    taken only when it leads clearly and the same value's pip layout is the one clearly found in
    the crop."""
    if side <= 0:
        return None
    got = classify(img, centre, side)
    if got is None:
        return None
    value, margin = got
    if value not in VALUES_GIVEN or margin < LEAST_MARGIN:
        return None
    scores = layout_scores(img, centre, side)
    best = float(scores[value - 1])
    others = np.delete(scores, value - 1)
    if best < LEAST_LAYOUT or best - float(others.max()) < LAYOUT_MARGIN:
        return None
    return value


#: an unread die this many of its sides or nearer a read die is left alone: a tilted die's side
#: face or a part of the read die, which a value would make an extra (and a near-wrong)
CLEAR_OF_READ = 1.0


def second_opinions(dice: list, img: np.ndarray) -> list:
    """The reader's dice with the unread ones the second opinion reads given its value."""
    if not LOOK_ON or all(d.value is not None for d in dice) or load_model() is None:
        return dice
    read = [d for d in dice if d.value is not None]
    out = []
    for d in dice:
        if d.value is None and all(math.hypot(d.center[0] - o.center[0], d.center[1] - o.center[1])
                                   > CLEAR_OF_READ * max(d.side_px, o.side_px) for o in read):
            value = second_opinion(img, d.center, d.side_px)
            if value is not None:
                d = replace(d, value=value, confidence=SECOND_OPINION_CONFIDENCE,
                            reason="", pips=None)
        out.append(d)
    return out
