"""A part of a blob left beside a die read there, shaped like one die and read as nothing by every
look, is reported as an unreadable die (dice.REMAINDERS_UNREAD_REPORTED, dice_remainder_unread).
Drawn parts for the shape test; rendered ray 4911 for a missed die now reported."""

from __future__ import annotations

import numpy as np

from companion.vision.dice import DIE_ELONGATION, DIE_SIZE_RANGE, DIE_SOLIDITY
from companion.vision.dice_remainder_unread import die_shaped_part


def _shape(part, side):
    return die_shaped_part(part, side, DIE_SOLIDITY, DIE_ELONGATION, DIE_SIZE_RANGE)


def test_a_square_part_of_the_read_dies_size_is_die_shaped():
    part = np.zeros((60, 60), bool)
    part[10:50, 12:52] = True
    got = _shape(part, 40.0)
    assert got is not None
    assert abs(got[0] - 31.5) < 1 and abs(got[1] - 29.5) < 1 and abs(got[2] - 40) < 1


def test_a_long_thin_part_or_a_small_or_hollow_one_is_not():
    strip = np.zeros((60, 120), bool)
    strip[20:45, 5:110] = True  # a shadow's strip: 4 times as long as wide
    assert _shape(strip, 40.0) is None
    small = np.zeros((60, 60), bool)
    small[20:40, 20:40] = True  # half the read die's side
    assert _shape(small, 40.0) is None
    ring = np.zeros((60, 60), bool)
    ring[10:50, 10:50] = True
    ring[18:42, 18:42] = False  # an outline (two contours' worth of hole: fills under its hull)
    assert _shape(ring, 40.0) is None
    two = np.zeros((60, 60), bool)
    two[5:25, 5:25] = True
    two[35:55, 35:55] = True  # two pieces
    assert _shape(two, 20.0) is None


def test_ray_4911s_marbled_six_beside_a_read_three_is_reported(monkeypatch):
    """Fails with dice.REMAINDERS_UNREAD_REPORTED off: the marbled green six, in one blob with the
    three read beside it, reads nothing and is missed (nothing within 1.6 sides)."""
    from companion.vision import dice
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    off, on = counts_off_then_on(monkeypatch, dice, "REMAINDERS_UNREAD_REPORTED", render_raymarch(4911))
    assert on["missed"] == off["missed"] - 1
    assert on["unread"] == off["unread"] + 1 and on["right"] == off["right"]
    assert on["wrong"] == off["wrong"] == 0 and on["extra"] == off["extra"] == 0
    assert on["near_wrong"] == off["near_wrong"]


def test_a_part_of_the_tables_tint_darker_than_it_is_a_shadow():
    """dice_remainder_unread.SHADOW_SHARE: a read die's shadow beside it (light-generator scenes
    lit from one side) is a solid die-sized part; of the table's tint and darker, it is no die. A
    coloured die there, or a white one no darker than the table, is not a shadow; a shadow tinted a
    little by the light it is lit by still is (light 3219's lilac shadows)."""
    from companion.vision.dice_remainder_unread import SHADOW_SHARE, shadow_share

    img = np.full((200, 300, 3), 235, np.uint8)  # a white table, the work image at f = 1
    img[50:90, 40:80] = 60  # the die read (dark)
    img[50:90, 80:120] = 170  # its shadow: grey, the table's (lack of) tint
    img[50:90, 120:160] = (60, 160, 60)  # a green die touching the shadow
    blob = np.zeros((40, 120), bool)
    blob[:, :] = True
    shadow = np.zeros((40, 40), bool)
    shadow[:, :] = True
    assert shadow_share(img, 1.0, blob, (40, 50), shadow, (80, 50), 40.0, img.shape[:2]) > SHADOW_SHARE
    assert shadow_share(img, 1.0, blob, (40, 50), shadow, (120, 50), 40.0, img.shape[:2]) < SHADOW_SHARE
    img[50:90, 80:120] = (205, 190, 200)  # a shadow lit by bluish room light: lilac, 8 units off the tint
    assert shadow_share(img, 1.0, blob, (40, 50), shadow, (80, 50), 40.0, img.shape[:2]) > SHADOW_SHARE
    img[50:90, 120:160] = 240  # a white die, lighter than the table
    assert shadow_share(img, 1.0, blob, (40, 50), shadow, (120, 50), 40.0, img.shape[:2]) < SHADOW_SHARE


def test_a_part_toward_the_photos_middle_from_the_read_die_is_its_side_face():
    """dice_remainder_unread.inward_of_a_read_die: ray 4361's black six (tilted 25 degrees) showed
    its side face and shadow as a die-shaped part inward of it; a part outward or across is not."""
    from companion.vision.dice import Die
    from companion.vision.dice_remainder_unread import inward_of_a_read_die

    read = [Die(6, (405.0, 802.0), 0.9, 246.0)]
    middle, diagonal = (1500.0, 1125.0), 3750.0
    assert inward_of_a_read_die((696.0, 814.0), read, middle, diagonal)  # ray 4361's part
    assert not inward_of_a_read_die((114.0, 790.0), read, middle, diagonal)  # outward
    assert not inward_of_a_read_die((405.0, 1090.0), read, middle, diagonal)  # across the radius
    assert not inward_of_a_read_die((1700.0, 1125.0), [Die(6, (1450.0, 1125.0), 0.9, 246.0)], middle, diagonal)  # at the middle
