"""A corner pip bitten out of the face region's edge: the layout completed by its one missing pip.

Defocus spreads a corner pip into the die's rim, and the rim into the table: the face region (the
pixels of the face's colour) then has a bite in its edge where the pip is, open to the outside,
and the pip finder, which looks inside the region's hull shrunk past the rounded edge, never sees
it. The other pips make no layout (a five's middle and three corners, a six's five pips) and the
face reads nothing. This look fits the pips found to a layout of one pip more with one place left
out; where that place lies on the face region's edge (or past it) and a disc of the pips' own
colour is there, the pip is taken and the completed face judged by every check of the face reader.

Only distinct pips are looked for so (their colour at least :data:`DISTINCT` from the face): a
faint mark at a place on the edge is as often the rim's shading as a pip.
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

from .dice_face_reading import FaceReading
from .dice_layouts import LAYOUTS
from .dice_pip_finding import Pip, _consistent, find_pips

#: the pips found must fit the layout with one place left out at least this well (half-sides, the
#: face reader's own bound for a four to a six)
FIT_RMS = 0.12
#: the pips' colour (Lab offset from the face) must be at least this far from the face: red, white
#: or black pips, not a faint blend (the face reader's own floor for a look by the pips' colour)
DISTINCT = 30.0
#: a pixel of the pips' colour: within this part of the pips' offset from it (the face reader's
#: look by the pips' colour takes 0.5 for coloured pips)
OWN_COLOUR = 0.5
#: the disc at the missing place (the pips' radius) must be at least this much of the pips' colour
#: (a bitten pip is half inside the die at least; the rim or the table hold none of it)
DISC_COVER = 0.5
#: the missing place must be this close to the face region's edge (pip radii from the outside), or
#: outside it: a place deep in the face holds a pip the finder would have seen
AT_THE_EDGE = 1.5


def read_with_a_bitten_pip(face: np.ndarray, filled: np.ndarray, dist: np.ndarray, dl: np.ndarray,
                           judge) -> FaceReading | None:
    """The face read with its one bitten pip added, or None. ``judge``: the face reader's
    ``_judge`` (raw marks, pips, region, dist, dl, centroid, side, extent) -> FaceReading."""
    side = math.sqrt(max(float(cv2.countNonZero(filled)), 1.0))
    raw = find_pips(filled, face, dist, side, dl)
    pips = _consistent(raw)
    if not 3 <= len(pips) <= 5:
        return None
    ref = np.median(np.array([p.colour for p in pips]), axis=0).astype(np.float32)
    n = float(np.linalg.norm(ref))
    if n < DISTINCT:
        return None
    place = _missing_place(pips)
    if place is None:
        return None
    value, spot = place
    r = math.sqrt(float(np.median([p.area for p in pips])) / math.pi)
    if not _at_the_edge(filled, spot, r) or not _of_their_colour(dl, spot, r, ref, n):
        return None
    new = Pip(spot.real, spot.imag, math.pi * r * r, 0.8, float(np.median([p.contrast for p in pips])),
              lighter=float(ref[0]), colour=tuple(float(v) for v in ref), peak=float(np.median([p.peak for p in pips])))
    region = filled.copy()
    cv2.circle(region, (int(round(spot.real)), int(round(spot.imag))), int(math.ceil(r)), 255, -1)
    m = cv2.moments(filled, binaryImage=True)
    centroid = (m["m10"] / m["m00"], m["m01"] / m["m00"]) if m["m00"] else (0.0, 0.0)
    got = judge(raw + [new], pips + [new], region, dist, dl, centroid, side, region)
    return got if got.value == value else None


def _gapped(n: int) -> list[tuple[complex, np.ndarray, np.ndarray, np.ndarray]]:
    """For each place of the layout of ``n + 1`` pips: (the place, and over every pairing of ``n``
    points to the other places: those places, centred, and their means), as fit_frame's (made once)."""
    if n not in _GAPPED:
        out = []
        full = LAYOUTS[n + 1]
        for k, gap in enumerate(full):
            rest = np.array([c for i, c in enumerate(full) if i != k])
            canon = rest[np.array(list(itertools.permutations(range(n))))]
            means = canon.mean(axis=1)
            out.append((complex(gap), canon - means[:, None], means, (np.abs(canon - means[:, None]) ** 2).sum(axis=1)))
        _GAPPED[n] = out
    return _GAPPED[n]


_GAPPED: dict = {}


def _missing_place(pips: list[Pip]) -> tuple[int, complex] | None:
    """(value, image point) of the one place a layout of ``len(pips) + 1`` leaves empty when the
    pips fit the rest of it within FIT_RMS; None when none fits, or two places fit."""
    z = np.array([complex(p.x, p.y) for p in pips])
    zc = z - z.mean()
    fits = []
    for gap, cc, means, denom in _gapped(len(pips)):
        alpha = (np.conj(cc) * zc).sum(axis=1) / denom  # (every pairing at once, as fit_frame)
        scale = np.maximum(np.abs(alpha), 1e-9)
        rms = np.sqrt((np.abs(zc[None, :] - alpha[:, None] * cc) ** 2).mean(axis=1)) / scale
        for j in np.nonzero(rms <= FIT_RMS)[0]:
            beta = z.mean() - alpha[j] * means[j]
            fits.append((float(rms[j]), complex(beta + alpha[j] * gap), float(scale[j])))
    if not fits:
        return None
    fits.sort(key=lambda f: f[0])
    _, best, half = fits[0]
    # (a layout is symmetric: one gap fits under several pairings; two gaps apart are two readings)
    if any(abs(f[1] - best) > 0.5 * half for f in fits[1:]):
        return None
    return len(pips) + 1, best


def _at_the_edge(filled: np.ndarray, spot: complex, r: float) -> bool:
    h, w = filled.shape
    x, y = int(round(spot.real)), int(round(spot.imag))
    if not (0 <= x < w and 0 <= y < h):
        return False
    dt = cv2.distanceTransform(cv2.copyMakeBorder(filled, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0), cv2.DIST_L2, 3)
    return float(dt[y + 1, x + 1]) <= AT_THE_EDGE * r


def _of_their_colour(dl: np.ndarray, spot: complex, r: float, ref: np.ndarray, n: float) -> bool:
    h, w = dl.shape[:2]
    yy, xx = np.ogrid[:h, :w]
    disc = (xx - spot.real) ** 2 + (yy - spot.imag) ** 2 <= r * r
    if not disc.any():
        return False
    close = np.sqrt(((dl[disc] - ref) ** 2).sum(axis=1)) < OWN_COLOUR * n
    return float(close.mean()) >= DISC_COVER
