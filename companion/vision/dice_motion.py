"""A photo smeared by motion, measured from its pips and undone, so its unread dice can be read.

A pip is a round dark (or light) spot on its face; a camera or a die moving while the shutter is
open smears every pip along one line.  Blurring adds the line's spread to the pip's own: for a
pip's darkness taken as a weight, its second moments grow by ``L**2 / 12`` along the motion and not
across it, whatever the pip's size.  So the pips of the dice already read tell the motion's
direction (they all agree on it) and its length, and a Wiener filter with that line undoes most of
the smear: the dice left unreadable are read again in the sharpened photo and take the values read
there (the dice read stay as they were).

Measured on 80 development scenes smeared by a line of 16 px (most of their dice 30-190 px):
read as smeared 177 of 299 right; the same photos sharpened with the true line 276 -- the ceiling
a measured line can reach (the lead's record, docs/dice-camera.md, thirtieth round).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .dice_pixel_aspect import pip_window

#: the pips' smear directions must agree: this share of the pips measured lies within
#: ``MOTION_TURN_DEG`` of their mean direction (a tilt foreshortens pips toward the photo's middle,
#: round dice in different directions, noise at random; a pip merged with its neighbour in the
#: smear points elsewhere); house values, set on the development scenes smeared by the lead's probe
MOTION_AGREEMENT = 0.6
MOTION_TURN_DEG = 20.0
#: the least smear taken as motion, in pixels and as a share of the median pip's radius (a pip a
#: little out of round is no motion to undo), and the most, in radii (longer: pips merged along
#: the smear measure the pair, not the motion); house values
MOTION_LEAST_PX = 3.0
MOTION_LEAST_RADII = 0.8
MOTION_MOST_RADII = 3.5
#: the least pips measured for a photo's motion
MOTION_LEAST_PIPS = 3
#: the Wiener filter's noise-to-signal ratio (higher: less ringing, less sharpening)
WIENER_NSR = 0.01


@dataclass(frozen=True)
class Motion:
    angle: float  # radians, 0..pi, in image axes (x right, y down)
    length: float  # pixels


def pip_smear(gray: np.ndarray, x: float, y: float, r: float, reach: float) -> tuple[float, float] | None:
    """The smear (angle, length) of the pip at (x, y) of radius ``r`` in ``gray``, from its
    darkness' second moments within ``reach`` of it (None at the photo's edge or without a pip)."""
    R = int(round(r + reach / 2 + 2))
    cut = pip_window(gray, x, y, R)
    if cut is None:
        return None
    win, rim, middle = cut
    weight = np.clip((rim - win) if middle < rim else (win - rim), 0, None)
    peak = float(weight[R, R])
    if peak <= 0:
        return None
    # the pip's own smear: its connected part above a low share of its middle (not a neighbour's)
    _, labels = cv2.connectedComponents((weight > 0.15 * peak).astype(np.uint8))
    if labels[R, R] == 0:
        return None
    m = cv2.moments(np.where(labels == labels[R, R], weight, 0).astype(np.float32))
    if m["m00"] <= 0:
        return None
    cov = np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / m["m00"]
    values, vectors = np.linalg.eigh(cov)
    length = math.sqrt(max(0.0, 12.0 * (values[1] - values[0])))
    return math.atan2(vectors[1, 1], vectors[0, 1]) % math.pi, length


def photo_motion(image: np.ndarray, dice) -> Motion | None:
    """The motion the read dice's pips agree on, or None (too few pips, no agreement, too short)."""
    pips = [(p, d.side_px) for d in dice if d.value is not None and d.pips for p in d.pips]
    if len(pips) < MOTION_LEAST_PIPS:
        return None
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    smears = [s for s in (pip_smear(gray, x, y, r, 0.4 * side) for (x, y, r), side in pips) if s is not None]
    if len(smears) < MOTION_LEAST_PIPS:
        return None
    doubled = np.mean([complex(math.cos(2 * a), math.sin(2 * a)) for a, _ in smears])
    angle = math.atan2(doubled.imag, doubled.real) / 2 % math.pi
    along = [length for a, length in smears if _turn_deg(a, angle) <= MOTION_TURN_DEG]
    if len(along) < max(MOTION_LEAST_PIPS, MOTION_AGREEMENT * len(smears)):
        return None
    length = float(np.median(along))
    radius = float(np.median([r for (_, _, r), _ in pips]))
    if not max(MOTION_LEAST_PX, MOTION_LEAST_RADII * radius) <= length <= MOTION_MOST_RADII * radius:
        return None
    return Motion(angle, length)


def _turn_deg(a: float, b: float) -> float:
    """The angle between two undirected lines, in degrees (0..90)."""
    return abs((math.degrees(a - b) + 90.0) % 180.0 - 90.0)


def line_kernel(motion: Motion) -> np.ndarray:
    """The motion's point spread: a line of its length and angle (anti-aliased), summing to 1."""
    n = max(3, int(math.ceil(motion.length)) + 2)
    k = np.zeros((n, n), np.float32)
    c = (n - 1) / 2
    dx, dy = math.cos(motion.angle) * (motion.length - 1) / 2, math.sin(motion.angle) * (motion.length - 1) / 2
    shift = 4  # (sub-pixel ends: coordinates in 1/16 px)
    cv2.line(k, (round((c - dx) * 16), round((c - dy) * 16)), (round((c + dx) * 16), round((c + dy) * 16)),
             1.0, 1, cv2.LINE_AA, shift)
    return k / max(float(k.sum()), 1e-6)


def unsmeared(image: np.ndarray, motion: Motion, nsr: float = WIENER_NSR) -> np.ndarray:
    """``image`` with the motion's line undone by a Wiener filter.

    The image is padded by reflection on every side (the filter is circular: the seam where the
    padding wraps round lies a kernel's length from the photo), and the filter's gain at zero
    frequency is kept at 1 (a plain Wiener filter darkens a flat table by ``1 / (1 + nsr)``)."""
    k = line_kernel(motion)
    h, w = image.shape[:2]
    m = 2 * k.shape[0]
    H, W = cv2.getOptimalDFTSize(h + 2 * m), cv2.getOptimalDFTSize(w + 2 * m)
    padded = cv2.copyMakeBorder(image, m, H - h - m, m, W - w - m, cv2.BORDER_REFLECT)
    kp = np.zeros((H, W), np.float32)
    kp[:k.shape[0], :k.shape[1]] = k
    kp = np.roll(kp, (-(k.shape[0] // 2), -(k.shape[1] // 2)), (0, 1))
    K = np.fft.rfft2(kp)
    gain = np.conj(K) * (1.0 + nsr) / (np.abs(K) ** 2 + nsr)
    channels = padded.reshape(H, W, -1)
    out = np.empty((h, w, channels.shape[2]), np.uint8)
    for c in range(channels.shape[2]):
        sharp = np.fft.irfft2(np.fft.rfft2(channels[..., c].astype(np.float32)) * gain, s=(H, W))
        out[..., c] = np.clip(sharp[m:m + h, m:m + w] + 0.5, 0, 255)
    return out.reshape(image.shape)


# ---------------------------------------------------------------- a smear told with no die read

#: the cepstrum's dip (its least value over the lags searched, in spreads of every value searched)
#: a smear must reach to be taken: a line of L pixels zeroes the spectrum every 1/L, which the
#: log-spectrum's Fourier transform shows as one deep dip at the lag (L cos a, L sin a).  On the 80
#: development scenes of the lead's motion probe (windows at the true dice): as rendered 0.8-7.0,
#: tilted or not, but for ray 4237 (rendered with a motion blur of its own: 11.3, at 5 px); smeared
#: 16 px 1.7-20.3, 64 of 80 at 8 or more (57 of them within 10 degrees and 4 px of the line);
#: smeared 8 px 77 of 80 -- a house value set after seeing those scenes
BLIND_LEAST_DIP = 8.0
#: the windows' side, in dice sides (a die and its margin of table: the die's outline and pips are
#: the photo's sharpest edges, what a smear blurs), and the least and most window (pixels, powers of 2)
BLIND_WINDOW_SIDES = 2.5
BLIND_WINDOW_PX = (64, 256)
#: the lags searched: from this many pixels (nearer, the cepstrum is the spectrum's overall slope)
#: to this share of the window, every 2 degrees
BLIND_LEAST_LAG = 4.0
BLIND_MOST_LAG = 1 / 3
BLIND_STEP_DEG = 2


def blind_motion(image: np.ndarray, dice) -> Motion | None:
    """The motion told by the dice's windows' cepstrum (read or not: no pip needs reading), or None
    (no die, or no dip deep enough)."""
    found = _dice_cepstrum(image, dice)
    if found is None:
        return None
    cepstrum, n = found
    angle, lag, dip = _deepest_dip(cepstrum, BLIND_LEAST_LAG, BLIND_MOST_LAG * n)
    return Motion(angle, lag) if dip >= BLIND_LEAST_DIP else None


#: the least dip along the pips' line (within ``MOTION_TURN_DEG`` of it) that confirms their motion
#: as a smear (a tilt foreshortens pips as a smear lengthens them, but blurs no edge: no dip).  The 11
#: development and check scenes whose reading the pips' motion changed as rendered dip 1.2-4.5 (all
#: tilted or unblurred); the 80 development scenes smeared 16 px dip under 5 in 2, smeared 8 px in 1
#: (windows at the true dice): a house value set after seeing those scenes
CONFIRM_LEAST_DIP = 5.0


def smear_confirmed(image: np.ndarray, dice, motion: Motion) -> bool:
    """Whether the dice's windows' cepstrum dips along ``motion``'s line (a smear, not a tilt)."""
    found = _dice_cepstrum(image, dice)
    if found is None:
        return False
    cepstrum, n = found
    _, _, dip = _deepest_dip(cepstrum, BLIND_LEAST_LAG, BLIND_MOST_LAG * n, near=motion.angle)
    return dip >= CONFIRM_LEAST_DIP


def _dice_cepstrum(image: np.ndarray, dice) -> tuple[np.ndarray, int] | None:
    """The cepstrum of the dice's windows' mean log power spectrum (centred), and the window's side."""
    boxes = [(d.center[0], d.center[1], d.side_px) for d in dice]
    if not boxes:
        return None
    n = _window_px(float(np.median([side for _, _, side in boxes])))
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    spectra = [s for s in (_log_spectrum(gray, x, y, n) for x, y, _ in boxes) if s is not None]
    if not spectra:
        return None
    return np.fft.fftshift(np.real(np.fft.ifft2(np.mean(spectra, axis=0)))).astype(np.float32), n


def _window_px(side: float) -> int:
    """The window's side for dice of ``side`` pixels: a power of 2 (a fast Fourier transform)."""
    least, most = BLIND_WINDOW_PX
    return int(2 ** math.ceil(math.log2(min(most, max(least, BLIND_WINDOW_SIDES * side)))))


def _log_spectrum(gray: np.ndarray, x: float, y: float, n: int) -> np.ndarray | None:
    """The log power spectrum of the n x n window about (x, y) (moved inside the photo at its
    edge), tapered by a Hann window (its edges would show as a spectrum of their own); None in a
    photo smaller than the window."""
    if n > min(gray.shape[:2]):
        return None
    x0 = min(max(int(round(x)) - n // 2, 0), gray.shape[1] - n)
    y0 = min(max(int(round(y)) - n // 2, 0), gray.shape[0] - n)
    window = gray[y0:y0 + n, x0:x0 + n].astype(np.float32)
    taper = np.outer(np.hanning(n), np.hanning(n)).astype(np.float32)
    return np.log(np.abs(np.fft.fft2((window - window.mean()) * taper)) ** 2 + 1e-3)


def _deepest_dip(cepstrum: np.ndarray, least: float, most: float,
                 near: float | None = None) -> tuple[float, float, float]:
    """The (angle, lag, depth) of the cepstrum's least value over lags ``least``..``most`` every
    ``BLIND_STEP_DEG`` (within ``MOTION_TURN_DEG`` of the angle ``near`` when given): depth in
    spreads of every value searched (a dip, positive)."""
    c = cepstrum.shape[0] // 2
    lags = np.arange(least, most + 0.25, 0.5, dtype=np.float32)
    angles = np.radians(np.arange(0, 180, BLIND_STEP_DEG, dtype=np.float32))
    xs = (c + np.outer(np.cos(angles), lags)).astype(np.float32)
    ys = (c + np.outer(np.sin(angles), lags)).astype(np.float32)
    values = cv2.remap(cepstrum, xs, ys, cv2.INTER_LINEAR)
    spread = max(float(values.std()), 1e-9)
    if BLIND_JPEG_GRID_REFUSED:
        values = np.where(_on_jpeg_grid(angles, lags), np.inf, values)
    if near is not None:
        away = np.array([_turn_deg(float(a), near) > MOTION_TURN_DEG for a in angles])
        values = np.where(away[:, None], np.inf, values)
    i, j = np.unravel_index(int(np.argmin(values)), values.shape)
    depth = -float(values[i, j]) / spread
    return float(angles[i]), float(lags[j]), depth



#: a dip along the photo's x or y axis at a multiple of 8 pixels is JPEG's 8 x 8 blocks, no smear
#: (development webcamp 8069 as rendered, no motion: its deepest dip 9.2 at 16 px along x -- set
#: after seeing that scene); False: every dip counts
BLIND_JPEG_GRID_REFUSED = True


def _on_jpeg_grid(angles: np.ndarray, lags: np.ndarray) -> np.ndarray:
    """(angles x lags) True where the lag lies along an axis at a multiple of 8 pixels."""
    on_axis = np.isclose(np.degrees(angles) % 90.0, 0.0, atol=0.5)
    on_block = np.isclose(lags % 8.0, 0.0, atol=0.5) | np.isclose(lags % 8.0, 8.0, atol=0.5)
    return np.outer(on_axis, on_block)


# ---------------------------------------------------------------- a pip read on the sharpened photo, seen smeared

#: the least share of its sharpened darkness a pip read on the sharpened photo must show at its middle
#: in the smeared photo, of what a round pip of its radius keeps there when smeared along the line
#: (``min(1, 2 r / L)``: the line averages the pip with the face beside it).  The Wiener filter's ringing
#: echoes a pip a line's length away, where the smeared photo is the face's level: an echo keeps
#: nothing, a pip all it should (house value: half)
PIP_SEEN_SHARE = 0.5


def pips_seen_smeared(smeared: np.ndarray, sharp: np.ndarray, die, motion: Motion) -> bool:
    """Whether every pip ``die`` was read from on ``sharp`` (``smeared`` with ``motion`` undone; grey
    images) shows in ``smeared`` as a pip of its radius smeared along the line would: a pip, not the
    filter's echo of one.  False for a reading that gives no pips (nothing to check)."""
    if not die.pips:
        return False
    for x, y, r in die.pips:
        sharp_dark = _pip_darkness(sharp, x, y, r, motion.angle)
        if sharp_dark is None or sharp_dark[0] <= 0:
            return False
        seen = _pip_darkness(smeared, x, y, r, motion.angle, dark=sharp_dark[1])
        kept = min(1.0, 2.0 * r / max(motion.length, 1.0))
        if seen is None or seen[0] < PIP_SEEN_SHARE * kept * sharp_dark[0]:
            return False
    return True


def _pip_darkness(gray: np.ndarray, x: float, y: float, r: float, angle: float,
                  dark: bool | None = None) -> tuple[float, bool] | None:
    """How much darker (a dark pip; lighter, a light one) the middle of the pip at (x, y) of radius
    ``r`` is than the face beside it *across* the line at ``angle`` (along it the pip's own smear
    lies; the face is the lighter side for a dark pip, a neighbour's smear may darken the other), and
    whether the pip is dark (``dark``: as given, else the middle's side of the face); None at the
    photo's edge."""
    away = 1.5 * r + 1.5
    nx, ny = -math.sin(angle) * away, math.cos(angle) * away
    points = [(x, y), (x + nx, y + ny), (x - nx, y - ny)]
    if not all(2 <= px < gray.shape[1] - 2 and 2 <= py < gray.shape[0] - 2 for px, py in points):
        return None
    middle, side_a, side_b = (float(cv2.getRectSubPix(gray, (3, 3), (float(px), float(py)), patchType=cv2.CV_32F).mean())
                                   for px, py in points)
    if dark is None:
        dark = middle < (side_a + side_b) / 2
    return (max(side_a, side_b) - middle if dark else middle - min(side_a, side_b)), dark
