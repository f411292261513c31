"""Blobs with nothing reported on them, a die with its shadow, read at the read dice's size
(``dice_lone_blobs.LONE_BLOBS_READ``; docs/dice-camera.md, fortieth round, h3).

A light die under one lamp and its shadow are one blob at the working scale: too long and too
little filled to be die-shaped, larger than the dice read, every look reads nothing in it and the
die is missed with no report near it. The rendered tests read the scene with the switch off and on,
so they fail with it off; the drawn ones test the window reads and the agreement guard alone.
"""

from __future__ import annotations

import math

from tests.dice_flags import counts_off_then_on


def _near(found, die):
    return min(found, key=lambda d: math.dist(d.center, die.center))


def test_a_defocused_six_with_its_shadow_read(monkeypatch):
    """Development light 3408: an ivory six, 91 px in a 4000x3000 photo on white paper, defocused,
    its shadow to its lower right: one blob 2.1 x 1.7 sides, 2.5 squared sides. Off: missed, no
    report within 4 sides; on: read a six at its centre, nothing else moved."""
    import companion.vision.dice_lone_blobs as lone
    from companion.vision.dice import read_dice
    from tests.dice_raymarch_light import render_light

    scene = render_light(3408)
    off, on = counts_off_then_on(monkeypatch, lone, "LONE_BLOBS_READ", scene)
    assert (on["right"], on["missed"]) == (off["right"] + 1, off["missed"] - 1)
    for k in ("wrong", "unread", "extra", "near_wrong"):
        assert on[k] == off[k]
    assert on["wrong"] == on["extra"] == 0
    six = next(t for t in scene.dice if t.value == 6 and t.style == "ivory" and t.center[1] > 1500)
    near = _near(read_dice(scene.image), six)
    assert near.value == 6 and math.dist(near.center, six.center) < 0.1 * six.side_px


def test_a_clear_three_with_its_shadow_read(monkeypatch):
    """Development light 3319: a clear three, 45 px in a 2000x1500 photo, tilted camera, its blob
    with its shadow 2.2 x 1.8 sides. Off: missed; on: right, nothing else moved."""
    import companion.vision.dice_lone_blobs as lone
    from tests.dice_raymarch_light import render_light

    scene = render_light(3319)
    off, on = counts_off_then_on(monkeypatch, lone, "LONE_BLOBS_READ", scene)
    assert (on["right"], on["missed"]) == (off["right"] + 1, off["missed"] - 1)
    assert on["missed"] == 0
    for k in ("wrong", "unread", "extra", "near_wrong"):
        assert on[k] == off[k]


class _Read:
    """A stand-in reading: value, centre, side, confidence."""

    def __init__(self, value, center, side=100.0, confidence=0.9):
        self.value, self.center, self.side_px, self.confidence = value, center, side, confidence


def test_a_value_is_kept_only_when_windows_moved_round_it_agree():
    """Drawn (a stubbed look): a look reading a four at (500, 500) from every window within 0.2
    sides of it is kept there; one reading it from the first window only, or reading a four and a
    five at the place, is not."""
    from companion.vision.dice_lone_blobs import _agreed

    def steady(c, side):
        return [_Read(4, (500.0, 500.0))] if math.dist(c, (500, 500)) <= 0.2 * side else []

    def once(c, side):
        return [_Read(4, (500.0, 500.0))] if math.dist(c, (500, 500)) < 1 else []

    def torn(c, side):
        return [_Read(4 if c[0] >= 500 else 5, (500.0, 500.0))]

    assert _agreed(steady, 4, (500.0, 500.0), 100.0) == (500.0, 500.0)
    assert _agreed(once, 4, (500.0, 500.0), 100.0) is None
    assert _agreed(torn, 4, (500.0, 500.0), 100.0) is None


def test_windows_cover_the_blob_and_past_it():
    """Drawn: a blob box two sides by one; the windows' centres run from 0.3 of a side inside its
    left end to 0.3 inside its right (PAD past the half side), and a reading of a die's size
    near a window is taken, one of another size or far off is not."""
    from companion.vision import dice_lone_blobs as lone

    seen = []

    def look(c, side):
        seen.append(c)
        return [_Read(3, (c[0] + 10, c[1])), _Read(2, (c[0], c[1]), side=side * 2), _Read(5, (c[0] + 60, c[1]))]

    reads = lone._window_reads(look, (0.0, 0.0, 200.0, 100.0), 100.0)
    xs = sorted({round(c[0]) for c in seen})
    assert xs[0] == round(50 - lone.PAD * 100) and xs[-1] == round(150 + lone.PAD * 100)
    assert {round(c[1]) for c in seen} == {30, 50, 70}  # one side across: its middle and PAD past
    assert reads and all(v == 3 for v, _, _ in reads)
