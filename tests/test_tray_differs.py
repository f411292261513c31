"""``tray_reader.differs``: the cheap "has the tray changed since?" gives changes()'s own answer."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.tray_reader import TrayView, changes, differs
from companion.vision.tray_sim import tray_stream

MIN_SIDE = 8.0  # half a die of 16 small pixels


def _tray(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    tray = np.full((120, 160, 3), (60, 110, 40), np.uint8)  # green felt
    return cv2.add(tray, rng.integers(0, 4, tray.shape, dtype=np.uint8))  # sensor noise


def _changes_says(small: np.ndarray, ref: np.ndarray) -> bool:
    found = changes(small, ref, MIN_SIDE)
    return found.stale or bool(found.blobs)


def test_drawn_cases_agree_with_changes():
    ref = _tray(0).astype(np.float32)
    cases = {}
    cases["noise and flicker"] = (False, cv2.convertScaleAbs(_tray(1), alpha=1.03))
    die = _tray(2)
    cv2.rectangle(die, (40, 40), (56, 56), (235, 235, 235), -1)
    cases["a die"] = (True, die)
    pips = _tray(3)  # a dark die's pips only: specks a blob only once joined over half a die
    for x, y in ((70, 70), (77, 70), (84, 70), (70, 77), (84, 77)):
        cv2.circle(pips, (x, y), 2, (250, 250, 250), -1)
    cases["pips joined"] = (True, pips)
    speck = _tray(4)
    cv2.circle(speck, (100, 30), 2, (250, 250, 250), -1)
    cases["a speck"] = (False, speck)
    hand = _tray(5)
    cv2.rectangle(hand, (0, 0), (110, 90), (120, 150, 200), -1)
    cases["a hand over a third"] = (True, hand)
    for name, (expected, small) in cases.items():
        assert _changes_says(small, ref) == expected, name  # (the case is what it says)
        assert differs(small, ref, MIN_SIDE) == expected, name


def test_rendered_frames_agree_with_changes():
    frames = tray_stream(2401, throws=2, n_dice=4)
    smalls = [TrayView.of(f.image).small for f in frames]
    answers = set()
    for i in range(2, len(smalls), 3):
        for j in (i - 1, i - 2, 0):
            ref = smalls[j].astype(np.float32)
            old = _changes_says(smalls[i], ref)
            assert differs(smalls[i], ref, 12.0) == old, (i, j)
            answers.add(old)
    assert answers == {True, False}  # both answers were met
