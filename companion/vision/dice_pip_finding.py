"""Finding a face's pips: the marks in a face region that are not face colour, measured (size,
roundness, squeeze and its direction, contrast, colour) for the layout tests of :mod:`.dice_pips`.

Works on a crop normalised so the die is about ``FACE_PX`` pixels across.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from .dice_quick_stats import mean_px, median_and_p95_px, median_of, median_rows, percentile_of


@dataclass
class Pip:
    x: float
    y: float
    area: float
    circularity: float
    contrast: float
    fill: float = 1.0  # mean over 95th percentile of the colour distance inside: low for soft glare
    lighter: float = 0.0  # the pip's lightness minus the face's (Lab L): pips and glare differ in sign
    colour: tuple[float, float, float] = (0.0, 0.0, 0.0)  # the pip's Lab colour minus the face's
    aspect: float = 1.0  # the fitted ellipse's long over short axis
    piece_of: int = -1  # for a piece of a blob split at its necks: the blob's number
    minor: float = 0.0  # direction (radians) of the fitted ellipse's short axis
    peak: float = 0.0  # the 95th percentile of the colour distance inside: a pip cut by the face's edge keeps it


def face_hull(face: np.ndarray) -> np.ndarray:
    """The convex hull of the face region's largest part, shrunk past the die's rounded edge."""
    cnts, _ = cv2.findContours(face, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = np.zeros_like(face)
    if not cnts:
        return hull
    c = max(cnts, key=cv2.contourArea)
    k = max(3, int(0.06 * math.sqrt(max(cv2.contourArea(c), 1.0)))) | 1
    pts = cv2.convexHull(c)
    if HULL_ERODED_IN_ITS_BOX:
        # the hull is nothing outside its box: the erosion is that of the box padded by more than
        # the kernel's reach (where the pad is clipped at the crop's edge, the crop's edge is the
        # box's, as it was the whole crop's). Pixel for pixel the same mask.
        H, W = face.shape[:2]
        x, y, w, h = cv2.boundingRect(pts)
        p = k // 2 + 1
        x0, y0, x1, y1 = max(0, x - p), max(0, y - p), min(W, x + w + p), min(H, y + h + p)
        box = np.zeros((y1 - y0, x1 - x0), face.dtype)
        cv2.fillConvexPoly(box, pts - np.array([x0, y0], pts.dtype), 255)
        hull[y0:y1, x0:x1] = cv2.erode(box, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        return hull
    cv2.fillConvexPoly(hull, pts, 255)
    return cv2.erode(hull, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))


#: face_hull erodes the hull in its own padded box, not over the whole crop: the same mask. A crop
#: many dice across (a blob of the table round a light die, read at a small die's guess: light 3563,
#: 3267, 3244 crops of 1,360-2,176 px a side) took most of a minute's CPU in this erosion alone, 8,000
#: calls each over the whole crop for the faces of table read there. False: the whole crop, the old way.
#: OFF (session 40, h6): the same readings, but no CPU saved on the slow scenes -- there the hulls are
#: the table's faces, as large as the crop, so the box is the crop (light 3563 83 s with it, 87 without)
HULL_ERODED_IN_ITS_BOX = False


def find_pips(face_filled: np.ndarray, face: np.ndarray, dist: np.ndarray, side: float,
              dl: np.ndarray | None = None) -> list[Pip]:
    """Pips: what is not face colour inside the face's hull, round and of a size that fits the face.

    Taking the hull (not only holes the face region encloses) keeps a pip whose ring of face
    colour is broken at the die's edge.
    """
    holes = cv2.bitwise_and(cv2.bitwise_or(face_filled, face_hull(face)), cv2.bitwise_not(face))
    holes = cv2.morphologyEx(holes, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    n, labels, stats, cents = cv2.connectedComponentsWithStats(holes, 8)
    area_face = side * side
    pips = []
    for i in range(1, n):
        a = float(stats[i, cv2.CC_STAT_AREA])
        if not 0.003 * area_face <= a <= 0.35 * area_face:
            continue
        box = (slice(stats[i, 1], stats[i, 1] + stats[i, 3]), slice(stats[i, 0], stats[i, 0] + stats[i, 2]))
        own = labels[box] == i  # (the blob in its own box: a mask of the whole crop per blob cost a quarter of a read)
        blob = own.astype(np.uint8)
        contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        if not contours:
            continue
        c = max(contours, key=cv2.contourArea)
        per = cv2.arcLength(c, True)
        circ = 4 * math.pi * a / max(per * per, 1e-6)
        # (a big ace, up to a third of the face across, is a very round blob; other pips are smaller)
        # each measure is taken only where it can decide or be kept: the ellipse (a tenth of a
        # millisecond) for a blob round and small enough to be a pip, the colour medians for a pip
        # or a chain of pips -- the same pips as measuring every blob, for about half of this loop
        roundish = circ >= 0.5 and (a <= 0.1 * area_face or (a <= 0.18 * area_face and circ >= 0.75))
        splittable = a >= 0.016 * area_face
        if not roundish and not splittable:
            continue  # (neither a pip nor a chain of pips, whatever it measures)
        if roundish and len(c) >= 5:
            (_, _), (ea, eb), eang = cv2.fitEllipse(c)
            aspect = max(ea, eb) / max(min(ea, eb), 1e-6)
            minor = math.radians(eang if ea <= eb else eang + 90.0)  # (the first axis is at eang)
        else:
            aspect, minor = 1.0, 0.0
        is_pip = roundish and aspect <= 1.8 and (a <= 0.1 * area_face or aspect <= 1.3)
        if not is_pip and not splittable:
            continue
        inside = dist[box][own]
        contrast, peak = median_and_p95_px(inside)  # (np.median's and np.percentile's, cheaper: dice_quick_stats)
        fill = float(mean_px(inside) / max(peak, 1e-6))
        if is_pip:
            offset = tuple(float(v) for v in median_rows(dl[box][own])) if dl is not None else (0.0, 0.0, 0.0)
            lighter = offset[0]
            pips.append(Pip(float(cents[i, 0]), float(cents[i, 1]), a, circ, contrast, fill, lighter, offset, aspect,
                            minor=minor, peak=peak))
            continue
        # pips that run together (big pips, blur): a chain of round blobs, split at the necks
        for (px, py, pa) in split_touching_pips(blob) if a >= 0.016 * area_face else []:
            # each piece's own contrast: a pip run into a glare spot is two pieces, one faint
            r = max(1, int(math.sqrt(pa / math.pi) * 0.7))
            gx, gy = int(round(stats[i, 0] + px)), int(round(stats[i, 1] + py))
            patch = dist[max(0, gy - r):gy + r + 1, max(0, gx - r):gx + r + 1]
            own_contrast = float(np.median(patch)) if patch.size else contrast
            own = tuple(float(v) for v in np.median(dl[max(0, gy - r):gy + r + 1, max(0, gx - r):gx + r + 1]
                                                   .reshape(-1, 3), axis=0)) if dl is not None else (0.0, 0.0, 0.0)
            pips.append(Pip(stats[i, 0] + px, stats[i, 1] + py, pa, 0.8, own_contrast, fill, own[0], own, 1.0, i,
                            peak=own_contrast))
    return pips


#: split_touching_pips refuses, before its dilation, a blob larger than any chain of pips it could
#: accept (the table's dark patches in a crop many dice across, read as one face's "pips", took 35 s
#: of light 3563's read in that dilation). False: every blob dilated, the old way.
#: OFF (session 40, h6): the same results, but the slow scenes' blobs pass the bound (2,221 dilations
#: still made on light 3563), so no CPU is saved
PIP_CHAINS_BOUNDED = False
#: ... six pips (the most it splits) each at most the blob's largest inscribed radius, times 1.6 (its
#: area-to-circles bound): the same test's bound, so the same results
CHAIN_MOST = 6 * 1.6


def split_touching_pips(blob: np.ndarray) -> list[tuple[float, float, float]]:
    """A blob of two to six touching round pips: their centres (x, y) and areas, or [] if it is
    not such a chain (the peaks of its distance transform must be alike and explain its area)."""
    padded = cv2.copyMakeBorder(blob, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    dt = cv2.distanceTransform(padded, cv2.DIST_L2, 5)
    r = float(dt.max())
    if r < 2:
        return []
    if PIP_CHAINS_BOUNDED and cv2.countNonZero(blob) > CHAIN_MOST * math.pi * (r + 0.5) ** 2:
        # more area than CHAIN_MOST circles of the largest radius the blob holds can explain: the
        # test below refuses it whatever its peaks (radii <= r, at most 6 peaks, area at most 1.6
        # times their circles), so the costly dilation (a kernel 1.2 r across) is not made
        return []
    k = max(3, int(r * 1.2)) | 1
    peaks = (dt >= cv2.dilate(dt, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))) & (dt >= 0.7 * r)
    n, lab, st, cen = cv2.connectedComponentsWithStats(peaks.astype(np.uint8), 8)
    if not 2 <= n - 1 <= 6:
        return []
    centres = [(float(cen[j, 0]) - 1, float(cen[j, 1]) - 1) for j in range(1, n)]
    radii = [float(dt[int(round(cy)) + 1, int(round(cx)) + 1]) for cx, cy in centres]
    for a_, b_ in itertools.combinations(range(len(centres)), 2):
        if math.dist(centres[a_], centres[b_]) < 1.5 * r:
            return []
    area = float(cv2.countNonZero(blob))
    circles = sum(math.pi * (rr + 0.5) ** 2 for rr in radii)
    if not 0.75 <= area / max(circles, 1e-6) <= 1.6 or min(radii) < 0.7 * r:
        return []
    each = area / len(centres)
    return [(cx, cy, each) for cx, cy in centres]


def _consistent(pips: list[Pip]) -> list[Pip]:
    """Drop pips whose size or contrast is far from the others' (glare, marbling, a stray hole)."""
    if len(pips) <= 1:
        return pips
    # a pip run into a glare spot splits into two pieces, the glare's the fainter: it is no pip
    pieces: dict[int, float] = {}
    for p in pips:
        if p.piece_of >= 0:
            pieces[p.piece_of] = max(pieces.get(p.piece_of, 0.0), p.contrast)
    pips = [p for p in pips if p.piece_of < 0 or p.contrast >= 0.75 * pieces[p.piece_of]]
    if len(pips) <= 1:
        return pips
    if sum(p.lighter < -5.0 for p in pips) > sum(p.lighter > 5.0 for p in pips):
        pips = [p for p in pips if p.lighter < 5.0] or pips  # dark pips: lighter blobs are glare
    biggest = max(p.area for p in pips)
    med = median_of([p.area for p in pips if p.area >= 0.3 * biggest])
    pips = [p for p in pips if 0.4 * med <= p.area <= 2.5 * med]
    if len(pips) == 2:
        # a pip and a glare spot (lighter than the face, and far fainter than the pip): the spot
        # goes, and the pip is read as a lone pip, which must then sit in the face's middle
        faint, strong = sorted(pips, key=lambda p: p.contrast)
        if faint.contrast < 0.5 * strong.contrast and faint.lighter > 5.0:
            return [strong]
    if len(pips) <= 2:
        return pips
    # the die's pips are darker than its face or lighter: glare is always lighter
    polarity = float(np.sum([p.contrast * np.sign(p.lighter) for p in pips]))
    if polarity < 0:  # dark pips: a lighter blob is glare; a dimmed pip is still a pip
        pips = [p for p in pips if p.lighter < 5.0]
        floor = 0.4
    else:
        floor = 0.65
    if len(pips) <= 2:
        return pips
    con = percentile_of([p.contrast for p in pips], 75)
    pips = [p for p in pips if p.contrast >= floor * con]
    if len(pips) <= 2:
        return pips
    # the pips of one face are alike in shape, even blurred: a much less round blob among round
    # ones is a side face's foreshortened pip (or a streak of glare), not one of this face's
    roundest = percentile_of([p.circularity for p in pips], 75)
    pips = [p for p in pips if p.circularity >= min(0.65, 0.65 * roundest)]
    if len(pips) <= 2:
        return pips
    # pips are painted alike: a blob of another colour (white glare among red pips) is dropped
    # (by the direction of the colour step from the face, so a faint or blurred pip still agrees)
    ref = np.median(np.array([p.colour for p in pips]), axis=0)
    ref_n = float(np.linalg.norm(ref))
    if ref_n < 20:
        return pips

    def agrees(p: Pip) -> bool:
        v = np.array(p.colour)
        n = float(np.linalg.norm(v))
        return n > 0 and float(v @ ref) / (n * ref_n) >= 0.8

    near = [p for p in pips if agrees(p)]
    return near if len(near) >= 2 else pips
