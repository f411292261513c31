"""A tilted light die's side face reported unreadable, its top face (like the table) beside it:
the top face is looked for pips first round the report (companion/vision/dice_top_beside_unread.py).
The rule's choices with a stand-in look, and development light 3276 rendered."""

from __future__ import annotations

import numpy as np


def _die(value, x, y, side=60.0, reason=""):
    from companion.vision.dice import Die

    return Die(value, (float(x), float(y)), 0.0 if value is None else 0.9, side, reason)


def _look(*faces):
    """A stand-in for the pips-first look: it reads ``faces`` wherever it is asked, and records
    the places it was asked at (work pixels)."""
    asked = []

    def look(img, shape, origin, f, est, unfit):
        asked.append((origin, shape))
        return list(faces)
    look.asked = asked
    return look


IMG = np.zeros((10, 10, 3), np.uint8)  # (the stand-in look never sees the image)
SHADED = "a light face 80 darker than the light round it: a side face in shade?"


def test_a_side_face_in_shade_gives_way_to_the_top_face_read_beside_it():
    from companion.vision.dice_top_beside_unread import tops_beside_unread

    others = [_die(4, 400, 400), _die(5, 100, 400)]
    side = _die(None, 200, 240, 45.0, SHADED)
    look = _look(_die(6, 200, 200, 60.0))  # the top face, 0.67 sides above the side face
    out = tops_beside_unread(others + [side], IMG, 1.0, look)
    assert sorted(d.value for d in out) == [4, 5, 6]
    assert len(look.asked) == 1  # only the unreadable report is looked round


def test_a_face_read_too_far_off_or_on_another_die_replaces_nothing():
    from companion.vision.dice_top_beside_unread import tops_beside_unread

    others = [_die(4, 300, 240)]
    side = _die(None, 200, 240, 45.0, SHADED)
    for face in (_die(5, 200, 150), _die(5, 260, 240)):  # 1.5 sides off; 0.67 sides from the four
        out = tops_beside_unread(others + [side], IMG, 1.0, _look(face))
        assert [d.value for d in out] == [4, None]


def test_two_values_read_round_a_report_are_a_doubt_not_a_die():
    from companion.vision.dice_top_beside_unread import tops_beside_unread

    side = _die(None, 200, 240, 45.0, "no pips")
    out = tops_beside_unread([side], IMG, 1.0, _look(_die(4, 200, 200), _die(5, 230, 220)))
    assert [d.value for d in out] == [None]


def test_a_report_doubting_a_reading_at_its_place_is_not_looked_round():
    """A part of a die read small (a three's two pips read as a two, light 3235) read again pips
    first gives the same part: such doubts are left alone."""
    from companion.vision.dice_top_beside_unread import tops_beside_unread

    for reason in ("read at 29 px, the dice beside it are 52 px", "marks where a 4 has no pip (glare or a missed pip)"):
        look = _look(_die(2, 200, 240))
        out = tops_beside_unread([_die(4, 400, 400), _die(None, 200, 240, 30.0, reason)], IMG, 1.0, look)
        assert [d.value for d in out] == [4, None] and not look.asked


def test_only_a_whole_face_replaces_the_report():
    """A one, two or three read beside a side face may be a part of the top face (tilted light
    3722: a three's two pips read as a two at half its side, no die read in the photo; the lead's
    held-out reading: a five and a three read as twos beside dice read right); four or more pips
    in a square are a whole face."""
    from companion.vision.dice_top_beside_unread import tops_beside_unread

    side = _die(None, 200, 240, 60.0, SHADED)
    for others in ([], [_die(4, 400, 400)]):
        for part in (1, 2, 3):
            out = tops_beside_unread(others + [side], IMG, 1.0, _look(_die(part, 200, 200, 46.0)))
            assert [d.value for d in out] == [d.value for d in others] + [None]
        out = tops_beside_unread(others + [side], IMG, 1.0, _look(_die(5, 200, 200, 60.0)))
        assert [d.value for d in out] == [d.value for d in others] + [5]


def test_the_rule_off_changes_nothing():
    import companion.vision.dice_top_beside_unread as T

    side = _die(None, 200, 240, 45.0, SHADED)
    look = _look(_die(2, 200, 200))
    old = T.TOPS_BESIDE_UNREAD
    try:
        T.TOPS_BESIDE_UNREAD = False
        assert T.tops_beside_unread([side], IMG, 1.0, look) == [side] and not look.asked
    finally:
        T.TOPS_BESIDE_UNREAD = old


def test_a_tilted_light_four_on_white_read_by_its_top_face(monkeypatch):
    """Development tilted light 3276: a light four read as its side face and reported 0.5-1 side
    off its top face (missed); the top face, light as the table, is read beside it."""
    import companion.vision.dice_top_beside_unread as T
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch_light import render_light

    before, after = counts_off_then_on(monkeypatch, T, "TOPS_BESIDE_UNREAD", render_light(3276))
    assert before["missed"] == 1 and after["missed"] == 0
    assert after["right"] == before["right"] + 1
    assert after["wrong"] == 0 and after["extra"] == 0 and after["near_wrong"] == 0


def test_reports_round_one_die_that_find_its_top_face_give_it_once(monkeypatch):
    """Light 3946: a clear four found only as blobs at its corners, each reported "no pips"; round
    each the look reads the four's top face. It is one die: given once, the other reports dropped
    (each replaced, it was reported four times: three extras)."""
    import companion.vision.dice_top_beside_unread as tops

    corners = [_die(None, 200 + dx, 200 + dy, 60.0, "no pips") for dx in (-30, 30) for dy in (-30, 30)]
    look = _look(_die(4, 200, 200, 120.0))
    assert [d.value for d in tops.tops_beside_unread(corners, IMG, 1.0, look)] == [4]
    monkeypatch.setattr(tops, "ONE_TOP_PER_DIE", False)
    assert [d.value for d in tops.tops_beside_unread(corners, IMG, 1.0, look)] == [4, 4, 4, 4]
