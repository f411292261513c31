"""Light dice on light tables (issue 4): a white die on white paper, its face the paper's colour.

The reader finds such a die by its shadow and shaded sides, and reads it pips first
(companion/vision/dice_pip_squares.py). The drawn scenes here are plain OpenCV drawings, not the
renderer's: a top face exactly the paper's colour, two shaded sides, a soft shadow, dark pips.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from companion.vision.dice import Die, _lone_speck_one, _read_around, read_dice
from companion.vision.dice_pip_squares import Pip, _groups, best_square, edge_map, read_by_pip_squares
from companion.vision.dice_pips import FACE_PX
from tests.dice_raymarch_light import render_light

_LAYOUT = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
           5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}


def _light_dice_on_paper(rng: np.random.Generator, values: list[int], side: int = 90, paper: int = 236):
    """800x600: the dice in a row, each a face of the paper's colour with shaded sides and a shadow
    toward the lower right. Returns the image and (value, centre) per die."""
    w, h = 800, 600
    img = np.full((h, w, 3), paper, np.float32) + rng.normal(0, 2.0, (h, w, 3)).astype(np.float32)
    shadow = np.zeros((h, w), np.float32)
    dice = []
    for v, fx in zip(values, np.linspace(0.2, 0.8, len(values))):
        c = complex(fx * w, h / 2 + rng.uniform(-0.1, 0.1) * h)
        a = rng.uniform(0, math.pi / 2)
        rot = complex(math.cos(a), math.sin(a)) * side / 2
        square = [c + rot * complex(x, y) for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        off = complex(0.35 * side, 0.3 * side)
        cv2.fillConvexPoly(shadow, np.int32([[(z + off).real, (z + off).imag] for z in square]), 1.0)
        dice.append((v, c, square, rot, off))
    img *= (1 - 0.35 * cv2.GaussianBlur(shadow, (0, 0), side * 0.12))[..., None]
    for v, c, square, rot, off in dice:
        sides = np.int32([[(z + 0.25 * off).real, (z + 0.25 * off).imag] for z in square])
        cv2.fillConvexPoly(img, sides, (200, 200, 200))
        cv2.fillConvexPoly(img, np.int32([[z.real, z.imag] for z in square]), (paper, paper, paper))
        for gx, gy in _LAYOUT[v]:
            p = c + rot * complex(gx, gy) * 0.5
            cv2.circle(img, (int(p.real), int(p.imag)), int(side * (0.13 if v == 1 else 0.085)), (35, 35, 35), -1,
                       cv2.LINE_AA)
    img = np.clip(cv2.GaussianBlur(img, (0, 0), 0.8), 0, 255).astype(np.uint8)
    return img, [(v, (c.real, c.imag)) for v, c, *_ in dice]


def _outcomes(found, truth, reach=45):
    out = []
    for v, (x, y) in truth:
        near = [d for d in found if math.hypot(d.center[0] - x, d.center[1] - y) < reach]
        out.append("missed" if not near else "right" if near[0].value == v else
                   "unread" if near[0].value is None else "wrong")
    return out


def test_white_dice_on_white_paper_are_read_and_never_misread():
    outcomes = []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        values = [int(x) for x in rng.permutation(6)[:3] + 1]
        img, truth = _light_dice_on_paper(rng, values)
        outcomes += _outcomes(read_dice(img), truth)
    assert "wrong" not in outcomes
    # (without the pips-first look: 5 of these 18 dice read right and one wrong; with it, 17)
    assert outcomes.count("right") >= 15, outcomes


def test_pips_of_dice_apart_are_grouped_apart():
    def die(cx, cy, value, half=0.45 * FACE_PX):
        return [Pip(cx + gx * half * 0.5, cy + gy * half * 0.5, 40.0, 0.9, 60.0) for gx, gy in _LAYOUT[value]]

    a, b = die(100, 100, 5), die(100 + 1.6 * FACE_PX, 100, 2)
    groups = _groups(a + b)
    assert sorted(len(g) for g in groups) == [2, 5]


def _one_die_at_face_px(rng: np.random.Generator, value: int) -> tuple[np.ndarray, int, int]:
    """One light die drawn at the pips-first reader's own scale (FACE_PX), and its centre."""
    img, truth = _light_dice_on_paper(rng, [value], side=FACE_PX)
    (_, (x, y)), = truth
    return img, int(x), int(y)


def _whole(crop: np.ndarray) -> np.ndarray:
    """A mask taking in the whole crop."""
    return np.full(crop.shape[:2], 255, np.uint8)


def test_a_die_cut_by_the_crops_edge_is_not_read_from_the_pips_it_shows():
    """Two pips of a four on a diagonal, the other two beyond the crop's edge: no two is read."""
    rng = np.random.default_rng(3)
    img, x, y = _one_die_at_face_px(rng, 4)
    whole = img[y - 150:y + 150, x - 150:x + 150]
    assert [r.value for r in read_by_pip_squares(whole, _whole(whole))] == [4]
    for cut in (x - 2, x + 2):  # through the die's middle, either way
        crop = img[y - 150:y + 150, cut - 150:cut]
        for r in read_by_pip_squares(crop, _whole(crop)):
            assert r.value is None


@pytest.mark.parametrize("seed", range(3))
def test_a_face_near_the_photos_edge_is_read_but_a_die_it_cuts_is_not(seed):
    """A five whose centre lies 75 px (0.8 sides) from the crop's left edge: where that edge is
    only the crop's, a die may be cut there and the five is not read; where it is the photo's own,
    the face lies whole in the photo and is read. A four the photo's edge cuts through its middle
    is still not read from the pips it shows."""
    rng = np.random.default_rng(seed)
    img, x, y = _one_die_at_face_px(rng, 5)
    near = img[y - 150:y + 150, x - 75:x + 150]
    mask = _whole(near)
    assert read_by_pip_squares(near, mask) == []
    assert [r.value for r in read_by_pip_squares(near, mask, image_edges=(True, False, False, False))] == [5]
    img, x, y = _one_die_at_face_px(rng, 4)
    for cut in (x - 2, x + 2):
        crop = img[y - 150:y + 150, cut:cut + 150]
        for r in read_by_pip_squares(crop, _whole(crop), image_edges=(True, False, False, False)):
            assert r.value is None


def test_a_speck_with_no_outline_round_it_is_no_one():
    """A lone dark speck on plain paper fits no outlined square, and is not read as a one."""
    img = np.full((300, 300, 3), 236, np.uint8)
    cv2.circle(img, (150, 150), 8, (35, 35, 35), -1, cv2.LINE_AA)
    half, _, support = best_square(edge_map(cv2.cvtColor(img, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)),
                                   complex(150, 150))
    assert sum(s >= 0.6 for s in support) < 3
    assert read_by_pip_squares(img, np.full(img.shape[:2], 255, np.uint8)) == []


@pytest.mark.parametrize("seed", [1000, 1001, 1002])
def test_ray_marched_light_dice_on_white_are_never_misread(seed):
    """Held-out scenes of the light-dice generator (seeds from 1000 were not looked at while
    tuning): a value read is the right one."""
    scene = render_light(seed)
    found = read_dice(scene.image)
    for t in scene.dice:
        near = [d for d in found if d.value is not None
                and math.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1]) < 0.5 * t.side_px]
        assert all(d.value == t.value for d in near), (t, near)


def test_a_one_is_a_lone_speck_with_no_other_speck_within_a_side():
    """The rule that lets a one read from a filled blob stand: its pip is a speck of the
    foreground and no other speck lies within a side of it (a pip of a larger die has its face's
    other pips there)."""
    one = Die(1, (200.0, 100.0), 0.9, side_px=80.0)
    alone = np.array([[100.0, 50.0], [300.0, 50.0]])  # work pixels: the photo scaled by 0.5
    assert _lone_speck_one(one, alone, 0.5)
    assert not _lone_speck_one(one, alone, 1.0)  # no speck at the pip
    assert not _lone_speck_one(one, np.vstack([alone, [[125.0, 50.0]]]), 0.5)  # the far pip of a two
    assert not _lone_speck_one(Die(2, (200.0, 100.0), 0.9, side_px=80.0), alone, 0.5)
    assert not _lone_speck_one(one, np.zeros((0, 2)), 0.5)


def test_light_ones_open_to_the_table_are_read():
    """Light 11, a development scene: a white and an ivory one, each face the table's colour and
    open to it on its lit sides, the pip a speck beside the blob of the shaded sides and shadow.
    (Both unread before: a one in a filled blob was never kept.) The ivory one is read. The white
    one was read too on the finding side's branch alone; merged with the reading side's thinner
    margin for unread regions (dice_crop.UNREAD_CLEAR), that blob's side face keeps its two pips and
    reads first, as a two 0.9 of a side off the die (an extra), so the one's look never runs: it
    must then at least not be read as another value (a known gap, docs/dice-camera.md)."""
    scene = render_light(11)
    found = read_dice(scene.image)
    ones = {t.style: t for t in scene.dice if t.value == 1}
    assert sorted(ones) == ["ivory", "white"]
    for style, t in ones.items():
        near = [d for d in found if math.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1]) < 0.5 * t.side_px]
        if style == "ivory":
            assert [d.value for d in near] == [1], (t, near)
        else:
            assert [d.value for d in near] in ([1], [], [None]), (t, near)


@pytest.mark.parametrize("seed", range(2))
def test_a_blob_far_smaller_than_the_dice_is_looked_round_at_their_size(seed):
    """A drawn light two of which only a strip along one side was found (15 x 90 px, as a clear
    die's lit edge): at the strip's own scale the pips-first look reaches too little round it and
    reads nothing; with the photo's dice read about 110 px, it looks again at that size."""
    rng = np.random.default_rng(seed)
    img, truth = _light_dice_on_paper(rng, [2], side=90)
    (_, (x, y)), = truth
    strip, origin = np.ones((15, 90), bool), (int(x - 45), int(y + 40))
    assert _read_around(img, strip, origin, 1.0, None, 400.0) == []
    got = _read_around(img, strip, origin, 1.0, 110.0, 400.0)
    assert [d.value for d in got] == [2] and math.hypot(got[0].center[0] - x, got[0].center[1] - y) < 10


@pytest.mark.parametrize("seed", range(3))
def test_a_one_framed_by_an_l_is_read_only_where_its_pip_is_a_lone_speck(seed):
    """A drawn light one: its face the paper's colour, outlined only by its two shaded sides (an
    L). Such a one is read where the photo's foreground has its pip as a lone speck; with no
    specks known, or with another speck within a die of it (a larger die's other pip), it is not."""
    rng = np.random.default_rng(seed)
    img, x, y = _one_die_at_face_px(rng, 1)
    crop = img[y - 150:y + 150, x - 150:x + 150]
    mask = _whole(crop)
    assert read_by_pip_squares(crop, mask) == []
    assert [r.value for r in read_by_pip_squares(crop, mask, specks=np.array([[150.0, 150.0]]))] == [1]
    two_specks = np.array([[150.0, 150.0], [150.0 + 0.6 * FACE_PX, 150.0]])
    assert read_by_pip_squares(crop, mask, specks=two_specks) == []


@pytest.mark.parametrize("seed", range(3))
def test_a_lone_one_near_the_photos_edge_is_read_there(seed):
    """A drawn light one framed by its L of shaded sides, its pip a lone speck, its centre 75 px
    (0.8 sides) from the crop's left edge (light 11 and 27: ones 50-56 px from the photo's edge). Where
    that edge is only the crop's, a larger die's other pips may lie beyond it and the one is not read;
    where it is the photo's own, nothing lies beyond it and the one is read, as a group's face is."""
    rng = np.random.default_rng(seed)
    img, x, y = _one_die_at_face_px(rng, 1)
    near = img[y - 150:y + 150, x - 75:x + 150]
    mask, specks = _whole(near), np.array([[75.0, 150.0]])
    assert read_by_pip_squares(near, mask, specks=specks) == []
    got = read_by_pip_squares(near, mask, image_edges=(True, False, False, False), specks=specks)
    assert [r.value for r in got] == [1]


@pytest.mark.parametrize("seed", range(3))
def test_a_face_beside_its_side_face_strip_is_read_round_it(seed):
    """A drawn light two of which only its shaded side face was found, a strip along the die's right
    side (light 3992: a white two on paper under a flash). The pips-first look's window reaches far
    enough past the strip for the face beside it to lie in the crop with its margin; reaching a
    die's side past it (the old window), the face's centre lay 0.75 sides from the crop's edge."""
    rng = np.random.default_rng(seed)
    img, truth = _light_dice_on_paper(rng, [2], side=90)
    (_, (x, y)), = truth
    strip, origin = np.ones((90, 15), bool), (int(x + 45), int(y - 45))
    got = _read_around(img, strip, origin, 1.0, 90.0, 400.0)
    assert [d.value for d in got] == [2] and math.hypot(got[0].center[0] - x, got[0].center[1] - y) < 10


@pytest.mark.parametrize("seed", range(4))
def test_a_face_whose_square_corner_runs_past_the_photos_edge_is_read(seed):
    """A drawn light four, turned, the photo's left edge between its pip places and its fitted
    square's corner (light 3962: a cream four by the photo's corner, the square's corner 1 px from
    the edge). Its pips and their places lie in the photo and it is read; the corners rule refused it."""
    rng = np.random.default_rng(seed)
    img, x, y = _one_die_at_face_px(rng, 4)
    crop = img[y - 150:y + 150, x - 150:x + 150]
    assert [r.value for r in read_by_pip_squares(crop, _whole(crop))] == [4]
    # how far the square's corners reach along x, in half-sides, from the drawn die's turn
    turn = _turn_of_pips(crop)
    reach = max(abs((complex(gx, gy) * turn).real) for gx, gy in ((1, 1), (1, -1)))
    # the edge past the pip places (half that reach) and their room, short of the corners
    left = round(0.8 * reach * FACE_PX / 2)
    near = img[y - 150:y + 150, x - left:x + 150]
    assert [r.value for r in read_by_pip_squares(near, _whole(near), image_edges=(True, False, False, False))] == [4]


def _turn_of_pips(crop: np.ndarray) -> complex:
    """A drawn die's turn (a unit complex number): its dark pips' fitted frame."""
    from companion.vision.dice_layouts import fit_frame
    dark = (cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) < 120).astype(np.uint8)
    n, _, stats, centres = cv2.connectedComponentsWithStats(dark)
    _, _, _, alpha = fit_frame([complex(*centres[i]) for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] > 20])
    return alpha / abs(alpha)


def test_large_shaded_pips_beside_a_side_face_are_read_as_pips(monkeypatch):
    """Development light 3968 (a flash photo, 3000 px): a white four on white paper, its face the
    paper's colour, its four pips 24 px dimples shaded dark on one side and lit on the other,
    beside the blob of its side faces. Such pips show marks inside and were taken for small dice,
    which the finer look leaves alone beside a die-sized blob: read by neither look, the four was
    missed. Grouped as pips, it is read, and no value is read wrong."""
    import companion.vision.dice as dice_module
    from tests.dice_flags import counts_off_then_on

    scene = render_light(3968)
    off, on = counts_off_then_on(monkeypatch, dice_module, "MARKED_PIPS_BESIDE_BLOBS", scene)
    assert on["right"] == off["right"] + 1 and on["missed"] == off["missed"] - 1
    assert on["wrong"] == 0 and on["near_wrong"] == 0
