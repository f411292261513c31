"""A defocused die that every look read nothing in, read again on sharpened copies of its part of
the photo (:mod:`companion.vision.dice_defocus`): a value kept only where both strengths read it
alike, and only in blobs where a face region took its pips in.

Drawn cases for the sharpening and the agreement; rendered development scenes (ray 4367, a
defocused yellow two; ray 78, a translucent one whose far six shows through it; light 3259, a
tilted four read as a five with its side face's pip).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision import dice
from companion.vision.dice_defocus import agreed, sharpened


@dataclass
class _Read:  # (the fields agreed() compares: a Die's)
    value: int | None
    center: tuple[float, float]
    side_px: float = 50.0


def test_sharpening_steepens_a_blurred_edge():
    """A step blurred by 3 px is clearly steeper after the unsharp mask of the same scale (26 -> 38 levels a pixel)."""
    step = np.zeros((40, 80, 3), np.uint8)
    step[:, 40:] = 200
    blurred = cv2.GaussianBlur(step, (0, 0), 3.0)
    slope = lambda im: int(np.abs(np.diff(im[20, :, 0].astype(int))).max())
    assert slope(sharpened(blurred, 3.0)) >= 1.4 * slope(blurred)


def test_a_value_is_kept_only_where_every_strength_reads_it_alike():
    a = [_Read(4, (100.0, 100.0)), _Read(2, (300.0, 100.0)), _Read(5, (500.0, 100.0))]
    b = [_Read(4, (108.0, 96.0)),  # the same four, a little off: kept
         _Read(1, (302.0, 100.0)),  # another value at the two's place: dropped
         _Read(5, (500.0, 100.0)), _Read(3, (505.0, 104.0))]  # a five and a three at one place: dropped
    assert [(d.value, d.center) for d in agreed([a, b])] == [(4, (100.0, 100.0))]
    assert agreed([a, []]) == []  # read by one strength only: nothing kept


def test_rendered_defocused_two_reads_two(monkeypatch):
    """Development ray 4367 (a phone photo out of focus): a yellow two with black pips, unread by
    every look (its face region and halo read "8 pips" and "no pips"), read right sharpened."""
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    # (the motion look reads it too, from its tilted three's pips: held off to measure this look alone)
    monkeypatch.setattr(dice, "MOTION_UNDONE_BY_PIPS", False)
    off, on = counts_off_then_on(monkeypatch, dice, "DEFOCUSED_DICE_SHARPENED", render_raymarch(4367))
    assert on["right"] == off["right"] + 1 and on["unread"] == off["unread"] - 1
    assert on["wrong"] == off["wrong"] == 0 and on["near_wrong"] == 0 and on["extra"] == 0


def test_pips_that_fit_no_layout_are_not_sharpened_into_a_value(monkeypatch):
    """Development ray 78: a translucent red one whose far face's six shows through it; every look
    saw pips there that fit no layout (no face region without pips). Sharpened, the far six reads
    as a six -- a wrong value; the look is kept to blobs where a face region took its pips in."""
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    monkeypatch.setattr(dice, "DEFOCUSED_DICE_SHARPENED", True)
    off, on = counts_off_then_on(monkeypatch, dice, "SHARPENED_ONLY_WHERE_PIPS_UNSEEN", render_raymarch(78))
    assert off["wrong"] == 1 and on["wrong"] == 0 and on["unread"] == 1


def test_no_one_or_five_is_read_sharpened(monkeypatch):
    """Development light 3259 (defocused, tilted 27 degrees): a blue four whose side face's nearest
    pip, sharpened, made a five with its four pips -- a wrong value. The look reads no one or five."""
    from companion.vision import dice_defocus
    from companion.vision.dice_eval import score_scene
    from tests.dice_raymarch_light import render_light

    scene = render_light(3259)
    counts = lambda: score_scene(scene, dice.read_dice(scene.image)).counts
    monkeypatch.setattr(dice_defocus, "VALUES_READ", (1, 2, 3, 4, 5, 6))
    assert counts()["wrong"] == 1
    monkeypatch.setattr(dice_defocus, "VALUES_READ", (2, 3, 4, 6))
    assert counts()["wrong"] == 0
