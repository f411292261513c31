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


def scripted_discs(by_disc: dict):
    """A ``read_disc(centre, side, disc)`` that answers each disc diameter with the dice scripted for
    it, and the list of its calls (for the nested discs' and the ringed read again's tests)."""
    calls = []

    def read_disc(centre, side, disc):
        calls.append((centre, side, disc))
        return list(by_disc.get(disc, []))
    return read_disc, calls
