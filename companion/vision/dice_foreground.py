"""Where the dice are: the pixels of a photo unlike its table.

The table's colours are learnt from the image border (k-means in Lab, after a smooth lighting
gradient is taken out); a pixel far from all of them, relative to their spread, is clearly
foreground. The reader's mask (:class:`_Foreground`) grows that into faintly unlike regions
(hysteresis): a black die on black felt shows clearly only by its pips, bevel and glare, but its
whole body may still differ from the felt by several times the felt's own variation, measured in
the image itself, so the die is found as one region rather than as loose specks. Where even the
body does not differ, the die's closed outline may (:mod:`.dice_outline`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .blob_labels import components_with_stats
from .dice_outline import outlined_dice
from .dice_pips import fill_holes


def background_distance(small: np.ndarray, border_frac: float = 0.03) -> np.ndarray:
    """Per pixel: how far its colour is from the border's colours, in units of their spread."""
    return _distance_from_border(_flat_lab(small), border_frac)


def _flat_lab(small: np.ndarray) -> np.ndarray:
    """The work image in Lab (float), lightly blurred, its smooth lighting gradient taken out."""
    return flatten_lighting(cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 1.0), cv2.COLOR_BGR2LAB).astype(np.float32))


def _distance_from_border(lab: np.ndarray, border_frac: float = 0.03) -> np.ndarray:
    h, w = lab.shape[:2]
    b = max(2, int(round(min(h, w) * border_frac)))
    border = np.concatenate([lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3),
                             lab[:, :b].reshape(-1, 3), lab[:, -b:].reshape(-1, 3)])
    if len(border) > 6000:
        border = border[:: len(border) // 6000]
    weights = np.array([math.sqrt(0.6), 1.0, 1.0], np.float32)
    samples = border * weights
    k = 4
    cv2.setRNGSeed(12345)
    _, labels, centres = cv2.kmeans(samples, k, None,
                                    (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5), 2,
                                    cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    wlab = cv2.multiply(lab, np.array([*weights, 0], np.float64))
    best = np.full((h, w), np.inf, np.float32)
    ones = np.ones((1, 3), np.float32)
    # (the per-cluster images are written into two buffers made once: a fresh whole-frame image
    # per step cost more in page faults than the arithmetic itself, about 1 ms each at 640x480)
    diff = np.empty_like(wlab)
    d2 = np.empty((h, w), np.float32)
    for i in range(k):
        members = samples[labels == i]
        if len(members) < max(10, len(samples) // 50):  # a die or a hand on the border: not background
            continue
        spread = float(np.sqrt(((members - centres[i]) ** 2).sum(axis=1).mean()))
        spread = max(spread, 3.0)
        cv2.subtract(wlab, np.array([*centres[i], 0], np.float64), dst=diff)
        cv2.multiply(diff, diff, dst=diff)
        cv2.transform(diff, ones, dst=d2)  # sum over the channels
        np.multiply(d2, 1.0 / (spread * spread), out=d2)
        cv2.min(best, d2, dst=best)
    return cv2.sqrt(best, dst=best)


def flatten_lighting(lab: np.ndarray, grid: int = 64) -> np.ndarray:
    """Remove a smooth lighting gradient (vignetting, a lamp to one side) from a Lab image.

    A quadratic surface per channel is fitted to the image robustly (pixels far from the fit, the
    dice, are left out of the next pass), then subtracted, keeping the mean.
    """
    h, w = lab.shape[:2]
    gw, gh = grid, max(8, round(grid * h / w))
    tiny = cv2.resize(lab, (gw, gh), interpolation=cv2.INTER_AREA).reshape(-1, 3)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    xx, yy = (xx.ravel() / gw - 0.5), (yy.ravel() / gh - 0.5)
    A = np.stack([np.ones_like(xx), xx, yy, xx * xx, xx * yy, yy * yy], 1)
    keep = np.ones(len(A), bool)
    coef = np.zeros((6, 3), np.float32)
    for _ in range(3):
        Ak = A[keep]
        coef = np.linalg.solve(Ak.T @ Ak + 1e-6 * np.eye(6), Ak.T @ tiny[keep])
        res = np.abs(tiny - A @ coef).sum(axis=1)
        mad = float(np.median(res[keep])) + 1e-3
        keep = res < 3.0 * mad + 2.0
        if keep.sum() < 12:
            break
    # the fitted surface (without its constant term) at the grid, then smoothly up to full size
    surf = (A[:, 1:] @ coef[1:]).reshape(gh, gw, 3).astype(np.float32)
    up = cv2.resize(surf, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.subtract(lab, up, dst=up)  # (into the surface's own buffer: no second whole-frame image)


def foreground_mask(small: np.ndarray, sigmas: float) -> np.ndarray:
    """Pixels unlike the background (pips and dice whose body is like the table are left to the
    second look, :func:`_read_pip_clusters`)."""
    dist = background_distance(small)
    return _clean((dist > sigmas).astype(np.uint8) * 255)


def _clean(mask: np.ndarray) -> np.ndarray:
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    mask = fill_holes(mask)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))


# A grown region replaces the clear pixels in it when they are less than this share of it. Growing
# adds a fringe to a die found clearly: its clear share was 0.84-0.90 (10th-90th percentile, 61
# die-sized regions of ordinary renders); a black die on black felt or a dark table, its body
# unseen, was down to 0.3 (a quarter of such regions under 0.7).
GROW_WHEN_CLEAR_BELOW = 0.7
# ... and only when its largest clear piece is less than this share of it: a die found whole by
# its colour, with a long faint shadow grown onto it, is one clear piece of half the region or
# more; a die like its table is clear in pieces (pips, bevel, a glare spot), each a small part.
LARGEST_CLEAR_PART = 1 / 3
# ... and only when the grown region is at least a die of the smallest size the reader looks for
# (ReaderSettings.min_die_frac of the shorter side): a crumb or a speck of dust gains a halo of a
# pixel or two when grown, a large share of its small area, and is no die's body.
SMALLEST_DIE_FRAC = 0.03
LARGEST_DIE_FRAC = 0.45  # ReaderSettings.max_die_frac
# The faint level: this many times the typical table pixel's distance (its 90th percentile), and
# never below FAINT_FLOOR spreads. The bodies of black dice on black felt, a dark table and dark
# wood sat at 2.6-3.1 spreads (10th percentile; medians 4-10; 18 renders), their tables' own pixels
# under 1.3-2.5 (99.9th percentile); a textured table raises its own typical distance and so its
# faint level with it.
FAINT_TIMES_TYPICAL = 2.5
FAINT_FLOOR = 1.5
# The distance is smoothed over about a pip's width before the faint test: a die's face is one
# coherent region, the table's noise (fibres, sensor noise, JPEG) is not, so smoothing keeps the
# first and lowers the second; less than a pip's width keeps the gap between two dice.
FAINT_SMOOTH_PX = 1.5


#: In an overexposed photo whose table clips to its white level, a white, ivory, pastel or clear die's
#: top face clips too: it is the table's own colour, and the foreground holds only the die's shaded
#: side faces (an L or a hook) and its pips apart from them (docs/dice-camera.md, thirty-first round,
#: h1). There the white pixels between a foreground blob and the pips beside it (a closing the width
#: of a few pips) are taken into a second mask (``_Foreground.closed``), so the die is one blob
#: again, face and all; the reader reads its blobs only where its own read no die. Only white
#: pixels are added, only in a photo whose table is white. False: no second mask (None).
CLIPPED_FACES_CLOSED = True
# A pixel is white when its darkest channel is within this many levels of the photo's white level
# (a camera's soft shoulder leaves a clipped face a level or two off the table's, not equal).
WHITE_TOLERANCE = 4
# The white level: this percentile of every pixel's darkest channel, the photo's brightest level
# (a glint is too small a share of the photo to set it); the table clips when it is at that level.
WHITE_LEVEL_PERCENTILE = 99.9
# ... and at least this bright: a dark photo's brightest level is no clipping (an even dark table
# with nothing brighter on it would pass the share test).
WHITE_LEVEL_LEAST = 200
# The table clips when at least this share of the border is white.
WHITE_TABLE_SHARE = 0.5
# The closing's width, in pip widths: the gaps between a face's pips and its side faces are
# under about three pip widths (the pips-first grouping of :func:`.dice._read_pip_clusters`: 4.2).
CLOSING_PIP_WIDTHS = 4.2


def clipped_faces_closed(mask: np.ndarray, small: np.ndarray, smallest_die: float) -> np.ndarray | None:
    """``mask`` with the white pixels its closing adds, or None when the photo's table is not white
    (or it shows no pip to size the closing by)."""
    white = _white_pixels(small)
    if white is None:
        return None
    pip = _typical_speck(mask, smallest_die)
    if pip is None:
        return None
    k = max(3, int(CLOSING_PIP_WIDTHS * pip)) | 1
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    added = cv2.bitwise_and(closed, white)
    return fill_holes(cv2.bitwise_or(mask, added))


def _white_pixels(small: np.ndarray) -> np.ndarray | None:
    """The photo's white pixels (255: within ``WHITE_TOLERANCE`` of its brightest level), or None
    when its table is not white."""
    darkest = small.min(axis=2)
    level = float(np.percentile(darkest[::2, ::2], WHITE_LEVEL_PERCENTILE))
    if level < WHITE_LEVEL_LEAST:
        return None
    white = ((darkest >= level - WHITE_TOLERANCE) * 255).astype(np.uint8)
    h, w = white.shape
    b = max(2, int(round(min(h, w) * 0.03)))
    border = np.concatenate([white[:b].ravel(), white[-b:].ravel(), white[:, :b].ravel(), white[:, -b:].ravel()])
    return white if float((border > 0).mean()) >= WHITE_TABLE_SHARE else None


def _typical_speck(mask: np.ndarray, smallest_die: float) -> float | None:
    """The median width of the mask's small round blobs (pips), or None when it has none."""
    n, _, stats, _ = components_with_stats(mask)
    x, y, w, h, area = (stats[1:, k].astype(np.float64) for k in range(5))
    small = (area >= 4) & (area < smallest_die ** 2) & (np.maximum(w, h) <= 2.2 * np.maximum(1, np.minimum(w, h)))
    return float(np.median(np.sqrt(area[small]))) if small.any() else None


class _Foreground:
    """The reader's foreground: the clearly unlike pixels, and where those are only a die's pips,
    edges and highlights, the faintly unlike region around them (:func:`_grow_into_faint`), so a
    die like its table is one blob, body and all.

    The growing is used only for a die-sized grown region of which the clear pixels are a small
    part, in small pieces (``GROW_WHEN_CLEAR_BELOW``, ``LARGEST_CLEAR_PART``): there the clear
    pixels were the specks of a die too like the table. Where they already fill most of the
    region, or one piece of it does, the die was found, and growing would only join it to its
    shadow or to the faint die touching it (a chain of touching dice read as one blob reads worse).

    A die whose body is found neither way but whose closed outline is (:mod:`.dice_outline`) is
    added as its filled outline.

    ``loose`` is kept for the reader's second look at a blob that read nothing (it is filled out
    to its hull there): the faint region grown everywhere.
    """

    def __init__(self, small: np.ndarray, sigmas: float):
        lab = _flat_lab(small)
        self.dist = _distance_from_border(lab)
        self.strong = (self.dist > sigmas).astype(np.uint8) * 255
        clear = _clean(self.strong)
        self._loose = _clean(_grow_into_faint(self.strong, self.dist))
        n, labels, stats, _ = components_with_stats(self._loose)
        area = stats[:, cv2.CC_STAT_AREA]
        clear_in, largest_clear = _clear_parts(clear, labels, n)
        smallest_die = SMALLEST_DIE_FRAC * min(small.shape[:2])
        grow = ((clear_in < GROW_WHEN_CLEAR_BELOW * area) & (largest_clear < LARGEST_CLEAR_PART * area)
                & (area >= smallest_die ** 2))
        grow[0] = False
        mask = np.where(grow[labels], self._loose, clear).astype(np.uint8)
        self.mask = _add_outlined(mask, clear, outlined_dice(lab[..., 0], clear, smallest_die,
                                                                  LARGEST_DIE_FRAC * min(small.shape[:2])))
        # (the dice reader reads these closed blobs where its own blobs read nothing: dice._read_at)
        self.closed = clipped_faces_closed(self.mask, small, smallest_die) if CLIPPED_FACES_CLOSED else None

    @property
    def loose(self) -> np.ndarray:
        return self._loose


def _clear_parts(clear: np.ndarray, labels: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per region of ``labels``: its clear pixels, and the area of its largest clear piece."""
    on = clear > 0
    region_px = labels[on]
    clear_in = np.bincount(region_px, minlength=n)
    m, pieces = cv2.connectedComponents(clear, connectivity=8)
    largest = np.zeros(n, np.int64)
    if m > 1:
        piece_px = pieces[on]
        area = np.bincount(piece_px, minlength=m)
        # a clear piece lies in one region (every step that makes the regions only adds to the
        # clear mask): any of its pixels names the region; where one does not, take the highest
        region_of = np.zeros(m, np.int64)
        region_of[piece_px] = region_px
        if not np.array_equal(region_of[piece_px], region_px):
            np.maximum.at(region_of, piece_px, region_px)
        np.maximum.at(largest, region_of[1:], area[1:])
    return clear_in, largest


def _add_outlined(mask: np.ndarray, clear: np.ndarray, outlined: np.ndarray) -> np.ndarray:
    """Add the dice found by their outline (:mod:`.dice_outline`) where the colour foreground
    found them only in pieces (where it found them whole, it keeps its shape)."""
    if not cv2.countNonZero(outlined):
        return mask
    n, labels = cv2.connectedComponents(outlined, connectivity=8)
    found = np.bincount(labels[mask > 0].ravel(), minlength=n)
    area = np.bincount(labels.ravel(), minlength=n)
    _, largest_clear = _clear_parts(clear, labels, n)
    add = (found < GROW_WHEN_CLEAR_BELOW * area) & (largest_clear < LARGEST_CLEAR_PART * area)
    add[0] = False
    return np.where(add[labels], 255, mask).astype(np.uint8)


def _grow_into_faint(strong: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Hysteresis: add the faintly unlike regions that touch a clearly unlike one.

    A dark die on dark felt differs from it by less than the threshold, but its edges and pips do
    not; its face still differs from the felt by several times the felt's own variation. The faint
    level is set from the image (a multiple of the typical background pixel's distance), so a
    noisy or textured table does not flood; a faint region no clear pixel touches stays out (a
    patch of the table unlike the border is no die without a pip, edge or highlight on it).
    """
    smooth = cv2.GaussianBlur(dist, (0, 0), FAINT_SMOOTH_PX)
    table = smooth[::3, ::3][strong[::3, ::3] == 0]  # every ninth pixel is plenty for a percentile
    if table.size == 0:
        return strong
    typical = float(np.percentile(table, 90))
    low = max(FAINT_FLOOR, FAINT_TIMES_TYPICAL * typical)
    if low >= 0.8 * float(np.max(smooth)):
        return strong
    weak = cv2.morphologyEx((smooth > low).astype(np.uint8) * 255, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    weak = cv2.bitwise_or(weak, strong)
    n, labels = cv2.connectedComponents(weak, connectivity=8)
    keep = np.bincount(labels[strong > 0], minlength=n) > 0  # (a count, not a sort of the pixels)
    keep[0] = False
    return (keep.astype(np.uint8) * 255)[labels]
