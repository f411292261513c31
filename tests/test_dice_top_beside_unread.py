"""A tilted light die's side face reported unreadable, its top face (like the table) beside it:
the top face is looked for pips first round the report (companion/vision/dice_top_beside_unread.py).
The rule's choices with a stand-in look, and development light 14 rendered."""

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
    look = _look(_die(2, 200, 200, 60.0))  # the top face, 0.67 sides above the side face
    out = tops_beside_unread(others + [side], IMG, 1.0, look)
    assert sorted(d.value for d in out) == [2, 4, 5]
    assert len(look.asked) == 1  # only the unreadable report is looked round


def test_a_face_read_too_far_off_or_on_another_die_replaces_nothing():
    from companion.vision.dice_top_beside_unread import tops_beside_unread

    others = [_die(4, 300, 240)]
    side = _die(None, 200, 240, 45.0, SHADED)
    for face in (_die(2, 200, 150), _die(2, 260, 240)):  # 1.5 sides off; 0.67 sides from the four
        out = tops_beside_unread(others + [side], IMG, 1.0, _look(face))
        assert [d.value for d in out] == [4, None]


def test_two_values_read_round_a_report_are_a_doubt_not_a_die():
    from companion.vision.dice_top_beside_unread import tops_beside_unread

    side = _die(None, 200, 240, 45.0, "no pips")
    out = tops_beside_unread([side], IMG, 1.0, _look(_die(2, 200, 200), _die(3, 230, 220)))
    assert [d.value for d in out] == [None]


def test_a_report_doubting_a_reading_at_its_place_is_not_looked_round():
    """A part of a die read small (a three's two pips read as a two, light 3235) read again pips
    first gives the same part: such doubts are left alone."""
    from companion.vision.dice_top_beside_unread import tops_beside_unread

    for reason in ("read at 29 px, the dice beside it are 52 px", "marks where a 4 has no pip (glare or a missed pip)"):
        look = _look(_die(2, 200, 240))
        out = tops_beside_unread([_die(4, 400, 400), _die(None, 200, 240, 30.0, reason)], IMG, 1.0, look)
        assert [d.value for d in out] == [4, None] and not look.asked


def test_with_no_die_read_in_the_photo_only_a_whole_face_replaces_the_report():
    """With no die read to size the look by, a one, two or three read beside a side face may be a
    part of the top face (tilted light 3722: a three's two pips read as a two at half its side);
    four or more pips in a square are a whole face."""
    from companion.vision.dice_top_beside_unread import tops_beside_unread

    side = _die(None, 200, 240, 60.0, SHADED)
    assert [d.value for d in tops_beside_unread([side], IMG, 1.0, _look(_die(2, 200, 200, 46.0)))] == [None]
    assert [d.value for d in tops_beside_unread([side], IMG, 1.0, _look(_die(5, 200, 200, 60.0)))] == [5]


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


def test_tilted_white_and_ivory_dice_on_white_paper_read_by_their_top_faces(monkeypatch):
    """Development light 14 (white paper, tilted 25 degrees, motion blur): a white two and an ivory
    three, each read as its side face in shade and reported unreadable 0.65-0.72 sides off its
    top face (missed); the top faces, white as the paper, are read beside them."""
    import companion.vision.dice_top_beside_unread as T
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch_light import render_light

    before, after = counts_off_then_on(monkeypatch, T, "TOPS_BESIDE_UNREAD", render_light(14))
    assert before["missed"] == 2 and after["missed"] == 0
    assert after["right"] == before["right"] + 2
    assert after["wrong"] == 0 and after["extra"] == 0 and after["near_wrong"] == 0
