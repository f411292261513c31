"""Small unreadable dice read again closer (``dice.UNREAD_SMALL_READ_CLOSER``; docs/dice-camera.md,
thirty-sixth round, h2). A die a few pixels across at the working scale (a 4000x3000 photo is read at
0.2) is found from a blob that is mostly its blur's halo; read again in a window round it at the
photo's own resolution it reads. Only unreadable reports change, to one value read at their place,
of the dice's size, away from the dice read. The rendered test reads the scene with the switch off
and on, so it fails with the switch off.
"""

from __future__ import annotations

import math

from companion.vision import dice_nested_discs
from companion.vision.dice import Die
from companion.vision.dice_closer import read_closer, small_at_work_scale
from tests.dice_flags import counts_off_then_on

PHOTO = (3000, 4000, 3)  # (a 4000x3000 photo: read at 0.2, least die 0.03 * 600 = 18 work px)


def _photo():
    import numpy as np
    return np.zeros(PHOTO, np.uint8)


def test_small_means_under_two_least_dice_at_the_working_scale():
    assert small_at_work_scale(90, PHOTO, 800, 0.03)  # (18 work px)
    assert not small_at_work_scale(190, PHOTO, 800, 0.03)  # (38 work px: read at the dice's scale)
    assert not small_at_work_scale(30, (480, 640, 3), 800, 0.03)  # (read at full resolution already)


def test_an_unread_report_takes_the_one_value_read_round_it():
    unread = Die(None, (1000.0, 1000.0), 0.0, 60.0, "no pips")
    others = [Die(4, (2000.0, 1000.0), 0.9, 55.0)]
    seen = []

    def window(win, origin):
        seen.append((win.shape, origin))
        return [Die(3, (1000.0 - origin[0] + 5, 1000.0 - origin[1]), 0.8, 50.0)]

    out = read_closer(_photo(), [unread] + others, 800, 0.03, window)
    assert [d.value for d in out] == [3, 4] and out[0].center == (1005.0, 1000.0)
    assert seen[0] == ((360, 360, 3), (820, 820))  # (three report sides each way)
    # (and again with its edges moved half a side each way: dice_closer.CLOSER_READ_AGREES_SHIFTED)
    assert [o for _, o in seen[1:]] == [(850, 820), (790, 820), (820, 850), (820, 790)]


def test_no_value_where_the_window_read_is_unsure():
    unread = Die(None, (1000.0, 1000.0), 0.0, 60.0, "no pips")
    read = Die(5, (1200.0, 1000.0), 0.9, 55.0)

    def cases(origin):
        x, y = 1000.0 - origin[0], 1000.0 - origin[1]
        yield [Die(2, (x + 40, y), 0.8, 50.0)]  # (off the report: 40 px > 0.5 of 60)
        yield [Die(2, (x, y), 0.8, 50.0), Die(3, (x + 10, y), 0.8, 50.0)]  # (two values there)
        yield [Die(1, (x, y), 0.8, 20.0)]  # (under 0.6 of the dice read: a part of a face)
        yield [Die(6, (x + 25, y), 0.8, 180.0)]  # (as large as the gap to the five read beside it)
        yield [Die(None, (x, y), 0.0, 50.0, "no pips")]

    for k in range(5):
        out = read_closer(_photo(), [unread, read], 800, 0.03, lambda w, o: list(cases(o))[k])
        assert out[0] is unread, k
    # (a large report, a die read, or a photo read at full resolution: no window is read)
    big = Die(None, (1000.0, 1000.0), 0.0, 200.0, "no pips")
    for dice, shape in (([big, read], PHOTO), ([read], PHOTO), ([unread, read], (480, 640, 3))):
        import numpy as np
        assert read_closer(np.zeros(shape, np.uint8), dice, 800, 0.03, lambda w, o: 1 / 0) == dice


def test_a_white_one_on_white_paper_read_closer(monkeypatch):
    """Development ray 1038: a white one (98 px) on white paper in a 4000x3000 photo (20 work px),
    seen only as an outline at the working scale. Off: unread; on: read right, nothing else moved."""
    import companion.vision.dice as dice
    from tests.dice_raymarch import render_raymarch

    scene = render_raymarch(1038)
    # (the nested discs read this one right with the closer read off: held off, this test's subject is the closer read)
    monkeypatch.setattr(dice_nested_discs, "UNREAD_READ_IN_NESTED_DISCS", False)
    off, on = counts_off_then_on(monkeypatch, dice, "UNREAD_SMALL_READ_CLOSER", scene)
    assert (off["right"], off["unread"]) == (2, 1)
    assert (on["right"], on["unread"]) == (3, 0)
    for k in ("wrong", "missed", "extra", "near_wrong"):
        assert on[k] == off[k]
    monkeypatch.setattr(dice, "UNREAD_SMALL_READ_CLOSER", True)
    one = min(scene.dice, key=lambda t: t.side_px if t.value == 1 else 1e9)
    near = min(dice.read_dice(scene.image), key=lambda d: math.dist(d.center, one.center))
    assert one.value == near.value == 1
