"""A grey photo (its three channels equal: a camera in mono, a greyscale copy) tells no die's colour:
the reader's rules that act on a face's lack of chroma do not act there
(companion/vision/dice_grey.py; docs/dice-camera.md, thirtieth round). Drawn images, and
development ray 2074 and light 32 rendered, then made grey (BGR -> GRAY -> BGR)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np


def _grey(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def _jpeg(img: np.ndarray, quality: int = 70) -> np.ndarray:
    return cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)


def test_a_grey_copy_and_its_jpeg_are_grey_a_coloured_photo_is_not():
    from companion.vision.dice_grey import photo_is_grey

    rng = np.random.default_rng(7)
    photo = rng.integers(0, 256, (240, 320, 3), dtype=np.uint8)
    photo[60:120, 80:160] = (200, 80, 20)  # (a blue die)
    assert not photo_is_grey(photo)
    assert photo_is_grey(_grey(photo))
    assert photo_is_grey(_jpeg(_grey(photo)))
    assert photo_is_grey(photo[..., 0])  # (one channel)
    assert not photo_is_grey(_jpeg(photo))


def _grey_scene(scene):
    return replace(scene, image=_grey(scene.image))


def test_a_grey_photos_coloured_die_keeps_its_top_face_beside_the_tables_shadow(monkeypatch):
    """Development ray 2074 made grey: a blue one on a white table, read right, was taken for the
    side face of a light die whose lighter top face (the grey shadow on the table beside it) read
    nothing, and an unreadable die was reported 1.0 sides off (a missed die). With the switch on it
    reads right. (Fails with GREY_PHOTO_SIDE_FACES_KEPT off: checked, the one is missed.)"""
    import companion.vision.dice as dice
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    before, after = counts_off_then_on(monkeypatch, dice, "GREY_PHOTO_SIDE_FACES_KEPT", _grey_scene(render_raymarch(2074)))
    assert after["right"] == before["right"] + 1 and after["missed"] == before["missed"] - 1
    assert after["wrong"] == 0 and after["extra"] == 0


def test_a_grey_photos_coloured_dice_are_not_doubted_as_light_dice_in_shade(monkeypatch):
    """Development light 32 made grey: two marbled green dice on a white table, read right, their
    faces hueless and 115 and 80 darker than the table round them, were made unreadable as light
    dice's side faces in shade. With the switch on both read right. (Fails with
    GREY_PHOTOS_NOT_DOUBTED off: checked, both unread.)"""
    import companion.vision.dice_shaded_face as shaded
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch_light import render_light

    before, after = counts_off_then_on(monkeypatch, shaded, "GREY_PHOTOS_NOT_DOUBTED", _grey_scene(render_light(32)))
    assert after["right"] == before["right"] + 2 and after["unread"] == before["unread"] - 2
    assert after["wrong"] == 0 and after["extra"] == 0


def test_a_coloured_photo_reads_as_before(monkeypatch):
    """The switches act on grey photos only: ray 2074 in colour reads the same with both off."""
    import companion.vision.dice as dice
    import companion.vision.dice_shaded_face as shaded
    from companion.vision.dice import read_dice
    from tests.dice_raymarch import render_raymarch

    img = render_raymarch(2074).image
    on = [(d.value, d.center) for d in read_dice(img)]
    monkeypatch.setattr(dice, "GREY_PHOTO_SIDE_FACES_KEPT", False)
    monkeypatch.setattr(shaded, "GREY_PHOTOS_NOT_DOUBTED", False)
    assert [(d.value, d.center) for d in read_dice(img)] == on
