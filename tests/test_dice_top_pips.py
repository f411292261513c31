"""An unreadable report on a light die's side face moved to the centroid of its top face's pips
beyond it (``dice_top_pips.UNREAD_AT_TOP_FACE_PIPS``; docs/dice-camera.md, thirty-eighth round, h2).

A light die tilted on white shows its side faces in shade and its top face in the paper's light:
the foreground holds the side faces as a blob and the top face only as its pips, dark dots beyond
the blob away from the photo's middle. A report left on the side face lies 0.6-0.9 of a side off
the die: missed. Every face's pips are laid out round its centre, so the report moves to their
centroid (one pip: to the pip, within 0.42 of a side of the face's centre). Each test fails with
the switch off.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from companion.vision import dice_top_pips as T
from companion.vision.dice import Die, ReaderSettings, read_dice


def _drawn(pips_beyond: int):
    """A 1200x900 white photo; away from its middle (toward the top right) a light die's shaded
    side face (a grey quadrilateral, the report's place) and beyond it, outward, its top face: the
    paper's white, only its pips drawn. A read die (side 100 px) elsewhere tells the die size."""
    img = np.full((900, 1200, 3), 238, np.uint8)
    # the read die: a grey square with pips, bottom left
    cv2.rectangle(img, (150, 650), (250, 750), (150, 150, 150), -1)
    # the side face: grey, 100 x 45 px, its centre at (880, 290); the top face's centre lies
    # outward (up and right, away from the middle (600, 450)) at about (920, 215)
    cv2.fillPoly(img, [np.array([(830, 270), (930, 270), (935, 312), (825, 312)], np.int32)], (165, 165, 170))
    top = (920, 210)
    layout = {1: [(0, 0)], 2: [(-25, -25), (25, 25)], 3: [(-25, -25), (0, 0), (25, 25)]}[pips_beyond]
    for dx, dy in layout:
        cv2.circle(img, (top[0] + dx, top[1] + dy), 9, (40, 40, 40), -1)
    read = Die(4, (200.0, 700.0), 0.9, 100.0)
    unread = Die(None, (880.0, 291.0), 0.3, 100.0, reason="a side face read; its top face, lighter, beside it reads nothing")
    return img, [read, unread], top


@pytest.mark.parametrize("pips", [1, 2, 3])
def test_a_side_face_report_moves_to_the_top_faces_pips(monkeypatch, pips):
    img, dice, top = _drawn(pips)
    s = ReaderSettings()
    monkeypatch.setattr(T, "UNREAD_AT_TOP_FACE_PIPS", False)
    off = T.unread_at_top_face_pips(dice, img, s.work_px, s.background_sigmas)
    assert off[1].center == dice[1].center  # (off: the report stays on the side face, 0.8 sides off)
    monkeypatch.setattr(T, "UNREAD_AT_TOP_FACE_PIPS", True)
    on = T.unread_at_top_face_pips(dice, img, s.work_px, s.background_sigmas)
    assert on[1].value is None and on[0] == dice[0]
    assert math.dist(on[1].center, top) < 0.15 * 100
    assert on[1].seen_at == dice[1].center


def test_no_pips_beyond_or_pips_inward_move_nothing():
    """Nothing beyond the report: it stays. Dots on the report's inward side (toward the photo's
    middle: its side faces' side, not its top face's) are not taken; nor dots nearer another die."""
    img, dice, top = _drawn(2)
    s = ReaderSettings()
    blank = img.copy()
    cv2.rectangle(blank, (860, 150), (990, 262), (238, 238, 238), -1)  # (the top face's pips wiped)
    assert T.unread_at_top_face_pips(dice, blank, s.work_px, s.background_sigmas)[1].center == dice[1].center
    inward = blank.copy()
    for p in ((820, 350), (850, 370)):
        cv2.circle(inward, p, 9, (40, 40, 40), -1)
    assert T.unread_at_top_face_pips(dice, inward, s.work_px, s.background_sigmas)[1].center == dice[1].center
    other = dice + [Die(5, (925.0, 205.0), 0.9, 100.0)]
    assert T.unread_at_top_face_pips(other, img, s.work_px, s.background_sigmas)[1].center == dice[1].center


def test_rendered_white_one_found_at_its_top_face(monkeypatch):
    """Development light 3537 (fresh this round; 3000x2250, flash on a white table): a white one
    (113 px) tilted, its top face the table's white. The reader reports it unreadable on its side
    face, 0.8 sides off: missed. On: the report moves to the one's pip, beyond the side face: unread,
    nothing else moved."""
    from companion.vision.dice_eval import score_scene
    from tests.dice_raymarch_light import render_light

    scene = render_light(3537)
    monkeypatch.setattr(T, "UNREAD_AT_TOP_FACE_PIPS", False)
    off = score_scene(scene, read_dice(scene.image)).counts
    monkeypatch.setattr(T, "UNREAD_AT_TOP_FACE_PIPS", True)
    found = read_dice(scene.image)
    on = score_scene(scene, found).counts
    assert (off["right"], off["unread"], off["missed"]) == (5, 0, 1)
    assert (on["right"], on["unread"], on["missed"]) == (5, 1, 0)
    for k in ("wrong", "extra", "near_wrong"):
        assert on[k] == off[k] == 0
    one = next(t for t in scene.dice if t.value == 1 and t.center[0] > 2000)
    near = min(found, key=lambda d: math.dist(d.center, one.center))
    assert near.value is None and math.dist(near.center, one.center) < 0.25 * one.side_px
