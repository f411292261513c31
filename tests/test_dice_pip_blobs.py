"""The pip stage's newer looks: pips found as blobs on a defocused die, and the one-face checks of
a two or three (companion/vision/dice_pip_blobs.py, dice_one_face.py).

Dice here are drawn with OpenCV (not either renderer): a square face lit from one side, round
pips, Gaussian defocus and noise; one development ray-marched scene (6017) for a marbled five.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.vision.dice import read_dice
from companion.vision.dice_one_face import on_one_shade, painted_alike
import companion.vision.dice_pip_blobs as pip_blobs
from companion.vision.dice_pip_blobs import find_blobs
from companion.vision.dice_pip_finding import Pip
from companion.vision.dice_pips import FACE_PX

PLACES = {1: [(0, 0)], 2: [(-.5, -.5), (.5, .5)], 3: [(-.5, -.5), (0, 0), (.5, .5)],
          4: [(-.5, -.5), (.5, -.5), (-.5, .5), (.5, .5)], 5: [(-.5, -.5), (.5, -.5), (0, 0), (-.5, .5), (.5, .5)],
          6: [(-.5, -.5), (.5, -.5), (-.5, 0), (.5, 0), (-.5, .5), (.5, .5)]}
WHITE = ((235, 235, 230), (30, 30, 30))
RED = ((40, 40, 190), (235, 235, 235))


def drawn_die(value, colours, table, blur, side=60.0, angle=25.0, shade=0.25, seed=0):
    """A 640x480 photo of one die: face ``side`` px, turned ``angle`` degrees, darkening by
    ``shade`` across it (a light from one side), defocused by a Gaussian of ``blur`` px, noise 3."""
    body, pip = colours
    h, w = 480, 640
    img = np.full((h, w, 3), table, np.float32)
    centre = np.array([w / 2, h / 2])
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    face = np.zeros((h, w), np.float32)
    cv2.fillConvexPoly(face, cv2.boxPoints(((w / 2, h / 2), (side, side), angle)).astype(np.int32), 1.0, cv2.LINE_AA)
    pips = np.zeros((h, w), np.float32)
    for u in PLACES[value]:
        x, y = centre + rot @ (np.array(u) * side / 2)
        cv2.circle(pips, (int(round(x)), int(round(y))), int(0.09 * side), 1.0, -1, cv2.LINE_AA)
    yy, xx = np.mgrid[0:h, 0:w]
    light = 1.0 - shade * ((xx - w / 2 + yy - h / 2) / side).clip(-1, 1)[..., None]
    die = np.array(body, np.float32) * light * (1 - pips[..., None]) + np.array(pip, np.float32) * pips[..., None]
    img = img * (1 - face[..., None]) + die * face[..., None]
    img = cv2.GaussianBlur(img, (0, 0), blur) + np.random.default_rng(seed).normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("value", [2, 3, 4, 5])
def test_a_defocused_white_die_is_read_from_its_blobs(value):
    """Defocus (4 px on a 60 px die) with shading across the face: the pips are only faintly unlike
    the face and the shading is as unlike it; the colour looks read none of these (measured: the
    two to the five unread), the blob look reads each."""
    values = [d.value for d in read_dice(drawn_die(value, WHITE, (90, 130, 170), 4.0, seed=value))]
    assert values == [value]


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_a_more_defocused_red_die_is_read_or_left_unread(value):
    """5 px of defocus on a red die with white pips: read right (measured: all six), never wrong."""
    values = [d.value for d in read_dice(drawn_die(value, RED, (60, 100, 40), 5.0, seed=value))]
    assert values in ([value], [None], []), values
    assert values == [value] or value in (1, 6)  # (the one and the six may stay unread; none did)


@pytest.mark.parametrize("table,colours", [((60, 60, 60), WHITE), ((210, 210, 210), ((35, 35, 35), (235, 235, 235)))])
def test_a_blurred_ones_die_corners_are_no_pips(table, colours):
    """A die's corners are blobs to the detector too (four of them fit a four), but a corner has
    the table round most of it, not face: a defocused one reads as a one or nothing, never a four."""
    for blur in (3.0, 4.0, 5.0):
        values = [d.value for d in read_dice(drawn_die(1, colours, table, blur))]
        assert values in ([1], [None], []), (blur, values)


def test_blobs_are_found_at_the_pips_with_their_polarity():
    """On a crop scaled as the reader scales it (the die FACE_PX across), the five strongest dark
    blobs with face all round them are a five's pips."""
    k = FACE_PX / 60.0
    img = cv2.resize(drawn_die(5, WHITE, (90, 130, 170), 3.0)[180:300, 260:380], None, fx=k, fy=k,
                     interpolation=cv2.INTER_CUBIC)
    light = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    c = np.array([60.0, 60.0]) * k
    region = np.zeros(light.shape, np.uint8)
    cv2.circle(region, (int(c[0]), int(c[1])), int(0.45 * FACE_PX), 255, -1)
    blobs, noise = find_blobs(light, region)
    dark = [b for b in blobs if b.darker and b.ringed]
    assert len(dark) >= 5
    a = np.radians(25.0)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    for u in PLACES[5]:
        p = c + rot @ (np.array(u) * FACE_PX / 2)
        assert min(np.hypot(b.x - p[0], b.y - p[1]) for b in dark[:5]) < 5
    assert not any(not b.darker and b.ringed and b.strength > 0.5 * dark[4].strength for b in blobs)


def veined_die(value, vein_at, dark, blur=4.0, side=60.0, angle=25.0):
    """``drawn_die``'s white die on blue with a dark vein (3 px, ``dark`` of the face's light taken
    off) along the face just beside the pip at ``PLACES[value][vein_at]``, a fifth of a side from
    it: that pip's ring is half face, half vein (marbling past a pip), then defocused by ``blur``."""
    img = drawn_die(value, WHITE, (90, 130, 170), 0.01, side=side, angle=angle).astype(np.float32)
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    c = np.array([320.0, 240.0]) + rot @ (np.array(PLACES[value][vein_at]) * side / 2) + rot @ np.array([0.2 * side, 0])
    along = rot @ np.array([0.0, 0.4 * side])
    vein = np.zeros(img.shape[:2], np.float32)
    cv2.line(vein, tuple(int(v) for v in c - along), tuple(int(v) for v in c + along), 1.0, 3, cv2.LINE_AA)
    img = cv2.GaussianBlur(img * (1 - dark * vein[..., None]), (0, 0), blur)
    img += np.random.default_rng(0).normal(0, 2, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("vein_at,dark", [(1, 0.4), (1, 0.6), (2, 0.6), (4, 0.6)])
def test_a_pip_whose_ring_a_vein_breaks_completes_the_layout(vein_at, dark, monkeypatch):
    """A defocused five with a dark vein beside one pip: the colour looks read nothing, and that
    pip is no ringed blob (its ring half vein). As strong, round and of the others' scale, it
    completes the four ringed pips' five (``UNRINGED_PIP_JOINS``); without it the die is unread
    (measured: all four cases) -- unread with ``dice_pips.MISSING_PIPS_LOOK`` off too, which
    completes the five by its missing pip in the (1, 0.4) case (session 27) and is held off here."""
    import companion.vision.dice_pips as dice_pips

    img = veined_die(5, vein_at, dark)
    assert [d.value for d in read_dice(img)] == [5]
    monkeypatch.setattr(pip_blobs, "UNRINGED_PIP_JOINS", False)
    monkeypatch.setattr(dice_pips, "MISSING_PIPS_LOOK", False)
    assert [d.value for d in read_dice(img)] == [None]


@pytest.mark.parametrize("value", [4, 6])
def test_a_veined_four_or_six_is_never_read_as_another_value(value):
    """The same veins beside each pip of a four and a six: read right or unread, never another
    value (measured: each right or unread, with the rule on and off alike)."""
    for at in range(value):
        for dark in (0.4, 0.6):
            values = [d.value for d in read_dice(veined_die(value, at, dark))]
            assert all(v in (value, None) for v in values), (at, dark, values)


def _pip(x, y, area, contrast, aspect=1.1):
    return Pip(x, y, area, 0.9, contrast, aspect=aspect)


def test_a_ones_pip_with_a_fainter_or_squeezed_pip_is_no_two():
    """Measured on ray-marched dice read wrong before: a translucent die's ace (area 230, contrast
    34) with a far face's pip (171, 11); a blue die's ace (266, 32, round) with a side face's pip
    cut by the region's edge (184, 17, aspect 1.72)."""
    assert not painted_alike([_pip(0, 0, 230, 34), _pip(40, 40, 171, 11)])
    assert not painted_alike([_pip(0, 0, 266, 32, 1.1), _pip(40, 40, 184, 17, 1.72)])
    assert painted_alike([_pip(0, 0, 200, 40), _pip(40, 40, 180, 33), _pip(20, 20, 190, 36)])


def test_squeezed_pips_on_two_shades_are_no_two():
    """Two faces of a steeply tilted die in one region, lit 22 L apart, a squeezed pip on each
    (measured: contrast 74); the same pips on one shade pass."""
    filled = np.full((120, 200), 255, np.uint8)
    dl = np.zeros((120, 200, 3), np.float32)
    dl[:, :100, 0] = -22.0
    pips = [_pip(50, 60, 250, 74, 1.6), _pip(150, 60, 240, 74, 1.6)]
    assert not on_one_shade(pips, filled, dl)
    assert on_one_shade(pips, filled, np.zeros_like(dl))
    round_pips = [_pip(50, 60, 250, 74, 1.1), _pip(150, 60, 240, 74, 1.1)]  # (seen from above: marbling)
    assert on_one_shade(round_pips, filled, dl)


def test_a_retry_reading_a_part_of_a_tentative_face_gives_way():
    """A retry at a smaller scale that reads a smaller value on a larger one the first look read
    tentatively, clearly smaller than it, read part of that face (``RETRY_PARTS_GIVE_WAY``); a
    retry at the tentative reading's own size, or away from it, does not."""
    from companion.vision.dice import Die, _part_of_a_tentative

    five = Die(5, (100.0, 100.0), 0.04, 119.0)  # (a blob look's reading: tentative)
    assert _part_of_a_tentative([Die(4, (84.0, 78.0), 0.59, 76.0)], [five])
    assert not _part_of_a_tentative([Die(4, (95.0, 96.0), 0.59, 112.0)], [five])  # (the whole face)
    assert not _part_of_a_tentative([Die(4, (220.0, 100.0), 0.59, 76.0)], [five])  # (another die)
    assert not _part_of_a_tentative([Die(4, (84.0, 78.0), 0.59, 76.0)], [replace(five, confidence=0.5)])


def test_a_marbled_five_is_read_by_its_blobs_and_not_as_four_of_its_pips(monkeypatch):
    """Development ray 6017 (1600x1200, black pips on marbled green): its five's left pip has a
    vein in its ring. Without the broken-ringed pip the five is unread; with it, the blob look
    reads the five tentatively, and a retry at 0.75 of the size then read four of its pips as a
    four (a wrong value) until such a part gave way to the tentative reading."""
    from companion.vision import dice as _dice  # (the ringed-pips look reads this die right as well,
    monkeypatch.setattr(_dice, "MARBLED_PIPS_BY_RINGS", False)  # s28h2: held off to test this rule alone)
    import companion.vision.dice as dice
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    # (the ringed look read again at the read dice's size, dice_ringed_again (session 42), reads this
    # die right with this test's rule off too: held off, the test measures its own rule alone)
    from companion.vision import dice_ringed_again
    monkeypatch.setattr(dice_ringed_again, "UNREAD_RINGED_AT_DICE_SIZE", False)
    scene = render_raymarch(6017, kind="phone")  # (as the development set new6000 was rendered)
    # (the two-colour look where a face took its pips in reads the five right without the
    # broken-ringed pip too, session 22: switched off here, to test that pip alone)
    monkeypatch.setattr(dice, "MARBLED_WHERE_PIPS_UNSEEN", False)
    # (so does the read of a ring's hole at its own scale, session 24: off here too)
    monkeypatch.setattr(dice, "RING_HOLES_READ", False)
    before, after = counts_off_then_on(monkeypatch, pip_blobs, "UNRINGED_PIP_JOINS", scene)
    assert before["unread"] == 1 and before["wrong"] == 0
    assert after["right"] == before["right"] + 1 and after["unread"] == 0 and after["wrong"] == 0
    # (the four of the five's pips has a side face's pip among them: dice_one_face's
    # SIDE_FACE_PIPS_IN_LARGER, session 24, doubts it too -- switched off here, to test the retry alone)
    from companion.vision import dice_one_face

    monkeypatch.setattr(dice_one_face, "SIDE_FACE_PIPS_IN_LARGER", False)
    # (SIDE_FACES_BY_PIPS_BEYOND, session 26, makes that four unreadable too -- which marks, not
    # traced: the test failed with it on -- off here as well)
    monkeypatch.setattr(dice, "SIDE_FACES_BY_PIPS_BEYOND", False)
    before, after = counts_off_then_on(monkeypatch, dice, "RETRY_PARTS_GIVE_WAY", scene)
    assert before["wrong"] == 1 and after["wrong"] == 0 and after["right"] == before["right"] + 1
