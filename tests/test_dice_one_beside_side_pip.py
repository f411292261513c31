"""A one refused as two pips off layout (its pip and a side face's pip): read as a one when exactly
one of the two is a one's pip at the middle of a whole face (companion/vision/dice_one_beside_side_pip.py)."""

from __future__ import annotations

import cv2
import numpy as np

import companion.vision.dice as dice_mod
from companion.vision.dice import Die
from companion.vision.dice_one_beside_side_pip import ones_beside_side_pips

REASON = "2 pips off layout (rms 0.00, pip/face 0.20: not along the face's diagonal)"


def _tilted_die(top_pips: list[tuple[int, int]], side_pips: list[tuple[int, int]]) -> np.ndarray:
    """A dark table; a light top face 100 px square (x 150-250, y 150-250) and, below it, a darker
    side face 40 px deep of the same hue; dark pips 10 px in radius."""
    img = np.full((400, 400, 3), 40, np.uint8)
    cv2.rectangle(img, (150, 150), (250, 250), (200, 200, 200), -1)
    cv2.rectangle(img, (150, 251), (250, 290), (150, 150, 150), -1)
    for x, y in top_pips + side_pips:
        cv2.circle(img, (x, y), 10, (30, 30, 30), -1)
    return img


def _refused(pips: list[tuple[int, int]], radii: tuple[float, float] = (10.0, 10.0)) -> Die:
    cx, cy = float(np.mean([p[0] for p in pips])), float(np.mean([p[1] for p in pips]))
    return Die(None, (cx, cy), 0.0, 110.0, REASON, None,
               tuple((x - cx, y - cy, r) for (x, y), r in zip(pips, radii)))


def test_a_ones_pip_and_a_side_faces_pip_read_as_a_one():
    img = _tilted_die([(200, 200)], [(200, 270)])
    got = ones_beside_side_pips([_refused([(200, 200), (200, 270)])], img)[0]
    assert got.value == 1 and abs(got.center[0] - 200) < 1 and abs(got.center[1] - 200) < 1


def test_a_two_a_three_missing_a_pip_or_a_face_of_one_shade_are_not_read():
    img = _tilted_die([(175, 175), (225, 225)], [])  # a two: neither pip at its face's middle
    assert ones_beside_side_pips([_refused([(175, 175), (225, 225)])], img)[0].value is None
    img = _tilted_die([(200, 200), (175, 175), (225, 225)], [])  # a three, one corner pip not given
    assert ones_beside_side_pips([_refused([(200, 200), (175, 175)])], img)[0].value is None
    img = _tilted_die([(200, 200)], [(200, 270)])
    img[251:291, 150:251] = 200  # the "side face" of the top face's shade: the pip is on the face
    cv2.circle(img, (200, 270), 10, (30, 30, 30), -1)
    assert ones_beside_side_pips([_refused([(200, 200), (200, 270)])], img)[0].value is None
    # no pips kept, or another reason: left as it was
    assert ones_beside_side_pips([Die(None, (200.0, 235.0), 0.0, 110.0, REASON)], img)[0].value is None
    img = _tilted_die([(200, 200)], [(200, 270)])
    sized = _refused([(200, 200), (200, 270)])
    sized.reason = "2 pips off layout (rms 0.00, pip/face 0.97: pip size, not along the face's diagonal)"
    assert ones_beside_side_pips([sized], img)[0].value is None  # (refused for more than its layout)
    big = _tilted_die([], [(200, 270)])
    cv2.circle(big, (200, 200), 24, (30, 30, 30), -1)  # a blob 0.43 of the face (sqrt area): no one's pip
    assert ones_beside_side_pips([_refused([(200, 200), (200, 270)], (24.0, 10.0))], big)[0].value is None


def test_rendered_green_one_beside_its_side_faces_pip(monkeypatch):
    """Ray 2072 (development): a motion-blurred green one, 123 px, tilted 22 degrees; its face region
    took in a side face's pip, and the two were refused as a two off layout. Fails with
    ``ONES_BESIDE_SIDE_PIPS`` off (checked: the one stays unread)."""
    from tests.dice_raymarch import render_raymarch
    from companion.vision.dice_eval import score_scene

    scene = render_raymarch(2072)
    monkeypatch.setattr(dice_mod, "ONES_BESIDE_SIDE_PIPS", True)
    on_dice = dice_mod.read_dice(scene.image)
    on = score_scene(scene, on_dice).counts
    monkeypatch.setattr(dice_mod, "ONES_BESIDE_SIDE_PIPS", False)
    off = score_scene(scene, dice_mod.read_dice(scene.image)).counts
    assert on["right"] == off["right"] + 1 and on["unread"] == off["unread"] - 1
    assert on["wrong"] == off["wrong"] == 0 and on["near_wrong"] == off["near_wrong"] == 0
    assert on["extra"] == off["extra"]
    assert any(d.value == 1 and abs(d.center[0] - 3119) < 10 and abs(d.center[1] - 2379) < 10 for d in on_dice)


def test_a_one_on_a_die_already_read_is_its_pip_seen_again(monkeypatch):
    """A refused report 0.75 sides from a die read already (its unread duplicate) is not read as a
    second one: two dice cannot stand closer than a side (NOT_ON_A_READ_DIE; the lead's held-out
    webcam frame 60428).  Fails with the switch off: the duplicate reads as a one."""
    import companion.vision.dice_one_beside_side_pip as mod
    img = _tilted_die([(200, 200)], [(200, 270)])
    duplicate = _refused([(200, 200), (200, 270)])
    read_one = Die(1, (200 + 0.53 * 110, 200 + 0.53 * 110), 0.9, 110.0)  # 0.75 sides away
    apart_one = Die(1, (200 + 1.2 * 110, 200), 0.9, 110.0)  # a neighbour a side and a fifth away
    got = ones_beside_side_pips([duplicate, read_one], img)
    assert got[0].value is None and got[1] is read_one
    got = ones_beside_side_pips([duplicate, apart_one], img)
    assert got[0].value == 1  # a die beside it, not under it, does not stop the reading
    monkeypatch.setattr(mod, "NOT_ON_A_READ_DIE", False)
    assert ones_beside_side_pips([duplicate, read_one], img)[0].value == 1
