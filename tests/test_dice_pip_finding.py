"""dice_pip_finding's bounded work (session 40, h6): the same masks and pips, less of the crop touched.

A crop many dice across (light 3563, 3267, 3244: a blob round a light die read at a pip's size guess)
spent most of a minute in face_hull's erosion over the whole crop and in split_touching_pips' dilation
of blobs far larger than any chain of pips. Each test checks the result equals the old way's and that
the costly step now runs on less (so it fails with the switch off). Both switches are OFF by default
(no CPU saved on the slow scenes: docs/dice-camera.md, h6); the tests switch them on.
"""
import math

import cv2
import numpy as np
import pytest

import companion.vision.dice_pip_finding as P


class _Recorder:
    """cv2 as the module sees it, recording the shapes ``erode``/``dilate`` were given."""

    def __init__(self):
        self.shapes = {"erode": [], "dilate": []}

    def __getattr__(self, name):
        fn = getattr(cv2, name)
        if name in self.shapes:
            def rec(src, *a, **k):
                self.shapes[name].append(src.shape[:2])
                return fn(src, *a, **k)
            return rec
        return fn


def _face_in_a_wide_crop():
    """A die's face (96 px, six pips) in a crop twenty dice across, near one corner and, drawn a
    second time, touching the crop's edge (where the erosion meets the crop's border)."""
    crops = []
    for at in ((300, 260), (0, 700)):
        m = np.zeros((1900, 1920), np.uint8)
        x, y = at
        cv2.rectangle(m, (x, y), (x + 96, y + 96), 255, -1)
        for px in (x + 28, x + 68):
            for py in (y + 22, y + 48, y + 74):
                cv2.circle(m, (px, py), 8, 0, -1)
        crops.append(m)
    return crops


@pytest.mark.parametrize("i", [0, 1])
def test_face_hull_same_mask_eroded_in_its_box(monkeypatch, i):
    face = _face_in_a_wide_crop()[i]
    monkeypatch.setattr(P, "HULL_ERODED_IN_ITS_BOX", False)
    old = P.face_hull(face)
    monkeypatch.setattr(P, "HULL_ERODED_IN_ITS_BOX", True)
    rec = _Recorder()
    monkeypatch.setattr(P, "cv2", rec)
    new = P.face_hull(face)
    assert np.array_equal(new, old)
    assert old.any()
    # the erosion ran on the face's box, not the crop (a face's 97 px and a pad)
    (h, w), = rec.shapes["erode"]
    assert h * w < 0.02 * face.size


def test_face_hull_same_on_drawn_shapes(monkeypatch):
    rng = np.random.default_rng(40)
    for _ in range(200):
        H, W = (int(v) for v in rng.integers(20, 260, 2))
        m = np.zeros((H, W), np.uint8)
        for _ in range(int(rng.integers(1, 5))):
            c = (int(rng.integers(-20, W + 20)), int(rng.integers(-20, H + 20)))
            ax = (int(rng.integers(2, 140)), int(rng.integers(2, 140)))
            cv2.ellipse(m, c, ax, float(rng.uniform(0, 180)), 0, 360, 255, -1)
        monkeypatch.setattr(P, "HULL_ERODED_IN_ITS_BOX", True)
        a = P.face_hull(m)
        monkeypatch.setattr(P, "HULL_ERODED_IN_ITS_BOX", False)
        b = P.face_hull(m)
        assert np.array_equal(a, b)


def test_split_touching_pips_big_blob_refused_without_dilating(monkeypatch):
    # a patch of the table's shade read as a face's mark: a band 600 x 40 px (no chain of pips)
    blob = np.zeros((60, 640), np.uint8)
    cv2.rectangle(blob, (10, 10), (610, 50), 1, -1)
    monkeypatch.setattr(P, "PIP_CHAINS_BOUNDED", False)
    old = P.split_touching_pips(blob)
    monkeypatch.setattr(P, "PIP_CHAINS_BOUNDED", True)
    rec = _Recorder()
    monkeypatch.setattr(P, "cv2", rec)
    new = P.split_touching_pips(blob)
    assert new == old == []
    assert rec.shapes["dilate"] == []


def test_split_touching_pips_chain_still_split(monkeypatch):
    # three touching pips of radius 9 in a row: split as before, switch on or off
    blob = np.zeros((30, 70), np.uint8)
    for cx in (13, 34, 55):
        cv2.circle(blob, (cx, 15), 9, 1, -1)
    monkeypatch.setattr(P, "PIP_CHAINS_BOUNDED", True)
    got = P.split_touching_pips(blob)
    monkeypatch.setattr(P, "PIP_CHAINS_BOUNDED", False)
    old = P.split_touching_pips(blob)
    assert got == old and len(got) == 3
    assert all(math.isclose(g[1], 15, abs_tol=1.5) for g in got)
