"""Overlaps coverage left unread: a pixel whose colour is two filters' product.

A sheet is a coloured filter and filters multiply: where two sheets overlap -- two of one
expedition's, or one expedition's over another's -- the light has passed both, so the pixel's log
colour (against the drawn board) is the sum of the two sheets' one-layer log colours.  Coverage's
colour match reads a pixel as one expedition's colour or a known pair; a product it cannot place
(too dark in two channels, a look-alike it doubts, a hue between its colours) it leaves unseen, and
so does the sheet fitter: a sheet lying mostly under or over others then shows the fitter only its
scraps of single colour and is missed (docs/board-vision.md, twenty-seventh round: of 71 such
development readings, the overlap was unseen to the fitter on nearly all of it, never paper).

Here the pixels the fitter cannot see but the photo shows are compared, in log colour, with every
explanation one or two sheets give: the paper, each expedition's one layer, two layers of one
expedition, one layer of each of two.  The one-layer colours are this photo's own (the median of
each expedition's colour mask), so the print run, the light and a phone's tone move them alike.
A channel too dark to read (``TOO_DARK``) says only that the truth is at least that dark.  A pixel
counts as the colour of both expeditions of a pair when that pair is the explanation closest to
it, close enough (``MAX_DISTANCE``), and every other explanation lies clearly further
(``MIN_RATIO`` times).  Specks are dropped and a patch must touch the single colour of both
expeditions (the overlap of two sheets lies beside each one's single part; a shadow beside one
colour does not).  Two layers of one expedition are explanations the pixel must beat but are not
read as colour (``DOUBLES``).

Pure numpy/OpenCV on the fitter's fine grid; no I/O.
"""

from __future__ import annotations

from itertools import combinations

import cv2
import numpy as np

from .maskparts import nonzero_yx
from .sheetlayers import _LOG8, TOO_DARK

# log units (three channels' distance): a product's colour through the renders and both phones
# lies 0.04-0.55 from the sum of the photo's one-layer colours (a phone's tone curve bends the
# darks); a different explanation lies further.  Chosen after seeing development's overlaps of
# missed sheets (512, 520, 539, 609, 611; MIN_RATIO alike; the only values measured whole)
MAX_DISTANCE = 0.6
# Two layers of one expedition read here too (sheetlayers reads them only inside coverage's mask).
# Off: on development the doubles read over a whole sheet let the fitter place it twice (524
# through the first phone: a sonar read twice 1.9 mm apart, the second named for the eye witness
# under it) and named 515's underwater camera an eye witness; without them no such case
DOUBLES = False
MIN_RATIO = 1.5  # every explanation without the expedition at least this many times further
MIN_ONE_LAYER_PX = 60  # fewer sampled pixels of an expedition's colour than this: no one-layer colour
SAMPLE = 3  # the one-layer colour's median from every SAMPLE-th row and column
MIN_PATCH_MM2 = 20.0  # a smaller patch of product is an edge's mixed colour or noise
OPEN_MM = 1.0  # opened by this first (an edge blurs one colour into the next)
TOUCH_MM = 3.0  # a patch counts when it comes this close to each of its expeditions' colours ...
BRIDGE_MM = 1.5  # ... its pieces joined across gaps this wide (the printed lines, about 1 mm)


def one_layers(photo, masks: dict, usable: np.ndarray) -> dict:
    """Expedition -> its one-layer log colour (BGR, against the drawn board) in this photo: the
    median over the pixels wholly of its colour mask (``masks``: shares on the fine grid) where
    ``usable``; expeditions with too few such pixels are left out."""
    H, W = photo.valid.shape
    out = {}
    for e, m in masks.items():
        whole = (m[:H:SAMPLE, :W:SAMPLE] >= 0.99) & usable[::SAMPLE, ::SAMPLE]
        ys, xs = nonzero_yx(whole)
        if len(ys) < MIN_ONE_LAYER_PX:
            continue
        L, clipped = _log_colour(photo, ys * SAMPLE, xs * SAMPLE)
        keep = ~clipped.any(1)
        if np.count_nonzero(keep) >= MIN_ONE_LAYER_PX:
            out[e] = np.median(L[keep], axis=0)
    return out


def _log_colour(photo, ys: np.ndarray, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, 3) log colour against the drawn board, and which channels are too dark to read (there
    the value is the darkest readable level's: the truth is at most that)."""
    at = ys * photo.warped.shape[1] + xs
    px = np.take(photo.warped.reshape(-1, 3), at, axis=0)
    clipped = px < TOO_DARK
    L = _LOG8[np.maximum(px, TOO_DARK)] - np.take(photo.log_reference.reshape(-1, 3), at, axis=0)
    return L, clipped


def _explanations(ones: dict) -> list[tuple[tuple, np.ndarray]]:
    """(expeditions under the pixel, with repeats for two layers; their log colour): paper, each
    one layer, each double, each pair."""
    out = [((), np.zeros(3, np.float32))]
    out += [((e,), c) for e, c in ones.items()]
    out += [((e, e), 2 * c) for e, c in ones.items()]
    out += [((a, b), ones[a] + ones[b]) for a, b in combinations(sorted(ones), 2)]
    return out


def _distances(L: np.ndarray, clipped: np.ndarray, models: np.ndarray) -> np.ndarray:
    """(n, m) distance of each pixel to each explanation; a clipped channel counts only where the
    explanation is brighter than what the pixel shows.  Model by model and channel by channel: an
    (n, m, 3) array of a photo's unseen pixels would cost over 100 MB at once."""
    out = np.empty((len(L), len(models)), np.float32)
    for j, model in enumerate(models):
        total = np.zeros(len(L), np.float32)
        for c in range(3):
            r = L[:, c] - model[c]
            r = np.where(clipped[:, c], np.minimum(r, 0.0), r)
            total += r * r
        out[:, j] = np.sqrt(total)
    return out


def read_products(photo, masks: dict, seen: np.ndarray, ppm: float) -> tuple[dict, dict]:
    """(expedition -> share of each fine pixel read as its colour in a product, expedition ->
    share read as two layers of it), on the photo's grid; only where the fitter sees nothing
    (``seen`` under half) and the photo shows plain paper's place.  ``masks``: the expeditions'
    colour shares on the same grid (``seen`` too: cropped or padded alike)."""
    H, W = photo.valid.shape
    S = _fit(seen, (H, W))
    fm = {e: _fit(m, (H, W)) for e, m in masks.items()}
    ones = one_layers(photo, fm, photo.valid & (S >= 0.99))
    if len(ones) < 1:
        return {}, {}
    cand = photo.valid & (S < 0.5)
    ys, xs = nonzero_yx(cand)
    if not len(ys):
        return {}, {}
    L, clipped = _log_colour(photo, ys, xs)
    some = ~clipped.all(1)  # wholly black: nothing to read
    ys, xs, L, clipped = ys[some], xs[some], L[some], clipped[some]
    expl = _explanations(ones)
    d = _distances(L, clipped, np.stack([c for _, c in expl]).astype(np.float32))
    best = d.argmin(1)
    dbest = d[np.arange(len(best)), best]
    close = dbest <= MAX_DISTANCE
    colour, double = {}, {}
    for i, (who, _c) in enumerate(expl):
        if len(who) != 2 or (who[0] == who[1] and not DOUBLES):
            continue
        # every explanation lacking either expedition clearly further than this one
        lacking = np.array([not set(who) <= set(w) for w, _ in expl])
        mine = close & (best == i) & (d[:, lacking].min(1) >= MIN_RATIO * dbest)
        part = _patches(ys[mine], xs[mine], (H, W), [fm[e] for e in set(who)], ppm)
        if part is None:
            continue
        for e in set(who):
            colour[e] = part if e not in colour else np.maximum(colour[e], part)
        if who[0] == who[1]:
            double[who[0]] = part
    for e in colour:
        double.setdefault(e, np.zeros((H, W), np.float32))
    return colour, double


def _patches(ys, xs, shape, owns: list, ppm: float) -> np.ndarray | None:
    """The product pixels as a float mask: opened, joined across the printed lines (``BRIDGE_MM``:
    an overlap is cut into the hexes' cells), specks dropped, only patches touching the colour of
    every expedition in ``owns`` (their colour shares: the overlap of two sheets lies beside the
    single part of each, a shadow beside one colour does not); None when nothing is left."""
    if not len(ys):
        return None
    m = np.zeros(shape, np.uint8)
    m[ys, xs] = 1
    k = int(round(OPEN_MM * ppm)) * 2 + 1
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    kb = int(round(BRIDGE_MM * ppm)) * 2 + 1
    joined = cv2.dilate(m, np.ones((kb, kb), np.uint8))
    n, labels = cv2.connectedComponents(joined, connectivity=8)
    if n <= 1:
        return None
    kt = int(round(TOUCH_MM * ppm)) * 2 + 1
    touching = np.ones(n, bool)
    for own in owns:
        near = cv2.dilate((own >= 0.5).astype(np.uint8), np.ones((kt, kt), np.uint8)) > 0
        touching &= np.bincount(labels[near], minlength=n) > 0
    area = np.bincount(labels[m > 0], minlength=n)
    keep = (area >= MIN_PATCH_MM2 * ppm * ppm) & touching
    keep[0] = False
    if not keep.any():
        return None
    return (keep[labels] & (m > 0)).astype(np.float32)


def _fit(a: np.ndarray, shape) -> np.ndarray:
    """``a`` cropped or padded with zeros to ``shape``."""
    if a.shape == tuple(shape):
        return a
    out = np.zeros(shape, a.dtype)
    h, w = min(shape[0], a.shape[0]), min(shape[1], a.shape[1])
    out[:h, :w] = a[:h, :w]
    return out
