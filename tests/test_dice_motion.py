"""A photo smeared by motion: the smear measured from the read dice's pips, undone by a Wiener
filter, the unread dice read again (``dice.MOTION_UNDONE_BY_PIPS``, :mod:`companion.vision.dice_motion`;
docs/dice-camera.md, thirtieth round, "Motion blur undone").
"""

from __future__ import annotations

import math
from dataclasses import replace

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


# ---------------------------------------------------------------- a smear told with no die read


def _smeared_read_off_and_on(monkeypatch, seed: int, degrees: float, switch: str):
    """Development ray ``seed`` smeared 16 px at ``degrees``, read with ``dice.<switch>`` off, then on:
    (scene, dice read off, dice read on)."""
    from companion.vision import dice
    from tests.dice_raymarch import render_raymarch

    scene = render_raymarch(seed)
    smeared = cv2.filter2D(scene.image, -1, line_kernel(Motion(math.radians(degrees), 16.0)))
    monkeypatch.setattr(dice, switch, False)
    before = dice.read_dice(smeared)
    monkeypatch.setattr(dice, switch, True)
    return scene, before, dice.read_dice(smeared)


def _no_wrong_value_or_extra(dice, scene) -> bool:
    """Every value read is a die's own, within half a die of its centre."""
    return all(d.value is None or any(d.value == t.value and math.dist(d.center, t.center) < 0.5 * t.side_px
                                      for t in scene.dice) for d in dice)


def _dice_photo():
    """Four white dice, each turned its own way, with black pips on a grainy grey table (320 x 320)."""
    rng = np.random.default_rng(3)
    img = np.clip(120 + rng.normal(0, 3, (320, 320)), 0, 255).astype(np.uint8)
    layouts = {3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
               5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}
    centres = [(80, 80, 10, 5), (230, 90, 37, 3), (90, 230, 62, 6), (220, 220, 81, 4)]
    for cx, cy, turn, value in centres:
        c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
        corners = np.array([[cx + 30 * (c * u - s * v), cy + 30 * (s * u + c * v)] for u, v in [(-1, -1), (1, -1), (1, 1), (-1, 1)]])
        cv2.fillConvexPoly(img, np.round(corners * 16).astype(np.int32), 235, cv2.LINE_AA, 4)
        for u, v in layouts[value]:
            centre = (round((cx + 15 * (c * u - s * v)) * 16), round((cy + 15 * (s * u + c * v)) * 16))
            cv2.circle(img, centre, 6 * 16, 25, -1, cv2.LINE_AA, 4)
    dice = [_die([(x, y, 6)], value=None) for x, y, _, _ in centres]
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR), dice


@pytest.mark.parametrize("angle_deg,length", [(20, 12), (75, 16), (140, 20)])
def test_a_smear_is_told_blind_from_the_unread_dices_windows(angle_deg, length):
    """No die read, no pip to measure: the dice's windows' cepstrum dips at the smear's line."""
    from companion.vision.dice_motion import blind_motion

    img, dice = _dice_photo()
    smeared = cv2.filter2D(img, -1, line_kernel(Motion(math.radians(angle_deg), float(length))))
    found = blind_motion(smeared, dice)
    turn = abs((math.degrees(found.angle) - angle_deg + 90) % 180 - 90)
    assert turn <= 4 and found.length == pytest.approx(length, abs=2)


def test_a_tilted_cameras_photo_tells_no_smear_blind_and_its_smear_is_told():
    """Development ray 4367 (a camera tilted 21 degrees: its pips are ellipses, as a smear makes
    them, but its edges are sharp) tells no smear blind; smeared 16 px at 35 degrees, it does."""
    from companion.vision.dice_motion import blind_motion

    scene, smeared = _smeared_scene()
    dice = [_die([(t.center[0], t.center[1], 6)], value=None, side=t.side_px) for t in scene.dice]
    assert blind_motion(scene.image, dice) is None
    found = blind_motion(smeared, dice)
    assert abs((math.degrees(found.angle) - 35 + 90) % 180 - 90) <= 4 and found.length == pytest.approx(16, abs=2)


def test_a_smeared_photo_with_no_die_read_is_read_with_its_smear_told_blind(monkeypatch):
    """Development ray 4342 (640 x 480, ivory dice ~50 px) smeared 16 px at 136.5 degrees reads no
    die, so no pip tells the smear.  Fails with ``MOTION_TOLD_BLIND`` off: its four and three stay
    unreadable."""
    scene, before, after = _smeared_read_off_and_on(monkeypatch, 4342, 136.5, "MOTION_TOLD_BLIND")
    assert all(d.value is None for d in before)
    assert _right(after, scene) >= _right(before, scene) + 2
    assert _no_wrong_value_or_extra(after, scene)


def test_jpegs_blocks_are_no_smear(monkeypatch):
    """Development webcamp 8069 as rendered (a webcam's JPEG, no motion) dips along x at 16 px: its
    8 x 8 blocks.  Fails with ``dice_motion.BLIND_JPEG_GRID_REFUSED`` off (a 16 px smear along x)."""
    from companion.vision import dice_motion
    from companion.vision.dice_motion import blind_motion
    from tests.dice_raymarch import render_raymarch

    scene = render_raymarch(8069, "webcam", webcam_pipeline=True)
    dice = [_die([(t.center[0], t.center[1], 6)], value=None, side=t.side_px) for t in scene.dice]
    monkeypatch.setattr(dice_motion, "BLIND_JPEG_GRID_REFUSED", True)
    assert blind_motion(scene.image, dice) is None


def test_a_tilted_cameras_pips_are_no_smear_when_confirmed_blind(monkeypatch):
    """Development ray 4911 as rendered (a camera tilted 18.5 degrees, focus blur, no motion): its
    pips measure a 12 px 'smear', its cepstrum shows none.  With ``MOTION_PIPS_CONFIRMED_BLIND``
    on, the photo is not sharpened along the tilt; fails with the switch off (the switch is off in
    the house settings: there the sharpening along the tilt reads its two threes)."""
    from companion.vision import dice
    from tests.dice_raymarch import render_raymarch

    calls = []
    real = dice.unsmeared
    monkeypatch.setattr(dice, "unsmeared", lambda img, motion: calls.append(motion) or real(img, motion))
    monkeypatch.setattr(dice, "MOTION_PIPS_CONFIRMED_BLIND", True)
    found = dice.read_dice(render_raymarch(4911).image)
    assert any(d.value is None for d in found) and calls == []


def test_a_smear_along_the_pips_line_is_confirmed_blind():
    """Development ray 4367 smeared 16 px at 35 degrees dips along that line; as rendered (tilted
    21 degrees) it does not."""
    from companion.vision.dice_motion import smear_confirmed

    scene, smeared = _smeared_scene()
    dice = [_die([(t.center[0], t.center[1], 6)], value=None, side=t.side_px) for t in scene.dice]
    line = Motion(math.radians(35), 16.0)
    assert smear_confirmed(smeared, dice, line) and not smear_confirmed(scene.image, dice, line)
    assert not smear_confirmed(smeared, dice, Motion(math.radians(125), 16.0))


def test_a_blind_lines_sharpened_photo_gives_no_two(monkeypatch):
    """Development webcam-pipeline scene 8041 (640 x 480, three ivory dice) smeared 16 px at 79.3
    degrees: its one and five are unread and no pip tells the smear; the cepstrum tells the line
    right, and on the photo sharpened along it the one's pip and the filter's echo of it read as a
    **two**. ``dice.BLIND_VALUES_READ`` takes no two from a blind line: the one stays unreadable.
    Fails with a two allowed (the test compares both)."""
    from companion.vision import dice
    from tests.dice_raymarch import render_raymarch

    scene = render_raymarch(8041, "webcam", webcam_pipeline=True)
    smeared = cv2.filter2D(scene.image, -1, line_kernel(Motion(math.radians(79.344), 16.0)))
    one = next(t for t in scene.dice if t.value == 1)

    def read_at_the_one(values):
        monkeypatch.setattr(dice, "BLIND_VALUES_READ", values)
        near = [d for d in dice.read_dice(smeared) if math.dist(d.center, one.center) < 0.5 * one.side_px]
        return [d.value for d in near]

    default = dice.BLIND_VALUES_READ
    assert read_at_the_one((2, 3, 4, 6)) == [2]  # (a wrong value, with twos taken)
    assert read_at_the_one(default) == [None]


# ---------------------------------------------------------------- a one, two or five whose pips show smeared


def test_a_pip_read_sharpened_shows_smeared_and_its_echo_does_not():
    """A pip smeared along a line keeps ``2 r / L`` of its darkness at its middle; the Wiener filter's
    echo of it, a line's length away, keeps none (``dice_motion.pips_seen_smeared``)."""
    from companion.vision.dice_motion import pips_seen_smeared

    line = Motion(math.radians(45), 16.0)
    face = np.full((200, 200), 40, np.uint8)
    cv2.rectangle(face, (60, 60), (140, 140), 230, -1)
    cv2.circle(face, (100, 100), 6, 30, -1, cv2.LINE_AA)
    smeared = cv2.filter2D(face, -1, line_kernel(line))
    sharp = cv2.cvtColor(unsmeared(cv2.cvtColor(smeared, cv2.COLOR_GRAY2BGR), line), cv2.COLOR_BGR2GRAY)
    echo = (100 + 16 * math.cos(line.angle), 100 + 16 * math.sin(line.angle), 6.0)
    echoed = sharp.copy()
    cv2.circle(echoed, (round(echo[0]), round(echo[1])), 6, 30, -1, cv2.LINE_AA)  # (the echo, drawn dark)
    assert pips_seen_smeared(smeared, sharp, _die([(100, 100, 6.0)], value=1), line)
    assert not pips_seen_smeared(smeared, echoed, _die([(100, 100, 6.0), echo], value=2), line)
    no_pips = replace(_die([(100, 100, 6.0)], value=1), pips=None)
    assert not pips_seen_smeared(smeared, sharp, no_pips, line)  # (no pips: nothing to check)


def test_a_blind_lines_ones_are_read_when_their_pips_show_smeared(monkeypatch):
    """Development ray 4961 (640 x 480, two ones ~55 px) smeared 16 px at 67.4 degrees: no die is read,
    the cepstrum tells the line, and on the photo sharpened along it both ones read -- refused by
    ``dice.BLIND_VALUES_READ`` alone.  Fails with ``dice.ONES_FIVES_WHEN_PIPS_SEEN_SMEARED`` off (both
    stay unreadable)."""
    scene, before, after = _smeared_read_off_and_on(monkeypatch, 4961, 67.38, "ONES_FIVES_WHEN_PIPS_SEEN_SMEARED")
    assert _right(after, scene) >= _right(before, scene) + 2
    assert _no_wrong_value_or_extra(after, scene)
