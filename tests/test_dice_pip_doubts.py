"""Doubts the pip stage raises so that a face is left unread rather than misread, and the blob
look's handling of a face smaller than the crop's die (companion/vision/dice_one_face.py,
dice_marks.py, dice_pip_blobs.py, dice_pips.py).

The dice are drawn with OpenCV (tests/test_dice_pip_blobs.drawn_die: a flat square face lit from
one side, round pips, Gaussian defocus, noise), not by either scene renderer.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import companion.vision.dice_marks as marks
import companion.vision.dice_one_face as one_face
import companion.vision.dice_pip_blobs as pip_blobs
from companion.vision.dice import read_dice
from companion.vision.dice_marks import marks_on_the_corners, other_kind_on_a_place
from companion.vision.dice_one_face import a_column_of_more
from companion.vision.dice_pip_blobs import Blob, find_blobs, read_blobs
from companion.vision.dice_pip_finding import Pip
from companion.vision.dice_pips import FACE_PX
from tests.test_dice_pip_blobs import PLACES, WHITE, drawn_die

BLACK = ((35, 35, 35), (235, 235, 235))
BLUE_TABLE = (90, 130, 170)
LIGHT_TABLE = (210, 210, 210)


def _values(img):
    return [d.value for d in read_dice(img)]


@pytest.mark.parametrize("blur", [4.0, 5.0])
def test_a_defocused_white_six_is_never_read_as_its_column(blur):
    """A six lit from one side, defocused: its shaded column drops out of the face region and the
    lit column alone fits a three (measured before: read as a three at 4 and 5 px). Read right
    or left unread, never three."""
    values = _values(drawn_die(6, WHITE, BLUE_TABLE, blur, seed=6))
    assert values in ([6], [None], []), values


def test_a_column_look_doubts_a_column_not_a_diagonal():
    """Lab offsets drawn directly: six dark marks in two columns. The left column's three pips
    have the right column beside them (a column of a six); the diagonal of a three has nothing
    past the face's corners."""
    dl = np.zeros((120, 120, 3), np.float32)
    six = [(35, 35), (35, 60), (35, 85), (85, 35), (85, 60), (85, 85)]  # (a square grid: columns as far apart as long)
    for x, y in six:
        cv2.circle(dl, (x, y), 6, (-60.0, 0.0, 0.0), -1)
    column = [Pip(35, y, np.pi * 36, 0.9, 50.0, colour=(-60.0, 0.0, 0.0)) for y in (35, 60, 85)]
    assert a_column_of_more(column, dl)
    dl3 = np.zeros_like(dl)
    three = [(35, 35), (60, 60), (85, 85)]
    for x, y in three:
        cv2.circle(dl3, (x, y), 6, (-60.0, 0.0, 0.0), -1)
    diagonal = [Pip(x, y, np.pi * 36, 0.9, 50.0, colour=(-60.0, 0.0, 0.0)) for x, y in three]
    assert not a_column_of_more(diagonal, dl3)


@pytest.mark.parametrize("value,table", [(4, LIGHT_TABLE), (5, BLUE_TABLE)])
def test_a_defocused_dark_die_is_not_read_from_the_gaps_between_its_pips(value, table):
    """A black die with white pips defocused by 6 px: the commonest colour is the blend of the two,
    and the dark gaps left between the pips are holes in it (measured before: the four read as a
    one, the five as a four). Read right or left unread."""
    values = _values(drawn_die(value, BLACK, table, 6.0, seed=value))
    assert values in ([value], [None], []), values


def test_a_lone_pip_with_light_corners_is_no_one_but_a_plain_one_is():
    """marks_on_the_corners on Lab offsets drawn directly: a dark middle with light marks on the
    four corners (a blurred four's blend) is doubted; a dark middle on plain face is not."""
    dl = np.zeros((100, 100, 3), np.float32)
    cv2.circle(dl, (50, 50), 8, (-40.0, 0.0, 0.0), -1)
    pip = Pip(50, 50, np.pi * 64, 0.9, 40.0, colour=(-40.0, 0.0, 0.0))
    alpha = complex(40, 0)  # half-side 40 px, unturned: the corners at (30, 30) .. (70, 70)
    assert not marks_on_the_corners(dl, complex(50, 50), alpha, pip)
    for x, y in ((30, 30), (70, 30), (30, 70), (70, 70)):
        cv2.circle(dl, (x, y), 7, (40.0, 0.0, 0.0), -1)
    assert marks_on_the_corners(dl, complex(50, 50), alpha, pip)


def test_a_light_middle_among_four_dark_marks_is_doubted_but_glare_of_the_pips_kind_is_not():
    """other_kind_on_a_place: four dark pips with a light mark as strong on the middle (a five's
    light middle pip among the dark gaps of a blend) is doubted; a darker mark there is the
    vacancy test's to judge, not this one's."""
    dl = np.zeros((100, 100, 3), np.float32)
    corners = [(30, 30), (70, 30), (30, 70), (70, 70)]
    for x, y in corners:
        cv2.circle(dl, (x, y), 7, (-40.0, 0.0, 0.0), -1)
    pips = [Pip(x, y, np.pi * 49, 0.9, 40.0, colour=(-40.0, 0.0, 0.0)) for x, y in corners]
    beta, alpha = complex(50, 50), complex(40, 0)
    assert not other_kind_on_a_place(dl, beta, alpha, 4, pips)
    light = dl.copy()
    cv2.circle(light, (50, 50), 7, (40.0, 0.0, 0.0), -1)
    assert other_kind_on_a_place(light, beta, alpha, 4, pips)
    dark = dl.copy()
    cv2.circle(dark, (50, 50), 7, (-40.0, 0.0, 0.0), -1)
    assert not other_kind_on_a_place(dark, beta, alpha, 4, pips)



def _face_light(value, side, blur, table_l=30.0, face_l=80.0, pip_l=50.0, size=200):
    """A lightness image: a light face ``side`` px across on a dark table, with dark pips, blurred."""
    img = np.full((size, size), table_l, np.float32)
    c = size / 2
    cv2.rectangle(img, (int(c - side / 2), int(c - side / 2)), (int(c + side / 2), int(c + side / 2)), face_l, -1)
    for u, v in PLACES[value]:
        cv2.circle(img, (int(round(c + u * side / 2)), int(round(c + v * side / 2))), max(2, int(0.09 * side)), pip_l, -1)
    img = cv2.GaussianBlur(img, (0, 0), blur)
    region = np.zeros((size, size), np.uint8)
    cv2.rectangle(region, (int(c - side / 2), int(c - side / 2)), (int(c + side / 2), int(c + side / 2)), 255, -1)
    return img, region


def test_a_rim_mark_off_every_place_does_not_compete_but_a_mark_on_a_place_does():
    beta, alpha = complex(100, 100), complex(50, 0)
    rim = Blob(100 + 0.8 * 50, 100 + 0.8 * 50, 10.0, 2.8, False, 1.2, ringed=False)
    assert pip_blobs._a_rim_mark(rim, beta, alpha)
    ringed = Blob(rim.x, rim.y, 10.0, 2.8, False, 1.2, ringed=True)
    assert not pip_blobs._a_rim_mark(ringed, beta, alpha)
    on_place = Blob(100 + 0.5 * 50, 100, 10.0, 2.8, False, 1.2, ringed=False)  # a six's middle row
    assert not pip_blobs._a_rim_mark(on_place, beta, alpha)
    beside = Blob(100 + 1.3 * 50, 100, 10.0, 2.8, False, 1.2, ringed=False)  # past the face: left to the old test
    assert not pip_blobs._a_rim_mark(beside, beta, alpha)


def test_a_squeezed_blob_among_round_ones_is_no_candidate_pip():
    """Five round pips and a side face's squeezed pip as strong: the five is read from the round
    ones (measured before: the squeezed one took a pip's place and the five did not fit)."""
    light, region = _face_light(5, FACE_PX, 1.0, face_l=40.0, pip_l=90.0, table_l=40.0)
    blobs, noise = find_blobs(light, region)
    pips = [b for b in blobs if not b.darker and b.ringed][:5]
    assert len(pips) == 5
    squeezed = Blob(pips[0].x + 0.85 * FACE_PX, pips[0].y, pips[0].strength * 1.05, pips[0].sigma, False, 2.5)
    every = [squeezed] + blobs
    got = pip_blobs._read_polarity([b for b in every if not b.darker], every, noise, light, float(FACE_PX))
    assert got is not None and got.value == 5
    try:
        pip_blobs.SQUEEZED_SKIPPED = False
        old = pip_blobs._read_polarity([b for b in every if not b.darker], every, noise, light, float(FACE_PX))
    finally:
        pip_blobs.SQUEEZED_SKIPPED = True
    assert old is None or old.value == 5


@pytest.mark.parametrize("value", [2, 3, 4])
def test_the_blob_look_reads_a_face_smaller_than_the_crops_die(value):
    """A face 0.6 of FACE_PX (the crop scaled from a blob swollen by a halo or a shadow), its pips
    softened by 2 px and only faintly darker than the face: the blob look enlarges the region to
    FACE_PX first and reads it (measured without that: none of two to six read; with it, two to
    four. The five and six read too with the response's noise measured inside the region's rim,
    which lost five defocused drawn dice the blob look read before, and was left out)."""
    from companion.vision.dice_pips import read_face_blobs

    light, region = _face_light(value, 0.6 * FACE_PX, 2.0, table_l=30.0, face_l=80.0, pip_l=55.0)
    dl = np.zeros(light.shape + (3,), np.float32)
    dl[..., 0] = light - 80.0
    face = ((np.abs(dl[..., 0]) < 8) & (region > 0)).astype(np.uint8) * 255
    got = read_face_blobs(face, dl)
    assert got is not None and got.value == value
    assert abs(got.center[0] - 100) < 4 and abs(got.center[1] - 100) < 4  # (mapped back to the crop)


def _face_with_rim(value, spread, rim=12, pip_r=11, noise=4.0, seed=0):
    """Lab offsets from the face colour drawn directly: a 96 px face whose lightness falls off over
    a ``rim`` px rounded edge (so the face region's border is ragged there), dark pips at the
    layout's places scaled by ``spread`` (0.5: the usual; larger puts the corner pips on the rim),
    a table of another colour round it. Returns (face mask, colour distance, Lab offsets)."""
    from companion.vision.dice_layouts import LAYOUTS
    size, x0, s = 200, 52, 96
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    edge = np.minimum.reduce([xx - x0, x0 + s - xx, yy - x0, x0 + s - yy])
    dl = np.zeros((size, size, 3), np.float32)
    dl[..., 0] = np.where(edge < rim, -45 * (1 - np.clip(edge / rim, 0, 1)), 0)
    dl[edge < 0] = (-40, -10, -40)
    for q in LAYOUTS[value]:
        centre = (int(round(x0 + s / 2 + q.real * spread * s)), int(round(x0 + s / 2 + q.imag * spread * s)))
        cv2.circle(dl, centre, pip_r, (-110, 0, 0), -1)
    dl = cv2.GaussianBlur(dl, (0, 0), 1.0) + np.random.default_rng(seed).normal(0, noise, dl.shape).astype(np.float32)
    dist = np.sqrt(0.6 * dl[..., 0] ** 2 + dl[..., 1] ** 2 + dl[..., 2] ** 2).astype(np.float32)
    face = cv2.morphologyEx((dist < 20).astype(np.uint8) * 255, cv2.MORPH_OPEN,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    return face, dist, dl


def test_pips_run_into_the_faces_ragged_rim_are_read_by_their_cores(monkeypatch):
    """A six whose corner pips reach the shaded rim: the rim's pixels, neither face nor pip colour,
    join them into ragged blobs (measured: unread without the look at the pips' cores, read six
    with it). Faces with their pips clear of the rim read the same either way, never wrong."""
    import companion.vision.dice_pips as pips
    monkeypatch.setattr(pips, "EDGE_PIPS_LOOK", False)
    assert pips.read_face(*_face_with_rim(6, 0.6)).value is None
    monkeypatch.setattr(pips, "EDGE_PIPS_LOOK", True)
    assert pips.read_face(*_face_with_rim(6, 0.6)).value == 6
    for value in range(1, 7):
        for spread in (0.5, 0.6):
            assert pips.read_face(*_face_with_rim(value, spread)).value in (value, None)
