"""An unreadable die read again in three nested discs round its report, its value taken when every
disc reads it (``dice_nested_discs.UNREAD_READ_IN_NESTED_DISCS``; docs/dice-camera.md, thirty-ninth
round, h2). The rule is committed OFF (a wrong value on development light 3408); these tests switch
it on, and each test of a value taken fails with it off.
"""

from __future__ import annotations

import math

import pytest

from companion.vision import dice_nested_discs as N
from companion.vision.dice import Die, _read_disc, read_dice


def _scripted(by_disc: dict):
    """A ``read_disc`` that answers each disc diameter with the dice scripted for it."""
    calls = []

    def read_disc(centre, side, disc):
        calls.append((centre, side, disc))
        return list(by_disc.get(disc, []))
    return read_disc, calls


READ = Die(4, (100.0, 100.0), 0.9, 100.0)
UNREAD = Die(None, (500.0, 300.0), 0.0, 40.0, reason="a lone pip with other marks beside it")


def test_the_value_every_disc_reads_is_taken(monkeypatch):
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", True)
    read_disc, calls = _scripted({d: [Die(3, (505.0, 298.0), 0.8, 95.0 * d)] for d in N.DISCS})
    out = N.read_in_nested_discs([READ, UNREAD], read_disc)
    assert out[0] == READ
    assert out[1].value == 3 and out[1].reason == "" and out[1].center == (505.0, 298.0)
    # (the discs are cut for a die the read dice's size, not the report's own 40 px)
    assert [c[1] for c in calls] == [100.0] * len(N.DISCS)
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", False)
    assert N.read_in_nested_discs([READ, UNREAD], read_disc)[1].value is None


@pytest.mark.parametrize("change", ["another value", "nothing", "two values", "unsure", "far"])
def test_a_disc_that_disagrees_leaves_the_die_unread(monkeypatch, change):
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", True)
    by = {d: [Die(3, (505.0, 298.0), 0.8, 95.0 * d)] for d in N.DISCS}
    big = N.DISCS[-1]
    by[big] = {"another value": [Die(5, (505.0, 298.0), 0.8, 110.0)], "nothing": [],
               "two values": [Die(3, (505.0, 298.0), 0.8, 110.0), Die(1, (560.0, 300.0), 0.8, 40.0)],
               "unsure": [Die(3, (505.0, 298.0), 0.4, 110.0)],
               "far": [Die(3, (570.0, 298.0), 0.8, 110.0)]}[change]
    out = N.read_in_nested_discs([READ, UNREAD], _scripted(by)[0])
    assert out[1] == UNREAD


def test_a_value_on_a_read_die_is_not_taken(monkeypatch):
    """A disc round a report beside a read die reads that die again: not a die of its own."""
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", True)
    near = Die(None, (170.0, 100.0), 0.0, 60.0, reason="overlaps another die read: parts of one face?")
    by = {d: [Die(4, (160.0, 100.0), 0.9, 100.0)] for d in N.DISCS}
    assert N.read_in_nested_discs([READ, near], _scripted(by)[0])[1] == near


def test_rendered_tilted_one_read_past_its_side_faces_pips(monkeypatch):
    """Development ray 3264: a black die with red pips, tilted, its side faces' pips in view; main
    reports it unreadable ("a lone pip with other marks beside it"). Every disc reads its one."""
    from tests.dice_raymarch import render_raymarch

    scene = render_raymarch(3264)
    truth = min(scene.dice, key=lambda t: (t.value, t.center[1]))  # (its one, top right)
    assert truth.value == 1
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", False)
    off = read_dice(scene.image)
    at = [d for d in off if math.dist(d.center, truth.center) < 0.5 * truth.side_px]
    assert len(at) == 1 and at[0].value is None  # (off: unreadable at the die)
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", True)
    # (the rule is read_dice's last step: applied to the reading with it off, as read_dice does)
    on = N.read_in_nested_discs(off, lambda c, s, disc: _read_disc(scene.image, c, s, disc),
                                lambda d, side: N.one_alone(scene.image, d, side))
    got = [d for d in on if math.dist(d.center, truth.center) < 0.5 * truth.side_px]
    assert len(got) == 1 and got[0].value == 1
    # (nothing else changed)
    assert [d for d in on if d not in got] == [d for d in off if d not in at]
