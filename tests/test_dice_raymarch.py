"""The ray-marched dice generator (tests/dice_raymarch.py, tests/dice_raymarch_table.py): seeded, well-formed truth, varied scenes."""

from __future__ import annotations

import numpy as np
import pytest

from tests.dice_raymarch import STYLES, render_raymarch


def test_same_seed_same_picture_and_truth():
    a, b = render_raymarch(3), render_raymarch(3)
    assert np.array_equal(a.image, b.image)
    assert [(d.value, d.center, d.style) for d in a.dice] == [(d.value, d.center, d.style) for d in b.dice]
    assert not np.array_equal(a.image, render_raymarch(4).image)


@pytest.mark.parametrize("seed", [2, 5, 9])
def test_webcam_truth_is_well_formed(seed):
    s = render_raymarch(seed, "webcam")
    h, w = s.image.shape[:2]
    assert (w, h) == (640, 480) and s.image.dtype == np.uint8
    assert 1 <= len(s.dice) <= 3
    for d in s.dice:
        assert 1 <= d.value <= 6 and d.style in STYLES
        assert 0 <= d.center[0] < w and 0 <= d.center[1] < h and 15 < d.side_px < 120
    for i, a in enumerate(s.dice):  # dice never overlap
        for b in s.dice[i + 1:]:
            assert np.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]) > 0.9 * a.side_px


def test_a_die_is_drawn_where_the_truth_says_with_pips_on_top():
    """The top face's centre is on the die (unlike the table around it) and its face has marks."""
    s = render_raymarch(1, "phone")
    img = s.image.astype(np.float32)
    for d in s.dice:
        x, y, r = int(d.center[0]), int(d.center[1]), int(d.side_px * 0.42)
        face = img[y - r:y + r, x - r:x + r]
        table = np.concatenate([img[y - 3 * r:y - 2 * r, x - 3 * r:x + 3 * r].reshape(-1, 3),
                                img[y + 2 * r:y + 3 * r, x - 3 * r:x + 3 * r].reshape(-1, 3)])
        assert face.std(axis=(0, 1)).max() > 12  # pips on the face
        assert np.abs(np.median(face.reshape(-1, 3), 0) - np.median(table, 0)).max() > 15


def test_scenes_vary_in_kind_size_tilt_and_material():
    scenes = [render_raymarch(s) for s in range(12)]
    assert {s.params["kind"] for s in scenes} == {"phone", "webcam"}
    assert any(s.params["tilt"] > 10 for s in scenes) and any(s.params["tilt"] == 0 for s in scenes)
    assert len({s.image.shape for s in scenes}) >= 3
    assert len({d.style for s in scenes for d in s.dice}) >= 6
    assert len({d.value for s in scenes for d in s.dice}) == 6


def test_tilted_webcam_frames_are_read_and_never_misread():
    """Webcam frames from the camera tilted 12-30 degrees (side faces show, their pips squeezed):
    the scenes are picked by their tilt alone, from seeds no reader change was tuned on. Measured
    87.9 % right of 33 dice, none wrong; the floor sits below that, and a wrong value fails."""
    from companion.vision.dice import read_dice
    from companion.vision.dice_eval import Score, score_scene

    total = Score()
    for seed in range(3000, 3060):
        scene = render_raymarch(seed, "webcam")
        if scene.params["tilt"] < 12:
            continue
        total.add(score_scene(scene, read_dice(scene.image)))
    assert total.dice >= 25
    assert total.counts["wrong"] == 0
    assert total.accuracy >= 0.8, total.line()
