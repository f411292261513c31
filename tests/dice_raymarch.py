"""A second, independent dice scene generator: ray-marched dice, for checking the reader.

The reader (``companion/vision/dice*.py``) and the project's own renderer (``dice_render.py``)
share assumptions: flat faces, flat round pips, sharp cube edges, a flat-shaded table. Photos do
not. This generator shares no code with either and models what a camera sees differently:

* **Dice** are rounded-edge cubes (a signed distance function, sphere-traced per pixel, only in
  each die's screen box). **Pips** are concave spherical dimples carved into the faces, painted
  inside, so a pip is shaded dark on one side and lit on the other, with ambient occlusion.
* **Light**: one or two point lights, Lambert + Blinn-Phong highlight, a hemisphere ambient, in
  linear light (sRGB gamma at the end); soft cast shadows (the die's corners projected from each
  light onto the table, blurred more away from the die) and a contact shadow.
* **Materials**: opaque dice of mixed colours, *translucent* dice (lighter, light glowing
  through, the pips of the far faces faintly visible through the body), *marbled* dice (a 3-D
  turbulence texture).
* **Camera**: a perspective pinhole at various heights, tilted 0-30 degrees so side faces show;
  depth of field, motion blur, white balance, shot and read noise, JPEG.
* **Tables** are textured in table coordinates and seen in perspective: wood grain, felt fibres,
  paper, a white (slightly glossy) table.

Two scene kinds, after the accuracy target's photos: ``phone`` (1600x1200 .. 4000x3000, two to
seven dice of mixed colours on white or felt, ~40-250 px) and ``webcam`` (640x480, one to three
white dice on a wooden desk, ~25-70 px, often blurred, low JPEG quality).

Seeded: the same seed gives the same picture and truth (value and top-face centre per die; the
values follow the standard die, opposite faces summing to 7). Test-side only: nothing in
``companion`` imports this.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from tests.dice_raymarch_table import _die_corners, _lin, _shade_points, _table
from tests.dice_raymarch_webcam import webcam_pipeline as webcam_pipeline_of

# pip places on a face, in grid steps (the reader's layouts are not imported: this is independent)
_LAYOUT = {
    1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}
# faces: (axis, sign); index order top (+z), bottom, +x, -x, +y, -y
_FACES = [(2, 1), (2, -1), (0, 1), (0, -1), (1, 1), (1, -1)]
_FACE_OF = np.zeros((3, 2), np.int64)  # [axis, sign>0] -> face index
for _i, (_k, _s) in enumerate(_FACES):
    _FACE_OF[_k, int(_s > 0)] = _i
_UV = {0: (1, 2), 1: (0, 2), 2: (0, 1)}  # the two in-face axes of each axis
_U_AX = np.array([_UV[k][0] for k in range(3)])
_V_AX = np.array([_UV[k][1] for k in range(3)])

# (body sRGB as BGR, pip BGR) per style; every die's colours are jittered around these
STYLES = {
    "white": ((236, 236, 232), (28, 28, 28)),
    "ivory": ((200, 226, 238), (35, 30, 30)),
    "black_white": ((28, 28, 30), (235, 235, 235)),
    "black_red": ((30, 28, 30), (45, 40, 190)),
    "dark_red_white": ((35, 30, 120), (230, 230, 230)),
    "red_white": ((45, 40, 200), (238, 238, 238)),
    "yellow_black": ((45, 205, 235), (25, 25, 25)),
    "blue_white": ((165, 85, 25), (238, 238, 238)),
    "green_white": ((60, 140, 35), (238, 238, 238)),
    "translucent_red": ((70, 60, 215), (245, 245, 245)),
    "translucent_blue": ((215, 140, 60), (245, 245, 245)),
    "translucent_green": ((110, 200, 90), (245, 245, 245)),
    "translucent_clear": ((215, 215, 210), (30, 30, 30)),
    "marbled_blue": ((175, 120, 60), (240, 240, 240)),
    "marbled_green": ((90, 150, 70), (25, 25, 25)),
    "marbled_purple": ((140, 60, 120), (240, 240, 240)),
}
PHONE_SURFACES = ("white_table", "white_paper", "felt_green", "felt_blue", "felt_black", "felt_red")
WEBCAM_SURFACES = ("wood_light", "wood_dark")


@dataclass
class RayDie:
    value: int
    center: tuple[float, float]  # the top face's centre, image pixels
    side_px: float  # the top face's side in pixels, about
    style: str


@dataclass
class RayScene:
    image: np.ndarray
    dice: list[RayDie]
    params: dict = field(default_factory=dict)


# ---------------------------------------------------------------- helpers

def _rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _rot_x(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


class _Cam:
    """Pinhole camera looking at the table origin from ``dist`` mm, tilted ``tilt`` rad toward ``azim``."""

    def __init__(self, w, h, f, dist, tilt, azim):
        self.w, self.h, self.f = w, h, f
        turn = _rot_z(azim) @ _rot_x(tilt) @ _rot_z(-azim)
        fwd = turn @ np.array([0, 0, -1.0])
        self.pos = -fwd * dist
        right = turn @ np.array([1.0, 0, 0])
        down = np.cross(fwd, right)
        self.R = np.stack([right, down, fwd])  # world -> camera rows

    def project(self, pts):
        pc = (np.atleast_2d(pts) - self.pos) @ self.R.T
        z = np.maximum(pc[:, 2], 1e-6)
        return np.stack([self.f * pc[:, 0] / z + self.w / 2, self.f * pc[:, 1] / z + self.h / 2], 1), z

    def rays(self, xs, ys):
        d = np.stack([(xs - self.w / 2) / self.f, (ys - self.h / 2) / self.f, np.ones_like(xs)], -1) @ self.R
        return d / np.linalg.norm(d, axis=-1, keepdims=True)

    def on_table(self, x, y):
        d = self.rays(np.array([x], float), np.array([y], float))[0]
        if d[2] >= -1e-6:
            return None
        t = -self.pos[2] / d[2]
        return self.pos + t * d


# ---------------------------------------------------------------- dice

@dataclass
class _Die:
    centre: np.ndarray  # world (mm), the die's middle
    side: float  # mm
    yaw: float
    values: list[int]  # per face in _FACES order
    body: np.ndarray  # linear BGR
    pip: np.ndarray
    edge_r: float  # rounding radius, in sides
    spacing: float  # pip grid step, in sides
    pip_r: np.ndarray  # (6, 3, 3) pip radius per face and place (0: no pip)
    depth: float  # dimple depth, in pip radii
    gloss: float
    shine: float
    translucent: bool
    marbled: bool
    style: str
    marble: tuple = ()

    @property
    def R(self):
        return _rot_z(self.yaw)


def _make_die(rng, style, centre_xy, side) -> _Die:
    body, pip = STYLES[style]
    body = _lin(np.clip(np.array(body, float) + rng.normal(0, 10, 3), 0, 255))
    pip = _lin(np.clip(np.array(pip, float) + rng.normal(0, 8, 3), 0, 255))
    top = int(rng.integers(1, 7))
    sides = [v for v in range(1, 7) if v not in (top, 7 - top)]
    a = int(rng.choice(sides))
    b = int(rng.choice([v for v in sides if v not in (a, 7 - a)]))
    values = [top, 7 - top, a, 7 - a, b, 7 - b]
    spacing = float(rng.uniform(0.24, 0.3))  # pip offset from the centre (real dice 0.25-0.3 of a side)
    r = float(rng.uniform(0.065, 0.1))
    ace = float(rng.choice([1.0, 1.0, 1.3, 1.7]))
    pip_r = np.zeros((6, 3, 3))
    for f, v in enumerate(values):
        turn = rng.integers(0, 4)
        for gu, gv in _LAYOUT[v]:
            for _ in range(turn):
                gu, gv = -gv, gu
            pip_r[f, gu + 1, gv + 1] = r * (ace if v == 1 else 1.0)
    translucent = style.startswith("translucent")
    marbled = style.startswith("marbled")
    marble = ()
    if marbled:
        marble = (rng.normal(0, 1, (5, 3)) * rng.uniform(3, 9), rng.uniform(0, 2 * math.pi, 5),
                  rng.uniform(0.2, 0.6, 5), _lin(np.clip(np.array(STYLES[style][0]) * rng.uniform(0.4, 1.7), 0, 255)),
                  rng.normal(0, 1, 3) * rng.uniform(4, 10))
    z = side / 2
    return _Die(np.array([centre_xy[0], centre_xy[1], z]), side, float(rng.uniform(0, 2 * math.pi)), values,
                body, pip, float(rng.uniform(0.05, 0.16)), spacing, pip_r, float(rng.uniform(0.15, 0.7)),
                float(rng.uniform(0.08, 0.5) if not translucent else rng.uniform(0.4, 0.8)),
                float(rng.uniform(15, 90)), translucent, marbled, style, marble)


def _pip_lookup(die: _Die, p: np.ndarray):
    """For local points p (N, 3; side 1): the face index, the lateral offset from the nearest pip
    place (du, dv), the coordinate along the face normal, its sign, and that place's pip radius."""
    n = len(p)
    idx = np.arange(n)
    k = np.abs(p).argmax(axis=1)
    s = np.where(p[idx, k] > 0, 1, -1)
    face = _FACE_OF[k, (s > 0).astype(np.int64)]
    u, v = p[idx, _U_AX[k]], p[idx, _V_AX[k]]
    gu = np.clip(np.rint(u / die.spacing), -1, 1).astype(np.int64)
    gv = np.clip(np.rint(v / die.spacing), -1, 1).astype(np.int64)
    rad = die.pip_r[face, gu + 1, gv + 1]
    return face, u - gu * die.spacing, v - gv * die.spacing, p[idx, k], s, rad


def _sdf(die: _Die, p: np.ndarray) -> np.ndarray:
    a, r = 0.5, die.edge_r
    q = np.abs(p) - (a - r)
    d = np.sqrt((np.maximum(q, 0) ** 2).sum(axis=1)) + np.minimum(q.max(axis=1), 0) - r
    _, du, dv, pk, s, rad = _pip_lookup(die, p)
    has = rad > 0
    if has.any():
        h = np.maximum(rad * die.depth, 1e-4)
        big_r = (rad * rad + h * h) / (2 * h)  # the sphere that cuts a dimple of radius rad, depth h
        dk = pk - s * (a + big_r - h)
        ds = np.sqrt(dk * dk + du * du + dv * dv) - big_r
        d = np.where(has, np.maximum(d, -ds), d)
    return d


def _march(die: _Die, o: np.ndarray, d: np.ndarray):
    """Sphere-trace rays (local coords, side 1) against the die: hit mask and distance t."""
    n = len(o)
    # the rays' span inside the die's box (slab test) bounds the march
    inv = 1.0 / np.where(np.abs(d) < 1e-9, 1e-9, d)
    t0 = (-0.5 - o) * inv
    t1 = (0.5 - o) * inv
    tn = np.minimum(t0, t1).max(axis=1)
    tf = np.maximum(t0, t1).min(axis=1)
    hit = np.zeros(n, bool)
    t = np.maximum(tn, 0)
    live = np.flatnonzero((tf > tn) & (tf > 0))
    for _ in range(64):
        if live.size == 0:
            break
        dist = _sdf(die, o[live] + t[live, None] * d[live])
        done = dist < 1e-3
        hit[live[done]] = True
        t[live] += np.where(done, 0, dist * 0.95)
        live = live[~done & (t[live] < tf[live])]
    return hit, t


def _normals(die: _Die, p: np.ndarray) -> np.ndarray:
    e = 1e-3
    ks = np.array([[1, -1, -1], [-1, -1, 1], [-1, 1, -1], [1, 1, 1]], np.float64)
    n = sum(k[None, :] * _sdf(die, p + e * k[None, :])[:, None] for k in ks)
    return n / np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-9)


def _marble(die: _Die, p: np.ndarray) -> np.ndarray:
    freqs, phases, amps, other, axis = die.marble
    turb = sum(a * np.sin(p @ f + ph) for f, ph, a in zip(freqs, phases, amps))
    t = 0.5 + 0.5 * np.sin(p @ axis + 3.0 * turb)
    return t ** 3  # thin veins of the second colour


# ---------------------------------------------------------------- the scene

def render_raymarch(seed: int, kind: str | None = None, webcam_pipeline: bool = False) -> RayScene:
    """One seeded scene: ``kind`` is "phone" or "webcam" (drawn from the seed when None).
    ``webcam_pipeline``: a webcam frame goes through a webcam's own pipeline (room light, auto
    white balance and exposure, gain noise, its processing; tests/dice_raymarch_webcam.py) -- the
    same scene and blur, another camera. Off, every render is as it always was."""
    rng = np.random.default_rng([seed, 4242])
    kind = kind or ("phone" if rng.random() < 0.6 else "webcam")
    if kind == "phone":
        w = int(rng.choice([1600, 2000, 3000, 4000]))
        h = w * 3 // 4
        n = int(rng.integers(2, 8))
        die_px = float(math.exp(rng.uniform(math.log(40), math.log(250))))
        styles = [str(rng.choice(list(STYLES))) for _ in range(n)]
        surface = str(rng.choice(PHONE_SURFACES))
        hfov = math.radians(rng.uniform(60, 72))
    elif kind == "webcam":
        w, h = 640, 480
        n = int(rng.integers(1, 4))
        die_px = float(rng.uniform(25, 70))
        styles = [str(rng.choice(["white", "white", "ivory"]))] * n
        surface = str(rng.choice(WEBCAM_SURFACES))
        hfov = math.radians(rng.uniform(55, 70))
    else:
        raise ValueError(f"unknown scene kind {kind!r}")
    f = w / 2 / math.tan(hfov / 2)
    tilt = float(rng.choice([0.0, rng.uniform(0, 12), rng.uniform(12, 30)]))
    side = float(rng.uniform(12, 19))  # mm
    cam = _Cam(w, h, f, f * side / die_px, math.radians(tilt), rng.uniform(0, 2 * math.pi))

    dice = _place_dice(rng, cam, styles, side, kind)
    lights = _lights(rng, cam, side)
    img, depth = _table(rng, cam, surface, lights, dice)
    truths = draw_dice(rng, cam, dice, lights, img, depth)
    params = {"kind": kind, "surface": surface, "tilt": tilt, "die_px": die_px, "size": (w, h)}
    pipeline = (lambda im: webcam_pipeline_of(seed, im, params)) if webcam_pipeline and kind == "webcam" else None
    out = _camera(rng, img, depth, kind, die_px, params, pipeline)
    return RayScene(out, sorted(truths, key=lambda t: (t.center[1], t.center[0])), params)


def place_dice_styled(rng, cam: _Cam, styles, side, kind, more_styles: dict) -> list[_Die]:
    """:func:`_place_dice` with ``more_styles`` (name -> (body, pips) BGR) known for the call: the
    renderer looks styles up by name (tests/dice_raymarch_light.py's pastels, _marbled's bodies)."""
    saved = dict(STYLES)
    STYLES.update(more_styles)
    try:
        return _place_dice(rng, cam, styles, side, kind)
    finally:
        STYLES.clear()
        STYLES.update(saved)


def draw_dice(rng, cam: _Cam, dice, lights, img, depth) -> list[RayDie]:
    """Draw ``dice`` farthest first into ``img`` / ``depth``; the truth of each: its top face's
    value, centre and side in the image."""
    truths = []
    for die in sorted(dice, key=lambda dd: -np.linalg.norm(dd.centre - cam.pos)):
        _draw_die(rng, cam, die, lights, img, depth)
        top = die.centre + die.R @ np.array([0, 0, die.side / 2])
        (cx, cy), z = cam.project(top)[0][0], cam.project(top)[1][0]
        truths.append(RayDie(die.values[0], (float(cx), float(cy)), float(cam.f * die.side / z), die.style))
    return truths


def _place_dice(rng, cam: _Cam, styles, side, kind) -> list[_Die]:
    dice: list[_Die] = []
    for style in styles:
        s = side * (rng.uniform(0.9, 1.12) if kind == "phone" else 1.0)
        for _ in range(60):
            x, y = rng.uniform(0.12, 0.88) * cam.w, rng.uniform(0.12, 0.88) * cam.h
            p = cam.on_table(x, y)
            if p is None:
                continue
            if any(np.hypot(*(p[:2] - o.centre[:2])) < 0.75 * (s + o.side) * rng.uniform(1.0, 1.6) for o in dice):
                continue
            die = _make_die(rng, style, p[:2], s)
            corners = np.array([[sx, sy, sz] for sx in (-.5, .5) for sy in (-.5, .5) for sz in (-.5, .5)]) * s
            uv, _ = cam.project(die.centre + corners @ die.R.T)
            if uv[:, 0].min() < 4 or uv[:, 1].min() < 4 or uv[:, 0].max() > cam.w - 5 or uv[:, 1].max() > cam.h - 5:
                continue
            dice.append(die)
            break
    return dice


def _lights(rng, cam: _Cam, side) -> list[tuple[np.ndarray, float]]:
    """One or two point lights above the table: (position mm, intensity)."""
    height = float(np.linalg.norm(cam.pos))
    out = []
    for i in range(int(rng.integers(1, 3))):
        ang = rng.uniform(0, 2 * math.pi)
        elev = math.radians(rng.uniform(35, 80))
        dist = height * rng.uniform(1.5, 4)
        pos = np.array([math.cos(ang) * math.cos(elev), math.sin(ang) * math.cos(elev), math.sin(elev)]) * dist
        out.append((pos, float(rng.uniform(0.6, 1.0) if i == 0 else rng.uniform(0.2, 0.5))))
    return out


def _draw_die(rng, cam: _Cam, die: _Die, lights, img, depth) -> None:
    corners = _die_corners(die)
    uv, _ = cam.project(corners)
    h, w = img.shape[:2]
    xa, ya = np.maximum(np.floor(uv.min(axis=0)).astype(int) - 2, 0)
    xb, yb = np.minimum(np.ceil(uv.max(axis=0)).astype(int) + 3, [w, h])
    ys, xs = np.mgrid[ya:yb, xa:xb]
    xs, ys = xs.ravel().astype(np.float64) + 0.5, ys.ravel().astype(np.float64) + 0.5
    dw = cam.rays(xs, ys)
    Rt = die.R.T
    o = np.tile(Rt @ (cam.pos - die.centre) / die.side, (len(dw), 1))
    dl = dw @ Rt.T
    hit, t = _march(die, o, dl)
    tw = t * die.side
    iy, ix = (ys[hit] - 0.5).astype(int), (xs[hit] - 0.5).astype(int)
    front = tw[hit] < depth[iy, ix]
    idx = np.flatnonzero(hit)[front]
    if idx.size == 0:
        return
    iy, ix = iy[front], ix[front]
    p = o[idx] + t[idx, None] * dl[idx]
    n_local = _normals(die, p)
    P = die.centre + (p * die.side) @ die.R.T
    N = n_local @ die.R.T
    V = -dw[idx]
    diff, spec = _shade_points(P, N, V, lights, ambient=0.35, shine=die.shine)
    spec = die.gloss * spec

    face, du, dv, pk, s, rad = _pip_lookup(die, p)
    lateral = np.sqrt(du * du + dv * dv)
    in_pip = (rad > 0) & (lateral < rad * 1.01) & (np.abs(pk) < 0.5 - 2e-4)
    body = np.tile(die.body, (len(p), 1))
    if die.marbled:
        m = _marble(die, p)[:, None]
        body = body * (1 - m) + die.marble[3][None, :] * m
    albedo = np.where(in_pip[:, None], die.pip[None, :], body)
    # ambient occlusion inside a dimple: deeper is darker
    dip = np.clip((0.5 - np.abs(pk)) / np.maximum(rad * die.depth, 1e-4), 0, 1)
    occl = np.where(in_pip, 1 - 0.45 * dip, 1.0)
    col = albedo * (diff * occl)[:, None] + spec[:, None]
    if die.translucent:
        glow = np.mean([pw for _, pw in lights]) * 0.9 + 0.2
        col = np.where(in_pip[:, None], col, 0.55 * col + 0.45 * body * glow)
        far = _far_pips(die, p, dl[idx])
        if far.any():
            layer = np.zeros((yb - ya, xb - xa), np.float32)
            layer[iy - ya, ix - xa] = far
            layer = cv2.GaussianBlur(layer, (0, 0), max(0.6, 0.015 * (xb - xa)))
            a = (float(rng.uniform(0.15, 0.35)) * layer[iy - ya, ix - xa])[:, None]
            through = 0.5 * die.pip + 0.5 * body
            col = np.where(in_pip[:, None], col, col * (1 - a) + through * glow * a)
    img[iy, ix] = col.astype(np.float32)
    depth[iy, ix] = tw[idx]


def _far_pips(die: _Die, p, d) -> np.ndarray:
    """For rays entering a translucent die at p (local) going d: 1 where the ray leaves through a
    pip of a far face (seen through the body), else 0."""
    inv = 1.0 / np.where(np.abs(d) < 1e-9, 1e-9, d)
    t_exit = np.minimum((np.sign(d) * 0.5 - p) * inv, 1e9).min(axis=1)
    e = p + t_exit[:, None] * d
    _, du, dv, _, _, rad = _pip_lookup(die, e)
    return ((rad > 0) & (du * du + dv * dv < rad * rad)).astype(np.float32)


def _camera(rng, img, depth, kind, die_px, params, pipeline=None) -> np.ndarray:
    """From linear light to a JPEG-decoded 8-bit photo: exposure, white balance, blur, noise, gamma.
    ``pipeline`` (a webcam's own, from the blurred linear frame on) replaces the noise onward."""
    h, w = img.shape[:2]
    img = img * rng.uniform(0.8, 1.25) * rng.uniform(0.92, 1.08, 3).astype(np.float32)
    blur = str(rng.choice(["none", "focus", "motion"], p=[0.5, 0.3, 0.2] if kind == "phone" else [0.4, 0.3, 0.3]))
    params["blur"] = blur
    scale = max(1.0, w / 1000)  # (a phone's bigger sensor: blur counts in pixels grow with it)
    if blur == "focus":
        # depth of field: sharp at one depth, blurred more away from it
        sigma = rng.uniform(0.8, 2.2) * scale
        far = cv2.GaussianBlur(img, (0, 0), sigma)
        dz = np.abs(depth - np.percentile(depth, rng.uniform(20, 80)))
        wgt = np.clip(dz / max(float(dz.max()), 1e-6) * 2 + 0.35, 0, 1)[..., None]
        img = img * (1 - wgt) + far * wgt
    elif blur == "motion":
        length = max(3, int(rng.uniform(0.04, 0.12) * die_px)) | 1
        k = np.zeros((length, length), np.float32)
        k[length // 2] = 1.0
        M = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1.0)
        k = cv2.warpAffine(k, M, (length, length))
        img = cv2.filter2D(img, -1, k / k.sum())
    else:
        img = cv2.GaussianBlur(img, (0, 0), 0.5 * scale ** 0.5)  # optics are never perfect
    if pipeline is not None:
        return pipeline(img.astype(np.float32))
    read = 0.004 if kind == "phone" else 0.012
    shot = 0.01 if kind == "phone" else 0.025
    img = np.clip(img, 0, 1, out=img.astype(np.float32))
    img += rng.standard_normal(img.shape, dtype=np.float32) * np.sqrt(read ** 2 + shot ** 2 * img)
    # gamma through a lookup table (a 12-bit linear image): far faster than a power per pixel
    lut = (np.linspace(0, 1, 4096) ** (1 / 2.2) * 255 + 0.5).astype(np.uint8)
    out = lut[np.clip(img * 4095, 0, 4095).astype(np.uint16)]
    if kind == "phone" and rng.random() < 0.5:  # phones sharpen
        soft = cv2.GaussianBlur(out, (0, 0), 1.2 * scale ** 0.5)
        out = cv2.addWeighted(out, 1.6, soft, -0.6, 0)
    q = int(rng.uniform(80, 95) if kind == "phone" else rng.uniform(45, 85))
    params["jpeg"] = q
    return cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])[1], cv2.IMREAD_COLOR)
