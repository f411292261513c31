"""The table of the ray-marched scenes (tests/dice_raymarch.py): textures in table coordinates
seen in perspective, light from point lights, soft cast shadows and contact shadows of the dice."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:
    from tests.dice_raymarch import _Cam, _Die


def _lin(bgr) -> np.ndarray:
    return (np.asarray(bgr, np.float32) / 255.0) ** 2.2


def _value_noise(rng, h, w, cell, octaves=3) -> np.ndarray:
    """Smooth noise in about 0..1: upsampled random grids, ``cell`` pixels per grid step."""
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        c = max(2.0, cell / 2 ** o)
        g = rng.random((int(h / c) + 3, int(w / c) + 3)).astype(np.float32)
        out += amp * cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.5
    return out / total


def _table_texture(rng, surface, th, tw, mm_px):
    """Albedo (linear BGR) of the table in table coordinates (tw x th texels of mm_px mm)."""
    fine = lambda sigma: cv2.GaussianBlur(rng.standard_normal((th, tw), dtype=np.float32), (0, 0), sigma)  # noqa: E731
    per_mm = 1.0 / mm_px
    if surface.startswith("wood"):
        light = surface == "wood_light"
        c1 = _lin(np.clip(np.array([115, 165, 200] if light else [45, 75, 115]) + rng.normal(0, 12, 3), 0, 255))
        c2 = c1 * (0.55 if light else 0.5)
        ang = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:th, 0:tw].astype(np.float32)
        across = (-xx * math.sin(ang) + yy * math.cos(ang)) * mm_px
        along = (xx * math.cos(ang) + yy * math.sin(ang)) * mm_px
        warp = _value_noise(rng, th, tw, 40 * per_mm, 3) * rng.uniform(5, 25)
        period = rng.uniform(2.5, 9)  # mm between grain lines
        t = (0.5 + 0.5 * np.sin((across + warp + 0.03 * along) * 2 * math.pi / period)) ** rng.uniform(1.5, 5)
        streaks = cv2.GaussianBlur(rng.standard_normal((th, tw), dtype=np.float32), (0, 0),
                                   sigmaX=max(0.5, 4 * per_mm), sigmaY=max(0.3, 0.15 * per_mm))
        t = np.clip(t + 0.25 * streaks / (streaks.std() + 1e-6) * 0.3, 0, 1)
        return c1 * (1 - t[..., None]) + c2 * t[..., None]
    if surface.startswith("felt"):
        colour = {"felt_green": (35, 105, 30), "felt_blue": (110, 55, 20), "felt_black": (26, 26, 28),
                  "felt_red": (30, 28, 115)}[surface]
        base = _lin(np.clip(np.array(colour) + rng.normal(0, 6, 3), 0, 255))
        fib = fine(max(0.5, 0.15 * per_mm))
        mod = 1 + 0.35 * fib / (fib.std() + 1e-6) * 0.4 + 0.25 * (_value_noise(rng, th, tw, 15 * per_mm, 3) - 0.5)
        return base * np.clip(mod, 0.3, 2)[..., None]
    base = _lin([238, 240, 242] if surface == "white_paper" else [225, 226, 222]) * rng.uniform(0.92, 1.0)
    grain = fine(max(0.5, 0.2 * per_mm))
    mod = 1 + 0.03 * grain / (grain.std() + 1e-6) + 0.06 * (_value_noise(rng, th, tw, 60 * per_mm, 2) - 0.5)
    return base * mod[..., None]


def _shade_points(P, N, V, lights, ambient, shine=30.0):
    """Diffuse and specular light at points P (N, 3) with normals N, seen from direction V."""
    diff = np.full(len(P), ambient, np.float64) * (0.55 + 0.45 * N[:, 2])
    spec = np.zeros(len(P))
    for pos, power in lights:
        L = pos[None, :] - P
        dist = np.linalg.norm(L, axis=1, keepdims=True)
        L /= dist
        fall = power * (np.linalg.norm(pos) / dist[:, 0]) ** 2
        diff += fall * np.maximum((N * L).sum(axis=1), 0)
        Hh = L + V
        Hh /= np.maximum(np.linalg.norm(Hh, axis=1, keepdims=True), 1e-9)
        spec += fall * np.maximum((N * Hh).sum(axis=1), 0) ** shine
    return diff, spec


def _table(rng, cam: _Cam, surface, lights, dice):
    """The lit, shadowed table as a linear float image, and the depth of every pixel."""
    w, h = cam.w, cam.h
    corners = [cam.on_table(x, y) for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
    pts = np.array([c[:2] for c in corners])
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    mm_px = max((x1 - x0) / (1.3 * w), (y1 - y0) / (1.3 * h), (x1 - x0) / 3600, (y1 - y0) / 3600)
    tw, th = int((x1 - x0) / mm_px) + 2, int((y1 - y0) / mm_px) + 2
    tex = _table_texture(rng, surface, th, tw, mm_px).astype(np.float32)
    src = np.float32([[(x - x0) / mm_px, (y - y0) / mm_px] for x, y in pts])
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    H = cv2.getPerspectiveTransform(src, dst)
    albedo = cv2.warpPerspective(tex, H, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)

    # light on the table: smooth, computed on a coarse grid
    q = 8
    gy, gx = np.mgrid[0:h:q, 0:w:q].astype(np.float64)
    d = cam.rays(gx.ravel() + q / 2, gy.ravel() + q / 2)
    t = -cam.pos[2] / np.minimum(d[:, 2], -1e-6)
    P = cam.pos + t[:, None] * d
    N = np.tile([0, 0, 1.0], (len(P), 1))
    ambient = rng.uniform(0.25, 0.5)
    gloss = {"white_table": 0.25, "white_paper": 0.04}.get(surface, 0.02 if surface.startswith("felt") else 0.12)
    per_light = []
    for pos, power in lights:
        diff, spec = _shade_points(P, N, -d, [(pos, power)], 0.0)
        per_light.append((diff + gloss * spec).reshape(gy.shape))
    up = lambda a: cv2.resize(a.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)  # noqa: E731
    depth = up(t.reshape(gy.shape))
    light = np.full((h, w), ambient, np.float32)
    contact = _contact_shadow(cam, dice, (h, w))
    light *= 1 - 0.6 * contact
    for (pos, _), lit in zip(lights, per_light):
        shadow = _cast_shadow(cam, dice, pos, (h, w))
        light += up(lit) * (1 - 0.92 * shadow)
    img = albedo * light[..., None]
    return img, depth


def _poly_mask(shape, poly, sigma) -> np.ndarray:
    """A polygon (image points) filled and blurred by ``sigma`` px, computed in its own box only."""
    h, w = shape
    m = np.zeros(shape, np.float32)
    pad = int(3 * sigma) + 2
    xa, ya = np.floor(poly.min(axis=0)).astype(int) - pad
    xb, yb = np.ceil(poly.max(axis=0)).astype(int) + pad
    xa, ya, xb, yb = max(0, xa), max(0, ya), min(w, xb), min(h, yb)
    if xb <= xa or yb <= ya:
        return m
    box = np.zeros((yb - ya, xb - xa), np.float32)
    cv2.fillPoly(box, [np.round((poly - [xa, ya]) * 4).astype(np.int32)], 1.0, lineType=cv2.LINE_AA, shift=2)
    if sigma > 0.3:
        box = cv2.GaussianBlur(box, (0, 0), sigma)
    m[ya:yb, xa:xb] = box
    return m


def _die_corners(die: _Die) -> np.ndarray:
    c = np.array([[sx, sy, sz] for sx in (-.5, .5) for sy in (-.5, .5) for sz in (-.5, .5)]) * die.side
    return die.centre + c @ die.R.T


def _cast_shadow(cam: _Cam, dice, light_pos, shape) -> np.ndarray:
    out = np.zeros(shape, np.float32)
    for die in dice:
        P = _die_corners(die)
        t = light_pos[2] / np.maximum(light_pos[2] - P[:, 2], 1e-6)
        G = light_pos + (P - light_pos) * t[:, None]  # on the table
        G[:, 2] = 0
        hull = cv2.convexHull(cam.project(G)[0].astype(np.float32)).reshape(-1, 2)
        px = cam.f * die.side / np.linalg.norm(die.centre - cam.pos)
        sharp = _poly_mask(shape, hull, 0.06 * px)
        soft = _poly_mask(shape, hull, 0.25 * px)
        np.maximum(out, 0.5 * sharp + 0.5 * soft, out=out)
    return out


def _contact_shadow(cam: _Cam, dice, shape) -> np.ndarray:
    out = np.zeros(shape, np.float32)
    for die in dice:
        P = _die_corners(die)
        foot = P[P[:, 2] < die.centre[2]] + 0.0
        foot[:, :2] = die.centre[:2] + (foot[:, :2] - die.centre[:2]) * 1.08
        hull = cv2.convexHull(cam.project(foot)[0].astype(np.float32)).reshape(-1, 2)
        px = cam.f * die.side / np.linalg.norm(die.centre - cam.pos)
        np.maximum(out, _poly_mask(shape, hull, 0.08 * px), out=out)
    return out
