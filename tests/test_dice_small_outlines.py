"""A light die on a light table whose blob -- its shaded side faces and shadow, an L round a face
the table's colour -- falls under the reader's least die area is reported unreadable at the face
the L leaves open (dice.SMALL_OUTLINES_REPORTED); rendered ray 1068 (a white two on white), and
drawn L shapes for the rule's limits."""

from __future__ import annotations

import cv2
import numpy as np


def _l_outline(side: int, arm: int) -> np.ndarray:
    """A blob mask: two arms of an L, ``arm`` px thick, ``side`` px long, in a 2-side window."""
    m = np.zeros((2 * side, 2 * side), bool)
    m[side // 2:side // 2 + side, side // 2:side // 2 + arm] = True
    m[side // 2 + side - arm:side // 2 + side, side // 2:side // 2 + side] = True
    return m


def test_an_l_outline_is_reported_at_the_face_it_leaves_open():
    from companion.vision.dice import _outline_unread

    blob = _l_outline(40, 8)
    got = _outline_unread(blob, (100, 200), 0.5, 40.0)
    assert len(got) == 1 and got[0].value is None
    # the open part of the L's hull lies toward its inner corner's far side: inside the square
    x, y = got[0].center
    assert 100 + 20 + 8 < x * 0.5 < 100 + 60 and 200 + 20 < y * 0.5 < 200 + 60 - 8


def test_an_outline_far_from_the_typical_die_or_a_strip_is_not_reported():
    from companion.vision.dice import _outline_unread

    blob = _l_outline(40, 8)
    assert _outline_unread(blob, (0, 0), 1.0, 80.0) == []  # 0.5 of the typical die: a part, a shadow
    strip = np.zeros((60, 60), bool)
    strip[20:30, 5:55] = True  # a line, 5:1: no die's rim
    strip[30:34, 5:10] = True
    assert _outline_unread(strip, (0, 0), 1.0, 45.0) == []


def test_a_full_small_blob_is_no_outline():
    from companion.vision.dice import _outline_holds_a_die

    labels = np.zeros((60, 60), np.int32)
    labels[10:27, 10:27] = 1  # 17x17, full: under the least area of 18^2 and no outline (a pip, a crumb)
    assert not _outline_holds_a_die(labels, (1, 10, 10, 17, 17, 289), 18.0)
    labels[:] = 0
    l = _l_outline(28, 5)  # an L of 255 px^2, its hull about 420: an outline holding a die
    labels[:56, :56][l] = 1
    ys, xs = np.nonzero(labels)
    stat = (1, xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1, int(l.sum()))
    assert _outline_holds_a_die(labels, stat, 18.0)


def test_ray_1068s_white_two_outlined_by_its_side_face_and_shadow_is_reported(monkeypatch):
    """Fails with dice.SMALL_OUTLINES_REPORTED off: the die is missed."""
    from companion.vision import dice
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    off, on = counts_off_then_on(monkeypatch, dice, "SMALL_OUTLINES_REPORTED", render_raymarch(1068))
    assert (off["missed"], on["missed"]) == (1, 0)
    assert on["unread"] == off["unread"] + 1 and on["right"] == off["right"]
    assert on["wrong"] == on["extra"] == on["near_wrong"] == off["wrong"] == 0
