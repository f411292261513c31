"""The six pip layouts of a die, and fitting observed pip centres to one of them.

A fit is a similarity transform (rotation, scale, shift) found by least squares with complex
numbers, over every pairing of the points to the layout's places.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

# Canonical pip positions, in units of half the face's side.
LAYOUTS: dict[int, np.ndarray] = {
    n: np.array([complex(x, y) for x, y in pts]) for n, pts in {
        1: [(0, 0)],
        2: [(-0.5, -0.5), (0.5, 0.5)],
        3: [(-0.5, -0.5), (0, 0), (0.5, 0.5)],
        4: [(-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)],
        5: [(-0.5, -0.5), (0.5, -0.5), (0, 0), (-0.5, 0.5), (0.5, 0.5)],
        6: [(-0.5, -0.5), (-0.5, 0), (-0.5, 0.5), (0.5, -0.5), (0.5, 0), (0.5, 0.5)],
    }.items()
}
_PERMS = {n: np.array(list(itertools.permutations(range(n)))) for n in range(2, 7)}


def _canon(n: int) -> tuple:
    """What :func:`fit_frame` needs of the layouts of ``n`` pips, whatever the points (made once)."""
    canon = LAYOUTS[n][_PERMS[n]]  # (perms, n): canonical point paired with each observed point
    cc = canon - canon.mean(axis=1, keepdims=True)
    return canon, cc, np.conj(cc), (np.abs(cc) ** 2).sum(axis=1), [c.mean() for c in canon]


_CANON = {n: _canon(n) for n in range(2, 7)}


def fit_layout(points: list[complex]) -> tuple[int | None, float, complex, float]:
    """Which canonical layout ``points`` make: (value, rms error in half-sides, centre, half-side).

    The error is after the best similarity transform (rotation, scale, shift) and the best pairing
    of points to layout positions; a reflection is not needed (every layout is symmetric).
    """
    value, rms, beta, alpha = fit_frame(points)
    return value, rms, beta, abs(alpha)


def fit_frame(points: list[complex]) -> tuple[int | None, float, complex, complex]:
    """As :func:`fit_layout`, with the fitted frame: image point = beta + alpha * layout point."""
    n = len(points)
    if n < 2 or n > 6:
        return None, math.inf, complex(0, 0), complex(0, 0)
    z = np.asarray(points, complex)
    z_mean = z.mean()
    zc = z - z_mean
    canon, cc, conj_cc, denom, canon_means = _CANON[n]
    alpha = (conj_cc * zc).sum(axis=1) / denom  # z ~ alpha * c + beta
    resid = np.abs(zc[None, :] - alpha[:, None] * cc) ** 2
    scale = np.abs(alpha)
    rms = np.sqrt(resid.mean(axis=1)) / np.maximum(scale, 1e-9)
    k = int(np.argmin(rms))
    beta = z_mean - alpha[k] * canon_means[k]
    return n, float(rms[k]), complex(beta), complex(alpha[k])


def square_aspect(points: list[complex]) -> float:
    """Four points taken round their centroid as a quadrilateral: the shorter pair of opposite
    sides' total over the longer pair's (1 for a square, cos(tilt) for a square seen tilted, 0.5
    for two adjacent rows of a six seen face-on)."""
    c = sum(points) / len(points)
    ring = sorted(points, key=lambda z: math.atan2((z - c).imag, (z - c).real))
    sides = [abs(ring[(i + 1) % 4] - ring[i]) for i in range(4)]
    a, b = sides[0] + sides[2], sides[1] + sides[3]
    return min(a, b) / max(a, b, 1e-9)
