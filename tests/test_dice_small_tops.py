"""Light dice under the least die's area read at their top face, in the open part of their blob's
hull (``dice_small_tops.SMALL_TOPS_IN_OPEN_PART``; docs/dice-camera.md, thirty-ninth round, h3).

A small white or pale die on a light table shows its top face in the table's tone: its blob is its
shaded side faces and shadow, a crescent round the top face, and the small-blob look's disc at the
blob's box's middle (0.4-0.7 of a side off the top face) reads nothing. Each rendered test reads the
scene with the switch off and on, so it fails with the switch off.
"""

from __future__ import annotations

import math

import numpy as np

from tests.dice_flags import counts_off_then_on


def _near(found, die):
    return min(found, key=lambda d: math.dist(d.center, die.center))


def test_a_small_white_two_read_at_its_top_face(monkeypatch):
    """Development light 4027: a white two, 47 px in a 3000x2250 photo (12.5 work px; its blob of
    side faces and shadow 18x25, area 262 against the least die's 324), beside a six read. Off:
    missed; on: read a two at its top face, nothing else moved."""
    import companion.vision.dice_small_tops as tops
    from companion.vision.dice import read_dice
    from tests.dice_raymarch_light import render_light

    import companion.vision.dice_lone_blobs as lone

    # (the blob-with-nothing-reported read, dice_lone_blobs, finds this two too: off, to test this rule alone)
    monkeypatch.setattr(lone, "LONE_BLOBS_READ", False)
    scene = render_light(4027)
    off, on = counts_off_then_on(monkeypatch, tops, "SMALL_TOPS_IN_OPEN_PART", scene)
    assert (off["right"], off["missed"]) == (1, 1)
    assert (on["right"], on["missed"]) == (2, 0)
    for k in ("wrong", "unread", "extra", "near_wrong"):
        assert on[k] == off[k] == 0
    two = next(t for t in scene.dice if t.value == 2)
    near = _near(read_dice(scene.image), two)
    assert near.value == 2 and math.dist(near.center, two.center) < 0.25 * two.side_px


def test_a_small_clear_three_read_at_its_top_face(monkeypatch):
    """Development light 3202: a clear three, 58 px in a 3000x2250 photo, its blob's box's middle
    0.67 of a side off its top face. Off: missed; on: right, nothing else moved."""
    import companion.vision.dice_small_tops as tops
    from tests.dice_raymarch_light import render_light

    scene = render_light(3202)
    off, on = counts_off_then_on(monkeypatch, tops, "SMALL_TOPS_IN_OPEN_PART", scene)
    assert (off["right"], off["missed"]) == (on["right"] - 1, on["missed"] + 1)
    assert on["missed"] == 0
    for k in ("wrong", "unread", "extra", "near_wrong"):
        assert on[k] == off[k]
    assert on["wrong"] == on["extra"] == 0


def test_open_part_of_a_crescent_is_its_top_face():
    """Drawn: a die's two shaded side faces and shadow, an L round a square the table's tone. The
    open part's middle lies inside the square; a filled square has no open part to speak of."""
    from companion.vision import dice as D
    from companion.vision.dice_small_tops import OPEN_SHARE, open_part_centre

    blob = np.zeros((24, 24), bool)
    blob[2:22, 16:22] = True   # a side face right of the top face
    blob[16:22, 2:22] = True   # a side face below it
    x, y, share = open_part_centre(blob, D._hull_points(blob))
    assert 2 <= x < 16 and 2 <= y < 16 and share >= OPEN_SHARE
    square = np.zeros((24, 24), bool)
    square[2:22, 2:22] = True
    got = open_part_centre(square, D._hull_points(square))
    assert got is None or got[2] < OPEN_SHARE


def test_unread_at_the_open_part_when_only_marks_are_seen(monkeypatch):
    """With ``SMALL_TOPS_UNREAD_REPORTED`` on, a top face that shows a face's marks but no value (the
    look there stubbed to see two pips off layout) is reported unreadable at the open part's middle;
    off, or with nothing seen there, nothing is reported."""
    from companion.vision import dice as D
    from companion.vision import dice_small_tops as tops

    blob = np.zeros((24, 24), bool)
    blob[2:22, 16:22] = True
    blob[16:22, 2:22] = True
    img = np.full((200, 200, 3), 235, np.uint8)
    marks = [D.Die(None, (60.0, 50.0), 0.0, 30.0, "2 pips off layout")]
    monkeypatch.setattr(D, "_read_square", lambda img, c, side: list(marks))
    monkeypatch.setattr(tops, "SMALL_TOPS_IN_OPEN_PART", True)
    monkeypatch.setattr(tops, "SMALL_TOPS_UNREAD_REPORTED", False)
    assert D._small_top_read(img, blob, (40, 40), 1.0, 20.0) == []
    monkeypatch.setattr(tops, "SMALL_TOPS_UNREAD_REPORTED", True)
    got = D._small_top_read(img, blob, (40, 40), 1.0, 20.0)
    assert len(got) == 1 and got[0].value is None and got[0].reason == tops.UNREAD_REASON
    x, y, _ = tops.open_part_centre(blob, D._hull_points(blob))
    assert math.dist(got[0].center, (40 + x, 40 + y)) < 1e-6 and got[0].side_px == 20.0
    marks.clear()  # (nothing seen at the top face: no report)
    assert D._small_top_read(img, blob, (40, 40), 1.0, 20.0) == []
