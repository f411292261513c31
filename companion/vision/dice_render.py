"""Synthetic dice scenes for tests, benchmarks and the simulated camera.

A scene is one to six dice on a surface seen by a pinhole camera: each die is a small cube in
3-D (yaw, a little tilt, sometimes touching a neighbour), its visible faces projected with their
pips, shaded by a light, with a soft shadow. The surface, die colours, camera tilt, glare, blur,
noise and JPEG quality are drawn at random from a seeded generator, so every call with the same
seed gives the same picture and the truth that goes with it.

    >>> scene = render_scene(seed=3)
    >>> scene.image.shape[2], 1 <= len(scene.dice) <= 6
    (3, True)

Nothing here is used by the reader; it only makes pictures to check the reader against.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

# Pip positions on a face, in face coordinates (-1..1 across the face).
PIP_LAYOUTS: dict[int, list[tuple[float, float]]] = {
    1: [(0.0, 0.0)],
    2: [(-0.5, -0.5), (0.5, 0.5)],
    3: [(-0.5, -0.5), (0.0, 0.0), (0.5, 0.5)],
    4: [(-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)],
    5: [(-0.5, -0.5), (0.5, -0.5), (0.0, 0.0), (-0.5, 0.5), (0.5, 0.5)],
    6: [(-0.5, -0.5), (-0.5, 0.0), (-0.5, 0.5), (0.5, -0.5), (0.5, 0.0), (0.5, 0.5)],
}

# (body BGR, pip BGR, style) -- the dice one meets on real tables.
DIE_STYLES = {
    "white": ((235, 235, 232), (25, 25, 25)),
    "ivory": ((205, 228, 238), (30, 30, 30)),
    "black_white": ((30, 30, 30), (235, 235, 235)),
    "black_red": ((35, 32, 32), (40, 40, 200)),
    "red": ((40, 40, 200), (240, 240, 240)),
    "dark_red": ((30, 25, 130), (230, 230, 230)),
    "yellow": ((40, 210, 235), (20, 20, 20)),
    "green": ((70, 150, 40), (240, 240, 240)),
    "blue": ((170, 90, 20), (240, 240, 240)),
    "orange": ((30, 120, 240), (20, 20, 20)),
    "purple": ((130, 40, 100), (235, 235, 235)),
    "translucent_red": ((60, 60, 210), (240, 240, 240)),
    "translucent_blue": ((200, 120, 40), (240, 240, 240)),
    "translucent_green": ((90, 190, 60), (250, 250, 250)),
    "marbled_blue": ((180, 120, 60), (240, 240, 240)),
    "marbled_green": ((100, 160, 80), (20, 20, 20)),
    "marbled_pink": ((170, 140, 230), (30, 30, 30)),
}
SURFACES = ("white_paper", "grey_paper", "felt_green", "felt_blue", "felt_red", "felt_black",
            "wood_light", "wood_dark", "dark_table", "cloth")


@dataclass
class DieTruth:
    value: int
    center: tuple[float, float]  # pixels: the top face's centre
    style: str
    side_px: float  # the top face's side in pixels, about
    touching: bool = False

    def as_dict(self) -> dict:
        return {"value": self.value, "center": [round(self.center[0], 1), round(self.center[1], 1)],
                "style": self.style, "side_px": round(self.side_px, 1), "touching": self.touching}


@dataclass
class Scene:
    image: np.ndarray
    dice: list[DieTruth]
    params: dict = field(default_factory=dict)

    @property
    def categories(self) -> dict:
        return {k: self.params[k] for k in ("surface", "tilt", "blur", "touching") if k in self.params}


# ---------------------------------------------------------------- surfaces

def _noise(rng, h, w, scale, octaves=3):
    """Smooth value noise in 0..1 (a few octaves of upsampled random grids)."""
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        s = max(2, int(scale * (2 ** o)))
        grid = rng.random((max(2, h // s + 2), max(2, w // s + 2))).astype(np.float32)
        out += amp * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)[:h, :w]
        total += amp
        amp *= 0.5
    out /= total
    return np.clip(out, 0, 1)


def _surface(rng, kind, h, w):
    if kind in ("white_paper", "grey_paper"):
        base = np.array([242, 244, 245] if kind == "white_paper" else [190, 195, 198], np.float32)
        base += rng.normal(0, 6, 3)
        img = np.ones((h, w, 3), np.float32) * base
        img *= (0.92 + 0.1 * _noise(rng, h, w, max(h, w) / 3, 2))[..., None]
        img += rng.normal(0, 1.5, (h, w, 1))
    elif kind.startswith("felt") or kind == "cloth":
        colour = {"felt_green": (40, 110, 30), "felt_blue": (120, 60, 20), "felt_red": (35, 30, 120),
                  "felt_black": (28, 28, 30), "cloth": tuple(int(c) for c in rng.integers(60, 200, 3))}[kind]
        img = np.ones((h, w, 3), np.float32) * (np.array(colour, np.float32) + rng.normal(0, 8, 3))
        fibres = rng.normal(0, 1, (h, w)).astype(np.float32)
        fibres = cv2.GaussianBlur(fibres, (0, 0), 0.8)
        img *= (1 + 0.08 * fibres + 0.15 * (_noise(rng, h, w, max(h, w) / 4, 2) - 0.5))[..., None]
    elif kind.startswith("wood"):
        light = kind == "wood_light"
        c1 = np.array([120, 170, 205] if light else [40, 70, 110], np.float32) + rng.normal(0, 10, 3)
        c2 = c1 * (0.72 if light else 0.6)
        ang = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        along = xx * math.cos(ang) + yy * math.sin(ang)
        across = -xx * math.sin(ang) + yy * math.cos(ang)
        warp = _noise(rng, h, w, max(h, w) / 5, 3) * rng.uniform(20, 60)
        period = rng.uniform(6, 22) * max(h, w) / 640
        t = 0.5 + 0.5 * np.sin((across + warp + 0.02 * along) * 2 * math.pi / period)
        t = t ** rng.uniform(1.5, 4)
        fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.0)
        t = np.clip(t + 0.08 * fine, 0, 1)
        img = c1 * (1 - t[..., None]) + c2 * t[..., None]
    else:  # dark_table
        img = np.ones((h, w, 3), np.float32) * (np.array([45, 45, 50], np.float32) + rng.normal(0, 6, 3))
        img *= (0.85 + 0.3 * _noise(rng, h, w, max(h, w) / 3, 2))[..., None]
    return np.clip(img, 0, 255)


# ---------------------------------------------------------------- geometry

def _rot(axis, a):
    c, s = math.cos(a), math.sin(a)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == "y":
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


class _Camera:
    """A pinhole camera above the table centre, looking down, tilted by ``tilt`` radians."""

    def __init__(self, w, h, f, height, tilt, tilt_dir):
        self.w, self.h, self.f = w, h, f
        # camera looks along -z of the world; tilt it about an axis in the table plane
        r_tilt = _rot("z", tilt_dir) @ _rot("x", tilt) @ _rot("z", -tilt_dir)
        look = r_tilt @ np.array([0, 0, -1.0])
        self.pos = -look * height  # so the optical axis meets the table at the origin
        # camera axes: x right, y down, z forward (look)
        up_hint = r_tilt @ np.array([0, 1.0, 0])
        x_axis = np.cross(look, up_hint)
        x_axis /= np.linalg.norm(x_axis)
        y_axis = np.cross(look, x_axis)
        self.R = np.stack([x_axis, y_axis, look])  # world -> camera rows

    def project(self, pts):
        pc = (np.asarray(pts, float) - self.pos) @ self.R.T
        z = np.maximum(pc[:, 2], 1e-6)
        return np.stack([self.f * pc[:, 0] / z + self.w / 2, self.f * pc[:, 1] / z + self.h / 2], 1), pc[:, 2]


def _rounded_square(r, n_corner=5):
    """Outline of a square with rounded corners in face coordinates (-1..1)."""
    pts = []
    r = max(1e-3, r)
    for cx, cy, a0 in ((1 - r, 1 - r, 0), (-1 + r, 1 - r, 90), (-1 + r, -1 + r, 180), (1 - r, -1 + r, 270)):
        for k in range(n_corner):
            a = math.radians(a0 + 90 * k / (n_corner - 1))
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts)


def _circle(n=14):
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.stack([np.cos(a), np.sin(a)], 1)


# The six faces of a unit cube: (normal, u axis, v axis) in die coordinates.
_FACES = [
    (np.array([0, 0, 1.0]), np.array([1.0, 0, 0]), np.array([0, 1.0, 0])),
    (np.array([0, 0, -1.0]), np.array([1.0, 0, 0]), np.array([0, -1.0, 0])),
    (np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), np.array([0, 0, 1.0])),
    (np.array([-1.0, 0, 0]), np.array([0, -1.0, 0]), np.array([0, 0, 1.0])),
    (np.array([0, 1.0, 0]), np.array([-1.0, 0, 0]), np.array([0, 0, 1.0])),
    (np.array([0, -1.0, 0]), np.array([1.0, 0, 0]), np.array([0, 0, 1.0])),
]


def _face_values(rng, top):
    """Values for the faces in _FACES order: top, bottom, +x, -x, +y, -y (opposites sum to 7)."""
    sides = [v for v in range(1, 7) if v not in (top, 7 - top)]
    a = int(rng.choice(sides))
    b = int(rng.choice([v for v in sides if v not in (a, 7 - a)]))
    return [top, 7 - top, a, 7 - a, b, 7 - b]


# ---------------------------------------------------------------- the scene

def render_scene(seed: int | None = None, *, n_dice: int | None = None, size: tuple[int, int] | None = None,
                 surface: str | None = None, styles: list[str] | None = None, tilt_deg: float | None = None,
                 blur: str | None = None, touching: bool | None = None, die_px: float | None = None,
                 values: list[int] | None = None, glare: bool | None = None, jpeg: bool | None = None,
                 noise: float | None = None, positions: list[tuple[float, float, float]] | None = None,
                 background: np.ndarray | None = None, rng: np.random.Generator | None = None,
                 wide: bool = False) -> Scene:
    """Render one varied dice scene; every argument left ``None`` is drawn from ``seed``.

    ``wide`` draws from broader ranges (see :class:`_Wide`: die size 20-120 px, tilt to 26 degrees,
    a closer camera, pip size and shape, rounding, light, colour temperature, noise, JPEG, odd die
    colours), so the reader is not only checked against the narrower default set it was tuned on.
    The wide draws come from their own generator: the default renders of a seed do not change.

    ``size`` is (width, height); ``die_px`` the rough side of a die in pixels; ``blur`` one of
    "none", "gauss", "motion"; ``positions`` (x_mm, y_mm, yaw_rad) per die pins the layout (the
    streaming tests move dice that way); ``background`` a surface image to reuse between frames.
    """
    rng = rng if rng is not None else np.random.default_rng(seed)
    wx = _Wide(np.random.default_rng([seed or 0, 8191])) if wide else None
    w, h = size or [(640, 480), (800, 600), (1024, 768), (1280, 720), (960, 720)][int(rng.integers(0, 5))]
    if wx and size is None:
        w, h = wx.size
    surface = surface or str(rng.choice(SURFACES))
    n = n_dice or int(rng.integers(1, 7))
    die_mm = 16.0
    die_px = die_px or (wx.die_px(w, h) if wx else float(rng.uniform(0.055, 0.13) * min(w, h)))
    tilt = math.radians(tilt_deg if tilt_deg is not None else (0.0 if rng.random() < 0.4 else rng.uniform(3, 22)))
    if wx and tilt_deg is None:
        tilt = wx.tilt
    height = float(rng.uniform(250, 600)) if not wx else wx.height
    f = die_px * height / die_mm
    cam = _Camera(w, h, f, height, tilt, float(rng.uniform(0, 2 * math.pi)))
    touching = bool(rng.random() < 0.3) if touching is None else touching

    # surface in view: the table area the image covers (about), in mm
    half_w, half_h = w / 2 / f * height, h / 2 / f * height
    styles_given = styles
    if styles is None:
        pool = list(DIE_STYLES)
        if rng.random() < 0.5:  # a set of one style, as often at a table
            styles = [str(rng.choice(pool))] * n
        else:
            styles = [str(rng.choice(pool)) for _ in range(n)]
    values = values or [int(v) for v in rng.integers(1, 7, n)]

    placed: list[tuple[float, float, float]] = []
    touching_flags = [False] * n
    if positions is not None:
        placed = list(positions)[:n]
    else:
        margin = die_mm * 1.6
        tries = 0
        while len(placed) < n and tries < 2000:
            tries += 1
            if touching and placed and rng.random() < 0.6:
                bx, by, yaw = placed[int(rng.integers(0, len(placed)))]
                side = int(rng.integers(0, 4)) * math.pi / 2 + yaw
                gap = die_mm * (1.0 + rng.uniform(0.0, 0.04))
                slide = rng.uniform(-0.3, 0.3) * die_mm
                x = bx + gap * math.cos(side) - slide * math.sin(side)
                y = by + gap * math.sin(side) + slide * math.cos(side)
                cand = (x, y, yaw + rng.uniform(-0.03, 0.03))
                min_d = die_mm * 0.98
            else:
                x = rng.uniform(-1, 1) * max(0.0, half_w * 0.8 - margin)
                y = rng.uniform(-1, 1) * max(0.0, half_h * 0.8 - margin)
                cand = (x, y, rng.uniform(0, math.pi / 2))
                min_d = die_mm * 1.6
            if abs(cand[0]) > max(0.0, half_w * 0.85 - die_mm) or abs(cand[1]) > max(0.0, half_h * 0.85 - die_mm):
                continue
            ds = [math.hypot(cand[0] - p[0], cand[1] - p[1]) for p in placed]
            parent = int(np.argmin(ds)) if ds else -1
            if all(d >= (min_d if j == parent else die_mm * 1.5) for j, d in enumerate(ds)):
                if ds and min(ds) < die_mm * 1.2:
                    touching_flags[len(placed)] = True
                    touching_flags[int(np.argmin(ds))] = True
                placed.append(cand)
        n = len(placed)
        values, styles = values[:n], styles[:n]

    # image: surface, lighting
    img = background.astype(np.float32).copy() if background is not None else _surface(rng, surface, h, w)
    light = np.array([rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), 1.0])
    if wx:
        light = wx.light
    light /= np.linalg.norm(light)

    dice_truth: list[DieTruth] = []
    order = sorted(range(n), key=lambda i: -np.linalg.norm(np.array([placed[i][0], placed[i][1], 0]) - cam.pos))
    rounding = float(rng.uniform(0.12, 0.3))
    circ = _circle()
    pip_r = float(rng.uniform(0.13, 0.19))
    shadow_len = float(rng.uniform(0.1, 0.5))
    glare_on = bool(rng.random() < 0.35) if glare is None else glare
    if wx:
        rounding, circ, pip_r = wx.rounding, wx.pip_outline, wx.pip_r
        glare_on = wx.glare if glare is None else glare
    outline = _rounded_square(rounding)

    # shadows first, onto the surface
    shadow = np.zeros((h, w), np.float32)
    for i in range(n):
        x, y, yaw = placed[i]
        foot = np.array([[x, y, 0.0]]) + (_rot("z", yaw)[:, :2] @ (outline.T * die_mm / 2 * 1.05)).T
        foot = foot + np.array([-light[0], -light[1], 0]) * die_mm * shadow_len
        p2, _ = cam.project(foot)
        cv2.fillPoly(shadow, [np.round(p2 * 4).astype(np.int32)], 1.0, cv2.LINE_AA, shift=2)
    if shadow.any():
        k = max(3, int(die_px * 0.25)) | 1
        shadow = cv2.GaussianBlur(shadow, (k, k), 0)
        img *= (1 - rng.uniform(0.2, 0.5) * shadow)[..., None]

    for i in order:
        x, y, yaw = placed[i]
        style = styles[i]
        body, pip = (np.array(c, np.float32) for c in DIE_STYLES[style])
        body = np.clip(body + rng.normal(0, 8, 3), 0, 255)
        if wx and styles_given is None and wx.odd_colour():
            body, pip = wx.colours()
            style = styles[i] = "other_colour"
        translucent = style.startswith("translucent")
        marbled = style.startswith("marbled")
        tilt_die = _rot("x", rng.normal(0, 0.03)) @ _rot("y", rng.normal(0, 0.03))
        R = _rot("z", yaw) @ tilt_die
        centre = np.array([x, y, die_mm / 2])
        faces = _face_values(rng, values[i])
        spin = int(rng.integers(0, 4))
        drawn = []
        for fi, (nrm, u, v) in enumerate(_FACES):
            nw = R @ nrm
            fc = centre + nw * die_mm / 2
            if np.dot(nw, cam.pos - fc) <= 0:
                continue
            drawn.append((np.dot(fc - cam.pos, fc - cam.pos), fi, nw, fc, R @ u, R @ v))
        drawn.sort(key=lambda t: -t[0])
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
        cp, _ = cam.project(centre + (corners @ R.T) * die_mm / 2)
        pad = 4 + int(die_px * 0.3)
        X0, Y0 = max(0, int(cp[:, 0].min()) - pad), max(0, int(cp[:, 1].min()) - pad)
        X1, Y1 = min(w, int(cp[:, 0].max()) + pad), min(h, int(cp[:, 1].max()) + pad)
        if X1 - X0 < 4 or Y1 - Y0 < 4:
            continue
        off = np.array([X0, Y0], float)
        rh, rw = Y1 - Y0, X1 - X0
        under = img[Y0:Y1, X0:X1]
        layer = np.zeros((rh, rw, 3), np.float32)
        alpha = np.zeros((rh, rw), np.float32)
        for _, fi, nw, fc, uw, vw in drawn:
            if fi == 0 and spin % 2:
                uw, vw = vw, -uw
            shade = 0.45 + 0.6 * max(0.0, float(np.dot(nw, light)))
            if fi != 0:
                shade *= rng.uniform(0.6, 0.85)
            pts3 = fc + (outline[:, :1] * uw + outline[:, 1:] * vw) * die_mm / 2
            p2, _ = cam.project(pts3)
            p2 = p2 - off
            poly = [np.round(p2 * 16).astype(np.int32)]
            face_mask = np.zeros((rh, rw), np.float32)
            cv2.fillPoly(face_mask, poly, 1.0, cv2.LINE_AA, shift=4)
            colour = body * shade
            face_img = np.ones((rh, rw, 3), np.float32) * colour
            if marbled:
                x0, y0, bw, bh = cv2.boundingRect(np.round(p2).astype(np.int32))
                x0, y0 = max(0, x0), max(0, y0)
                bw, bh = min(rw - x0, bw + 1), min(rh - y0, bh + 1)
                if bw > 2 and bh > 2:
                    t = _noise(rng, bh, bw, max(3, bw / 3), 2)
                    t = 0.5 + 0.5 * np.sin(t * rng.uniform(8, 16))
                    other = np.clip(colour * 0.55 + 90 * shade, 0, 255)
                    face_img[y0:y0 + bh, x0:x0 + bw] = colour * (1 - t[..., None]) + other * t[..., None]
            # the rounded edge between two faces reads as a darker band
            bevel = max(1, int(round(die_px * rng.uniform(0.04, 0.09))))
            edge_mask = np.zeros((rh, rw), np.float32)
            cv2.polylines(edge_mask, poly, True, 1.0, bevel, cv2.LINE_AA, shift=4)
            edge_mask *= face_mask
            face_img = face_img * (1 - edge_mask[..., None] * rng.uniform(0.25, 0.5))
            a = 0.72 if translucent else 1.0
            if translucent:  # what lies behind shows through, tinted
                face_img = face_img * 0.7 + under * (colour / 255.0) * 0.6
            layer = layer * (1 - face_mask[..., None]) + face_img * face_mask[..., None]
            alpha = np.maximum(alpha * (1 - face_mask), face_mask * a) if not translucent else np.maximum(alpha, face_mask * a)
            # pips
            value = faces[fi]
            pip_mask = np.zeros((rh, rw), np.float32)
            big_one = value == 1 and rng.random() < 0.4
            r_here = pip_r * (1.5 if big_one else 1.0)
            for (pu, pv) in PIP_LAYOUTS[value]:
                pts = fc + ((pu + circ[:, :1] * r_here) * uw + (pv + circ[:, 1:] * r_here) * vw) * die_mm / 2
                q, _ = cam.project(pts)
                q = q - off
                cv2.fillPoly(pip_mask, [np.round(q * 16).astype(np.int32)], 1.0, cv2.LINE_AA, shift=4)
            pcol = pip * (0.75 + 0.25 * shade)
            if big_one and np.all(pip < 60):
                pcol = np.array([40, 40, 190], np.float32) * shade  # the red ace of many dice
            layer = layer * (1 - pip_mask[..., None]) + pcol * pip_mask[..., None]
            alpha = np.maximum(alpha, pip_mask)
            if fi == 0:
                c2, _ = cam.project(fc[None])
                side = float(np.linalg.norm(cam.project(np.stack([fc - uw * die_mm / 2, fc + uw * die_mm / 2]))[0][1]
                                            - cam.project(np.stack([fc - uw * die_mm / 2, fc + uw * die_mm / 2]))[0][0]))
                dice_truth.append(DieTruth(values[i], (float(c2[0, 0]), float(c2[0, 1])), style, side,
                                           touching_flags[i]))
                if glare_on and rng.random() < 0.6:
                    gx, gy = rng.uniform(-0.6, 0.6, 2)
                    gp, _ = cam.project((fc + (gx * uw + gy * vw) * die_mm / 2)[None])
                    spot = np.zeros((rh, rw), np.float32)
                    # a specular patch: soft, often long, seldom as crisp or as round as a pip
                    gr = max(1.5, side * rng.uniform(0.05, 0.15))
                    soft = 0.6 if not wx else wx.glare_softness
                    cv2.ellipse(spot, (int(gp[0, 0] - X0), int(gp[0, 1] - Y0)),
                                (int(gr * rng.uniform(1.2, 2.2)), int(gr)),
                                float(rng.uniform(0, 180)), 0, 360, 1.0, -1, cv2.LINE_AA)
                    spot = cv2.GaussianBlur(spot, (0, 0), gr * soft) * face_mask * rng.uniform(0.3, 0.75)
                    layer = layer * (1 - spot[..., None]) + 250 * spot[..., None]
        img[Y0:Y1, X0:X1] = under * (1 - alpha[..., None]) + layer * alpha[..., None]

    # camera: exposure, white balance, vignette, blur, noise, JPEG
    img *= rng.uniform(0.8, 1.15)
    img *= (1 + rng.normal(0, 0.04, 3)).astype(np.float32)
    if wx:
        img = wx.camera(img)
    if rng.random() < 0.5:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        rr = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (w * w / 4 + h * h / 4)
        img *= (1 - rng.uniform(0.1, 0.35) * rr)[..., None]
    blur = blur or str(rng.choice(["none", "none", "gauss", "motion"]))
    if blur == "gauss":
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.6, 1.6)) * max(1.0, die_px / 60))
    elif blur == "motion":
        length = int(rng.integers(3, 8) * max(1.0, die_px / 80)) | 1
        kern = np.zeros((length, length), np.float32)
        kern[length // 2, :] = 1.0 / length
        kern = cv2.warpAffine(kern, cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5),
                                                            float(rng.uniform(0, 180)), 1.0), (length, length))
        img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
    sigma = noise if noise is not None else float(rng.uniform(0, 6))
    if wx and noise is None:
        sigma = wx.noise_sigma
    if sigma > 0:
        img += rng.normal(0, sigma, img.shape).astype(np.float32)
    if wx and noise is None:
        img = wx.grain(img)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if jpeg if jpeg is not None else rng.random() < 0.6:
        quality = int(rng.integers(45, 95)) if not wx else wx.jpeg_quality
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    params = {"surface": surface, "tilt": round(math.degrees(tilt), 1), "blur": blur,
              "touching": any(touching_flags), "size": (w, h), "die_px": round(die_px, 1), "seed": seed,
              "wide": wide}
    return Scene(out, dice_truth, params)


class _Wide:
    """The broader draws of ``render_scene(wide=True)``, from a generator of their own.

    Drawn up front (so the default generator's sequence is untouched): image size, die size 20-120
    px (at least 3.5 % of the short side, the reader's smallest), camera tilt to 26 degrees and a
    closer camera (stronger perspective), pip size and outline (round to squarish, few or many
    sides), corner rounding, light from low angles, colour temperature, a lamp to one side, sensor
    noise with colour grain, JPEG 30-95 and a quarter of the dice in odd body colours.
    """

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.size = [(640, 480), (800, 600), (1280, 720), (1600, 1200), (1920, 1080)][int(rng.integers(0, 5))]
        self.tilt = 0.0 if rng.random() < 0.35 else math.radians(rng.uniform(2, 26))
        self.height = float(rng.uniform(200, 700))
        self.light = np.array([rng.uniform(-1.3, 1.3), rng.uniform(-1.3, 1.3), 1.0])
        self.light /= np.linalg.norm(self.light)
        self.rounding = float(rng.uniform(0.05, 0.4))
        self.pip_r = float(rng.uniform(0.10, 0.22))
        sides, squareness = int(rng.choice([8, 14, 24])), float(rng.uniform(0, 0.3))
        a = np.linspace(0, 2 * math.pi, sides, endpoint=False) + rng.uniform(0, math.pi)
        # a superellipse from a circle (0) to a squarish circle (0.3): moulded pips are not all round
        ex = 2 / (2 + 6 * squareness)
        self.pip_outline = np.stack([np.sign(np.cos(a)) * np.abs(np.cos(a)) ** ex,
                                     np.sign(np.sin(a)) * np.abs(np.sin(a)) ** ex], 1)
        self.glare = bool(rng.random() < 0.45)
        self.glare_softness = float(rng.uniform(0.25, 0.8))  # glossy dice give crisper highlights
        self.kelvin = float(rng.uniform(-1, 1))  # -1 warm (tungsten) .. 1 cool (daylight, shade)
        self.side_lamp = rng.random() < 0.4
        self.noise_sigma = float(rng.uniform(0, 10))
        self.chroma = float(rng.uniform(0, 4))
        self.jpeg_quality = int(rng.integers(30, 96))

    def die_px(self, w: int, h: int) -> float:
        lo, hi = max(20.0, 0.035 * min(w, h)), min(120.0, 0.2 * min(w, h))
        return float(math.exp(self.rng.uniform(math.log(lo), math.log(max(hi, lo + 1)))))

    def odd_colour(self) -> bool:
        return bool(self.rng.random() < 0.25)

    def colours(self) -> tuple[np.ndarray, np.ndarray]:
        """A die body of any hue and lightness, with white or black pips, whichever shows."""
        hsv = np.uint8([[[self.rng.integers(0, 180), self.rng.integers(40, 256), self.rng.integers(40, 256)]]])
        body = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
        light = float(body @ np.array([0.114, 0.587, 0.299]))
        pip = np.full(3, 25.0 if light > 130 else 235.0, np.float32)
        return body, pip

    def camera(self, img: np.ndarray) -> np.ndarray:
        h, w = img.shape[:2]
        t = self.kelvin
        img = img * np.array([1 + 0.12 * t, 1.0, 1 - 0.12 * t], np.float32)  # BGR
        if self.side_lamp:
            ang = self.rng.uniform(0, 2 * math.pi)
            yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
            ramp = ((xx / w - 0.5) * math.cos(ang) + (yy / h - 0.5) * math.sin(ang)) + 0.5
            img = img * (1 - self.rng.uniform(0.1, 0.4) * np.clip(ramp, 0, 1))[..., None]
        return img

    def grain(self, img: np.ndarray) -> np.ndarray:
        """Colour noise in blotches a few pixels across, as a small sensor's demosaicing leaves."""
        if self.chroma <= 0.2:
            return img
        h, w = img.shape[:2]
        blot = self.rng.normal(0, self.chroma, (h // 2 + 1, w // 2 + 1, 3)).astype(np.float32)
        return img + cv2.resize(blot, (w, h), interpolation=cv2.INTER_LINEAR)


def surface_image(seed: int, size: tuple[int, int] = (640, 480), surface: str | None = None) -> np.ndarray:
    """An empty surface (for the streaming simulation's first frames)."""
    rng = np.random.default_rng(seed)
    surface = surface or str(rng.choice(SURFACES))
    return np.clip(_surface(rng, surface, size[1], size[0]), 0, 255).astype(np.uint8)
