"""A photo smeared by motion: the smear measured from the read dice's pips, undone by a Wiener
filter, the unread dice read again (``dice.MOTION_UNDONE_BY_PIPS``, :mod:`companion.vision.dice_motion`;
docs/dice-camera.md, thirtieth round, "Motion blur undone").
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from companion.vision.dice_motion import Motion, line_kernel, photo_motion, pip_smear, unsmeared


def _spots(centres, r=6, size=(160, 200)):
    img = np.full(size, 230, np.uint8)
    for x, y in centres:
        cv2.circle(img, (x, y), r, 30, -1, cv2.LINE_AA)
    return img


@pytest.mark.parametrize("angle_deg,length", [(0, 9), (30, 14), (100, 12), (155, 20)])
def test_a_pips_smear_tells_the_motions_direction_and_length(angle_deg, length):
    motion = Motion(math.radians(angle_deg), float(length))
    img = cv2.filter2D(_spots([(100, 80)]), -1, line_kernel(motion))
    angle, measured = pip_smear(img, 100, 80, 6, 40)
    turn = abs((math.degrees(angle) - angle_deg + 90) % 180 - 90)
    assert turn < 5 and measured == pytest.approx(length, rel=0.2)


def test_a_round_pip_shows_no_smear():
    angle, measured = pip_smear(_spots([(100, 80)]), 100, 80, 6, 40)
    assert measured < 2


def _die(pips, value=3, side=60.0):
    from companion.vision.dice import Die

    return Die(value, pips[0][:2], 0.9, side, pips=tuple(pips))


def test_a_photos_motion_needs_its_pips_to_agree():
    centres = [(40, 40), (100, 80), (160, 120)]
    motion = Motion(math.radians(60), 14.0)
    smeared = cv2.cvtColor(cv2.filter2D(_spots(centres), -1, line_kernel(motion)), cv2.COLOR_GRAY2BGR)
    found = photo_motion(smeared, [_die([(x, y, 6) for x, y in centres])])
    assert found is not None and abs(math.degrees(found.angle) - 60) < 5 and found.length == pytest.approx(14, rel=0.2)
    # unsmeared spots, an unread die's pips, too few pips: no motion
    assert photo_motion(cv2.cvtColor(_spots(centres), cv2.COLOR_GRAY2BGR), [_die([(x, y, 6) for x, y in centres])]) is None
    assert photo_motion(smeared, [_die([(x, y, 6) for x, y in centres], value=None)]) is None
    assert photo_motion(smeared, [_die([(x, y, 6) for x, y in centres[:2]])]) is None
    # each pip smeared its own way (dice, not the camera, at random): no agreement
    mixed = _spots([])
    for (x, y), a in zip(centres, (0, 60, 120)):
        one = cv2.filter2D(_spots([(x, y)]), -1, line_kernel(Motion(math.radians(a), 14.0)))
        mixed = np.minimum(mixed, one)
    assert photo_motion(cv2.cvtColor(mixed, cv2.COLOR_GRAY2BGR), [_die([(x, y, 6) for x, y in centres])]) is None


def test_a_smear_undone_brings_the_photo_back():
    """The pips' dark middles come back, the flat table between them keeps its level (away from
    the faint echoes a Wiener filter leaves along the motion)."""
    centres = [(40, 40), (100, 80), (160, 120), (70, 110)]
    sharp = _spots(centres, r=5)
    motion = Motion(math.radians(35), 15.0)
    smeared = cv2.filter2D(sharp, -1, line_kernel(motion), borderType=cv2.BORDER_REFLECT)
    back = unsmeared(cv2.cvtColor(smeared, cv2.COLOR_GRAY2BGR), motion)
    assert back.shape == (160, 200, 3) and back.dtype == np.uint8
    for x, y in centres:
        assert abs(int(smeared[y, x]) - int(sharp[y, x])) > 40 and abs(int(back[y, x, 0]) - int(sharp[y, x])) < 15
    for x, y in [(130, 30), (30, 140), (180, 60), (120, 130), (150, 40)]:
        assert abs(int(back[y, x, 0]) - 230) <= 6


def _smeared_scene():
    """Development scene ray 4367 (a phone photo, dice ~150 px) smeared by a 16 px line at 35 deg."""
    from tests.dice_raymarch import render_raymarch

    scene = render_raymarch(4367)
    return scene, cv2.filter2D(scene.image, -1, line_kernel(Motion(math.radians(35), 16.0)))


def _right(dice, scene):
    right = 0
    for t in scene.dice:
        near = [d for d in dice if math.dist(d.center, t.center) < 0.5 * t.side_px]
        right += bool(near) and near[0].value == t.value
    return right


def test_a_smeared_photos_unread_die_is_read_with_the_motion_undone(monkeypatch):
    """Fails with ``MOTION_UNDONE_BY_PIPS`` off: the yellow two stays unreadable."""
    from companion.vision import dice

    scene, smeared = _smeared_scene()
    monkeypatch.setattr(dice, "MOTION_UNDONE_BY_PIPS", False)
    before = dice.read_dice(smeared)
    monkeypatch.setattr(dice, "MOTION_UNDONE_BY_PIPS", True)
    after = dice.read_dice(smeared)
    assert _right(after, scene) > _right(before, scene)
    read_before = {(d.value, round(d.center[0]), round(d.center[1])) for d in before if d.value is not None}
    assert read_before <= {(d.value, round(d.center[0]), round(d.center[1])) for d in after}  # the read stay


def test_a_photo_with_every_die_read_is_read_once(monkeypatch):
    """Nothing left unread: no motion is measured, no second reading (the look costs nothing)."""
    from companion.vision import dice
    from tests.dice_raymarch import render_raymarch

    calls = []
    monkeypatch.setattr(dice, "photo_motion", lambda *a: calls.append(a))
    found = dice.read_dice(render_raymarch(4203).image)
    assert found and all(d.value is not None for d in found) and calls == []
