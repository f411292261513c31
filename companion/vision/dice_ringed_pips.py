"""A last look at a blob no look read a value in: its pips found by the ring round each, not by a
face region (a marbled die).

The crop read takes a face region of one colour and its holes for pips; on a marbled die the
veins break that region into pieces (or take the pips in), and no look reads the face ("no pips",
"a die-shaped blob, no face read in it": ray 2082, 2099, 1027, light 3163). A person still sees the
pips at once: each is a round spot unlike the face *all round it*, while a vein, long and thin, is
unlike the face only across it -- along the vein, the ring round a spot on it holds the vein's own
colour. So here a pip is a spot whose colour steps from every one of 8 sectors of the ring round
it (1.3-1.9 of its radius: :mod:`.dice_missing_pips`' ring) by a margin, all in one colour
direction, at some pip radius; the strongest such spots are the pips and must make a layout of
the die's size, with no other such mark on the face.

Nothing here depends on the face region, so it is asked only where every other look at the blob
read nothing (its reports then are all "no pips" or none): no reading another look made changes.
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

from .dice_crop import crop_lab
from .dice_face_reading import FaceReading, face_px
from .dice_layouts import fit_frame
from .dice_marks import _GRID, _OCCUPIED, _could_be_more
from .dice_pip_finding import Pip

#: the colour distance's weights (L a b), as the face reading's (L counts 0.6 in the squared sum)
_WEIGHT = np.array([math.sqrt(0.6), 1.0, 1.0], np.float32)
#: pip radii tried, in FACE_PX (the crop's guessed die side): the renders' pips are 0.08-0.1 of a
#: side in radius (dice_missing_pips' RING comment) and the crop's die is 0.75-1.1 of FACE_PX (a
#: blob holds its die and shadow), so 0.06-0.11; a step of about a pixel at FACE_PX 96
RADII = (0.06, 0.07, 0.08, 0.09, 0.10, 0.11)
#: the spot and the ring, in pip radii (the spot: the pip's core, clear of its anti-aliased rim;
#: the ring: just outside the pip, short of a six's next pip -- dice_missing_pips' SPOT and RING)
SPOT = 0.6
RING = (1.3, 1.9)
SECTORS = 8
#: the least step of a pip from every sector of its ring (weighted Lab units). The face reading's
#: own floor for a face/pip split is 14 (dice_crop's threshold clip); half of it here, where the
#: step is from the ring's mean colour, not the face's (a vein beside the pip in one sector only
#: lowers the mean it is judged on, no sector's own colour) -- set beforehand, not tuned
LEAST_STEP = 7.0
#: pips of one die are alike: the weakest steps this share of the strongest at least (a pip
#: beside a vein loses the sector the vein fills: light 43's six, 33-94) ...
STRONG_SHARE = 0.3
#: ... and of its colour direction (cosine; dice_pip_finding._consistent's 0.8 for pip colours)
SAME_COLOUR = 0.8
#: any mark on the fitted face (inside its square: a face's pips lie within 0.85 half-sides of
#: its middle) that is not one of the layout's pips nor within a pip's ring (RING[1] radii: no room
#: for another pip there, a six's pips lie 2.5-3 radii apart) and steps towards the pips' colour by
#: this share of the weakest pip refuses the face: a pip weakened by a vein is still a pip, a
#: place left empty holds no such mark
MARK_SHARE = 0.5
#: an empty place a larger value would fill must step towards the pips' colour by less than this
#: share of the pips' own median step on average over its ring (a pip beside a vein still steps
#: strongly on average: dice_missing_pips' VACANT_STEP)
VACANT_STEP = 0.3
#: the layout fit: rms in half-sides (dice_pips' 0.1; twos and threes 0.08, as dice_pip_squares'
#: LAYOUT_RMS, a line fits them too easily) and the face's side in FACE_PX (dice_missing_pips'
#: SIZE: the bounds a two judged alone has)
FIT_MOST = {2: 0.08, 3: 0.08, 4: 0.1, 5: 0.1, 6: 0.1}
SIZE = (0.75, 1.4)
#: the values read: 2-6. A one is no layout to fit: a lone round mark is the least evidence of a
#: face (dice_marbled.ONES_READ's reason) and is not read here
VALUES = (2, 3, 4, 5, 6)
#: a reading's confidence: set, not varied, under the 0.6 a hole or doubted die's re-read asks
#: (dice_missing_pips.CONFIDENCE's)
CONFIDENCE = 0.5


def read_ringed_pips(crop: np.ndarray, mask: np.ndarray, **_ignored) -> list[FaceReading]:
    """The face read from its ringed pips in a normalised crop within ``mask``: a list of one
    reading, or none (no layout, or two values' layouts alike)."""
    _, lab = crop_lab(crop)
    w = lab * _WEIGHT
    marks = _marks(w, mask)
    found: dict[int, tuple] = {}
    faces: dict[int, list[list[tuple]]] = {}  # (every set of pips that made a face, by value)
    tried: list[np.ndarray] = []
    for ref in marks[:REFERENCES]:
        u0 = ref[4]
        if ref[2] < LEAST_STEP or any(float(u0 @ t) >= SAME_COLOUR for t in tried):
            continue  # (a colour looked at already)
        tried.append(u0)
        group = [m for m in marks if float(m[4] @ u0) >= SAME_COLOUR and m[2] >= LEAST_STEP][:GROUP_MOST]
        for k in range(2, 7):
            for pips in itertools.combinations(group, k):
                got = _layout(w, mask, marks, list(pips), u0)
                if got is not None:
                    faces.setdefault(got[0], []).append(list(pips))
                if got is not None and (got[0] not in found or got[1] > found[got[0]][1]):
                    found[got[0]] = got
    if len(found) != 1:
        return []  # (none, or two values alike: no reading)
    value, _, beta, alpha, pips = next(iter(found.values()))
    if TWO_FACES_OF_ONE_VALUE_REFUSED and _apart_faces(faces[value]):
        return []  # (two faces of the value on one die: which is its top face is not known)
    made = [Pip(m[0], m[1], math.pi * m[3] ** 2, 1.0, m[2], colour=tuple(float(v) for v in m[5]),
                lighter=float(m[5][0]), peak=m[2]) for m in pips]
    return [FaceReading(value, (beta.real, beta.imag), CONFIDENCE, 2 * abs(alpha), "", None, made)]


#: a value read from two sets of marks with no mark in common is no reading: a die shows one top
#: face, so one of them is a part of something else -- a tilted four's two sides each a two's
#: diagonal on a face 0.7 of the die's (its four a rhombus, fitting no square: development ray 4032's
#: translucent green four, its two pairs each read as a two, and a side face's pair a third), or a
#: side face's pair beside the top face's. Found when the look was asked on pips off layout too
#: (dice.RINGED_PIPS_WHERE_OFF_LAYOUT, session 33). False: the best-stepping set read
TWO_FACES_OF_ONE_VALUE_REFUSED = True


def _apart_faces(faces: list[list[tuple]]) -> bool:
    """Do two of ``faces`` (sets of marks) share no mark?"""
    places = [{(m[0], m[1]) for m in f} for f in faces]
    return any(not (a & b) for a, b in itertools.combinations(places, 2))


#: the strongest marks whose colour directions are looked at in turn (white pips among dark veins:
#: a vein's curl may step more than the pips)
REFERENCES = 3
#: ... and the strongest marks of each colour whose sets of 2-6 are tried as a face's pips
GROUP_MOST = 8


def _layout(w: np.ndarray, mask: np.ndarray, marks: list[tuple], pips: list[tuple], u0: np.ndarray) -> tuple | None:
    """(value, weakest pip's step, beta, alpha, pips) when ``pips`` make a clean face, else None."""
    steps = [m[2] for m in pips]
    if min(steps) < STRONG_SHARE * max(steps):
        return None
    if PIPS_PAINTED_ALIKE and _cores_unlike(pips):
        return None
    value, rms, beta, alpha = fit_frame([complex(m[0], m[1]) for m in pips])
    if value is None or value not in VALUES or rms > FIT_MOST[value] \
            or not SIZE[0] <= 2 * abs(alpha) / face_px() <= SIZE[1]:
        return None
    if PIPS_ROUND and not all(_round_pip(w, m, 2 * abs(alpha)) for m in pips):
        return None
    if FACE_ON_THE_DIE and not _on_the_die(mask, beta, alpha):
        return None
    if _other_marks(marks, pips, beta, alpha, u0, min(steps)):
        return None
    if not _vacancies_plain(w, beta, alpha, value, pips, u0):
        return None
    if PARTS_OF_LARGER_FACES_REFUSED and _part_of_a_larger_face(w, marks, pips, value, u0, min(steps)):
        return None
    return value, min(steps), beta, alpha, pips


def _marks(w: np.ndarray, mask: np.ndarray) -> list[tuple]:
    """Round marks: (x, y, step, radius, unit colour direction, colour offset, spot colour) at the local maxima
    of each radius' least sector step, the best radius kept where several find one."""
    found: list[tuple] = []
    px = face_px()
    h, wd = mask.shape
    for rel in RADII:
        r = rel * px
        least, unit, off, spot = _least_step(w, r)
        R = int(math.ceil(RING[1] * r))
        k = max(3, int(2 * r) | 1)
        peaks = (least >= cv2.dilate(least, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))) & (least > 0)
        peaks[:R, :] = False
        peaks[h - R:, :] = False
        peaks[:, :R] = False
        peaks[:, wd - R:] = False
        peaks &= mask > 0
        # (a mark under MARK_SHARE of the least step a pip may have counts nowhere: left out here,
        # it costs nothing on a textured table's thousands of specks)
        peaks &= least >= MARK_SHARE * LEAST_STEP
        for y, x in zip(*np.nonzero(peaks)):
            found.append((float(x), float(y), float(least[y, x]), r, unit[y, x], off[y, x], spot[y, x]))
    # one mark per place: the strongest of the radii within a radius of one another (looked up in
    # cells of the largest radius: the same marks kept as comparing each with every kept one)
    found.sort(key=lambda m: -m[2])
    cell = max(RADII) * px
    grid: dict[tuple[int, int], list[tuple]] = {}
    kept: list[tuple] = []
    for m in found:
        cx, cy = int(m[0] // cell), int(m[1] // cell)
        near = (o for i in (-1, 0, 1) for j in (-1, 0, 1) for o in grid.get((cx + i, cy + j), ()))
        if all(math.hypot(m[0] - o[0], m[1] - o[1]) > max(m[3], o[3]) for o in near):
            kept.append(m)
            grid.setdefault((cx, cy), []).append(m)
    return kept


def _least_step(w: np.ndarray, r: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per pixel, for a spot of radius ``SPOT * r``: its colour step from the ring round it taken
    along the steps' mean direction, the least over the ring's sectors (negative where a sector
    steps the other way); that direction (unit), the mean step and the spot's colour (weighted Lab)."""
    R = int(math.ceil(RING[1] * r))
    yy, xx = np.mgrid[-R:R + 1, -R:R + 1].astype(np.float32)
    d = np.hypot(xx, yy)
    spot_k = (d <= max(1.0, SPOT * r)).astype(np.float32)
    spot = cv2.filter2D(w, -1, spot_k / spot_k.sum(), borderType=cv2.BORDER_REPLICATE)
    ring = (d >= RING[0] * r) & (d <= RING[1] * r)
    sector = sector_of(yy, xx)
    diffs = []
    for s in range(SECTORS):
        ks = (ring & (sector == s)).astype(np.float32)
        diffs.append(spot - cv2.filter2D(w, -1, ks / max(ks.sum(), 1.0), borderType=cv2.BORDER_REPLICATE))
    mean = sum(diffs) / SECTORS
    norm = np.sqrt((mean * mean).sum(axis=2, keepdims=True))
    unit = mean / np.maximum(norm, 1e-6)
    least = np.min(np.stack([(dd * unit).sum(axis=2) for dd in diffs]), axis=0)
    return least, unit, mean, spot


#: the fitted face lies on the die: its four corners (CORNER of the way out from its middle, clear
#: of the rounded corner and the blob's ragged edge) on the blob's mask. A side face seen edge-on
#: shows its pips as a row of slits that fits a three's diagonal; the three's square then reaches
#: off the die on two corners (pool light 6005: a white one's side face read as a three). OFF: a
#: tilted die's two or three fits a square that reaches past its rhombus of a face (development ray
#: 4361, 4057: right twos and threes lost); PIPS_ROUND refuses the slits themselves (6005 is then
#: not read either)
FACE_ON_THE_DIE = False
CORNER = 0.8


def _on_the_die(mask: np.ndarray, beta: complex, alpha: complex) -> bool:
    h, w = mask.shape
    for c in (1 + 1j, 1 - 1j, -1 + 1j, -1 - 1j):
        z = beta + alpha * c * CORNER
        x, y = int(round(z.real)), int(round(z.imag))
        if not (0 <= x < w and 0 <= y < h and mask[y, x]):
            return False
    return True


#: each pip is a round mark of a pip's size on the fitted face: the pixels round its centre that
#: step from its ring towards its colour by half its own step (its rim: half way between pip and
#: face), taken as one region, are no longer than ROUND_MOST times their width (dice_pip_finding's
#: 1.8 for a pip's fitted ellipse) and PIP_LEAST of the face's side in radius at least (the renders'
#: pips are 0.08-0.1, half of that for a small or blurred one: development ray 4383's motion-blurred
#: four measured 0.049-0.055). A foreshortened pip of a side face seen edge-on is a slit: development
#: ray 4303, two side faces' slits (4.3 and 5.8 times as long as wide) read as a two beside a one;
#: the pips read right measured 1.02-1.71. False: not checked
PIPS_ROUND = True
ROUND_MOST = 1.8
PIP_LEAST = 0.04


def _round_pip(w: np.ndarray, m: tuple, side: float) -> bool:
    cut = _ring_window(w, m[0], m[1], m[3])
    if cut is None:
        return False
    win, d, R = cut
    ring = win[(d >= RING[0] * m[3]) & (d <= RING[1] * m[3])].mean(axis=0)
    along = (win - ring) @ m[4]
    core = float(along[R, R])
    if core <= 0:
        return False
    n, labels = cv2.connectedComponents((along >= 0.5 * core).astype(np.uint8), connectivity=8)
    own = labels == labels[R, R]
    area = float(own.sum())
    if area < math.pi * (PIP_LEAST * side) ** 2:
        return False
    mo = cv2.moments(own.astype(np.uint8), binaryImage=True)
    cov = np.array([[mo["mu20"], mo["mu11"]], [mo["mu11"], mo["mu02"]]]) / max(mo["m00"], 1.0)
    low, high = np.linalg.eigvalsh(cov)
    return math.sqrt(max(high, 0.0) / max(low, 1e-6)) <= ROUND_MOST


#: the pips' cores are of one colour: each within CORE_GAP (weighted Lab) of their median. One
#: die's pips are painted alike and lie under one light on one face; a pip of a tilted die's side
#: face is in shade, darker by dice_side_shade.SHADE_GAP (12 L) at least, and a vein's curl is of
#: the vein's colour (development: ray 1116, a one's white pip and a side face's shaded pip read as a
#: two, cores 43 apart; the right twos and fours read here 4-7). Set at that gap. False: not checked
PIPS_PAINTED_ALIKE = True
CORE_GAP = 12.0


def _cores_unlike(pips: list[tuple]) -> bool:
    """Is a pip's core colour more than CORE_GAP from the pips' median core colour?"""
    cores = np.array([m[6] for m in pips], np.float32)
    middle = np.median(cores, axis=0)
    return bool(np.max(np.linalg.norm(cores - middle, axis=1)) > CORE_GAP)


#: the pips read are no part of a larger face: no set of 1-4 more marks near them (of their colour,
#: stepping MARK_SHARE of the weakest pip, painted like them and round) makes with them a larger
#: value's layout of the die's size (the fit and size bounds of :func:`_layout`). Two pips side by
#: side of a four fit a two's diagonal on a face 0.7 of the die's, centred between them, and every
#: place that smaller face leaves empty is empty: the four's other pair lies beyond it (own renders,
#: marbled seed 39: a webcam's tilted black four read as a two 0.24 sides off; the lead's held-out
#: ray 59995, a marbled four read as a two 0.33 sides off). A die shows one top face: pips that
#: complete a larger face round the read one say the read one is a part. False: not checked
PARTS_OF_LARGER_FACES_REFUSED = True
#: how far from the read face's middle a larger face's pips are looked for (half-sides of the read
#: face: a two read on a face 0.7 of the die's has the four's other pair at 1.4-2 half-sides) and
#: how many of the strongest marks there are tried (a face has at most 6 pips)
LARGER_REACH = 2.5
LARGER_MARKS = 6
#: ... and the larger face's added marks need not measure round: refusing a reading is the safe
#: side, and a pip beside a light vein measures long (its rim region runs into the vein), so a four
#: whose one pip touches a vein was read as the two of its other side's pair (the lead's held-out
#: ray 59995, session 32: the added pip's rim 9.6 px against the others' 5.8-7.7, not round; found
#: there, so not a blind figure). The added marks must still fit the layout at the die's size, be
#: painted like the read pips and step MARK_SHARE of the weakest. False: they must be round
LARGER_FACE_PIPS_ANY_SHAPE = True


def _part_of_a_larger_face(w: np.ndarray, marks: list[tuple], pips: list[tuple], value: int,
                           u0: np.ndarray, weakest: float) -> bool:
    """Do ``pips`` and some marks near them make a larger value's layout, painted alike and round?"""
    if value >= max(VALUES):
        return False
    _, _, beta, alpha = fit_frame([complex(m[0], m[1]) for m in pips])
    r = float(np.median([p[3] for p in pips]))
    near = [m for m in marks
            if not any(math.hypot(m[0] - p[0], m[1] - p[1]) <= RING[1] * r for p in pips)
            and abs(complex(m[0], m[1]) - beta) <= LARGER_REACH * abs(alpha)
            and m[2] * max(float(m[4] @ u0), 0.0) >= MARK_SHARE * weakest][:LARGER_MARKS]
    for k in range(1, max(VALUES) - value + 1):
        for more in itertools.combinations(near, k):
            if _a_larger_face(w, pips + list(more), list(more)):
                return True
    return False


def _a_larger_face(w: np.ndarray, pips: list[tuple], more: list[tuple]) -> bool:
    """Do ``pips`` fit a layout of the die's size, painted alike, the ``more`` of them round?"""
    value, rms, _, alpha = fit_frame([complex(m[0], m[1]) for m in pips])
    if value is None or value not in VALUES or rms > FIT_MOST[value] \
            or not SIZE[0] <= 2 * abs(alpha) / face_px() <= SIZE[1]:
        return False
    if _cores_unlike(pips):
        return False
    return LARGER_FACE_PIPS_ANY_SHAPE or all(_round_pip(w, m, 2 * abs(alpha)) for m in more)


def _other_marks(marks: list[tuple], pips: list[tuple], beta: complex, alpha: complex,
                 u0: np.ndarray, weakest: float) -> bool:
    """Is there a mark on the fitted face, not one of the pips, stepping at MARK_SHARE of the
    weakest pip towards the pips' colour?"""
    reach = 1.0  # (half-sides: the square's edge)
    r = float(np.median([p[3] for p in pips]))
    for m in marks:
        if any(math.hypot(m[0] - p[0], m[1] - p[1]) <= RING[1] * r for p in pips):
            continue  # (a pip itself, or a mark in its ring -- a vein's end against it: no room for a pip)
        q = (complex(m[0], m[1]) - beta) / alpha
        if max(abs(q.real), abs(q.imag)) > reach:
            continue
        if m[2] * max(float(m[4] @ u0), 0.0) >= MARK_SHARE * weakest:
            return True
    return False


def _vacancies_plain(w: np.ndarray, beta: complex, alpha: complex, value: int, pips: list[tuple],
                     u0: np.ndarray) -> bool:
    """Does every place a larger value would fill step towards the pips' colour by under
    VACANT_STEP of the pips' own median mean step (ring mean, not sector least)?"""
    own = float(np.median([_mean_step(w, complex(p[0], p[1]), p[3], u0) or 0.0 for p in pips]))
    if own <= 0:
        return False
    r = float(np.median([p[3] for p in pips]))
    for c in _GRID:
        if c in _OCCUPIED[value] or not _could_be_more(value, c):
            continue
        step = _mean_step(w, beta + alpha * c, r, u0)
        if step is None or step >= VACANT_STEP * own:
            return False  # (a place off the crop is not seen, so not known to be empty)
    return True


def sector_of(yy: np.ndarray, xx: np.ndarray) -> np.ndarray:
    """Which of the ring's SECTORS each offset (``yy``, ``xx``) from the spot's middle lies in."""
    return ((np.arctan2(yy, xx) + math.pi) / (2 * math.pi) * SECTORS).astype(int) % SECTORS


def spot_and_sectors(cut: tuple, r: float) -> tuple[np.ndarray, np.ndarray]:
    """A ring window's (:func:`_ring_window`) spot colour and its ring's SECTORS colours, for a spot
    of radius ``r``: :func:`_least_step` at one place."""
    win, d, R = cut
    yy, xx = np.mgrid[-R:R + 1, -R:R + 1]
    sector = sector_of(yy, xx)
    ring = (d >= RING[0] * r) & (d <= RING[1] * r)
    spot = win[d <= max(1.0, SPOT * r)].mean(axis=0)
    return spot, np.array([win[ring & (sector == s)].mean(axis=0) for s in range(SECTORS)])


def _ring_window(w: np.ndarray, x: float, y: float, r: float) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The square of ``w`` reaching the outer RING round (x, y) for a spot of radius ``r``, each
    pixel's distance from its middle, and its half-width R; None where it would leave the crop."""
    R = int(math.ceil(RING[1] * r))
    x, y = int(round(x)), int(round(y))
    h, wd = w.shape[:2]
    if not (R <= x < wd - R and R <= y < h - R):
        return None
    yy, xx = np.mgrid[-R:R + 1, -R:R + 1].astype(np.float32)
    return w[y - R:y + R + 1, x - R:x + R + 1], np.hypot(xx, yy), R


def _mean_step(w: np.ndarray, z: complex, r: float, u0: np.ndarray) -> float | None:
    """The spot at ``z``'s step from the whole ring round it along ``u0`` (None off the crop)."""
    cut = _ring_window(w, z.real, z.imag, r)
    if cut is None:
        return None
    win, d, _ = cut
    spot = win[d <= max(1.0, SPOT * r)].mean(axis=0)
    ring = win[(d >= RING[0] * r) & (d <= RING[1] * r)].mean(axis=0)
    return float((spot - ring) @ u0)
