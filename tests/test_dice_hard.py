"""The camera dice reader on the cases that used to fail: dark dice on dark tables, touching dice,
glare, big aces, dice read at the wrong size, and the broader ("wide") renders.

Floors sit below what was measured (noted beside each), so a regression fails and noise does not.
A wrong value is worse than "unreadable", so every set also caps the wrong count.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.dice import Die, read_dice
from companion.vision.dice_eval import Score, score_scene
from companion.vision.dice_pips import _could_be_more
from companion.vision.dice_render import render_scene
from companion.vision.dice_sizes import doubt_odd_sizes, doubt_overlaps


def _score(scenes) -> Score:
    total = Score()
    for scene in scenes:
        total.add(score_scene(scene, read_dice(scene.image)))
    return total


# ------------------------------------------------------------------ which marks cast doubt


@pytest.mark.parametrize("value,place,doubt", [
    (4, 0j, True),  # a five that lost its middle pip
    (4, -0.5 + 0j, True),  # a six that lost a middle pip
    (2, 0j, True),  # a three that lost its middle
    (2, 0.5 - 0.5j, True),  # a four (or five) with pips lost
    (1, 0.5 + 0.5j, True),  # a three or five seen as its middle
    (3, 0.5 - 0.5j, True),  # a five
    (6, 0j, False),  # nothing has more pips than a six
    (5, -0.5 + 0j, False),  # no layout has a middle pip and a side's middle
    (3, 0.5j, False),
    (1, 0.5j, False),
])
def test_a_mark_casts_doubt_only_where_a_larger_value_has_a_pip(value, place, doubt):
    assert _could_be_more(value, place) is doubt


# ------------------------------------------------------------------ size agreement


def test_a_die_read_at_a_part_of_its_neighbours_size_is_unreadable():
    dice = [Die(6, (100.0, 100.0), 0.9, 60.0), Die(5, (200.0, 100.0), 0.9, 62.0),
            # a column of a six read as a three: 0.71 of its die, whose neighbours read 1.1-1.25
            # times their dice (side faces, shadows): about 0.6 of their read size
            Die(3, (300.0, 100.0), 0.9, 36.0),
            Die(2, (400.0, 100.0), 0.9, 58.0)]
    out = doubt_odd_sizes(dice)
    assert [d.value for d in out] == [6, 5, None, 2]
    assert "px" in out[2].reason
    # a two or three read at 0.7-0.8 of its neighbours' read size is a whole die: they read larger
    whole = [Die(6, (100.0, 100.0), 0.9, 60.0), Die(5, (200.0, 100.0), 0.9, 62.0),
             Die(3, (300.0, 100.0), 0.9, 44.0), Die(2, (150.0, 200.0), 0.9, 42.0)]
    assert [d.value for d in doubt_odd_sizes(whole)] == [6, 5, 3, 2]
    # two adjacent pips of a four read as a two: half its neighbours' size
    assert [d.value for d in doubt_odd_sizes(whole[:3] + [Die(2, (150.0, 200.0), 0.9, 31.0)])] == [6, 5, 3, None]
    # two dice only: nothing to compare with, nothing doubted
    pair = [Die(3, (0.0, 0.0), 0.9, 43.0), Die(2, (99.0, 0.0), 0.9, 60.0)]
    assert [d.value for d in doubt_odd_sizes(pair)] == [3, 2]


def test_two_dice_read_overlapping_are_both_unreadable():
    # a six's two columns read as two threes: centres half a die apart, each 0.71 of the die
    split = [Die(3, (100.0, 100.0), 0.9, 80.0), Die(3, (100.0, 157.0), 0.9, 79.0), Die(4, (300.0, 100.0), 0.9, 112.0)]
    out = doubt_overlaps(split)
    assert [d.value for d in out] == [None, None, 4]
    assert "overlaps" in out[0].reason
    # touching dice: centres a side apart (or more, turned), all kept
    touching = [Die(3, (100.0, 100.0), 0.9, 80.0), Die(5, (181.0, 100.0), 0.9, 80.0)]
    assert [d.value for d in doubt_overlaps(touching)] == [3, 5]


def test_small_dice_in_a_big_photo_are_read_not_taken_for_pips():
    """A 4000x3000 ray-marched photo (tests/dice_raymarch.py) of seven dice of 39-55 px: at the
    working scale each die is a pip-sized speck, and was read as a one four times its size (4
    wrong). Measured after: 7 of 7 right."""
    from tests.dice_raymarch import render_raymarch

    scene = render_raymarch(10)
    assert scene.image.shape[1] == 4000 and max(d.side_px for d in scene.dice) < 60
    score = score_scene(scene, read_dice(scene.image))
    assert score.counts["wrong"] == 0 and score.counts["extra"] == 0, score.line()
    assert score.accuracy >= 5 / 7, score.line()


def test_only_a_smaller_one_two_or_three_is_doubted_and_ones_set_no_size():
    # a five nearer the camera of a tilted view is bigger than its neighbours: four or more pips in
    # a square always span a whole face, so it is no part of a die
    near = [Die(5, (0.0, 0.0), 0.9, 53.0), Die(1, (99.0, 0.0), 0.9, 38.0), Die(4, (0.0, 99.0), 0.9, 42.0),
            Die(4, (99.0, 99.0), 0.9, 40.0)]
    assert [d.value for d in doubt_odd_sizes(near)] == [5, 1, 4, 4]
    # a one's size is its face region's (a side face can enlarge it): small dice beside two ones
    # read large are not doubted
    ones = [Die(5, (0.0, 0.0), 0.9, 34.0), Die(1, (50.0, 0.0), 0.9, 46.0), Die(1, (0.0, 50.0), 0.9, 44.0),
            Die(4, (300.0, 300.0), 0.9, 34.0), Die(3, (50.0, 50.0), 0.9, 33.0)]
    assert [d.value for d in doubt_odd_sizes(ones)] == [5, 1, 1, 4, 3]
    # a one read at half its neighbours' size is half a face region with a pip in its middle
    half = [Die(5, (0.0, 0.0), 0.9, 84.0), Die(6, (99.0, 0.0), 0.9, 86.0), Die(1, (50.0, 90.0), 0.9, 47.0)]
    assert [d.value for d in doubt_odd_sizes(half)] == [5, 6, None]


# ------------------------------------------------------------------ dark dice on dark tables


def test_black_dice_on_black_felt():
    """Clean photos of black dice (white or red pips) on black felt: measured 94 % right."""
    scenes = [render_scene(seed, n_dice=3, styles=[["black_white", "black_red"][seed % 2]] * 3, surface="felt_black",
                           tilt_deg=0, blur="none", touching=False, glare=False, die_px=60, size=(800, 600))
              for seed in range(40, 52)]
    score = _score(scenes)
    assert score.accuracy >= 0.88, score.line()
    assert score.counts["wrong"] == 0, score.line()


def test_dark_dice_on_dark_tables_with_motion_blur():
    """Black and dark red dice on black felt, a dark table and red felt, motion-blurred; measured
    82 % right, none wrong (before the loose second look and the pip-shape check: 80 %, 1 wrong)."""
    scenes = [render_scene(seed, n_dice=3, styles=[["black_white", "black_red", "dark_red"][seed % 3]] * 3,
                           surface=["felt_black", "dark_table", "felt_red"][seed % 3], blur="motion",
                           touching=False, die_px=70, size=(800, 600)) for seed in range(60, 75)]
    score = _score(scenes)
    assert score.accuracy >= 0.75, score.line()
    assert score.counts["wrong"] == 0, score.line()


# ------------------------------------------------------------------ touching dice, glare


def test_touching_dice_are_read_or_left_unread_never_misread():
    """Four dice, touching, in any colours: measured 86 % right, none wrong."""
    score = _score(render_scene(seed, touching=True, n_dice=4) for seed in range(3100, 3120))
    assert score.accuracy >= 0.78, score.line()
    assert score.counts["wrong"] == 0, score.line()


def test_glare_makes_dice_unreadable_not_misread():
    """Every scene with specular glare on the dice: measured 100 % right, none wrong (92 % before
    light-pip faces were read past glare)."""
    score = _score(render_scene(seed, n_dice=4, glare=True, touching=False) for seed in range(60, 75))
    assert score.accuracy >= 0.93, score.line()
    assert score.counts["wrong"] == 0, score.line()


def _flat_die(body, pip, value_places, glare_at=None, glare_strength=0.0):
    """A flat die drawn with OpenCV (not the renderer), 80 px, rotated 20 degrees, on grey-green
    felt; pips at ``value_places`` (face units, -1..1); optionally a soft white glare spot (an
    elongated ellipse blurred, blended toward white)."""
    img = np.full((480, 640, 3), (60, 90, 50), np.uint8)
    centre, side, ang = np.array([320.0, 240.0]), 80.0, np.radians(20)
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    box = cv2.boxPoints(((320, 240), (side, side), 20.0)).astype(np.int32)
    cv2.fillConvexPoly(img, box, body, cv2.LINE_AA)
    for u in value_places:
        x, y = centre + rot @ (np.array(u) * side / 2)
        cv2.circle(img, (int(round(x)), int(round(y))), int(0.085 * side), pip, -1, cv2.LINE_AA)
    if glare_at is not None:
        gx, gy = centre + rot @ (np.array(glare_at) * side / 2)
        spot = np.zeros(img.shape[:2], np.float32)
        cv2.ellipse(spot, (int(gx), int(gy)), (14, 7), 30.0, 0, 360, 1.0, -1, cv2.LINE_AA)
        spot = cv2.GaussianBlur(spot, (0, 0), 4.0) * glare_strength
        img = (img * (1 - spot[..., None]) + 250 * spot[..., None]).astype(np.uint8)
    noise = np.random.default_rng(2).normal(0, 2, img.shape).astype(np.int8)
    return cv2.GaussianBlur(cv2.add(img, noise, dtype=cv2.CV_8U), (3, 3), 0)


THREE = [(-0.5, -0.5), (0.0, 0.0), (0.5, 0.5)]
FIVE = [(-0.5, -0.5), (0.5, -0.5), (0.0, 0.0), (-0.5, 0.5), (0.5, 0.5)]


@pytest.mark.parametrize("places,value", [(THREE, 3), (FIVE, 5)])
@pytest.mark.parametrize("strength", [0.5, 0.7])
def test_white_pips_read_past_a_glare_spot_run_into_one(places, value, strength):
    """A black die with white pips and a glare spot run into its middle pip (glare only adds light,
    so the spot is no pip and does not hide the pip it touches)."""
    img = _flat_die((35, 35, 35), (235, 235, 235), places, glare_at=(0.2, -0.25), glare_strength=strength)
    assert [d.value for d in read_dice(img)] == [value]


@pytest.mark.parametrize("places,value,smaller", [(THREE, 3, 2), (FIVE, 5, 4)])
@pytest.mark.parametrize("strength", [0.5, 0.7])
def test_glare_over_a_dark_middle_pip_never_reads_as_fewer_pips(places, value, smaller, strength):
    """A white die with black pips and a glare spot over its middle pip: glare over a dark pip
    lifts it toward the face colour; a pip still darker than the glare around it is a doubt, so
    the die reads its value or is unreadable, never the smaller value. (Glare that hides the pip
    almost wholly, 0.9 of the way to white, does still read as the smaller value: a known limit.)"""
    img = _flat_die((235, 235, 232), (25, 25, 25), places, glare_at=(0.0, 0.0), glare_strength=strength)
    values = [d.value for d in read_dice(img)]
    assert len(values) == 1 and values[0] in (value, None), values
    assert smaller not in values


# ------------------------------------------------------------------ a big ace, drawn by hand


@pytest.mark.parametrize("pip_frac", [0.08, 0.12, 0.17])
@pytest.mark.parametrize("body,pip,table", [((235, 235, 232), (40, 40, 190), (150, 180, 200)),  # red ace, wood
                                            ((30, 30, 30), (235, 235, 235), (40, 110, 30))])  # black die, felt
def test_an_ace_of_any_common_size_is_a_one(pip_frac, body, pip, table):
    """A flat die drawn with OpenCV (not the renderer): a square face and one centred pip whose
    radius is ``pip_frac`` of the side (aces on real dice run from the other pips' size, a sixth of
    the side across, to a third of it)."""
    img = np.full((480, 640, 3), table, np.uint8)
    img = cv2.add(img, np.random.default_rng(1).normal(0, 3, img.shape).astype(np.int8), dtype=cv2.CV_8U)
    centre, side = (320, 240), 80
    box = cv2.boxPoints((centre, (side, side), 20.0)).astype(np.int32)
    cv2.fillConvexPoly(img, box, body, cv2.LINE_AA)
    cv2.circle(img, centre, int(pip_frac * side), pip, -1, cv2.LINE_AA)
    found = read_dice(cv2.GaussianBlur(img, (3, 3), 0))
    assert [d.value for d in found] == [1], [d.as_dict() for d in found]
    assert abs(found[0].center[0] - centre[0]) < 8 and abs(found[0].center[1] - centre[1]) < 8


# ------------------------------------------------------------------ the wide renders


def test_wide_renders():
    """Renders drawn from the broader ranges (die size 20-120 px, tilt to 26 degrees, pip shapes,
    colour temperature, odd die colours, heavier noise and JPEG): measured 86 % right of 102 dice,
    none wrong. The target of 99.5 % is far off here; this guards the wrong count and regressions."""
    score = _score(render_scene(seed, wide=True) for seed in range(3000, 3030))
    assert score.dice >= 80
    assert score.accuracy >= 0.80, score.line()
    assert score.counts["wrong"] <= 0.01 * score.dice, score.line()
    assert score.counts["extra"] <= 0.02 * score.dice, score.line()
