"""A face whose two or three pips make no layout of their own: the rest of a larger layout looked
for at its own places.

A marbled die's veins run into its pips and take them into a vein-shaped mark (or cut them off
the face region's edge), so only two or three pips of a four to a six are found; judged alone those
are a part of a face and rightly refused (a two or three read from them would often be wrong). Here
the found pips are instead taken as some of the places of each larger layout in turn, the face is
fitted to them, and each remaining place must hold a pip: a round spot of the found pips' colour,
stepped from the face all round it (a vein crossing a place leaves two sides of its ring as
unlike the face as the spot: elongated, no pip), and every place the layout leaves empty must be
plain face (``dice_marks._vacancies_empty``). The face is read only when exactly one value is so
completed.
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

from .dice_face_reading import FaceReading, face_px
from .dice_layouts import LAYOUTS, fit_frame
from .dice_marks import _GRID, _OCCUPIED, _could_be_more, _vacancies_empty
from .dice_pip_finding import Pip
from .dice_quick_stats import median_of, median_rows

#: the colour distance's weights (L a b), as the face reading's
_WEIGHT = np.array([math.sqrt(0.6), 1.0, 1.0], np.float32)
#: the spot looked at on a place, in pip radii: the pip's core (clear of its anti-aliased rim)
SPOT = 0.6
#: the ring round it, in pip radii: just outside a pip there, short of a six's next pip (0.25 of a
#: side away, pips 0.08-0.1 of a side in radius: 2.5-3 pip radii; the next place's own disc is
#: masked out of the ring as well)
RING = (1.3, 1.9)
#: the ring is cut into this many sectors, each judged alone: a vein through the place fills two
#: opposite ones, a pip none (8: a vein a pip wide covers about one sector on either side)
SECTORS = 8
#: a place holds a pip when its spot's step from the ring round it, towards the found pips' colour,
#: is at least this part of the found pips' own step (their median), on average over the ring ...
PLACE_STEP = 0.5
#: a sector is judged when this share of it lies on the die (inside the face region's hull) ...
SECTOR_KEPT = 0.3
#: ... and a place is judged when this many sectors are (a pip on the face's edge has half its ring
#: on the die; fewer, and a round mark cannot be told from a vein's end)
SECTORS_LEAST = 4
#: ... and in every one of its sectors at least this part (a round mark, not a vein's crossing)
SECTOR_STEP = 0.25
#: ... and the spot's colour is within this part of the pips' colour offset from the pips' colour
#: (a darker vein where the pips are white is a step away from the face, but not towards the pips)
SPOT_COLOUR = 0.5
#: three found pips are taken as three places of a layout when they fit them within this rms (in
#: half-sides: the fit a three must make, ``dice_pips._judge``)
FIT_MOST = 0.1
#: an empty place of the layout is looked at this far round it (half-sides of the fitted face): the
#: frame is a square's, a face seen at a slant is a rhombus, and its pips off the square's places
#: (light 3148: a five's pips 0.45 half-sides off a three's empty corners)
VACANT_REACH = 0.45
#: ... past this many pip radii from the layout's own places (their pips are no vacancy's marks)
VACANT_CLEAR = 1.5
#: ... and is plain when no spot there steps towards the pips' colour by this part of the found
#: pips' own step on average over its ring ...
VACANT_STEP = 0.3
#: ... and by this part in every sector of it (a round mark: a marbled face's lighter or darker
#: vein steps from the face too, but not on all sides; half of a pip's SECTOR_STEP, so a faint pip
#: on an empty place is caught before a faint pip on a place is believed)
VACANT_SECTOR = 0.1
#: a completed face's reading's confidence: set, not varied, under the 0.6 the ring holes' and the
#: doubted-again reads ask of a crop's reading (``dice.HOLE_SURE``, ``dice_doubted_again.AGAIN_SURE``),
#: so a face read partly from places where no pip was found is not taken there as a sure one
CONFIDENCE = 0.5
#: the face completed must be of the crop's die size (FACE_PX): the bounds ``dice_pips`` sets for a
#: two or three judged by its fitted face alone (``ALONE_WITHOUT_REGION``)
SIZE = (0.75, 1.4)


def _pips_terms(filled: np.ndarray, dl: np.ndarray, pips: list[Pip]):
    """What a place is judged against: the found pips' colour step (``towards``), their median
    radius, the face region's hull and their own median step toward that colour; None when the
    pips are too small, of no colour, or show no step of their own."""
    towards = median_rows(np.array([p.colour for p in pips], np.float32))
    pip_r = math.sqrt(median_of([p.area for p in pips]) / math.pi)
    if pip_r < 2 or not np.any(towards):
        return None
    inside = _hull(filled)
    own = median_of([_step(dl, complex(p.x, p.y), pip_r, towards, [], inside)[0] for p in pips])
    if own <= 0:
        return None
    return towards, pip_r, inside, own


def read_missing_pips(filled: np.ndarray, dl: np.ndarray, dist: np.ndarray, pips: list[Pip]) -> FaceReading | None:
    """The value of the one larger layout whose every other place holds a pip, or None."""
    if len(pips) not in (2, 3) or dl is None or dl.ndim != 3:
        return None
    terms = _pips_terms(filled, dl, pips)
    if terms is None:
        return None
    towards, pip_r, inside, own = terms
    found: dict[int, tuple[complex, complex]] = {}
    for value in range(len(pips) + 1, 7):
        frame = _completed(value, pips, filled, inside, dl, dist, pip_r, towards, own)
        if frame is not None:
            found[value] = frame
    if len(found) != 1:
        return None  # (none, or two values completed alike: no reading)
    (value, (beta, alpha)), = found.items()
    full = [_pip_at(beta + alpha * c, pips) for c in LAYOUTS[value]]
    return FaceReading(value, (beta.real, beta.imag), CONFIDENCE, 2 * abs(alpha), "", filled, full)


def _completed(value: int, pips: list[Pip], filled: np.ndarray, inside: np.ndarray, dl: np.ndarray, dist: np.ndarray,
               pip_r: float, towards: np.ndarray, own: float) -> tuple[complex, complex] | None:
    """The frame (image = beta + alpha * layout place) of layout ``value`` taking the found pips as
    some of its places and holding a pip at every other place, or None."""
    z = np.array([complex(p.x, p.y) for p in pips])
    places = LAYOUTS[value]
    h, w = filled.shape
    for chosen in itertools.permutations(range(value), len(pips)):
        c = places[list(chosen)]
        cc, zc = c - c.mean(), z - z.mean()
        alpha = complex((np.conj(cc) * zc).sum() / (np.abs(cc) ** 2).sum())
        beta = complex(z.mean() - alpha * c.mean())
        if abs(alpha) < 1e-6:
            continue
        rms = math.sqrt(float((np.abs(zc - alpha * cc) ** 2).mean())) / abs(alpha)
        if rms > FIT_MOST or not SIZE[0] <= 2 * abs(alpha) / face_px() <= SIZE[1]:
            continue
        if not (0 <= int(beta.real) < w and 0 <= int(beta.imag) < h and filled[int(beta.imag), int(beta.real)]):
            continue  # (the face's centre must lie on the face region)
        rest = [beta + alpha * places[k] for k in range(value) if k not in chosen]
        others = [beta + alpha * q for q in places]
        vacant = [beta + alpha * c for c in _GRID if c not in _OCCUPIED[value] and _could_be_more(value, c)]
        if not all(_on(inside, q) for q in others + vacant):
            continue  # (a place off the face region's hull: the face there is not seen, so not known)
        if all(_holds_a_pip(dl, q, pip_r, towards, own, [o for o in others if o != q], inside) for q in rest) \
                and all(_plain_round(dl, q, abs(alpha), pip_r, towards, own, others, inside) for q in vacant) \
                and _vacancies_empty(dist, beta, alpha, value, pips + [_pip_at(q, pips) for q in rest], dl):
            return beta, alpha
    return None


def _on(inside: np.ndarray, z: complex) -> bool:
    h, w = inside.shape
    x, y = int(round(z.real)), int(round(z.imag))
    return 0 <= x < w and 0 <= y < h and bool(inside[y, x])


def _plain_round(dl: np.ndarray, z: complex, half: float, pip_r: float, towards: np.ndarray, own: float,
                 places: list[complex], inside: np.ndarray) -> bool:
    """Is the face round an empty place plain: no round spot near it (a tilted face's pip lies off
    the place a square frame puts it at) stepped towards the pips' colour?"""
    reach = VACANT_REACH * half
    step = max(1.0, 0.5 * pip_r)
    n = int(reach / step)
    for i in range(-n, n + 1):
        for j in range(-n, n + 1):
            q = z + complex(i * step, j * step)
            if abs(q - z) > reach or any(abs(q - o) < VACANT_CLEAR * pip_r for o in places):
                continue
            if not _on(inside, q):
                continue
            mean, least, _ = _step(dl, q, pip_r, towards, [], inside)
            if mean >= VACANT_STEP * own and least >= VACANT_SECTOR * own:
                return False
    return True


def _hull(filled: np.ndarray) -> np.ndarray:
    """The face region's convex hull (bool): the die's face, its pips cut off the region's edge
    included, the table round the die not."""
    hull = np.zeros_like(filled)
    pts = cv2.findNonZero(filled)
    if pts is not None:
        cv2.fillConvexPoly(hull, cv2.convexHull(pts), 255)
    return hull > 0


def _holds_a_pip(dl: np.ndarray, z: complex, pip_r: float, towards: np.ndarray, own: float,
                 others: list[complex], inside: np.ndarray) -> bool:
    mean, least, spot = _step(dl, z, pip_r, towards, others, inside)
    if mean < PLACE_STEP * own or least < SECTOR_STEP * own:
        return False
    tw = towards * _WEIGHT
    return float(np.linalg.norm((spot - towards) * _WEIGHT)) <= SPOT_COLOUR * float(np.linalg.norm(tw))


def _step(dl: np.ndarray, z: complex, pip_r: float, towards: np.ndarray,
          others: list[complex], inside: np.ndarray) -> tuple[float, float, np.ndarray]:
    """The spot at ``z``'s step from the ring round it towards the pips' colour: over the whole
    ring, the least over its sectors, and the spot's mean colour offset. (0, 0, 0s) off the crop."""
    R = int(math.ceil(RING[1] * pip_r))
    x, y = int(round(z.real)), int(round(z.imag))
    h, w = dl.shape[:2]
    zero = np.zeros(3, np.float32)
    if not (R <= x < w - R and R <= y < h - R):
        return 0.0, 0.0, zero
    win = dl[y - R:y + R + 1, x - R:x + R + 1]
    yy, xx = np.mgrid[-R:R + 1, -R:R + 1].astype(np.float32)
    d = np.hypot(xx, yy)
    whole = (d >= RING[0] * pip_r) & (d <= RING[1] * pip_r)
    ring = whole & inside[y - R:y + R + 1, x - R:x + R + 1]  # (the table past the die's edge is no face)
    for o in others:  # (a neighbouring place's own pip is no part of the face round this one)
        ring &= np.hypot(xx - (o.real - x), yy - (o.imag - y)) > 1.2 * pip_r
    spot_mask = d <= max(1.0, SPOT * pip_r)
    spot = win[spot_mask].mean(axis=0)
    unit = towards * _WEIGHT / max(float(np.linalg.norm(towards * _WEIGHT)), 1e-6)
    sector = ((np.arctan2(yy, xx) + math.pi) / (2 * math.pi) * SECTORS).astype(int) % SECTORS
    kept = [k for k in range(SECTORS) if (ring & (sector == k)).sum() >= SECTOR_KEPT * (whole & (sector == k)).sum()]
    if len(kept) < SECTORS_LEAST:
        return 0.0, 0.0, spot
    mean = float(((spot - win[ring].mean(axis=0)) * _WEIGHT) @ unit)
    steps = [float(((spot - win[ring & (sector == k)].mean(axis=0)) * _WEIGHT) @ unit) for k in kept]
    return mean, min(steps), spot


def _pip_at(z: complex, pips: list[Pip]) -> Pip:
    """A pip at ``z`` like the found ones (for the checks and reports that take a reading's pips)."""
    for p in pips:
        if abs(complex(p.x, p.y) - z) < 1e-6:
            return p
    middle = median_of([q.area for q in pips])
    like = min(pips, key=lambda p: abs(p.area - middle))
    return Pip(z.real, z.imag, like.area, like.circularity, like.contrast, like.fill, like.lighter,
               like.colour, like.aspect, -1, like.minor, like.peak)


def read_no_part(filled: np.ndarray, dl: np.ndarray, dist: np.ndarray, pips: list[Pip], alike: bool) -> FaceReading | None:
    """A two or three refused as perhaps a part of a larger face (a tilted die's side-face pips
    beside it are like its own, or the face region is no clean square), read when that is
    disproved: its own empty places are plain all round, and every larger layout that takes its
    pips in, at the die's size, has a place on the face that is plain all round. ``alike``: the
    pips are alike (``dice_side_faces.pips_alike``), as the refusing branch asks."""
    if len(pips) not in (2, 3) or dl is None or dl.ndim != 3 or not alike:
        return None
    z = [complex(p.x, p.y) for p in pips]
    value, rms, beta, alpha = fit_frame(z)
    if value != len(pips) or rms > PART_FIT_MOST or not SIZE[0] <= 2 * abs(alpha) / face_px() <= SIZE[1]:
        return None
    terms = _pips_terms(filled, dl, pips)
    if terms is None:
        return None
    towards, pip_r, inside, own = terms
    places = [beta + alpha * c for c in LAYOUTS[value]]
    vacant = [beta + alpha * c for c in _GRID if c not in _OCCUPIED[value] and _could_be_more(value, c)]
    if not all(_on(inside, q) and _plain_round(dl, q, abs(alpha), pip_r, towards, own, places, inside)
               for q in vacant):
        return None
    for larger in range(value + 1, 7):
        if not _refuted(larger, pips, inside, dl, pip_r, towards, own):
            return None
    return FaceReading(value, (beta.real, beta.imag), CONFIDENCE, 2 * abs(alpha), "", filled, pips)


#: a two or three is judged so when its pips fit it within this rms (half-sides): ``fit_with_outliers``'
#: bound for a two or three kept from more pips
PART_FIT_MOST = 0.08


def _refuted(value: int, pips: list[Pip], inside: np.ndarray, dl: np.ndarray, pip_r: float,
             towards: np.ndarray, own: float) -> bool:
    """Does every frame of layout ``value`` that takes the pips in, at the die's size, have a place
    on the face that is plain all round (so no such face is there)?"""
    z = np.array([complex(p.x, p.y) for p in pips])
    places = LAYOUTS[value]
    for chosen in itertools.permutations(range(value), len(pips)):
        c = places[list(chosen)]
        cc, zc = c - c.mean(), z - z.mean()
        alpha = complex((np.conj(cc) * zc).sum() / (np.abs(cc) ** 2).sum())
        if abs(alpha) < 1e-6:
            continue
        beta = complex(z.mean() - alpha * c.mean())
        rms = math.sqrt(float((np.abs(zc - alpha * cc) ** 2).mean())) / abs(alpha)
        if rms > FIT_MOST or not SIZE[0] <= 2 * abs(alpha) / face_px() <= SIZE[1]:
            continue
        others = [beta + alpha * q for q in places]
        rest = [beta + alpha * places[k] for k in range(value) if k not in chosen]
        if not any(_on(inside, q) and _plain_round(dl, q, abs(alpha), pip_r, towards, own, others, inside)
                   for q in rest):
            return False
    return True
