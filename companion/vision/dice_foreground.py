"""Where the dice are: the pixels of a photo unlike its table.

The table's colours are learnt from the image border (k-means in Lab, after a smooth lighting
gradient is taken out); a pixel far from all of them, relative to their spread, is foreground.
A looser mask (hysteresis from the clear foreground into faintly unlike pixels) is made on demand
for dice like their table.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .dice_pips import fill_holes


def background_distance(small: np.ndarray, border_frac: float = 0.03) -> np.ndarray:
    """Per pixel: how far its colour is from the border's colours, in units of their spread."""
    lab = flatten_lighting(cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 1.0), cv2.COLOR_BGR2LAB).astype(np.float32))
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
    for i in range(k):
        members = samples[labels == i]
        if len(members) < max(10, len(samples) // 50):  # a die or a hand on the border: not background
            continue
        spread = float(np.sqrt(((members - centres[i]) ** 2).sum(axis=1).mean()))
        spread = max(spread, 3.0)
        diff = cv2.subtract(wlab, np.array([*centres[i], 0], np.float64))
        d2 = cv2.transform(cv2.multiply(diff, diff), ones)  # sum over the channels
        cv2.min(best, d2 * (1.0 / (spread * spread)), dst=best)
    return cv2.sqrt(best)


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
    return cv2.subtract(lab, cv2.resize(surf, (w, h), interpolation=cv2.INTER_LINEAR))


def foreground_mask(small: np.ndarray, sigmas: float) -> np.ndarray:
    """Pixels unlike the background (pips and dice whose body is like the table are left to the
    second look, :func:`_read_pip_clusters`)."""
    dist = background_distance(small)
    return _clean((dist > sigmas).astype(np.uint8) * 255)


def _clean(mask: np.ndarray) -> np.ndarray:
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    mask = fill_holes(mask)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))


class _Foreground:
    """The foreground mask, and (made only when a blob reads nothing) a looser one for dice the
    first left ragged (:func:`_grow_into_faint`)."""

    def __init__(self, small: np.ndarray, sigmas: float):
        self.dist = background_distance(small)
        self.strong = (self.dist > sigmas).astype(np.uint8) * 255
        self.mask = _clean(self.strong)
        self._loose: np.ndarray | None = None

    @property
    def loose(self) -> np.ndarray:
        if self._loose is None:
            self._loose = _clean(_grow_into_faint(self.strong, self.dist))
        return self._loose


def _grow_into_faint(strong: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Hysteresis: add the faintly unlike regions that touch a clearly unlike one.

    A dark die on dark felt differs from it by less than the threshold, but its edges and pips do
    not; its face still differs from the felt by several times the felt's own variation. The faint
    level is set from the image (a multiple of the typical background pixel's distance), so a
    noisy or textured table does not flood.
    """
    typical = float(np.percentile(dist[strong == 0], 90)) if cv2.countNonZero(strong) < strong.size else 1.0
    low = max(1.5, 2.5 * typical)
    if low >= 0.8 * float(np.max(dist)):
        return strong
    weak = cv2.morphologyEx((dist > low).astype(np.uint8) * 255, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    weak = cv2.bitwise_or(weak, strong)
    n, labels = cv2.connectedComponents(weak, connectivity=8)
    keep = np.zeros(n, bool)
    keep[np.unique(labels[strong > 0])] = True
    keep[0] = False
    return np.where(keep[labels], 255, 0).astype(np.uint8)
