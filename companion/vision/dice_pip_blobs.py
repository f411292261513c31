"""A last look at a face that read nothing: its pips as blobs of the lightness, at the blur's scale.

The reader's first looks find pips as holes in a region of the face's colour. Defocus and motion
blur spread a pip into the face round it until it is only faintly unlike it, and shading across a
blurred face (or the glow of a translucent die) is then as unlike the face colour as the pips are:
no threshold on the colour distance keeps the pips and drops the shading. A blob detector does not
need one. The determinant of the Hessian of the lightness, normalised for scale, peaks at round
marks of the scale it is taken at, whatever the light level round them, and stays low along an edge
or a ridge (a die's outline, a marbling vein), whose curvature is one-sided. Taken at a few scales
from a sharp pip to a blurred one, the strongest response at each point gives its mark's strength
at its own blur.

A pip is a blob with the face all round it: a die's corner is a blob too, but with the table round
most of it (:func:`_ringed`). The pips are then the strongest such blobs of one polarity (all
darker or all lighter than the face), alike in strength and scale and clearly stronger than any
other blob on or beside the face (a translucent die's far pips and a side face's squeezed pips are
fainter, marbling fainter and not round): the strongest ``n`` that fit a layout of ``n``, with no
mark on a place where a larger value has a pip, and a two's or three's line on the diagonal of
the die's outline (:func:`_along_a_diagonal`). Such a reading is given a low confidence, under
every first look's. Ones are not read: a lone blob is too often a die's only strong pip.

Two kinds of blob are set aside on the way: a blob squeezed far more than the others (a side
face's pip joined to the region) is no candidate pip, and a blob by the face's rim, on no pip
place and without face all round it (the lit rounded edge beside a corner pip), competes with no
pip.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .dice_face_reading import FACE_PX, face_px
from .dice_layouts import fit_frame
from .dice_marks import _PLACES, _could_be_more

#: scales (Gaussian sigma, crop pixels, the die about FACE_PX = 96 across) a pip is looked for at:
#: a sharp pip of radius 4-10 px peaks at sigma = r / sqrt 2 (3-7); blur adds in quadrature
SCALES = (2.8, 4.0, 5.6, 7.8)
GAP = 1.8  # the weakest pip is at least this many times the strongest blob that is no pip
ALIKE = 0.45  # ... and at least this part of the strongest pip (one face's pips are painted alike)
VACANT = 0.3  # a blob on an empty place of the layout, this part of the pips' strength, is a doubt
FIT_RMS = 0.1  # the layout's fit error (half-sides), tighter than the first look's (0.16)
#: the face fitted to the pips, in FACE_PX (the crop is scaled to make a die FACE_PX across from
#: its blob, measured 0.6-1.2 of the die): a face far outside is some other pattern
FACE_RANGE = (0.5, 1.35)
#: ... for a two or three, which a part of a larger face makes too (a five's corner and middle fit
#: a face half the die's, a six's column one 0.71 of it): only about the die's own size
PART_RANGE = (0.75, 1.35)
#: a blob's strength over the noise of the response in the face (its median absolute value)
OVER_NOISE = 6.0


@dataclass
class Blob:
    x: float
    y: float
    strength: float  # scale-normalised sqrt(det Hessian), lightness units
    sigma: float  # the scale it peaked at
    darker: bool
    elongation: float = 1.0  # the Hessian's larger over smaller curvature: 1 for a round mark
    ringed: bool = True  # the same surface all round it (see :func:`_ringed`)
    inside: bool = True  # in the face region looked at


def blob_response(light: np.ndarray, scales=SCALES) -> tuple[np.ndarray, np.ndarray, list]:
    """Per pixel: the strongest scale-normalised blob response over ``scales`` and the index of the
    scale it came at; and per scale the Hessian (xx, yy, xy), for the blobs' sign and shape. The
    response is sqrt(det H) * sigma^2, in the lightness's own units (a disc of contrast c blurred
    to the scale gives about c / 4)."""
    responses, hessians = [], []
    for s in scales:
        g = cv2.GaussianBlur(light, (0, 0), s)
        xx = cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=3, scale=0.25)  # (/4: the 3x3 kernel's weight)
        yy = cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=3, scale=0.25)
        xy = cv2.Sobel(g, cv2.CV_32F, 1, 1, ksize=3, scale=0.25)
        det = xx * yy - xy * xy
        responses.append(np.sqrt(np.clip(det, 0, None)) * (s * s))  # (det < 0: a saddle or an edge: no blob)
        hessians.append((xx, yy, xy))
    stack = np.stack(responses)
    which = stack.argmax(axis=0)
    return np.take_along_axis(stack, which[None], axis=0)[0], which, hessians


def _scales() -> tuple[float, ...]:
    """SCALES for the face size the read on this thread works at (they are made for FACE_PX)."""
    px = face_px()
    return SCALES if px == FACE_PX else tuple(s * (px / FACE_PX) for s in SCALES)


SHRINK = 2  # the response is taken at half the crop's scale: a pip is 3 or more pixels there too
MOST_BLOBS = 24  # the strongest maxima kept (a face's pips, its neighbours', marbling, texture)


def find_blobs(light: np.ndarray, region: np.ndarray) -> tuple[list[Blob], float]:
    """The blobs (local maxima of the response) round ``region`` (uint8: the face's region, with a
    margin for the marks beside it), strongest first, marked inside the region or not, and the
    noise level of the response in the region."""
    ys, xs = np.nonzero(region)
    if len(xs) == 0:
        return [], 0.0
    scales = _scales()
    h, w = light.shape
    m = int(4 * scales[-1])
    x0, y0 = max(0, int(xs.min()) - m), max(0, int(ys.min()) - m)
    x1, y1 = min(w, int(xs.max()) + m + 1), min(h, int(ys.max()) + m + 1)
    sw, sh = (x1 - x0) // SHRINK, (y1 - y0) // SHRINK
    if sw < 8 or sh < 8:
        return [], 0.0
    small = cv2.resize(light[y0:y0 + sh * SHRINK, x0:x0 + sw * SHRINK], (sw, sh), interpolation=cv2.INTER_AREA)
    inside = cv2.resize(region[y0:y0 + sh * SHRINK, x0:x0 + sw * SHRINK], (sw, sh), interpolation=cv2.INTER_NEAREST) > 0
    if not inside.any():
        return [], 0.0
    resp, which, hessians = blob_response(small, [sg / SHRINK for sg in scales])
    noise = float(np.median(resp[inside])) + 1e-3
    peak = (resp >= cv2.dilate(resp, np.ones((3, 3), np.uint8))) & (resp > 2.0 * noise)
    py, px = np.nonzero(peak)
    order = np.argsort(-resp[py, px])[:MOST_BLOBS]
    blobs = []
    for y, x in zip(py[order], px[order]):
        k = int(which[y, x])
        xx, yy, xy = (float(h[y, x]) for h in hessians[k])
        trace = xx + yy  # (positive: a minimum, a dark blob)
        half, dev = 0.5 * abs(trace), math.sqrt(0.25 * (xx - yy) ** 2 + xy * xy)
        elong = (half + dev) / max(half - dev, 1e-6)
        blobs.append(Blob(x0 + (x + 0.5) * SHRINK - 0.5, y0 + (y + 0.5) * SHRINK - 0.5, float(resp[y, x]),
                          scales[k], trace > 0, elong, inside=bool(inside[y, x])))
    # one blob per mark: a weaker maximum within a scale of a stronger one is the same mark
    kept: list[Blob] = []
    for b in blobs:
        if all(math.hypot(b.x - k.x, b.y - k.y) > 1.5 * max(b.sigma, k.sigma) for k in kept):
            kept.append(b)
    for b in kept:  # (only a blob that may be a pip is looked round: the ring costs)
        b.ringed = b.inside and b.elongation <= ELONGATED and b.strength >= OVER_NOISE * noise and _ringed(light, b)
    return kept, noise


RING = 1.8  # sigmas: the ring round a blob's middle where the face round a pip is looked at
RING_EVEN = 0.6  # the ring's spread (15th to 85th percentile) is under this part of the mark's step
_RING_DIRS = np.exp(1j * np.linspace(0, 2 * np.pi, 24, endpoint=False))


def _ringed(light: np.ndarray, b: Blob) -> bool:
    """Is the blob a mark with the same surface all round it, as a pip has its face? A die's
    corner, a blob too to the detector, has the table round three quarters of it and the die on the
    rest; a pip's ring varies only by the face's shading and the blur of the pips beside it."""
    h, w = light.shape
    rho = RING * b.sigma + 1.0
    pts = complex(b.x, b.y) + rho * _RING_DIRS
    xs, ys = np.round(pts.real).astype(int), np.round(pts.imag).astype(int)
    if xs.min() < 0 or ys.min() < 0 or xs.max() >= w or ys.max() >= h:
        return False
    ring = np.sort(light[ys, xs])
    r0 = max(1, int(round(0.5 * b.sigma)))
    x, y = int(round(b.x)), int(round(b.y))
    centre = float(light[max(0, y - r0):y + r0 + 1, max(0, x - r0):x + r0 + 1].mean())
    n = len(ring)
    lo, med, hi = float(ring[round(0.15 * (n - 1))]), float(ring[n // 2]), float(ring[round(0.85 * (n - 1))])
    step = (med - centre) if b.darker else (centre - med)
    return step > 0 and hi - lo < RING_EVEN * step


@dataclass
class BlobReading:
    value: int
    center: tuple[float, float]
    side: float
    strength: float  # the weakest pip over the strongest blob that is no pip


def read_blobs(light: np.ndarray, region: np.ndarray, face_px: float) -> BlobReading | None:
    """The value the strongest blobs in ``region`` make, or None when no clean layout stands out.

    ``light`` is the crop's lightness; ``face_px`` the crop's die size. Ones are not read here: a
    lone blob is as often a part of something else (a pip of a die whose other pips are fainter)."""
    blobs, noise = find_blobs(light, region)
    for darker in (True, False):
        got = _read_polarity([b for b in blobs if b.darker == darker], blobs, noise, light, face_px)
        if got is not None:
            return got
    return None


ELONGATED = 2.5  # a pip's curvatures differ less than this (a side face's squeezed pip: more)
SIZES_ALIKE = 1.5  # one face's pips peak at scales this far apart at most (the next scale up: 1.4)
REACH = 1.6  # half-sides (Chebyshev, fitted frame; the face's edges at 1): blobs this near compete


def _read_polarity(blobs: list[Blob], every: list[Blob], noise: float, light: np.ndarray,
                   face_px: float) -> BlobReading | None:
    """The strongest ``n`` pip-like blobs (ringed, inside, round) that make a layout of ``n``,
    stand clear of every other blob of their polarity near the fitted face, and leave its empty
    places plain."""
    pipish = [b for b in blobs if b.ringed]  # (inside, round and strong as well: see find_blobs)
    if SQUEEZED_SKIPPED and len(pipish) >= 3:
        # a side face's pip joined to the face region is squeezed by the slant, the top face's are
        # not (motion blur stretches all alike): it is no pip of the face, only a mark beside it
        typical = float(np.median([b.elongation for b in pipish[:6]]))
        pipish = [b for b in pipish if b.elongation <= SQUEEZED * max(typical, 1.2)]
    got = _strongest_layout(pipish, blobs, every, noise, light, face_px)
    if got is None and UNRINGED_PIP_JOINS and len(pipish) >= UNRINGED_WITH:
        # a pip whose ring is broken (a marbling vein across it, the face's shaded rim beside a
        # corner pip) is no ringed blob; as strong, round and of the pips' scale, it may complete
        # the layout of the ringed ones: at most UNRINGED_MOST of them, and every check still applies
        round_ = SQUEEZED * max(float(np.median([b.elongation for b in pipish[:6]])), 1.2)
        broken = [b for b in blobs if not b.ringed and b.inside and b.elongation <= min(ELONGATED, round_)
                  and b.strength >= OVER_NOISE * noise]
        candidates = sorted(pipish + broken, key=lambda b: -b.strength)
        got = _strongest_layout(candidates, blobs, every, noise, light, face_px, least=UNRINGED_LEAST_VALUE)
    return got


#: a pip-like blob that fails only the ring test may join the ringed blobs' layout (False: only
#: ringed blobs are pips, the old look) ...
UNRINGED_PIP_JOINS = True
UNRINGED_MOST = 1  # ... one at most
UNRINGED_WITH = 3  # ... with at least this many ringed pips
UNRINGED_LEAST_VALUE = 4  # ... in a layout of at least this value (a two or three of an odd blob is no reading)


def _strongest_layout(pipish: list[Blob], blobs: list[Blob], every: list[Blob], noise: float,
                      light: np.ndarray, face_px: float, least: int = 2) -> BlobReading | None:
    """The strongest ``n`` of ``pipish`` (n from 6 down to ``least``) that make a clean layout of
    ``n`` (see :func:`_read_polarity`), at most UNRINGED_MOST of them unringed."""
    for n in range(min(6, len(pipish)), least - 1, -1):
        pips = pipish[:n]
        if sum(not b.ringed for b in pips) > UNRINGED_MOST:
            continue
        weakest = pips[-1].strength
        if weakest < ALIKE * pips[0].strength:
            continue
        if max(b.sigma for b in pips) > SIZES_ALIKE * min(b.sigma for b in pips):
            continue  # (one face's pips are of one size and one blur)
        value, rms, beta, alpha = fit_frame([complex(b.x, b.y) for b in pips])
        if value is None or rms > FIT_RMS:
            continue
        side = 2 * abs(alpha)
        # (a layout a broken-ringed blob completes is the die's own face, of its size: a part of a
        # larger face, four of a five's pips or a six's, fits a smaller one)
        lo, hi = PART_RANGE if value in (2, 3) or any(not b.ringed for b in pips) else FACE_RANGE
        if not lo <= side / face_px <= hi:
            continue
        others = [b for b in blobs if not any(b is p for p in pips)]
        # every blob on the face competes; beside it, only one as round as the pips (a side face's
        # pips, past the face's edge, are squeezed)
        round_ = SQUEEZED * max(max(b.elongation for b in pips), 1.2)
        near = [b for b in others if not _a_rim_mark(b, beta, alpha) and (
            _chebyshev(b, beta, alpha) <= ON_FACE or (_chebyshev(b, beta, alpha) <= REACH and b.elongation < round_))]
        next_strength = max((b.strength for b in near), default=0.0)
        if next_strength * GAP > weakest:
            continue
        if value in (2, 3) and not _along_a_diagonal(light, pips, beta, alpha):
            continue
        # (on an empty place a mark of either kind is a doubt: glare over a dark pip lifts it
        # toward the face, or past it)
        if not _places_clear([b for b in every if not any(b is p for p in pips)], beta, alpha, value, weakest):
            continue
        return BlobReading(value, (beta.real, beta.imag), side, weakest / max(next_strength, noise))
    return None


def _along_a_diagonal(light: np.ndarray, pips: list[Blob], beta: complex, alpha: complex) -> bool:
    """Do a two's or three's pips run along a diagonal of the die? Any two or three marks fit a
    line (a column of a six, a side face's two pips): the die's outline round the fitted face,
    its edges' direction taken from the lightness gradients in a ring from just inside the face to
    past it, must be square to the face at 45 degrees from the pips' line."""
    h, w = light.shape
    half = abs(alpha)
    r0, r1 = 0.75 * half, 1.5 * half
    x0, x1 = max(0, int(beta.real - r1)), min(w, int(beta.real + r1) + 1)
    y0, y1 = max(0, int(beta.imag - r1)), min(h, int(beta.imag + r1) + 1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return False
    g = cv2.GaussianBlur(light[y0:y1, x0:x1], (0, 0), 1.5)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d = np.hypot(xx - beta.real, yy - beta.imag)
    ring = (d >= r0) & (d <= r1)
    z = (gx + 1j * gy)[ring]
    mag = np.abs(z)
    if mag.sum() < 1e-6:
        return False
    # edges square to each other: the gradient's angle times four is the same for all four sides
    four = (z / np.maximum(mag, 1e-6)) ** 4
    mean = (four * mag).sum() / mag.sum()
    if abs(mean) < EDGE_COHERENCE:
        return False
    edge = np.angle(mean) / 4  # the die's edge normals, mod 90 degrees
    far = max(pips, key=lambda b: abs(complex(b.x, b.y) - beta))
    line = math.atan2(far.y - beta.imag, far.x - beta.real)
    off = math.degrees(line - edge - math.pi / 4) % 90.0
    return min(off, 90.0 - off) < DIAGONAL_SLACK


EDGE_COHERENCE = 0.25  # the gradients round a die agree on square edges at least this much (0..1)
DIAGONAL_SLACK = 15.0  # degrees: a two's or three's line off the die's diagonal by less than this
ON_FACE = 1.05  # half-sides: a blob this near the fitted face's middle is on the face
SQUEEZED = 1.5  # a blob beside the face this much more elongated than the pips is a side face's
SQUEEZED_SKIPPED = True  # such a blob is no candidate pip either (False: the old look)


#: half-sides (Chebyshev) past which a blob on the face is by its rim: a pip place is at 0.5 at most
RIM = 0.65
OFF_PLACE = 0.25  # half-sides: a blob this far from every pip place lies on none
RIM_MARKS_IGNORED = True  # (False: the old test, every blob on the face competes)


def _a_rim_mark(b: Blob, beta: complex, alpha: complex) -> bool:
    """Is the blob a mark of the face's rim, not one a pip could make: by the rim, on no pip
    place, and with something other than face round it (the lit rounded edge beside a corner pip,
    a die's corner)? Such a blob does not compete with the pips; a faint pip of a larger value lies
    on a place, with face all round it."""
    if not RIM_MARKS_IGNORED or b.ringed:
        return False
    u = (complex(b.x, b.y) - beta) / alpha
    if not RIM < max(abs(u.real), abs(u.imag)) <= ON_FACE:
        return False  # (beside the face, a round blob competes: a side face's pip seen head-on)
    return min(abs(u - g) for g in _NINE) > OFF_PLACE


_NINE = [complex(x, y) for x in (-0.5, 0.0, 0.5) for y in (-0.5, 0.0, 0.5)]


def _chebyshev(b: Blob, beta: complex, alpha: complex) -> float:
    u = (complex(b.x, b.y) - beta) / alpha  # (in half-sides: the face's edges at +-1)
    return max(abs(u.real), abs(u.imag))


def _places_clear(others: list[Blob], beta: complex, alpha: complex, value: int, weakest: float) -> bool:
    """No blob of :data:`VACANT` of the pips' strength on a place of the fitted face where a larger
    value has a pip (a five's middle too faint, a six's middle row)."""
    occupied = _PLACES[value][0]
    for b in others:
        if b.strength < VACANT * weakest:
            continue
        u = (complex(b.x, b.y) - beta) / alpha
        g = complex(round(u.real * 2) / 2, round(u.imag * 2) / 2)
        if abs(u - g) < 0.2 and max(abs(g.real), abs(g.imag)) <= 0.5 and g not in occupied and _could_be_more(value, g):
            return False
    return True
