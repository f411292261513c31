"""How soft the printed hex lines are in this photo, so the drawn reference can be softened alike.

Coverage divides the photo by the board drawn from the box profile.  Next to a printed line that
division is right only when the drawing is as soft as the photo: a drawing sharper than the photo
leaves the paper beside each line darker than the drawing says, which reads as a sheet's shade just
where it decides whether a sheet reaches a line.  The camera's optics give one softness, but a
phone adds its own (a sensor smaller than the image, upscaled; noise reduction), and a focus
slightly off adds more: none of it known beforehand.

So the softness is measured: the printed lines' contrast against the paper beside them (the
darkest a line pixel gets against the brightest within 1.5 mm) is matched against the same contrast
of the drawing softened by a range of Gaussians.  Sheets are transparent and multiply line and
paper alike, so the contrast is the same under any sheets; hands and glare flatten lines, so the
median over all line pixels is used (they are the minority, or the photo's coverage is mostly
unknown anyway).
"""

from __future__ import annotations

import cv2
import numpy as np

SIGMAS = np.arange(0.5, 4.01, 0.25)  # work-grid px; the Gaussians the drawing is softened by
CORE = 0.35  # line pixels this dark in the drawing (of the paper's white): the middle of a line
SAMPLE = 7  # every this many line pixels: the median needs no more


def _contrast(grey: np.ndarray, bright: np.ndarray, core_idx: np.ndarray) -> float:
    """Median over the sampled line pixels of 1 - pixel / (brightest within 4 px, ``bright``)."""
    b = bright.reshape(-1)[core_idx].astype(np.float32)
    dark = grey.reshape(-1)[core_idx].astype(np.float32)
    ok = b > 0.15 * (255 if grey.dtype == np.uint8 else 1)  # not under a hand's shadow or off the photo
    if np.count_nonzero(ok) < 50:
        return float("nan")
    return float(np.median(1 - dark[ok] / b[ok]))


def _curve(lay) -> tuple[np.ndarray, np.ndarray]:
    """The drawing's line contrast at every SIGMAS (cached on the layout) and the sampled pixels."""
    got = lay.__dict__.get("_blur_curve")
    if got is None:
        r, g, b = cv2.split(lay.reference)
        grey = (r + g + b) / 3
        core_idx = np.flatnonzero((cv2.min(cv2.min(r, g), b) < CORE).reshape(-1))[::SAMPLE]
        curve = []
        for s in SIGMAS:
            soft = cv2.GaussianBlur(grey, (0, 0), s)
            curve.append(_contrast(soft, cv2.dilate(soft, np.ones((9, 9), np.uint8)), core_idx))
        got = lay.__dict__["_blur_curve"] = (np.array(curve), core_idx)
    return got


def line_sigma(grey: tuple[np.ndarray, np.ndarray], valid: np.ndarray, lay, at_least: float) -> float:
    """The Gaussian (work-grid px, a multiple of 0.25) that softens the drawing's lines to this
    photo's; never below ``at_least`` (what the camera's own scale gives), and that when the lines
    can't be measured.  ``grey``: the photo on the layout's grid as unseen.grey_and_paper gives it
    (its grey, and its brightest within 4 px: 1.3 mm at 3 px/mm)."""
    curve, core_idx = _curve(lay)
    idx = core_idx[valid.reshape(-1)[core_idx]]
    if len(idx) < 50:
        return at_least
    c = _contrast(grey[0], grey[1], idx)
    if not np.isfinite(c):
        return at_least
    # contrast falls as the softening grows: interpolate on the reversed (rising) curve
    s = float(np.interp(c, curve[::-1], SIGMAS[::-1]))
    return max(at_least, round(s * 4) / 4)
