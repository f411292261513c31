"""dice.CROPS_BOUNDED (session 40, h6; ON): a blob read at a guess far
under its size (light 3563: a pip's size, 19-39 px, for a die and its shadow 520 px across) makes a
crop twenty dice across whose faces are the table's; such a crop is not read. A crop of the blob at a
die's guess is read as before."""
import cv2
import numpy as np

import companion.vision.dice as D
from companion.vision.dice_pips import FACE_PX


def _scene():
    """A white table, a pastel die 300 px across with its shadow: one blob 520 px across."""
    img = np.full((1200, 1600, 3), 235, np.uint8)
    cv2.rectangle(img, (600, 400), (1120, 920), (200, 200, 205), -1)  # the shadow
    cv2.rectangle(img, (640, 440), (940, 740), (230, 215, 245), -1)  # the die
    for px, py in ((700, 500), (880, 680), (790, 590)):
        cv2.circle(img, (px, py), 22, (60, 60, 60), -1)
    blob = np.ones((520, 520), bool)
    return img, blob


def _crops_read(monkeypatch, on: bool, side: float):
    seen = []
    monkeypatch.setattr(D, "read_crop", lambda crop, mask: seen.append(crop.shape[:2]) or [])
    monkeypatch.setattr(D, "CROPS_BOUNDED", on)
    img, blob = _scene()
    got = D._read_blob_at(img, blob, (600, 400), 1.0, side)
    return seen, got


def test_crop_many_guesses_across_not_read(monkeypatch):
    # the pip-sized guess: scale capped at MAX_CROP_SCALE, a crop over 18 faces across
    seen, got = _crops_read(monkeypatch, True, 20.0)
    assert seen == [] and got == []
    seen_off, _ = _crops_read(monkeypatch, False, 20.0)
    assert len(seen_off) == 1 and max(seen_off[0]) > D.CROP_MOST_DICE * FACE_PX


def test_crop_at_a_dies_guess_still_read(monkeypatch):
    seen, _ = _crops_read(monkeypatch, True, 300.0)
    assert len(seen) == 1 and max(seen[0]) <= D.CROP_MOST_DICE * FACE_PX
