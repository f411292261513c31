"""Fitting the one sheet live mode expects: a known equipment outline to a mask of arrived colour.

sheetfit.py searches every equipment type over the board on a coarse grid (about a millimetre and a
degree); here the type is known and the mask is the clean difference of two views, so its pose is
then polished on the full-resolution mask: the outline, moved and turned about its centre (so the
two do not fight), disagreeing with the mask on as few readable pixels as possible, its edges
anti-aliased so that sub-pixel moves count.  That takes the pose to a fraction of a millimetre.

Pure numpy/OpenCV; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .boarddiff import Grid
from .sheetfit import fit_expedition
from .sheets import SheetPose, outline

#: A fit must explain this share of the visible outline (sheetfit's score) to be believed.
MIN_FIT = 0.75
#: (mm, degrees) steps of the polish, coarse to fine.
POLISH_STEPS = ((1.0, 1.0), (0.5, 0.5), (0.25, 0.25), (0.1, 0.1), (0.05, 0.05))


@dataclass(frozen=True)
class Fit:
    pose: SheetPose
    score: float  # sheetfit's: the share of the visible outline showing the colour


def fit_known(box, expedition: str, equipment: str, mask: np.ndarray, seen: np.ndarray, grid: Grid) -> Fit | None:
    """The equipment's outline fitted to ``mask`` (bool on ``grid``; ``seen``: readable pixels), or None."""
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return None
    pad = int(round(30 * grid.ppm))  # a crop around the colour, for speed
    h, w = mask.shape
    r0, r1 = max(ys.min() - pad, 0), min(ys.max() + pad + 1, h)
    c0, c1 = max(xs.min() - pad, 0), min(xs.max() + pad + 1, w)
    fits = fit_expedition(box, expedition, mask[r0:r1, c0:c1], seen[r0:r1, c0:c1],
                          grid.x0 + c0 / grid.ppm, grid.y0 + r0 / grid.ppm, grid.ppm,
                          candidates=[equipment], max_sheets=1)
    if not fits or fits[0].score < MIN_FIT:
        return None
    pose = fits[0].pose
    return Fit(polish(box, SheetPose(expedition, equipment, pose.x, pose.y, pose.angle_deg), mask, seen, grid),
               float(fits[0].score))


def _rotation(deg: float) -> np.ndarray:
    a = np.radians(deg)
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def polish(box, pose: SheetPose, mask: np.ndarray, seen: np.ndarray, grid: Grid) -> SheetPose:
    """The pose nearby whose outline best matches ``mask`` on the ``seen`` pixels."""
    shape = np.asarray(box.equipment[pose.equipment].shape, float)
    own_centre = shape.mean(0)
    around = outline(box, pose)
    lo = np.maximum(np.floor((around.min(0) - 6 - [grid.x0, grid.y0]) * grid.ppm).astype(int), 0)
    hi = np.minimum(np.ceil((around.max(0) + 6 - [grid.x0, grid.y0]) * grid.ppm).astype(int),
                    [mask.shape[1], mask.shape[0]])
    if np.any(hi - lo < 4):
        return pose
    target = mask[lo[1]:hi[1], lo[0]:hi[0]].astype(np.float32)
    weight = seen[lo[1]:hi[1], lo[0]:hi[0]].astype(np.float32)
    corner_mm = np.array([grid.x0, grid.y0]) + lo / grid.ppm
    canvas = np.zeros(target.shape, np.uint8)

    def cost(p) -> float:
        poly = (shape - own_centre) @ _rotation(p[2]).T + p[:2]
        px = (poly - corner_mm) * grid.ppm - 0.5
        canvas[:] = 0
        cv2.fillPoly(canvas, [np.round(px * 16).astype(np.int32)], 255, lineType=cv2.LINE_AA, shift=4)
        return float((np.abs(canvas.astype(np.float32) / 255.0 - target) * weight).sum())

    # search over (centre x, centre y, angle); the pose's origin is the pointed end, not the centre
    p = np.r_[np.array([pose.x, pose.y]) + own_centre @ _rotation(pose.angle_deg).T, pose.angle_deg]
    best = cost(p)
    for step_mm, step_deg in POLISH_STEPS:
        improved = True
        while improved:
            improved = False
            for d in ((step_mm, 0, 0), (-step_mm, 0, 0), (0, step_mm, 0), (0, -step_mm, 0),
                      (0, 0, step_deg), (0, 0, -step_deg)):
                c = cost(p + d)
                if c < best:
                    p, best, improved = p + np.asarray(d, float), c, True
    x, y = p[:2] - own_centre @ _rotation(p[2]).T
    return SheetPose(pose.expedition, pose.equipment, round(float(x), 3), round(float(y), 3),
                     round(float(p[2]) % 360, 3))
