"""An overexposed photo: a white die's top face clipped to the white of a clipped table
(``dice_foreground.CLIPPED_FACES_CLOSED``; docs/dice-camera.md, thirty-first round, "Overexposed
photos: a clipped face closed between its side faces and its pips (h1)"). The foreground holds only
the die's shaded side faces and its pips; the rule joins them across the white between them, in a
second mask whose blobs are read where the reader's own read no die.

The scene test fails with the switch off (checked: light 3131 at x1.3 reads 0 of its 2 dice right
with the rule off -- its white six and ivory three reported unreadable, nine reports -- and both
with it on); the mask tests check the rule alone.
"""

from __future__ import annotations

import numpy as np
import pytest


def _brightened(img: np.ndarray, gain: float) -> np.ndarray:
    return np.clip(img.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def _counts(monkeypatch, scene, img, on):
    import companion.vision.dice as dice
    import companion.vision.dice_foreground as fg
    from companion.vision.dice_eval import score_scene

    monkeypatch.setattr(fg, "CLIPPED_FACES_CLOSED", on)
    return score_scene(scene, dice.read_dice(img)).counts


def test_a_brightened_photo_of_white_dice_on_white_paper_reads_them(monkeypatch):
    """Development light 3131 x1.3: its white six and ivory three, clipped, read only with the switch on."""
    from tests.dice_raymarch_light import render_light

    scene = render_light(3131)
    bright = _brightened(scene.image, 1.3)
    off = _counts(monkeypatch, scene, bright, False)
    on = _counts(monkeypatch, scene, bright, True)
    assert on["right"] >= off["right"] + 2
    assert on["wrong"] == on["near_wrong"] == on["extra"] == 0


def _white_photo_with_a_clipped_die() -> np.ndarray:
    """A white table, a die's grey L of side faces and two dark pips on its white face."""
    img = np.full((300, 400, 3), 255, np.uint8)
    img[100:160, 160:168] = 150  # (the left side face)
    img[152:160, 160:220] = 150  # (the near side face)
    for cx, cy in ((180, 115), (205, 140)):
        img[cy - 3:cy + 4, cx - 3:cx + 4] = 30
    return img


def test_the_white_between_side_faces_and_pips_is_closed():
    from companion.vision.dice_foreground import _Foreground

    fore = _Foreground(_white_photo_with_a_clipped_die(), 4.0)
    assert fore.closed is not None
    for x, y in ((172, 115), (205, 148)):  # (between the left side face and a pip, a pip and the near side)
        assert fore.mask[y, x] == 0  # (the face, as white as the table, is no foreground ...)
        assert fore.closed[y, x] > 0  # (... until closed between the L and the pips)


def test_a_photo_on_a_dark_table_gets_no_closed_mask():
    from companion.vision.dice_foreground import _Foreground

    img = _white_photo_with_a_clipped_die()
    img[img == 255] = 60  # (the table dark, the die's face too: nothing clips)
    assert _Foreground(img, 4.0).closed is None


def test_the_switch_off_gives_no_closed_mask(monkeypatch):
    import companion.vision.dice_foreground as fg

    monkeypatch.setattr(fg, "CLIPPED_FACES_CLOSED", False)
    assert fg._Foreground(_white_photo_with_a_clipped_die(), 4.0).closed is None
