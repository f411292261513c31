"""``tray_reader.differs``: the cheap "has the tray changed since?" gives changes()'s own answer."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.tray_reader import TrayView, changes, differs, differs_in
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


def test_the_dice_boxes_answer_only_yes_and_only_where_differs_does():
    """``differs_in`` looks at a few boxes of the tray: its yes is ``differs``' yes (on rendered frames:
    every pair compared with the boxes of the dice at the rest frame before), and a change outside the
    boxes is left to ``differs`` (no yes)."""
    frames = tray_stream(2401, throws=2, n_dice=4)
    smalls = [TrayView.of(f.image).small for f in frames]
    empty = smalls[0].astype(np.float32)
    settled = [i for i, f in enumerate(frames) if f.settled]
    yes = 0
    for i in range(1, len(smalls), 2):
        for j in [s for s in settled if s < i][-1:] + [i - 1]:
            ref = smalls[j].astype(np.float32)
            boxes = [(b.x, b.y, b.w, b.h) for b in changes(smalls[j], empty, 12.0).blobs]
            if differs_in(smalls[i], ref, 12.0, boxes):
                yes += 1
                assert differs(smalls[i], ref, 12.0), (i, j)
    assert yes >= 5  # (the boxes did answer, on the throws)
    # a throw: the dice left their boxes -- the first box answers
    a, b = smalls[settled[0]], smalls[settled[1]]
    boxes = [(bl.x, bl.y, bl.w, bl.h) for bl in changes(a, empty, 12.0).blobs]
    assert differs_in(b, a.astype(np.float32), 12.0, boxes[:1])
    # a die put down beside the boxes: differs sees it, the boxes do not (and say no, not "no change")
    ref = _tray(0).astype(np.float32)
    die = _tray(1)
    cv2.rectangle(die, (100, 60), (116, 76), (235, 235, 235), -1)
    assert differs(die, ref, MIN_SIDE)
    assert not differs_in(die, ref, MIN_SIDE, [(10, 10, 20, 20), (150, 110, 30, 30)])  # (the second one clipped)
    assert differs_in(die, ref, MIN_SIDE, [(10, 10, 20, 20), (98, 58, 20, 20)])
    assert not differs_in(die, ref, MIN_SIDE, [])


def test_a_throw_after_a_read_is_told_from_the_dice_boxes(monkeypatch):
    """The source hands the read the boxes of the dice it last read: a second throw is known to
    differ from them, without the whole tray's comparison, and is reported."""
    import companion.vision.tray_rest_read as trr
    from companion.inputs.camera_dice import CameraDice
    from companion.inputs.camera_source import SimulatedCamera

    whole = []
    monkeypatch.setattr(trr, "differs", lambda *a: whole.append(1) or differs(*a))
    frames = tray_stream(2301, throws=2, n_dice=3)
    source = CameraDice(SimulatedCamera([]), expected_dice=3, frame_budget_ms=None)
    values, boxes_seen = [], []
    for f in frames:
        values += [e.value for e in source.process_frame(f.image)]
        boxes_seen.append(len(source._snapshot_boxes))
    settled = [f for f in frames if f.settled]
    assert sorted(values) == sorted(settled[0].values + settled[1].values)
    assert max(boxes_seen) == 3
    assert not whole  # (every read after the first was a throw: its boxes said so)


def test_the_blobs_cores_are_the_whole_trays_shadow_taken_out():
    """changes() works a die's shadow out in the blobs' boxes only: each blob's core (the blob without
    its shadow) is what the whole tray's shadow mask gives, and growing a blob still sees the whole."""
    from companion.vision.tray_reader import _changed, _core, _shadow

    frames = tray_stream(2401, throws=1, n_dice=4)
    empty = TrayView.of(frames[0].image).small.astype(np.float32)
    cores = 0
    for f in frames[3::4]:
        small = TrayView.of(f.image).small
        expected, _, changed, _ = _changed(small, empty)
        solid = cv2.bitwise_and(changed, cv2.bitwise_not(_shadow(small, expected)))
        found = changes(small, empty, 12.0)
        for b in found.blobs:
            whole = _core(solid[b.y:b.y + b.h, b.x:b.x + b.w], b.mask)
            assert (b.core is None) == (whole is None)
            if whole is not None:
                cores += 1
                assert b.core[:2] == whole[:2] and b.core[3] == whole[3]
                assert np.array_equal(b.core[2], whole[2])
        assert found._parts[2].whole() is found._parts[2].whole()  # (worked out once, when asked)
    assert cores >= 8
