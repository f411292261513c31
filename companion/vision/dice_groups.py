"""Touching dice whose faces run together: share their pips out among several dice.

Used by :mod:`companion.vision.dice` as a last resort for a face region too big for one die when
neither a colour groove nor erosion splits it.
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

from .dice_face_reading import face_px
from .dice_pips import (FaceReading, Pip, _confidence, _consistent, _vacancies_empty, fill_holes,
                        find_pips, fit_frame)


def group_pips_into_dice(part: np.ndarray, dist: np.ndarray, dice_guess: float,
                         dl: np.ndarray | None = None) -> list[FaceReading]:
    """Touching dice whose faces run together (same colour, no visible groove): share the pips
    out among ``k`` dice (k-means on their centres, k near the region's area in dice), and keep the
    sharing only if every group is a clean layout, all of one size, with plain face where the
    layout has no pip. Returns [] when no sharing is clean."""
    filled = fill_holes(part)
    pips = _consistent(find_pips(filled, part, dist, float(face_px()), dl))
    if len(pips) < 2:
        return []
    pts = np.array([[p.x, p.y] for p in pips], np.float32)
    k0 = max(2, int(round(dice_guess)))
    # k-means settles on the most compact sharing, which for dice side by side can mix their
    # pips (a two's far-apart pips join a neighbour's); other starts find other sharings, and only
    # a sharing where every group is a clean layout of one size is kept
    tried: set[tuple[int, ...]] = set()
    for k in (k0, k0 + 1, k0 - 1):
        if not 2 <= k <= len(pips):
            continue
        for start in range(GROUPING_STARTS):
            cv2.setRNGSeed(7 + start)
            first = start == 0
            _, lab, _ = cv2.kmeans(pts, k, None, (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.1),
                                   6 if first else 1, cv2.KMEANS_PP_CENTERS if first else cv2.KMEANS_RANDOM_CENTERS)
            lab = lab.ravel()
            groups = [[pips[i] for i in range(len(pips)) if lab[i] == g] for g in range(k)]
            key = tuple(sorted(tuple(sorted(id(p) for p in g)) for g in groups))
            if key in tried:
                continue
            tried.add(key)
            readings = _read_groups(groups, dist, filled)
            if readings:
                return readings
    return []


GROUPING_STARTS = 8  # k-means starts per number of dice


def _read_groups(groups: list[list[Pip]], dist: np.ndarray, filled: np.ndarray) -> list[FaceReading]:
    """Read each group of pips as a die; groups that are no clean layout are unreadable dice. The
    sharing is kept only if most groups read and they agree on the dice's size."""
    fits: list = []
    bad: list[list[Pip]] = []
    everyone = list(groups)
    for g in groups:
        if len(g) == 1:
            fits.append(None)
            continue
        value, rms, beta, alpha = fit_frame([complex(p.x, p.y) for p in g])
        if value is None or rms > (0.08 if value in (2, 3) else 0.12):
            bad.append(g)
            continue
        fits.append((value, rms, beta, alpha))
    groups = [g for g in groups if not any(g is b for b in bad)]
    if len(bad) * 2 > len(groups) + len(bad):
        return []
    halves = [abs(f[3]) for f in fits if f is not None and f[0] >= 4] or \
        [abs(f[3]) for f in fits if f is not None]
    if not halves:
        return []
    half = float(np.median(halves))
    read_halves = [abs(f[3]) for f in fits if f is not None]
    if max(read_halves) > 1.3 * min(read_halves):
        return []  # touching dice are seen at one size: groups of unlike sizes mix their pips
    # the crop was scaled for dice about FACE_PX across; a part of a die read as one (a column of a
    # six as a three) fits a face 0.71 times as big
    if not 0.78 <= 2 * half / face_px() <= 1.5:
        return []
    out = []
    for g, f in zip(groups, fits):
        if f is None:  # a lone pip: maybe a one, maybe what is left of a die; not read here
            p = g[0]
            out.append(FaceReading(None, (p.x, p.y), 0.0, 2 * half, "lone pip among touching dice", None))
            continue
        value, rms, beta, alpha = f
        if not 0.75 <= abs(alpha) / half <= 1.33:
            return []
        pip_r = math.sqrt(float(np.median([p.area for p in g])) / math.pi)
        if not 0.08 <= pip_r / abs(alpha) <= 0.35 or not _vacancies_empty(dist, beta, alpha, value, g):
            return []
        if any(_inside_face(p, beta, alpha) for other in everyone if other is not g for p in other):
            return []  # dice do not overlap: another die's pip on this face means the sharing is wrong
        out.append(FaceReading(value, (beta.real, beta.imag), round(0.9 * _confidence(rms / 0.16, g), 3),
                               2 * abs(alpha), "", None))
    for g in bad:
        cx, cy = float(np.mean([p.x for p in g])), float(np.mean([p.y for p in g]))
        out.append(FaceReading(None, (cx, cy), 0.0, 2 * half, f"{len(g)} pips off layout (touching dice)", None))
    # dice do not overlap: centres at least a die's side apart
    for a, b in itertools.combinations(out, 2):
        if math.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]) < 1.6 * half:
            return []
    return out


def _inside_face(p: Pip, beta: complex, alpha: complex) -> bool:
    """Does pip ``p`` lie on the face fitted as ``beta + alpha * layout`` (edges at +-1)?"""
    u = (complex(p.x, p.y) - beta) / alpha
    return max(abs(u.real), abs(u.imag)) < 0.95
