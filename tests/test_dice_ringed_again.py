"""An unreadable die's pips looked for by their rings again, in discs cut for the read dice's size
(``dice_ringed_again.UNREAD_RINGED_AT_DICE_SIZE``; docs/dice-camera.md, forty-first round, h6).
The tests set the switch; each test of a value taken fails with it off."""

from __future__ import annotations

from functools import partial

import cv2
import numpy as np

from companion.vision import dice_ringed_again as R
from companion.vision.dice import Die, _read_disc
from companion.vision.dice_ringed_pips import read_ringed_pips
from tests.dice_flags import scripted_discs

READ = Die(4, (100.0, 100.0), 0.9, 100.0)
UNREAD = Die(None, (500.0, 300.0), 0.0, 170.0, reason="no pips")


_scripted = scripted_discs  # (tests/dice_flags.py)


def test_the_value_every_disc_reads_is_taken(monkeypatch):
    monkeypatch.setattr(R, "UNREAD_RINGED_AT_DICE_SIZE", True)
    read_disc, calls = _scripted({d: [Die(6, (505.0, 298.0), 0.5, 95.0)] for d in R.DISCS})
    out = R.read_ringed_again([READ, UNREAD], read_disc)
    assert out[0] == READ
    assert out[1].value == 6 and out[1].reason == "" and out[1].center == (505.0, 298.0)
    # (the discs are cut for a die the read dice's size, not the report's own 170 px)
    assert [c[1] for c in calls] == [100.0] * len(R.DISCS)
    monkeypatch.setattr(R, "UNREAD_RINGED_AT_DICE_SIZE", False)
    assert R.read_ringed_again([READ, UNREAD], read_disc)[1] == UNREAD


def test_a_two_in_every_disc_is_not_taken(monkeypatch):
    """A two's diagonal is made by a side face's pair or a part of a larger face too."""
    monkeypatch.setattr(R, "UNREAD_RINGED_AT_DICE_SIZE", True)
    by = {d: [Die(2, (505.0, 298.0), 0.5, 95.0)] for d in R.DISCS}
    assert R.read_ringed_again([READ, UNREAD], _scripted(by)[0])[1] == UNREAD


def test_a_disc_that_disagrees_leaves_the_die_unread(monkeypatch):
    monkeypatch.setattr(R, "UNREAD_RINGED_AT_DICE_SIZE", True)
    for last in ([], [Die(5, (505.0, 298.0), 0.5, 95.0)], [Die(6, (580.0, 298.0), 0.5, 95.0)],
                 [Die(6, (505.0, 298.0), 0.5, 95.0), Die(3, (420.0, 298.0), 0.5, 95.0)]):
        by = {d: [Die(6, (505.0, 298.0), 0.5, 95.0)] for d in R.DISCS}
        by[R.DISCS[-1]] = last
        assert R.read_ringed_again([READ, UNREAD], _scripted(by)[0])[1] == UNREAD


def test_nothing_read_no_size_to_read_at(monkeypatch):
    monkeypatch.setattr(R, "UNREAD_RINGED_AT_DICE_SIZE", True)
    read_disc, calls = _scripted({d: [Die(6, (505.0, 298.0), 0.5, 95.0)] for d in R.DISCS})
    assert R.read_ringed_again([UNREAD], read_disc) == [UNREAD] and not calls


def _drawn_marbled_five():
    """A 2000x1500 photo: a marbled green five 100 px across (white pips, dark veins) on grey felt."""
    rng = np.random.default_rng(7)
    img = np.full((1500, 2000, 3), (120, 120, 118), np.uint8)
    img = np.clip(img.astype(np.int16) + rng.normal(0, 3, img.shape).astype(np.int16), 0, 255).astype(np.uint8)
    c, s = (1000, 700), 100
    rect = cv2.boxPoints((c, (s, s), 17.0)).astype(np.int32)
    cv2.fillConvexPoly(img, rect, (70, 150, 60))
    face = np.zeros(img.shape[:2], np.uint8)
    cv2.fillConvexPoly(face, rect, 1)
    yy, xx = np.mgrid[:1500, :2000]
    vein = (np.abs(np.sin((xx - c[0]) / 13.0 + (yy - c[1]) / 29.0)) < 0.18) & (face > 0)
    img[vein] = (40, 90, 35)
    th = np.radians(17.0)
    for u, v in [(0, 0), (-1, -1), (1, -1), (-1, 1), (1, 1)]:
        dx, dy = 0.27 * s * u, 0.27 * s * v
        x = c[0] + dx * np.cos(th) - dy * np.sin(th)
        y = c[1] + dx * np.sin(th) + dy * np.cos(th)
        cv2.circle(img, (int(round(x)), int(round(y))), int(0.09 * s), (235, 235, 235), -1, cv2.LINE_AA)
    return cv2.GaussianBlur(img, (3, 3), 0.8), c


def test_a_drawn_marbled_five_reported_unread_at_a_blob_too_large(monkeypatch):
    """The ringed look asked at the read dice's size reads the five its blob's own size (1.7 times
    the die: its shadow and side faces) missed; off, the report stays unread."""
    img, c = _drawn_marbled_five()
    read = Die(3, (300.0, 300.0), 0.9, 100.0)
    unread = Die(None, (float(c[0]) + 8, float(c[1]) - 6), 0.0, 170.0, reason="no pips")
    read_disc = partial(_read_disc, img, reader=read_ringed_pips)
    monkeypatch.setattr(R, "UNREAD_RINGED_AT_DICE_SIZE", False)
    assert R.read_ringed_again([read, unread], read_disc)[1].value is None
    monkeypatch.setattr(R, "UNREAD_RINGED_AT_DICE_SIZE", True)
    got = R.read_ringed_again([read, unread], read_disc)[1]
    assert got.value == 5
    assert abs(got.center[0] - c[0]) < 10 and abs(got.center[1] - c[1]) < 10
    # (the blob's own size -- the crop the reader made -- reads nothing there)
    assert not [d for d in _read_disc(img, unread.center, 170.0, 1.2, reader=read_ringed_pips) if d.value]


def test_rendered_marbled_six_read_at_the_dice_size(monkeypatch):
    """Development ray 3084: a defocused marbled green six, 53 px, its blob 87 px with its shadow and
    side faces ("no pips"); read at the read dice's size, a six in every disc. Nothing else moves."""
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    off, on = counts_off_then_on(monkeypatch, R, "UNREAD_RINGED_AT_DICE_SIZE", render_raymarch(3084))
    assert on["right"] == off["right"] + 1 and on["unread"] == off["unread"] - 1
    for k in ("wrong", "missed", "extra", "near_wrong"):
        assert on[k] == off[k]
