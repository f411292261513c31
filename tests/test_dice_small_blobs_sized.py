"""Light dice on a light table whose blob falls under the least die's area, read when its box is the
size of the dice read in the photo (``dice.SMALL_BLOBS_SIZED_BY_READ_DICE``, and
``dice.SMALL_BLOBS_SHARPENED`` for a soft one; docs/dice-camera.md, thirty-sixth round, h3).

The least die (``ReaderSettings.min_die_frac``, 0.03 of the photo's short side) is a prior; the
dice read in the photo tell its own die size. A white or pale die on white shows only its shaded
sides, edges and pips, so its blob fills its box only in part and falls under the least die's
area when the photo's dice are near that size. Each rendered test reads the scene with the switch
off and on, so it fails with the switch off.
"""

from __future__ import annotations

import math

import numpy as np

from tests.dice_flags import counts_off_then_on


def _near(found, die):
    return min(found, key=lambda d: math.dist(d.center, die.center))


def test_a_white_five_under_the_least_die_is_read(monkeypatch):
    """Development light 3160: a white five (71 px in a 4000x3000 photo: 14 work px, the least
    die 18) on a white table, its blob under the least die's area. Off: missed; on: read right,
    nothing else moved."""
    import companion.vision.dice as dice
    from tests.dice_raymarch_light import render_light

    scene = render_light(3160)
    # (session 41's lone-blob read also reads this five with this rule off: held off, as this test is of
    # SMALL_BLOBS_SIZED_BY_READ_DICE alone -- tests/test_dice_lone_blobs.py has it)
    from companion.vision import dice_lone_blobs
    monkeypatch.setattr(dice_lone_blobs, "LONE_BLOBS_READ", False)
    off, on = counts_off_then_on(monkeypatch, dice, "SMALL_BLOBS_SIZED_BY_READ_DICE", scene)
    assert (off["right"], off["missed"]) == (3, 1)
    assert (on["right"], on["missed"]) == (4, 0)
    for k in ("wrong", "unread", "extra", "near_wrong"):
        assert on[k] == off[k] == 0
    found = dice.read_dice(scene.image)
    five = next(t for t in scene.dice if t.value == 5 and t.style == "white")
    near = _near(found, five)
    assert near.value == 5 and math.dist(near.center, five.center) < 0.25 * five.side_px


def test_a_soft_pink_three_is_read_sharpened(monkeypatch):
    """Development light 3237: a pastel pink three (73 px, defocused) on white paper, one die read
    beside it (a one, 78 px). Its small blob reads nothing as it is; sharpened, the three. Off
    (either switch): missed; on: right."""
    import companion.vision.dice as dice
    from tests.dice_raymarch_light import render_light

    scene = render_light(3237)
    off, on = counts_off_then_on(monkeypatch, dice, "SMALL_BLOBS_SIZED_BY_READ_DICE", scene)
    assert (off["right"], off["missed"]) == (1, 1)
    assert (on["right"], on["missed"]) == (2, 0)
    for k in ("wrong", "unread", "extra", "near_wrong"):
        assert on[k] == off[k] == 0
    monkeypatch.setattr(dice, "SMALL_BLOBS_SHARPENED", False)
    _, unsharpened = counts_off_then_on(monkeypatch, dice, "SMALL_BLOBS_SIZED_BY_READ_DICE", scene)
    assert unsharpened == off  # (the sharpened look is the part that reads this one)


def test_no_read_die_no_size_told():
    """With no die read in the photo nothing tells the die size: the rule reads nothing, and a blob
    whose box is far from the read dice's size (a pip, a shadow's strip of two dice) is not read."""
    import companion.vision.dice as dice

    img = np.full((300, 400, 3), 235, np.uint8)
    labels = np.zeros((300, 400), np.int32)
    labels[100:118, 100:116] = 1
    under = [(1, 100, 100, 16, 18, 200)]
    assert dice._small_blobs_read(img, labels, under, 1.0, []) == []
    read = [dice.Die(4, (300.0, 200.0), 0.9, 40.0), dice.Die(2, (50.0, 250.0), 0.9, 42.0)]
    assert dice._small_blobs_read(img, labels, under, 1.0, read) == []  # (box 17 px against 41)
