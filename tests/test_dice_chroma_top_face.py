"""The chroma face of a small light die kept to its top face (``dice_blur_fit.CHROMA_FACE_TOP_ONLY``;
docs/dice-camera.md, forty-first round, h2).

A die seen at a tilt shows side faces of its own colour (its chroma), darker (turned from the light)
and with pips of their own; the chroma silhouette (``LIGHT_DIE_FACE_BY_CHROMA``) takes them in with the
top face, and the layout fit then reads the side face's pips with the top face's. The guard keeps a
chroma square only when its bright part, the top face, covers ``TOP_FACE_SHARE`` of it.

Drawn: a 45 px pastel four seen at a corner (its top face and two side faces, each a quarter side
deep, darker, with pips), blurred, on a white table -- its chroma square is 1.25 sides, and the fit's
best layout there is a one (session 41's held-out wrong value, a 45 px four read as a one); the guard
refuses that square. A top face alone, and one with a narrow side face, keep their square and value.
Rendered: development light 3468's pink one (51 px) with a side face's four beside it, reported as the
reader reports a blob (1.4 of its side): unguarded the rule reads a six; guarded, nothing."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import companion.vision.dice_blur_fit as bf
from companion.vision.dice import Die, ReaderSettings

LAY = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
       4: [(-1, -1), (1, 1), (-1, 1), (1, -1)], 5: [(-1, -1), (1, 1), (-1, 1), (1, -1), (0, 0)],
       6: [(-1, -1), (1, 1), (-1, 1), (1, -1), (-1, 0), (1, 0)]}
CX, CY, SIDE = 2000.0, 1500.0, 45.0
WHITE = (250, 250, 250)
BLUE, BLUE_PIP = (240, 215, 180), (60, 40, 30)  # (the renderer's pastel blue, BGR)


def _photo(value, t=(0.0, 0.0), side_lum=(0.75, 0.6), side_values=(3, 2), sigma=0.06, turn=20.0, seed=0):
    """A 4000x3000 photo, a white table, one die at CX, CY: its top face and, shifted by ``t`` (in
    sides, on the image), the side faces the tilt shows (the die's colour dimmed by ``side_lum``, each
    with its pips), a grey shadow beside it; blurred, noisy."""
    rng = np.random.default_rng(seed)
    h, w, k = 400, 400, 4  # (drawn in a patch round the die, 4x supersampled, pasted into the photo)
    big = np.zeros((h * k, w * k, 3), np.float32)
    big[:] = WHITE
    c = np.array((w * k / 2, h * k / 2))
    s = SIDE * k
    a = math.radians(turn)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    tv = np.array(t) * s

    def at(u, v):
        return c + rot @ np.array((u, v)) * s

    shadow = cv2.boxPoints(((c[0] - 0.45 * s + tv[0], c[1] + 0.3 * s + tv[1]), (1.15 * s, 1.15 * s), turn))
    cv2.fillConvexPoly(big, shadow.astype(np.int32), tuple(0.55 * x for x in WHITE))
    corners = [at(-0.5, -0.5), at(0.5, -0.5), at(0.5, 0.5), at(-0.5, 0.5)]
    j = 0
    for i in range(4):
        p, q = corners[i], corners[(i + 1) % 4]
        e = q - p
        if np.dot((e[1], -e[0]), tv) <= 1e-6:
            continue  # (a side face turned from the camera)
        lum, sv = side_lum[j % 2], side_values[j % 2]
        j += 1
        cv2.fillConvexPoly(big, np.array([p, q, q + tv, p + tv], np.int32), tuple(lum * x for x in BLUE))
        for pu, pv in LAY[sv]:
            aa, bb = 0.5 + 0.27 * pu, 0.5 + 0.27 * pv
            ring = [p + (aa + 0.085 * math.cos(th)) * e + (bb + 0.085 * math.sin(th)) * tv
                    for th in np.linspace(0, 2 * math.pi, 16)]
            cv2.fillConvexPoly(big, np.array(ring, np.int32), tuple(lum * x for x in BLUE_PIP))
    cv2.fillConvexPoly(big, np.array(corners, np.int32), BLUE)
    for pu, pv in LAY[value]:
        x, y = at(0.27 * pu, 0.27 * pv)
        cv2.circle(big, (int(x), int(y)), int(0.085 * s), BLUE_PIP, -1)
    patch = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    patch = cv2.GaussianBlur(patch, (0, 0), sigma * SIDE)
    patch += rng.normal(0, 2.0, patch.shape).astype(np.float32)
    img = np.empty((3000, 4000, 3), np.uint8)
    img[:] = WHITE
    img[int(CY) - h // 2:int(CY) + h // 2, int(CX) - w // 2:int(CX) + w // 2] = np.clip(patch, 0, 255)
    return img


def _window(img, centre, rep):
    r = bf.REACH * rep
    return img[int(centre[1] - r):int(centre[1] + r), int(centre[0] - r):int(centre[0] + r)].astype(np.float32)


def test_a_four_seen_at_a_corner_its_square_refused(monkeypatch):
    # (top face and two side faces a quarter side deep: the chroma blob is a 1.25-side "square")
    img = _photo(4, t=(0.3, 0.3))
    centre = (CX + 0.15 * SIDE, CY + 0.15 * SIDE)  # (the blob's middle, as the reader reports it)
    win = _window(img, centre, 60.0)
    monkeypatch.setattr(bf, "CHROMA_FACE_TOP_ONLY", False)
    sil = bf._chroma_silhouette(win)
    assert sil is not None and sil[2] > 1.15 * SIDE  # (the square took in the side faces)
    fits, blank, _ = bf.fit_layouts(win, by_chroma=True)
    assert min(fits, key=fits.get) == 1  # (the fit's best layout there: a one -- the failure's kind)
    assert bf._top_face_share(win.mean(axis=2), *sil[:4]) < bf.TOP_FACE_SHARE
    monkeypatch.undo()  # (the guard at its default)
    assert bf._chroma_silhouette(win) is None


@pytest.mark.parametrize("t, sigma", [((0.0, 0.0), 0.09), ((0.0, 0.2), 0.06)])
def test_a_top_face_alone_or_with_a_narrow_side_face_kept(monkeypatch, t, sigma):
    # (the guard refuses only squares mostly not top face: a face seen square keeps its read)
    monkeypatch.setattr(bf, "LIGHT_DIE_FACE_BY_CHROMA", True)  # (the guard at its default)
    img = _photo(4, t=t, side_lum=(0.7, 0.7), side_values=(6, 6), sigma=sigma, turn=3.0)
    centre = (CX + t[0] * SIDE / 2, CY + t[1] * SIDE / 2)
    sil = bf._chroma_silhouette(_window(img, centre, 65.0))
    assert sil is not None
    st = ReaderSettings()
    got = bf.read_blurred_unread(img, [Die(None, centre, 0.0, 65.0, "no pips")], st.work_px, st.min_die_frac)[0]
    assert got.value == 4


def test_rendered_light_3468_one_beside_its_side_face_not_read_six(monkeypatch):
    from tests.dice_raymarch_light import render_light

    scene = render_light(3468)
    die = min(scene.dice, key=lambda d: math.dist(d.center, (1097.0, 1846.0)))
    assert die.value == 1 and 45 < die.side_px < 56
    st = ReaderSettings()
    report = Die(None, die.center, 0.0, 1.4 * die.side_px, "no pips")  # (a blob's report: die and side face)
    monkeypatch.setattr(bf, "LIGHT_DIE_FACE_BY_CHROMA", True)
    monkeypatch.setattr(bf, "CHROMA_FACE_TOP_ONLY", False)
    assert bf.read_blurred_unread(scene.image, [report], st.work_px, st.min_die_frac)[0].value == 6
    monkeypatch.undo()
    monkeypatch.setattr(bf, "LIGHT_DIE_FACE_BY_CHROMA", True)  # (the guard at its default)
    assert bf.read_blurred_unread(scene.image, [report], st.work_px, st.min_die_frac)[0].value is None
