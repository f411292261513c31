"""A second, independent board-photo generator: per-pixel ray casting, spectral colour, a sensor.

An evaluation instrument (session 34): every board figure before it came from one renderer
(``companion/vision/render.py``: vector shapes through a pinhole camera, transparencies as RGB
multipliers, Gaussian glare) whose look the rules were tuned on for thirty sessions.  This one
shares none of its drawing code.  It uses only the box profile's data (layout, sheet shapes and
colours), ``sheets.hex_coverage`` for the truth and the ArUco bitmaps a user prints.

What it models, in order of the light's path:

- Camera: Brown-Conrady lens (k1, k2, k3 radial, p1, p2 tangential), off-centre principal point,
  look-at pose with tilt up to ~35 deg, any azimuth, a little roll.  Each output pixel (2 x 2
  samples at 1600 x 1200) is undistorted and cast onto the board plane.
- The printed board, in board mm, by this module's own code: ink plates rasterised once in the
  board plane (land, track spaces, evidence packs, hex lines, shore, marker modules) and sampled
  through the rays; each colour plate a little off register (up to ~0.3 mm), the key plate
  (lines, markers) exact; paper mottling and fibres; printed line width 0.7-0.9 mm.
- Transparencies 0.1-0.3 mm above the board (their own ray-plane intersection), a light or dark cut
  edge, now and then a curled corner lifting a few mm.  Colour is spectral (16 bins, 400-700 nm):
  each film a smooth transmission curve fitted so that under daylight it shows about the profile's
  sheet colour, each expedition's print run off it; overlaps multiply spectra.
- Light: an area light (daylight, warm LED, tungsten or fluorescent with spikes) plus ambient; soft
  shadows of a hand (visible, held above the board) or of the phone and arm; a glossy film's
  specular reflection of the area light (Schlick Fresnel, over film only).
- Sensor: lens blur, vignetting, auto exposure, Bayer mosaic with shot and read noise, OpenCV
  demosaic, grey-world white balance, a colour matrix, tone curve, unsharp mask, JPEG 4:2:0 q70-95.

``render_scene(box, seed)`` -> (jpeg bytes, truth, scene); the truth has the keys the scorers take
(``render._truth``'s format).  Command line:

    python -m tests.board_raycast render A B OUT   # seeds A..B-1 -> OUT/<seed>_raycast.jpg + .pkl
    python -m tests.board_raycast read OUT RES.json [--calibrated]  # adjudicate them with the tree
                                                    # on PYTHONPATH (each calibrated as the README says), score
    python -m tests.board_raycast sum RES.json...   # totals, all and per light
"""

from __future__ import annotations

import functools
import math
import os
import pickle
import sys
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.sheets import SheetPose, hex_coverage

# ------------------------------------------------------------------------------------------------
# Spectra

WAVELENGTHS = np.arange(400.0, 701.0, 20.0)  # 16 bins
BASIS_CENTRES = np.linspace(400.0, 700.0, 11)


def _gauss(centre, width):
    return np.exp(-0.5 * ((WAVELENGTHS - centre) / width) ** 2)


def _smooth_basis() -> np.ndarray:
    """Bumps that sum to one at every wavelength: coefficients in [0, 1] give a curve in [0, 1]."""
    b = np.array([_gauss(c, 22.0) for c in BASIS_CENTRES])
    return b / b.sum(0)


def planck(kelvin: float) -> np.ndarray:
    lam = WAVELENGTHS * 1e-9
    s = 1.0 / (lam ** 5 * (np.exp(1.4388e-2 / (lam * kelvin)) - 1.0))
    return s / s.mean()


# CIE D65 relative power at 400, 420, ..., 700 nm (rounded from the published table)
_D65 = np.array([82.8, 93.4, 117.8, 114.9, 109.4, 107.8, 104.4, 104.8, 100.0, 96.3, 95.8, 88.7, 90.0, 89.6, 83.7, 80.2])


def illuminant(kind: str, rng: np.random.Generator) -> np.ndarray:
    """A light's spectrum (16 bins, mean 1)."""
    if kind == "daylight":
        s = _D65 / _D65.mean() * (1 + 0.05 * (WAVELENGTHS - 550) / 150 * rng.normal())
    elif kind == "warm_led":  # a blue pump and a broad phosphor
        s = 0.45 * _gauss(450, 12) + 1.0 * _gauss(rng.uniform(590, 615), 60)
    elif kind == "tungsten":
        s = planck(rng.uniform(2600, 3200))
    else:  # fluorescent: a weak continuum with mercury / phosphor spikes in their bins
        s = 0.25 + 0.1 * _gauss(560, 80)
        for lam, p in ((440, 0.9), (540, 1.6), (620, 1.1), (580, 0.5)):
            s = s + p * rng.uniform(0.8, 1.2) * (np.abs(WAVELENGTHS - lam) < 10)
    return s / s.mean()


NOMINAL_SENSITIVITY = np.array([_gauss(600, 32) + 0.08 * _gauss(440, 20),
                                _gauss(535, 38),
                                _gauss(460, 30)])


# The colour a photo should show: narrow curves a camera reaches only through its colour matrix
IDEAL_SENSITIVITY = np.array([_gauss(610, 18), _gauss(540, 20), _gauss(455, 18)])


def camera_sensitivity(rng: np.random.Generator) -> np.ndarray:
    """A sensor's three curves (3 x 16), the nominal ones moved a little."""
    return np.array([_gauss(600 + rng.normal(0, 8), 32 * rng.uniform(0.85, 1.15)) + rng.uniform(0.03, 0.12) * _gauss(440, 20),
                     _gauss(535 + rng.normal(0, 6), 38 * rng.uniform(0.85, 1.15)),
                     _gauss(460 + rng.normal(0, 6), 30 * rng.uniform(0.85, 1.15))])


def srgb_to_linear(v):
    v = np.asarray(v, float)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(v):
    v = np.clip(v, 0, None).astype(np.float32, copy=False)  # float32: a 12 MP frame stays small
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * np.power(v, 1 / 2.4) - 0.055)


def fit_curve(target_ratio: np.ndarray, under: np.ndarray, sens=IDEAL_SENSITIVITY,
              smooth: float = 0.02, lo: float = 0.004) -> np.ndarray:
    """A smooth curve in [lo, 1] whose camera response over ``under`` (spectrum of what lies beneath,
    times the light) is ``target_ratio`` of ``under``'s own response, per channel (linear)."""
    basis = _smooth_basis()
    resp = sens * under  # 3 x 16
    A = resp @ basis.T / (resp.sum(1, keepdims=True))  # 3 x 11
    D = np.diff(np.eye(len(BASIS_CENTRES)), 2, axis=0) * math.sqrt(smooth)
    M = np.vstack([A, D])
    y = np.r_[target_ratio, np.zeros(len(D))]
    c = np.full(len(BASIS_CENTRES), 0.5)
    for _ in range(400):  # projected gradient: bounded least squares without scipy
        g = M.T @ (M @ c - y)
        c = np.clip(c - 0.5 * g / np.linalg.norm(M, 2) ** 2 * 2, lo, 1.0)
    return c @ basis


def camera_rgb(spectrum: np.ndarray, sens: np.ndarray) -> np.ndarray:
    return sens @ spectrum


def colour_matrix(sens: np.ndarray, light: np.ndarray, seed: int = 0) -> np.ndarray:
    """The 3 x 3 matrix taking this camera's white-balanced RGB to the ideal curves' (least squares
    over smooth reflectances; white stays white), as a phone's tuning does for its sensor."""
    rng = np.random.default_rng(seed)
    refl = rng.uniform(0, 1, (200, len(BASIS_CENTRES))) ** 2 @ _smooth_basis()
    cam = (sens @ (light * refl).T).T
    ideal = (IDEAL_SENSITIVITY @ (light * refl).T).T
    cam /= sens @ light
    ideal /= IDEAL_SENSITIVITY @ light
    M = np.linalg.lstsq(cam, ideal, rcond=None)[0].T
    return M / M.sum(1, keepdims=True)


# Inks as display colours (sRGB, 0..1): near the printed board's, not boardart's palette
PAPER_WHITE = (0.93, 0.93, 0.90)
INKS = {"land": (0.58, 0.66, 0.47), "track": (0.86, 0.80, 0.66), "pack": (0.78, 0.73, 0.62),
        "line": (0.28, 0.32, 0.42), "shore": (0.20, 0.24, 0.30), "black": (0.07, 0.07, 0.08)}
INK_ORDER = ("paper", "land", "track", "pack", "line", "shore", "black")
SKIN_SRGB = (0.82, 0.62, 0.52)


@functools.lru_cache(maxsize=None)
def _paper_reflectance() -> np.ndarray:
    # near-flat white with the dip of unbleached fibre in the blue and an optical brightener bump
    return np.clip(0.88 - 0.10 * _gauss(400, 30) + 0.04 * _gauss(440, 15), 0, 1)


def ink_reflectance(srgb, rng: np.random.Generator | None = None) -> np.ndarray:
    """A smooth reflectance whose daylight response is about the display colour ``srgb``."""
    paper = _paper_reflectance()
    col = np.asarray(srgb, float)
    if rng is not None:
        col = np.clip(col * (1 + rng.normal(0, 0.03, 3)), 0.02, 1)
    day = _D65 / _D65.mean()
    ratio = srgb_to_linear(col) / srgb_to_linear(np.asarray(PAPER_WHITE))
    return fit_curve(np.clip(ratio, 0.004, 1.2), day * paper) * paper


@functools.lru_cache(maxsize=None)
def film_transmission(rgb255: tuple) -> np.ndarray:
    """The effective (two-pass) transmission curve of a film showing about ``rgb255`` over paper in daylight."""
    ratio = srgb_to_linear(np.asarray(rgb255, float) / 255.0)
    return fit_curve(ratio, _D65 / _D65.mean() * _paper_reflectance())


def print_run(T: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A print run's curve: density scaled and tilted a little across the spectrum (stays smooth)."""
    tilt = rng.normal(0, 0.08) * (WAVELENGTHS - 550) / 150
    return np.clip(T ** (1 + rng.normal(0, 0.08) + tilt), 0.002, 1.0)


# ------------------------------------------------------------------------------------------------
# Camera


@dataclass
class LensCamera:
    """Pinhole with Brown-Conrady distortion; world = board mm (x along, y across as printed), z into
    the table (so the frame is right-handed seen from above), the board at z = 0, the camera at z < 0."""

    width: int
    height: int
    R: np.ndarray  # world -> camera rows (x right, y down, z forward)
    C: np.ndarray  # centre in world mm
    fx: float
    fy: float
    cx: float
    cy: float
    dist: tuple  # k1, k2, p1, p2, k3

    def distort(self, x, y):
        k1, k2, p1, p2, k3 = self.dist
        r2 = x * x + y * y
        rad = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2
        return (x * rad + 2 * p1 * x * y + p2 * (r2 + 2 * x * x),
                y * rad + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y)

    def project(self, pts) -> np.ndarray:
        """World points (n, 2) on the board or (n, 3) -> pixels (centres at integers)."""
        p = np.asarray(pts, float)
        if p.shape[1] == 2:
            p = np.c_[p, np.zeros(len(p))]
        c = (p - self.C) @ self.R.T
        xd, yd = self.distort(c[:, 0] / c[:, 2], c[:, 1] / c[:, 2])
        return np.c_[self.fx * xd + self.cx, self.fy * yd + self.cy]

    def undistort(self, u, v):
        """Pixel coordinates -> ideal normalised image coordinates, by fixed-point iteration."""
        xd, yd = (u - self.cx) / self.fx, (v - self.cy) / self.fy
        x, y = xd.copy(), yd.copy()
        for _ in range(12):
            fx_, fy_ = self.distort(x, y)
            x, y = x + (xd - fx_), y + (yd - fy_)
        return x, y

    def rays(self, x, y):
        """Ideal normalised image coordinates -> unit world directions (..., 3)."""
        d = np.stack([x, y, np.ones_like(x)], -1) @ self.R  # camera -> world
        return d / np.linalg.norm(d, axis=-1, keepdims=True)

    def undistorted_grid(self, ss: int, step: int = 8):
        """Ideal coordinates of every sample (``ss`` x ``ss`` a pixel): exact on a grid ``step`` samples
        apart, linear in between (the lens is smooth; 64 times fewer iterations)."""
        Ws, Hs = self.width * ss, self.height * ss
        nx, ny = -(-Ws // step) + 2, -(-Hs // step) + 2
        # coarse node i sits at sample (i - 1 + 0.5) * step - 0.5, so cv2.resize's centre rule lands on the samples
        sx = (np.arange(nx) - 1 + 0.5) * step - 0.5
        sy = (np.arange(ny) - 1 + 0.5) * step - 0.5
        U, V = np.meshgrid((sx + 0.5) / ss - 0.5, (sy + 0.5) / ss - 0.5)
        x, y = self.undistort(U, V)
        big = [cv2.resize(a, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)[step:step + Hs, step:step + Ws]
               for a in (x, y)]
        return big[0], big[1]

    def to_json(self) -> dict:
        return {"model": "brown-conrady", "width": self.width, "height": self.height, "R": self.R.round(9).tolist(),
                "centre_mm": self.C.round(4).tolist(), "fx": self.fx, "fy": self.fy, "cx": self.cx, "cy": self.cy,
                "dist_k1_k2_p1_p2_k3": list(self.dist)}


def look_at(eye, target, x_hint) -> np.ndarray:
    """World -> camera rotation: z towards the target, x as near ``x_hint`` as it can be, y down."""
    z = target - eye
    z = z / np.linalg.norm(z)
    x = x_hint - z * (x_hint @ z)
    x = x / np.linalg.norm(x)
    return np.array([x, np.cross(z, x), z])


def board_corners_dense(box, step=20.0) -> np.ndarray:
    W, H = box.width, box.height
    t = np.arange(0, 1, step / max(W, H))
    edges = [np.c_[t * W, 0 * t], np.c_[W + 0 * t, t * H], np.c_[W - t * W, H + 0 * t], np.c_[0 * t, H - t * H]]
    return np.vstack(edges)


def random_camera(box, rng: np.random.Generator, width: int, height: int) -> LensCamera:
    """A phone above the board: tilt 0-35 deg, any azimuth, the board filling 80-97 % of the frame."""
    tilt, az = math.radians(rng.uniform(0, 35)), rng.uniform(0, 2 * math.pi)
    target = np.array([box.width / 2 + rng.normal(0, 15), box.height / 2 + rng.normal(0, 12), 0.0])
    view = np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az), -math.cos(tilt)])  # towards the eye
    roll = rng.uniform(-10, 10) + (rng.choice([90, 270]) if rng.random() < 0.1 else rng.choice([0, 180]))
    hfov = math.radians(rng.uniform(55, 75))
    f = width / 2 / math.tan(hfov / 2) * rng.uniform(0.99, 1.01)
    dist = (rng.normal(0, 0.04), rng.normal(0, 0.02), rng.normal(0, 0.0015), rng.normal(0, 0.0015), rng.normal(0, 0.005))
    cx, cy = (width - 1) / 2 + rng.normal(0, 0.015 * width), (height - 1) / 2 + rng.normal(0, 0.015 * height)
    ref = np.array([math.cos(math.radians(roll)), math.sin(math.radians(roll)), 0.0])
    fill = rng.uniform(0.80, 0.97)
    pts = board_corners_dense(box)
    lo, hi = 200.0, 5000.0
    for _ in range(40):  # the distance at which the board's outline fills ``fill`` of the frame
        d = (lo + hi) / 2
        eye = target + view * d
        cam = LensCamera(width, height, look_at(eye, target, ref), eye, f, f, cx, cy, dist)
        q = cam.project(pts)
        ext = max(np.abs(q[:, 0] - (width - 1) / 2).max() / (width / 2), np.abs(q[:, 1] - (height - 1) / 2).max() / (height / 2))
        lo, hi = (d, hi) if ext > fill else (lo, d)
    return cam


# ------------------------------------------------------------------------------------------------
# The printed board, in the board plane

PLATE_PPM = 6.0  # plate raster, pixels per board mm


def _poly_px(poly, ppm, shift=4):
    return np.round((np.asarray(poly, float) * ppm - 0.5) * (1 << shift)).astype(np.int32)


def _fill(plate, polys, ppm):
    cv2.fillPoly(plate, [_poly_px(p, ppm) for p in polys], 255, lineType=cv2.LINE_AA, shift=4)


def _stroke_quads(points, closed, width):
    """Each segment of a polyline as a quad ``width`` wide, with round-ish joints from overlap."""
    p = np.asarray(points, float)
    segs = list(zip(p, np.roll(p, -1, 0))) if closed else list(zip(p[:-1], p[1:]))
    out = []
    for a, b in segs:
        d = b - a
        n = np.linalg.norm(d)
        if n < 1e-9:
            continue
        t, nrm = d / n * width / 2, np.array([-d[1], d[0]]) / n * width / 2
        out.append(np.array([a - t + nrm, b + t + nrm, b + t - nrm, a - t - nrm]))
    return out


def _hex_segments(box):
    seen, out = set(), []
    for h in box.loch.hexes:
        pts = [tuple(map(float, q)) for q in h.polygon]
        for a, b in zip(pts, pts[1:] + pts[:1]):
            if frozenset((a, b)) not in seen:
                seen.add(frozenset((a, b)))
                out.append(np.array([a, b]))
    return out


def aruco_bits(box, marker_id: int) -> np.ndarray:
    """The printed marker's bitmap (True = black), border included: what the user prints."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, box.markers_dictionary))
    n = d.markerSize + 2
    return cv2.aruco.generateImageMarker(d, marker_id, n, borderBits=1) < 128


_PLATES: dict = {}


def board_plates(box, line_mm: float) -> dict:
    """The ink plates (uint8 shares, board plane at PLATE_PPM), kept per box and line width."""
    key = (id(box), line_mm)
    if key not in _PLATES:
        _PLATES.clear()
        _PLATES[key] = _draw_plates(box, line_mm)
    return _PLATES[key]


def _draw_plates(box, line_mm: float) -> dict:
    ppm = PLATE_PPM
    W, H = int(round(box.width * ppm)), int(round(box.height * ppm))
    plates = {k: np.zeros((H, W), np.uint8) for k in INK_ORDER[1:]}
    plates["quiet"] = np.zeros((H, W), np.uint8)
    board = [np.array([[0, 0], [box.width, 0], [box.width, box.height], [0, box.height]], float)]
    _fill(plates["land"], board, ppm)
    loch = np.zeros((H, W), np.uint8)
    _fill(loch, [np.asarray(box.loch.shore_outline, float)], ppm)
    plates["land"] = cv2.subtract(plates["land"], loch)
    for t in box.tracks.values():
        a = np.linspace(0, 2 * np.pi, 48, endpoint=False)
        r = t.space_diameter / 2
        _fill(plates["track"], [np.c_[s.at[0] + r * np.cos(a), s.at[1] + r * np.sin(a)] for s in t.spaces], ppm)
    for p in box.evidence_packs:
        x, y, w, h = p.rect
        _fill(plates["pack"], [np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], float)], ppm)
    _fill(plates["line"], [q for s in _hex_segments(box) for q in _stroke_quads(s, False, line_mm)], ppm)
    _fill(plates["shore"], _stroke_quads(box.loch.shore_outline, True, line_mm * 1.6), ppm)
    for m in box.markers:
        c = np.asarray(m.corners, float)
        centre = c.mean(0)
        _fill(plates["quiet"], [centre + (c - centre) * 1.4], ppm)
        bits = aruco_bits(box, m.id)
        n = len(bits)
        for r in range(n):
            for k in range(n):
                if bits[r, k]:
                    u0, u1, v0, v1 = k / n, (k + 1) / n, r / n, (r + 1) / n
                    quad = [_lerp2(c, u, v) for u, v in ((u0, v0), (u1, v0), (u1, v1), (u0, v1))]
                    _fill(plates["black"], [np.array(quad)], ppm)
    return plates


def _lerp2(c, u, v):
    top, bottom = c[0] + (c[1] - c[0]) * u, c[3] + (c[2] - c[3]) * u
    return top + (bottom - top) * v


def paper_texture(box, rng: np.random.Generator, ppm: float = 2.0) -> np.ndarray:
    """A multiplier around 1 in the board plane: mottling, grain and fibres."""
    W, H = int(box.width * ppm), int(box.height * ppm)
    mottle = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 4.0)
    mottle *= rng.uniform(0.01, 0.025) / max(float(mottle.std()), 1e-6)
    grain = rng.normal(0, rng.uniform(0.004, 0.012), (H, W)).astype(np.float32)
    tex = 1.0 + mottle + grain
    for _ in range(int(rng.integers(800, 2500))):
        p = rng.uniform([0, 0], [W, H])
        a = rng.uniform(0, np.pi)
        ln = rng.uniform(1, 6) * ppm
        q = p + ln * np.array([math.cos(a), math.sin(a)])
        cv2.line(tex, tuple(map(int, p)), tuple(map(int, q)), float(1 + rng.choice([-1, 1]) * rng.uniform(0.01, 0.04)), 1)
    return tex


# ------------------------------------------------------------------------------------------------
# Scenes

POINTED = ("eye_witness", "surface_camera", "underwater_camera", "sonar")
EXPEDITIONS = ("independent", "japanese", "british", "american")


def _shore_points(box, step=2.0):
    s = np.asarray(box.loch.shore_outline, float)
    out = []
    for a, b in zip(s, np.roll(s, -1, 0)):
        k = max(1, int(np.linalg.norm(b - a) / step))
        out.extend(a + (b - a) * t for t in np.arange(k) / k)
    return np.array(out)


def place_sheets(box, rng: np.random.Generator) -> list[SheetPose]:
    """Sheets where players put them: a pointed sheet's point on the shore, its body into the loch;
    biological units on the water; cages on a hex."""
    shore = _shore_points(box)
    loch = np.asarray(box.loch.shore_outline, float)
    mid_y = (loch[:, 1].min() + loch[:, 1].max()) / 2
    out = []
    for _ in range(int(rng.integers(3, 15))):
        exp = EXPEDITIONS[int(rng.integers(4))]
        kind = str(rng.choice(POINTED + ("biological_unit", "cage"), p=[0.28, 0.24, 0.16, 0.16, 0.09, 0.07]))
        if kind in POINTED:
            north = rng.random() < 0.5
            cand = shore[(shore[:, 1] < mid_y) == north]
            cand = cand[(cand[:, 0] > loch[:, 0].min() + 15) & (cand[:, 0] < loch[:, 0].max() - 15)]
            p = cand[int(rng.integers(len(cand)))]
            inward = np.array([0.0, 1.0 if north else -1.0])
            ang = math.atan2(inward[0], inward[1])  # body direction (-sin a, cos a) = inward
            ang = math.degrees(-ang) + rng.normal(0, 22)
            p = p + inward * rng.uniform(-4, 3)
            out.append(SheetPose(exp, kind, round(float(p[0]), 3), round(float(p[1]), 3), round(float(ang), 3)))
        elif kind == "biological_unit":
            x = rng.uniform(loch[:, 0].min() + 25, loch[:, 0].max() - 25)
            y = rng.uniform(loch[:, 1].min() + 12, loch[:, 1].max() - 12)
            out.append(SheetPose(exp, kind, round(float(x), 3), round(float(y), 3), round(float(rng.uniform(0, 360)), 3)))
        else:
            h = box.loch.hexes[int(rng.integers(len(box.loch.hexes)))]
            out.append(SheetPose(exp, kind, round(h.center[0] + rng.normal(0, 0.8), 3), round(h.center[1] + rng.normal(0, 0.6), 3),
                                 round(float(rng.normal(0, 4)), 3)))
    return out


@dataclass
class Scene:
    seed: int
    width: int
    height: int
    camera: LensCamera
    sheets: list
    heights: list  # film height above the board, mm, per sheet
    curls: list  # per sheet None or (corner index, radius mm, lift mm)
    edge_gain: float
    edge_mm: float
    line_mm: float
    light: dict
    hand: dict | None
    phone_shadow: dict | None
    sensor: dict


def random_scene(box, seed: int, width: int | None = None, height: int | None = None) -> Scene:
    rng = np.random.default_rng([seed, 34])
    if width is None:
        width, height = (4000, 3000) if rng.random() < 0.15 else (1600, 1200)
    cam = random_camera(box, rng, width, height)
    sheets = place_sheets(box, rng)
    heights = [float(rng.uniform(0.1, 0.3)) for _ in sheets]
    curls = [(int(rng.integers(3)), float(rng.uniform(8, 20)), float(rng.uniform(1, 4))) if rng.random() < 0.12 else None
             for _ in sheets]
    kind = str(rng.choice(["daylight", "warm_led", "tungsten", "fluorescent"], p=[0.35, 0.25, 0.2, 0.2]))
    light = {"kind": kind, "size_mm": float(rng.uniform(40, 250)), "height_mm": float(rng.uniform(700, 1600)),
             "direct_share": float(rng.uniform(0.45, 0.85)), "glare": bool(rng.random() < 0.6),
             "gloss": float(rng.uniform(0.003, 0.03)), "glare_at": None, "spectrum_seed": int(rng.integers(1 << 30))}
    loch = np.asarray(box.loch.shore_outline, float)
    lo, hi = loch.min(0), loch.max(0)
    if light["glare"]:
        light["glare_at"] = [float(rng.uniform(lo[0], hi[0])), float(rng.uniform(lo[1] - 20, hi[1] + 20))]
    else:
        light["off_mm"] = [float(rng.uniform(-600, 600)), float(rng.uniform(-600, 600))]
    hand = None
    if rng.random() < 0.25:
        side = rng.choice([-1, 1])
        x = float(rng.uniform(lo[0] + 40, hi[0] - 40))
        y = float(hi[1] + rng.uniform(20, 110)) if side > 0 else float(lo[1] - rng.uniform(20, 110))
        hand = {"at_mm": [x, y], "toward": float(-side), "angle_deg": float(rng.normal(0, 25)),
                "height_mm": float(rng.uniform(30, 120)), "scale": float(rng.uniform(0.9, 1.15))}
    phone = None
    if rng.random() < 0.3:
        phone = {"at_mm": [float(rng.uniform(lo[0], hi[0])), float(rng.uniform(lo[1] - 80, hi[1] + 80))],
                 "size_mm": [float(rng.uniform(70, 180)), float(rng.uniform(120, 300))],
                 "angle_deg": float(rng.uniform(0, 180)), "height_mm": float(rng.uniform(150, 450))}
    sensor = {"blur_px": float(rng.uniform(0.45, 1.0)), "full_well": float(rng.uniform(1500, 8000)),
              "read_e": float(rng.uniform(2, 8)), "vignetting": float(rng.uniform(0.1, 0.5)),
              "exposure": float(rng.uniform(0.16, 0.26)), "awb": str(rng.choice(["grey", "white_patch", "mixed"])),
              "saturation": float(rng.uniform(1.0, 1.25)), "contrast": float(rng.uniform(0.0, 0.35)),
              "sharpen": float(rng.uniform(0.2, 1.0)), "sharpen_px": float(rng.uniform(0.8, 2.0)),
              "quality": int(rng.integers(70, 96)), "bayer": str(rng.choice(["RG", "BG", "GR", "GB"])),
              "demosaic": str(rng.choice(["bilinear", "ea", "vng"])), "sens_seed": int(rng.integers(1 << 30)),
              "texture_seed": int(rng.integers(1 << 30)), "misregister_mm": float(rng.uniform(0.05, 0.3))}
    return Scene(seed, width, height, cam, sheets, heights, curls, float(rng.choice([-1, 1]) * rng.uniform(0.1, 0.3)),
                 float(rng.uniform(0.1, 0.3)), float(rng.uniform(0.7, 0.9)), light, hand, phone, sensor)


# ------------------------------------------------------------------------------------------------
# Geometry helpers (signed distances)


def convex_sd(px, py, poly):
    """Signed distance (negative inside) to a convex polygon, exact inside and along edges."""
    p = np.asarray(poly, float)
    area = np.sum(p[:, 0] * np.roll(p[:, 1], -1) - np.roll(p[:, 0], -1) * p[:, 1])
    sd = None
    for a, b in zip(p, np.roll(p, -1, 0)):
        d = b - a
        n = np.array([d[1], -d[0]]) / np.linalg.norm(d) * (1 if area > 0 else -1)  # outward
        s = (px - a[0]) * n[0] + (py - a[1]) * n[1]
        sd = s if sd is None else np.maximum(sd, s)
    return sd


def capsule_sd(px, py, a, b, r):
    ax, ay = px - a[0], py - a[1]
    d = np.asarray(b, float) - np.asarray(a, float)
    t = np.clip((ax * d[0] + ay * d[1]) / (d @ d), 0, 1)
    return np.hypot(ax - t * d[0], ay - t * d[1]) - r


def hand_parts(hand) -> list:
    """A hand as capsules in board mm: palm and four fingers reaching towards the loch."""
    x, y = hand["at_mm"]
    s = hand["scale"]
    a = math.radians(hand["angle_deg"])
    fwd = np.array([math.sin(a), hand["toward"] * math.cos(a)])
    side = np.array([fwd[1], -fwd[0]])
    c = np.array([x, y])
    parts = [(c - fwd * 60 * s, c, 34 * s)]  # palm and wrist
    for off, ln in ((-24, 62), (-8, 72), (8, 70), (23, 58)):
        base = c + side * off * s + fwd * 12 * s
        parts.append((base, base + fwd * ln * s + side * off * 0.15 * s, 8.5 * s))
    base = c - side * 30 * s - fwd * 10 * s
    parts.append((base, base + (fwd - side) * 30 * s, 9 * s))  # thumb
    return parts


def hand_sd(px, py, hand):
    sd = None
    for a, b, r in hand_parts(hand):
        s = capsule_sd(px, py, a, b, r)
        sd = s if sd is None else np.minimum(sd, s)
    return sd


def _rect(at, size, angle_deg):
    a = math.radians(angle_deg)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    w, h = size[0] / 2, size[1] / 2
    c = np.asarray(at, float)
    return np.array([c - u * w - v * h, c + u * w - v * h, c + u * w + v * h, c - u * w + v * h])


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)


# ------------------------------------------------------------------------------------------------
# Light


def light_geometry(scene: Scene, box) -> dict:
    """Where the area light hangs: above the mirror of the camera at the glare point, or anywhere."""
    L = scene.light
    C = scene.camera.C
    if L["glare_at"] is not None:
        g = np.array([*L["glare_at"], 0.0])
        d = g - C
        d[2] = -d[2]  # the mirror ray off the film, climbing (z < 0 is above the table)
        centre = g - d / d[2] * L["height_mm"]
    else:
        centre = np.array([box.width / 2 + L["off_mm"][0], box.height / 2 + L["off_mm"][1], -L["height_mm"]])
    return {"centre": centre, "half": L["size_mm"] / 2}


def direct_light(px, py, lg) -> np.ndarray:
    """Irradiance from the area light at board points, 1 straight below the light's centre."""
    c = lg["centre"]
    dx, dy, h = px - c[0], py - c[1], c[2]
    r2 = dx * dx + dy * dy + h * h
    return (h * h / r2) ** 2  # cos at the surface * cos at the light / r^2, normalised


def occluder_shadow(px, py, lg, sd_fn, height):
    """Fraction of the area light an occluder at ``height`` blocks, seen from board points."""
    c = lg["centre"]
    t = height / -c[2]
    qx, qy = px + (c[0] - px) * t, py + (c[1] - py) * t
    pen = 2 * lg["half"] * height / max(-c[2] - height, 1.0)  # penumbra width in the occluder's plane
    return 1 - smoothstep(-pen / 2, pen / 2, sd_fn(qx, qy))


def specular(px, py, C, lg, gloss, direct_share, film_h=0.2):
    """A glossy film's reflection of the area light (Schlick, n = 1.5) as a multiple of paper white:
    F * L_light over paper's rho * E / pi, E = L_light * solid angle / direct share."""
    c = lg["centre"]
    dx, dy, dz = px - C[0], py - C[1], -film_h - C[2]  # dz > 0: down onto the film
    n = np.sqrt(dx * dx + dy * dy + dz * dz)
    cos_i = dz / n
    t = (c[2] + film_h) / -dz  # the mirrored ray climbs back to the light's height
    hx, hy = px + dx * t - c[0], py + dy * t - c[1]
    half = lg["half"]
    spread = gloss * -c[2]  # the film's roughness as an angle (radians) blurring the light's edge
    inside = smoothstep(-spread, spread, half - np.abs(hx)) * smoothstep(-spread, spread, half - np.abs(hy))
    fres = 0.04 + 0.96 * (1 - cos_i) ** 5
    solid = (2 * half / c[2]) ** 2  # steradians, about
    return inside * fres * min(math.pi * direct_share / (0.88 * solid), 60.0)


# ------------------------------------------------------------------------------------------------
# Rendering


def occluders_lit(px, py, lg, scene: Scene):
    """The share of the direct light the hand and the phone (where the scene has them) leave on the
    board points (px, py): 1 in full light.  Shared by the image and the truth's shadow test."""
    lit = np.ones(np.shape(px))
    if scene.hand is not None:
        lit = lit * (1 - occluder_shadow(px, py, lg, lambda x, y: hand_sd(x, y, scene.hand), scene.hand["height_mm"]))
    if scene.phone_shadow is not None:
        p = scene.phone_shadow
        rect = _rect(p["at_mm"], p["size_mm"], p["angle_deg"])
        lit = lit * (1 - occluder_shadow(px, py, lg, lambda x, y: convex_sd(x, y, rect), p["height_mm"]))
    return lit


def _ray_plane(C, d, z):
    t = (z - C[2]) / d[..., 2]
    return C[0] + d[..., 0] * t, C[1] + d[..., 1] * t


def _sample_plate(plate, px, py, ppm, off=(0.0, 0.0)):
    mx = ((px - off[0]) * ppm - 0.5).astype(np.float32)
    my = ((py - off[1]) * ppm - 0.5).astype(np.float32)
    return cv2.remap(plate, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32) / 255.0


def ink_weights(plates, px, py, offsets):
    """Per sample the share of each ink (INK_ORDER), the printed layers laid one over another."""
    alpha = {k: _sample_plate(plates[k], px, py, PLATE_PPM, offsets.get(k, (0, 0))) for k in plates}
    layers = [("land", alpha["land"] * (1 - alpha["quiet"])), ("track", alpha["track"]), ("pack", alpha["pack"]),
              ("line", alpha["line"]), ("shore", alpha["shore"]), ("black", alpha["black"])]
    w = {"paper": np.ones_like(px, dtype=np.float32)}
    for name, a in layers:  # each layer covers what lies below it by its own share
        for k in w:
            w[k] *= 1 - a
        w[name] = a
    return np.stack([w[k] for k in INK_ORDER], -1)


class Spectra:
    """The scene's spectra: light, sensor, inks, films; and the camera response of any film stack."""

    def __init__(self, box, scene: Scene):
        rng = np.random.default_rng(scene.light["spectrum_seed"])
        self.light = illuminant(scene.light["kind"], rng)
        self.sens = camera_sensitivity(np.random.default_rng(scene.sensor["sens_seed"]))
        ink_rng = np.random.default_rng([scene.seed, 7])
        paper = _paper_reflectance()
        self.inks = np.array([paper] + [ink_reflectance(INKS[k], ink_rng) for k in INK_ORDER[1:]])  # K x 16
        run_rng = np.random.default_rng([scene.seed, 8])
        runs = {e: print_run(film_transmission(tuple(box.sheet_colours[e])), run_rng) for e in EXPEDITIONS}
        self.films = [np.clip(runs[s.expedition] * (1 + 0.02 * run_rng.normal()), 0.002, 1) for s in scene.sheets]
        self.skin = ink_reflectance(SKIN_SRGB, ink_rng)
        self.white = camera_rgb(self.light * paper, self.sens)  # paper white under this light
        self._cache = {}

    def stack_rgb(self, code: int) -> np.ndarray:
        """Camera RGB (K x 3, paper white = its own) of every ink under the films in bitmask ``code``."""
        if code not in self._cache:
            T = np.ones_like(WAVELENGTHS)
            for j, f in enumerate(self.films):
                if code >> j & 1:
                    T = T * f
            self._cache[code] = (self.sens @ (self.light * T * self.inks).T).T  # K x 3
        return self._cache[code]

    def rgb(self, reflectance: np.ndarray) -> np.ndarray:
        return camera_rgb(self.light * reflectance, self.sens)


def film_geometry(box, scene: Scene):
    from companion.vision.sheets import outline
    return [outline(box, s) for s in scene.sheets]


def _film_cover(C, d, poly, h, curl):
    """Signed distance of each ray's crossing of the film (negative inside), curled corner included."""
    px, py = _ray_plane(C, d, -h)
    if curl is not None:
        k, radius, lift = curl
        corner = poly[k]
        for _ in range(2):  # the lifted film: find where the ray meets it by fixed-point steps
            r = np.hypot(px - corner[0], py - corner[1])
            z = -(h + lift * np.clip(1 - r / radius, 0, 1) ** 2)
            px, py = _ray_plane(C, d, z)
    return convex_sd(px, py, poly)


def shade_rows(box, scene, spec, plates, tex, offsets, lg, polys, ideal, y0, y1, ss):
    """Linear camera RGB of output rows y0..y1 at ``ss`` x ``ss`` samples per pixel."""
    cam = scene.camera
    d = cam.rays(ideal[0][y0 * ss:y1 * ss], ideal[1][y0 * ss:y1 * ss])
    C = cam.C
    px, py = _ray_plane(C, d, 0.0)
    foot = np.abs(C[2]) / np.abs(d[..., 2]) / cam.fx / ss * 1.2  # mm per sample, about
    weights = ink_weights(plates, px, py, offsets)  # n x K
    code = np.zeros(px.shape, np.int64)
    edge = np.ones(px.shape, np.float32)
    on_film = np.zeros(px.shape, bool)
    for j, (poly, h, curl) in enumerate(zip(polys, scene.heights, scene.curls)):
        lo, hi = poly.min(0) - 6, poly.max(0) + 6
        near = (px > lo[0]) & (px < hi[0]) & (py > lo[1]) & (py < hi[1])
        if not near.any():
            continue
        sd = _film_cover(C, d[near], poly, h, curl)
        inside = sd < 0
        code[near] |= inside.astype(np.int64) << j
        on_film[near] |= inside
        line = 1 - smoothstep(scene.edge_mm / 2, scene.edge_mm / 2 + foot[near], np.abs(sd))
        edge[near] *= (1 + scene.edge_gain * line).astype(np.float32)
    rgb = (weights @ spec.stack_rgb(0).astype(np.float32)).astype(np.float32)
    for c in np.unique(code[on_film]):
        m = code == c
        rgb[m] = weights[m] @ spec.stack_rgb(int(c)).astype(np.float32)
    rgb /= spec.white
    rgb *= (_sample_plate_f(tex, px, py, 2.0) * edge)[..., None]
    L = scene.light
    irr = L["direct_share"] * direct_light(px, py, lg) * occluders_lit(px, py, lg, scene)
    irr += 1 - L["direct_share"]
    rgb *= irr[..., None].astype(np.float32)
    if L["glare"]:
        s = specular(px, py, C, lg, L["gloss"], L["direct_share"])
        rgb += (s * on_film)[..., None].astype(np.float32) * (spec.rgb(np.ones_like(WAVELENGTHS)) / spec.white).astype(np.float32)
    if scene.hand is not None:
        hx, hy = _ray_plane(C, d, -scene.hand["height_mm"])
        a = 1 - smoothstep(-foot * 0.6, foot * 0.6, hand_sd(hx, hy, scene.hand))
        skin = (spec.rgb(spec.skin) / spec.white).astype(np.float32) * (0.75 + 0.25 * direct_light(hx, hy, lg))[..., None]
        rgb = rgb * (1 - a[..., None]) + skin * a[..., None]
    out_board = (px < 0) | (px > box.width) | (py < 0) | (py > box.height)
    rgb[out_board] = rgb[out_board] * 0 + np.array([0.32, 0.22, 0.15], np.float32) * irr[out_board][:, None]  # the table
    return cv2.resize(rgb, (scene.width, y1 - y0), interpolation=cv2.INTER_AREA) if ss > 1 else rgb


def _sample_plate_f(tex, px, py, ppm):
    mx = (px * ppm - 0.5).astype(np.float32)
    my = (py * ppm - 0.5).astype(np.float32)
    return cv2.remap(tex, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def render_linear(box, scene: Scene, rows: int = 100) -> np.ndarray:
    """The scene's linear camera RGB (before the sensor), paper white under full light about 1."""
    ss = 2 if scene.width * scene.height <= 2_500_000 else 1
    plates = board_plates(box, round(scene.line_mm, 3))
    tex = paper_texture(box, np.random.default_rng(scene.sensor["texture_seed"]))
    rng = np.random.default_rng([scene.seed, 9])
    mis = scene.sensor["misregister_mm"]
    offsets = {k: tuple(rng.normal(0, mis / 1.4, 2)) for k in ("land", "track", "pack")}
    offsets["quiet"] = offsets["land"]  # the quiet zone is a gap in the land plate
    spec = Spectra(box, scene)
    lg = light_geometry(scene, box)
    polys = film_geometry(box, scene)
    ideal = scene.camera.undistorted_grid(ss)
    out = np.zeros((scene.height, scene.width, 3), np.float32)
    for y0 in range(0, scene.height, rows):
        y1 = min(scene.height, y0 + rows)
        out[y0:y1] = shade_rows(box, scene, spec, plates, tex, offsets, lg, polys, ideal, y0, y1, ss)
    return out


# ------------------------------------------------------------------------------------------------
# Sensor

_BAYER = {"RG": (0, 0), "GR": (0, 1), "GB": (1, 0), "BG": (1, 1)}  # (row, col) of red in the 2x2 tile


def mosaic(rgb: np.ndarray, pattern: str) -> np.ndarray:
    r0, c0 = _BAYER[pattern]
    raw = rgb[..., 1].copy()
    raw[r0::2, c0::2] = rgb[r0::2, c0::2, 0]
    raw[1 - r0::2, 1 - c0::2] = rgb[1 - r0::2, 1 - c0::2, 2]
    return raw


def demosaic(raw16: np.ndarray, pattern: str, method: str) -> np.ndarray:
    # OpenCV names Bayer patterns by the second row's first two pixels; our name is the first row's
    cv_name = {"RG": "BG", "BG": "RG", "GR": "GB", "GB": "GR"}[pattern]
    if method == "vng":
        code = getattr(cv2, f"COLOR_Bayer{cv_name}2RGB_VNG")
        return cv2.cvtColor((raw16 >> 8).astype(np.uint8), code).astype(np.float32) / 255.0
    suffix = "_EA" if method == "ea" else ""
    code = getattr(cv2, f"COLOR_Bayer{cv_name}2RGB{suffix}")
    return cv2.cvtColor(raw16, code).astype(np.float32) / 65535.0


def sensor(lin: np.ndarray, scene: Scene, ccm: np.ndarray) -> np.ndarray:
    """Lens blur, vignetting, exposure, Bayer, noise, demosaic, white balance, colour, tone, sharpening."""
    s = scene.sensor
    rng = np.random.default_rng([scene.seed, 11])
    H, W = lin.shape[:2]
    img = cv2.GaussianBlur(lin, (0, 0), s["blur_px"] * (W / 1600) ** 0.5)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    r2 = ((xx - scene.camera.cx) ** 2 + (yy - scene.camera.cy) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
    img *= (1 - s["vignetting"] * r2 + 0.3 * s["vignetting"] * r2 * r2)[..., None]
    img *= auto_exposure(img[::4, ::4, 1], s["exposure"])
    raw = mosaic(img, s["bayer"])
    electrons = np.clip(raw, 0, None) * s["full_well"]
    electrons = electrons + rng.normal(0, 1, raw.shape).astype(np.float32) * np.sqrt(electrons + s["read_e"] ** 2)
    raw16 = np.clip(electrons / s["full_well"] * 65535, 0, 65535).astype(np.uint16)
    rgb = demosaic(raw16, s["bayer"], s["demosaic"])
    rgb = white_balance(rgb, s["awb"]) @ ccm.T.astype(np.float32)
    grey = rgb.mean(-1, keepdims=True)
    rgb = grey + (rgb - grey) * s["saturation"]
    out = linear_to_srgb(np.clip(rgb, 0, 1)).astype(np.float32)
    out = out + s["contrast"] * out * (1 - out) * (2 * out - 1)
    blurred = cv2.GaussianBlur(out, (0, 0), s["sharpen_px"])
    out = np.clip(out + s["sharpen"] * (out - blurred), 0, 1)
    return (out * 255 + 0.5).astype(np.uint8)


def auto_exposure(green: np.ndarray, mean_target: float) -> float:
    """A phone's metering: the frame's mean to ``mean_target`` (linear), pulled down so that no more
    than 1 % of it clips (highlight protection)."""
    k = mean_target / max(float(green.mean()), 1e-6)
    top = float(np.percentile(green, 99)) * k
    return k * min(1.0, 0.95 / max(top, 1e-6))


def white_balance(rgb: np.ndarray, how: str) -> np.ndarray:
    """Grey world, white patch (the brightest unsaturated percent), or their mean."""
    small = rgb[::4, ::4].reshape(-1, 3)
    grey = small.mean(0)
    lum = small.sum(1)
    ok = small.max(1) < 0.98
    top = small[ok & (lum >= np.percentile(lum[ok], 99))].mean(0) if ok.sum() > 100 else grey
    ref = {"grey": grey, "white_patch": top, "mixed": (grey / grey.mean() + top / top.mean()) / 2}[how]
    gains = ref.mean() / np.maximum(ref, 1e-6)
    if how != "white_patch":  # a green board fools grey world; phones bound how far it may pull
        gains = np.clip(gains / gains[1], 0.8, 1.25)
    return rgb * gains.astype(np.float32)


def encode(rgb: np.ndarray, quality: int) -> bytes:
    params = [cv2.IMWRITE_JPEG_QUALITY, int(quality), cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420]
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), params)
    assert ok
    return buf.tobytes()


# ------------------------------------------------------------------------------------------------
# Truth


def truth_of(box, scene: Scene) -> dict:
    """The scorers' truth: coverage per expedition, hidden hexes, hex centres and marker corners in pixels."""
    cam = scene.camera
    lg = light_geometry(scene, box)
    hidden = {}
    W, H = scene.width, scene.height
    for h in box.loch.hexes:
        poly = np.asarray(h.polygon, float)
        pts = np.vstack([poly, poly.mean(0)[None], (poly + np.roll(poly, -1, 0)) / 2])
        q = cam.project(pts)
        if not ((q[:, 0] >= 1) & (q[:, 0] < W - 1) & (q[:, 1] >= 1) & (q[:, 1] < H - 1)).all():
            hidden[h.address] = "out of frame"
            continue
        why = _hidden_by(box, scene, lg, pts)
        if why:
            hidden[h.address] = why
    cov = hex_coverage(box, scene.sheets, line_mm=scene.line_mm)
    return {
        "schema": "nessie-vision-truth/1",
        "generator": "board_raycast",
        "line_mm": scene.line_mm,
        "sheets": [s.to_json() for s in scene.sheets],
        "coverage": {e: {a: {"covered": d.covered, "close": d.close} for a, d in sorted(per.items())}
                     for e, per in sorted(cov.items())},
        "hidden": dict(sorted(hidden.items())),
        "hex_centres_px": {h.address: [round(float(v), 3) for v in cam.project(np.asarray([h.center], float))[0]]
                           for h in box.loch.hexes},
        "markers_px": {str(m.id): cam.project(np.asarray(m.corners, float)).round(3).tolist() for m in box.markers},
        "camera": cam.to_json(),
    }


GLARE_HIDES = 0.25  # specular brighter than this share of paper white hides a hex (as render.py's 0.03 of its field, in spirit)
SHADOW_HIDES = 0.4  # light left under a shadow at or below this share hides a hex (render.py: depth >= 0.6)


def _hidden_by(box, scene, lg, pts) -> str | None:
    px, py = pts[:, 0], pts[:, 1]
    C = scene.camera.C
    if scene.hand is not None:
        d = np.c_[px - C[0], py - C[1], -C[2] * np.ones(len(px))]
        hx, hy = _ray_plane(C, d, -scene.hand["height_mm"])
        if (hand_sd(hx, hy, scene.hand) < 2.0).any():
            return "hand"
    L = scene.light
    if L["glare"] and (specular(px, py, C, lg, L["gloss"], L["direct_share"]) > GLARE_HIDES).any():
        return "glare"
    lit = occluders_lit(px, py, lg, scene)
    full = L["direct_share"] * direct_light(px, py, lg) + 1 - L["direct_share"]
    shaded = L["direct_share"] * direct_light(px, py, lg) * lit + 1 - L["direct_share"]
    if (shaded / full <= SHADOW_HIDES).any():
        return "shadow"
    return None


def phone_colour_matrix(scene: Scene) -> np.ndarray:
    """The phone's colour matrix: tuned under daylight, or under tungsten when the light is tungsten
    (phones interpolate between two such; neither is the scene's exact light)."""
    sens = camera_sensitivity(np.random.default_rng(scene.sensor["sens_seed"]))
    ref = planck(2850) if scene.light["kind"] == "tungsten" else _D65 / _D65.mean()
    return colour_matrix(sens, ref)


def jpeg_of(box, scene: Scene) -> bytes:
    """``scene`` rendered through its camera's sensor and JPEG: the photo's bytes."""
    return encode(sensor(render_linear(box, scene), scene, phone_colour_matrix(scene)), scene.sensor["quality"])


def render_scene(box, seed: int, width: int | None = None, height: int | None = None):
    """(JPEG bytes, truth, scene) of seed ``seed``."""
    scene = random_scene(box, seed, width, height)
    return jpeg_of(box, scene), truth_of(box, scene), scene


def render_set(box, a: int, b: int, out: str) -> None:
    """Seeds a..b-1 -> OUT/<seed>_raycast.jpg and OUT/<seed>.pkl (sheets, truth, what the scene drew)."""
    os.makedirs(out, exist_ok=True)
    for seed in range(a, b):
        if os.path.exists(f"{out}/{seed}.pkl"):
            continue
        data, truth, scene = render_scene(box, seed)
        open(f"{out}/{seed}_raycast.jpg", "wb").write(data)
        meta = {"size": [scene.width, scene.height], "light": scene.light["kind"], "glare": scene.light["glare"],
                "hand": scene.hand is not None, "phone_shadow": scene.phone_shadow is not None,
                "curls": sum(c is not None for c in scene.curls), "quality": scene.sensor["quality"],
                "awb": scene.sensor["awb"], "demosaic": scene.sensor["demosaic"]}
        pickle.dump({"sheets": scene.sheets, "truth": truth, "meta": meta}, open(f"{out}/{seed}.pkl", "wb"))


def calibration_for(box, scene: Scene, keep: str | None = None):
    """(reference, colours) as the README's setup makes them (``nessie-companion calibrate``): a photo
    of the empty board and one per expedition with a single biological unit in the loch's middle,
    the same camera, light and sensor as ``scene`` (no hand, no phone); refusals propagate.
    ``keep``: a path prefix (``CACHE/<seed>``) under which the five calibration photos are stored as
    ``<prefix>_cal_<name>.jpg`` and taken from on the next read: they are renders (~17 s a scene), while
    the calibration made from them belongs to the tree being measured, so it is made anew each read."""
    import dataclasses
    import json
    import tempfile
    from companion.vision.adjudicate import decode
    from companion.vision.calibrate import calibrate, load_calibration

    def shot(s: Scene, name: str) -> bytes:
        path = f"{keep}_cal_{name}.jpg" if keep else None
        if path and os.path.exists(path):
            return open(path, "rb").read()
        data = jpeg_of(box, s)
        if path:
            with open(path + ".tmp", "wb") as f:
                f.write(data)
            os.replace(path + ".tmp", path)
        return data

    empty = dataclasses.replace(scene, sheets=[], heights=[], curls=[], hand=None, phone_shadow=None)
    cx, cy = np.asarray(box.loch.shore_outline, float).mean(0)
    colours = {}
    for exp in EXPEDITIONS:
        one = dataclasses.replace(empty, sheets=[SheetPose(exp, "biological_unit", float(cx), float(cy), 0.0)],
                                  heights=[0.2], curls=[None])
        colours[exp] = decode(shot(one, exp), f"{exp}.jpg")
    doc = calibrate(box, decode(shot(empty, "empty"), "empty.jpg"), colours)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "cal.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        return load_calibration(path, box)


def read_set(box, cache: str, out: str, calibrated: bool = False) -> None:
    """Adjudicate every photo of a rendered set with the tree on PYTHONPATH; per photo the sheet score
    (sheetscore.score_sheets) and the coverage score (evaluate.score_coverage) -> OUT (JSON).
    ``calibrated``: each photo with its own calibration (:func:`calibration_for`; its renders are not
    timed).  A refusal (of the photo or of its calibration) is a result: its sheets all count as missed."""
    import glob
    import json
    import time
    from companion.vision.adjudicate import adjudicate, decode
    from companion.vision.evaluate import score_coverage
    from companion.vision.sheetscore import score_sheets
    res = {}
    for p in sorted(glob.glob(f"{cache}/*.pkl"), key=lambda p: int(os.path.basename(p)[:-4])):
        seed = int(os.path.basename(p)[:-4])
        t = pickle.load(open(p, "rb"))
        try:
            reference, colours = (calibration_for(box, random_scene(box, seed), keep=f"{cache}/{seed}")
                                  if calibrated else (None, None))
            t0 = time.perf_counter()
            adj = adjudicate(decode(open(f"{cache}/{seed}_raycast.jpg", "rb").read()), box,
                             reference=reference, colours=colours)
        except Exception as exc:  # noqa: BLE001 -- a refusal is a measurement
            res[f"{seed}_raycast"] = {"refused": repr(exc), "truth": len(t["sheets"]), "meta": t["meta"]}
            continue
        found = [f for fits in adj.sheets.values() for f in fits]
        s = score_sheets(box, t["sheets"], found)
        c = score_coverage(box, t["truth"], adj.coverage.covered, adj.coverage.unknown)
        res[f"{seed}_raycast"] = {k: getattr(s, k) for k in ("truth", "right", "wrong", "unidentified", "missed", "extra", "extra_named")} | {
            "errors": [[str(x) for x in e] for e in s.errors], "cov_decisions": c.decisions, "cov_errors": c.errors,
            "cov_list": [list(x) for x in c.error_list], "glare_fc": c.glare_false_covered, "shadow_fc": c.shadow_false_covered,
            "unknown_visible": c.unknown_visible, "unknown_hidden": c.unknown_hidden, "close": c.close,
            "false_covered": c.false_covered, "false_uncovered": c.false_uncovered,
            "seconds": time.perf_counter() - t0, "meta": t["meta"]}
    json.dump(res, open(out, "w"))


def summarise(paths) -> None:
    """Totals of read_set's results, all photos and per light."""
    import json
    from collections import defaultdict
    res = {}
    for p in paths:
        res.update(json.load(open(p)))
    groups = defaultdict(list)
    for k, r in res.items():
        groups["all"].append(r)
        groups[r["meta"]["light"]].append(r)
    fields = ("truth", "right", "wrong", "unidentified", "missed", "extra", "extra_named", "cov_errors", "cov_decisions",
              "false_covered", "false_uncovered", "glare_fc", "shadow_fc", "unknown_visible")
    for name, rows in groups.items():
        t = defaultdict(int)
        for r in rows:
            for f in fields:
                t[f] += r.get(f, 0)
            if "refused" in r:
                t["refused"] += 1
                t["missed"] += r["truth"]
        print(f"{name:12s} {len(rows)} photos, refused {t['refused']}: right {t['right']}/{t['truth']} "
              f"({100 * t['right'] / max(t['truth'], 1):.1f} %), wrong {t['wrong']}, unidentified {t['unidentified']}, "
              f"missed {t['missed']}, extra {t['extra']} (typed {t['extra_named']}); coverage wrong {t['cov_errors']}/"
              f"{t['cov_decisions']} (covered-when-not {t['false_covered']}, uncovered-when-covered {t['false_uncovered']}), "
              f"glare/shadow called covered {t['glare_fc']}/{t['shadow_fc']}, unknown where visible {t['unknown_visible']}")


def main(argv):
    from companion.box_profiles import load_box
    box = load_box()
    if argv[0] == "render":
        render_set(box, int(argv[1]), int(argv[2]), argv[3])
    elif argv[0] == "read":
        read_set(box, argv[1], argv[2], calibrated="--calibrated" in argv[3:])
    elif argv[0] == "sum":
        summarise(argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
