"""Scoring one rendered scene with one of the reader's rules switched off, then on."""

from __future__ import annotations

from collections import Counter


def counts_off_then_on(monkeypatch, module, flag: str, scene) -> tuple[Counter, Counter]:
    """The scene's score counts (right, wrong, unread, missed, extra) with ``module.flag`` False,
    then True; monkeypatch restores the flag after the test."""
    from companion.vision.dice import read_dice
    from companion.vision.dice_eval import score_scene

    counts = []
    for on in (False, True):
        monkeypatch.setattr(module, flag, on)
        counts.append(score_scene(scene, read_dice(scene.image)).counts)
    return counts[0], counts[1]
