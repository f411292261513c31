"""An unreadable die read again in three nested discs round its report, its value taken when every
disc reads it (``dice_nested_discs.UNREAD_READ_IN_NESTED_DISCS``; docs/dice-camera.md, thirty-ninth
round, h2). The tests set the switches they test; each test of a value taken fails with the rule off.
"""

from __future__ import annotations

import math

import pytest

from companion.vision import dice_nested_discs as N
from companion.vision.dice import Die, _read_disc, read_dice
from tests.dice_flags import scripted_discs


_scripted = scripted_discs  # (tests/dice_flags.py)


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


def _face_with_marks(mark: str):
    """A 400x400 grey table, a white die face 120 px across with a dark pip (r 9) at its middle, and
    0.7 of a side from the pip, down and right, a second dark mark: ``round`` (r 8, as round as the
    pip: a two's other pip on the same face) or ``squeezed`` (an ellipse 26 x 12, its area about the
    pip's: a side face's pip; refused for its shape alone, found with any shape allowed)."""
    import cv2
    import numpy as np

    img = np.full((400, 400, 3), 120, np.uint8)
    cv2.rectangle(img, (140, 140), (260, 260), (235, 235, 235), -1)
    cv2.rectangle(img, (140, 260), (260, 300), (190, 190, 190), -1)  # (a shaded side face below)
    cv2.circle(img, (200, 200), 9, (40, 40, 40), -1)
    at = (200 + 60, 200 + 60) if mark == "round" else (230, 282)
    if mark == "round":
        cv2.circle(img, at, 8, (40, 40, 40), -1)
    else:
        cv2.ellipse(img, at, (13, 6), 0, 0, 360, (40, 40, 40), -1)
    return img


@pytest.mark.parametrize("mark,taken", [("round", False), ("squeezed", True)])
def test_a_one_is_taken_only_without_a_round_mark_beside_its_pip(monkeypatch, mark, taken):
    """Every disc reads a one at the pip; with a round mark 0.7 sides off (a two's other pip) the one
    is refused, with a squeezed one (a side face's pip) it is taken. With ONES_ALONE off both are
    taken; with the rule off neither."""
    img = _face_with_marks(mark)
    one = Die(None, (200.0, 200.0), 0.0, 60.0, reason="marks where a one has no pip")
    read = Die(3, (60.0, 60.0), 0.9, 120.0)
    by = {d: [Die(1, (200.0, 200.0), 0.9, 110.0 * d, pips=((200.0, 200.0, 9.0),))] for d in N.DISCS}
    alone = lambda d, side: N.one_alone(img, d, side)  # noqa: E731
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", True)
    got = N.read_in_nested_discs([read, one], _scripted(by)[0], alone)[1]
    assert (got.value == 1) is taken
    monkeypatch.setattr(N, "ONES_ALONE", False)
    assert N.read_in_nested_discs([read, one], _scripted(by)[0], alone)[1].value == 1
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", False)
    assert N.read_in_nested_discs([read, one], _scripted(by)[0], alone)[1].value is None


@pytest.mark.parametrize("outer_first", [True, False])
def test_two_reports_of_one_die_only_the_outer_one_read(monkeypatch, outer_first):
    """Two unreadable reports 0.6 sides apart (a top face and its side face); the photo's middle at
    (1000, 1000), the reports up-left of it: only the one farther out is read (off: both would be,
    the first report read wins: the side face's four when it comes first)."""
    monkeypatch.setattr(N, "UNREAD_READ_IN_NESTED_DISCS", True)
    outer = Die(None, (300.0, 300.0), 0.0, 100.0, reason="overlaps another die read: parts of one face?")
    inner = Die(None, (342.0, 342.0), 0.0, 100.0, reason="overlaps another die read: parts of one face?")
    dice = [outer, inner] if outer_first else [inner, outer]

    def read_disc(centre, side, disc):
        return [Die(5 if centre == outer.center else 4, centre, 0.9, 95.0)]
    out = N.read_in_nested_discs(dice, read_disc, None, (1000.0, 1000.0), 2800.0)
    assert [d.value for d in out if d.center == outer.center] == [5]
    assert [d.value for d in out if d.center == inner.center] == [None]
    monkeypatch.setattr(N, "OUTER_OF_TWO_REPORTS", False)
    out = N.read_in_nested_discs(dice, read_disc, None, (1000.0, 1000.0), 2800.0)
    assert out[0].value == (5 if outer_first else 4) and out[1].value is None


def _one_in_veins(veins: bool) -> np.ndarray:
    """A green face 240 px across (a die read bigger than the 120 px its neighbours give the discs), its
    one's pip at (200, 200); with ``veins``, dark veins 14 px wide every 40 px across the face and the
    three's corner pips 0.4 sides out along its diagonal, each on a vein (a marbled die's veins run
    through its pips, so those pips are no separate marks); without, the same face with just the pip."""
    import cv2
    import numpy as np

    img = np.full((400, 400, 3), (225, 225, 220), np.uint8)
    cv2.rectangle(img, (80, 80), (320, 320), (60, 150, 60), -1)
    cv2.circle(img, (200, 200), 9, (20, 20, 20), -1)
    if veins:
        for x in range(40, 400, 40):
            if x != 200:
                cv2.line(img, (x - 60, 80), (x + 60, 320), (25, 25, 25), 14)
        for k in (-1, 1):
            cv2.circle(img, (200 + 34 * k, 200 - 34 * k), 9, (20, 20, 20), -1)
        img[:80], img[320:], img[:, :80], img[:, 320:] = 225, 225, 225, 225
    return img


@pytest.mark.parametrize("veins", [True, False])
def test_a_one_in_veins_is_not_vouched_for(monkeypatch, veins):
    """Pip-coloured veins larger than a pip over a third of the ring (the three's corner pips joined to
    them): the ring test finds no round mark there, so without RING_SEEN_CLEAN the one is taken; with
    it, only the clean face's one is."""
    img = _one_in_veins(veins)
    one = Die(1, (200.0, 200.0), 0.9, 120.0, pips=((200.0, 200.0, 9.0),))
    assert N.round_marks(img, one.pips[0], 120.0) == []
    assert (N.ring_hidden(img, one.pips[0], 120.0) > N.RING_HIDDEN_MOST) is veins
    monkeypatch.setattr(N, "RING_SEEN_CLEAN", True)
    assert N.one_alone(img, one, 120.0) is (not veins)
    monkeypatch.setattr(N, "RING_SEEN_CLEAN", False)
    assert N.one_alone(img, one, 120.0) is True
