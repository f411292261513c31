"""A dark die's one: its side face's pips, past the lit edge between the faces, are no marks of its
face (companion/vision/dice_top_clean.py, MARKS_PAST_A_LIT_RIM_SKIPPED), and a one the loose look read
small against a hull that took in the side faces is kept when it is a whole face's
(companion/vision/dice.py, DARK_FACED_ONES_IN_HULLS)."""

from __future__ import annotations

import cv2
import numpy as np

import companion.vision.dice as dice_mod
import companion.vision.dice_top_clean as top_clean
from companion.vision.dice_top_clean import TopFace, alone_on_its_face

PIP_R = 7


class _Pips:
    def __init__(self, *pips):
        self.pips = tuple((float(x), float(y), float(PIP_R)) for x, y in pips)


def _dark_die(face_pips, side_pips, rim: bool = True) -> np.ndarray:
    """A grey table; a black top face (x, y 100-200) and below it a side face as black (y 201-240);
    between them a lit edge (L about 110) that fades before the corners, so the faces' region runs
    on round its ends; white pips 7 px in radius."""
    img = np.full((300, 300, 3), 120, np.uint8)
    cv2.rectangle(img, (100, 100), (200, 240), (35, 35, 35), -1)
    if rim:
        cv2.line(img, (112, 201), (188, 201), (110, 110, 110), 2)
    for x, y in list(face_pips) + list(side_pips):
        cv2.circle(img, (x, y), PIP_R, (235, 235, 235), -1)
    return img


def _alone(img, *pips) -> bool:
    return alone_on_its_face(TopFace(img, _Pips(*pips), None), list(_Pips(*pips).pips), 120.0)


def test_side_face_pips_past_the_lit_edge_are_not_the_ones(monkeypatch):
    """Fails with MARKS_PAST_A_LIT_RIM_SKIPPED off (checked: the side face's pips count, not alone)."""
    img = _dark_die([(150, 150)], [(130, 221), (170, 221)])
    monkeypatch.setattr(top_clean, "MARKS_PAST_A_LIT_RIM_SKIPPED", True)
    assert _alone(img, (150, 150))
    monkeypatch.setattr(top_clean, "MARKS_PAST_A_LIT_RIM_SKIPPED", False)
    assert not _alone(img, (150, 150))


def test_marks_on_the_face_itself_still_count(monkeypatch):
    monkeypatch.setattr(top_clean, "MARKS_PAST_A_LIT_RIM_SKIPPED", True)
    # a five whose middle pip alone was read: its corner pips lie on the same face, no edge between
    five = _dark_die([(150, 150), (125, 125), (175, 125), (125, 175), (175, 175)], [])
    assert not _alone(five, (150, 150))
    # no lit edge between the faces: the side face's pips count as before
    assert not _alone(_dark_die([(150, 150)], [(130, 221), (170, 221)], rim=False), (150, 150))
    # a mark past a soft rise only (a pip's halo, no ridge falling back to the face): counts
    halo = _dark_die([(150, 150)], [])
    cv2.circle(halo, (150, 180), 12, (90, 90, 90), -1)
    cv2.circle(halo, (150, 180), PIP_R, (235, 235, 235), -1)
    assert not _alone(halo, (150, 150))


def test_rendered_black_one_beside_its_side_face(monkeypatch):
    """Ray 2130 (development): a motion-blurred black-white one, 52 px, tilted 14 degrees, its side
    face showing a six; the loose look read the one right at 0.72 of a hull that took in the side
    face, and refused it as part of the hull. Fails with DARK_FACED_ONES_IN_HULLS off, and with
    MARKS_PAST_A_LIT_RIM_SKIPPED off (checked: the one stays unread either way). Read with
    UNREAD_SMALL_READ_CLOSER off (session 37): read closer, in a window at full resolution, the
    one reads right with this rule off too (the switch is tested alone here)."""
    from tests.dice_raymarch import render_raymarch
    from companion.vision.dice_eval import score_scene

    monkeypatch.setattr(dice_mod, "UNREAD_SMALL_READ_CLOSER", False)

    scene = render_raymarch(2130)
    on_dice = dice_mod.read_dice(scene.image)
    on = score_scene(scene, on_dice).counts
    monkeypatch.setattr(dice_mod, "DARK_FACED_ONES_IN_HULLS", False)
    off = score_scene(scene, dice_mod.read_dice(scene.image)).counts
    assert on["right"] == off["right"] + 1 and on["unread"] == off["unread"] - 1
    assert on["wrong"] == off["wrong"] and on["near_wrong"] == off["near_wrong"] and on["extra"] == off["extra"]
    assert any(d.value == 1 and abs(d.center[0] - 310) < 8 and abs(d.center[1] - 428) < 8 for d in on_dice)
    monkeypatch.setattr(dice_mod, "DARK_FACED_ONES_IN_HULLS", True)
    monkeypatch.setattr(top_clean, "MARKS_PAST_A_LIT_RIM_SKIPPED", False)
    rimless = dice_mod.read_dice(scene.image)
    assert not any(d.value == 1 and abs(d.center[0] - 310) < 8 and abs(d.center[1] - 428) < 8 for d in rimless)
