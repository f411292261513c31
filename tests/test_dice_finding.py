"""The finding side's shortcuts give what the long way gives.

The labelling helpers (companion/vision/blob_labels.py) must label exactly as OpenCV's default
labelling with statistics does, and ``split_faces`` must split a face region the same whether the
region sits in a tight crop or far inside a large one (it now works inside the region's box).
Speed is measured in tests/bench/bench_dice_finding.py, not here.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from companion.vision.blob_labels import components_with_areas, components_with_stats
from companion.vision.dice_split import split_faces
from companion.vision.dice_pips import FACE_PX


def _masks():
    rng = np.random.default_rng(7)
    out = [((rng.random((120, 160)) < p) * 255).astype(np.uint8) for p in (0.2, 0.45, 0.6)]
    drawn = np.zeros((200, 260), np.uint8)
    cv2.circle(drawn, (60, 60), 40, 255, -1)
    cv2.rectangle(drawn, (120, 100), (220, 180), 255, -1)
    cv2.line(drawn, (0, 199), (259, 0), 255, 1)  # a thin diagonal: joins 8-way, not 4-way
    out.append(drawn)
    return out


@pytest.mark.parametrize("k", range(4))
def test_components_with_stats_labels_as_opencv_does(k):
    mask = _masks()[k]
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    m, labels2, stats2, cents2 = components_with_stats(mask)
    assert m == n
    assert np.array_equal(labels, labels2) and np.array_equal(stats, stats2)
    assert np.allclose(cents, cents2)


@pytest.mark.parametrize("k", range(4))
def test_components_with_areas_labels_as_opencv_does(k):
    mask = _masks()[k]
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    m, labels2, areas = components_with_areas(mask)
    assert m == n and np.array_equal(labels, labels2)
    assert np.array_equal(areas, stats[:, cv2.CC_STAT_AREA])


def _two_touching_faces(offset: tuple[int, int], size: tuple[int, int]):
    """Two touching white faces with a dark groove between them, at ``offset`` in a crop of ``size``."""
    h, w = size
    crop = np.full((h, w, 3), 60, np.uint8)
    part = np.zeros((h, w), np.uint8)
    ox, oy = offset
    s = FACE_PX
    for k in range(2):
        x0 = ox + k * (s + 2)
        cv2.rectangle(crop, (x0, oy), (x0 + s - 1, oy + s - 1), (235, 235, 230), -1)
        cv2.rectangle(part, (x0, oy), (x0 + s - 1, oy + s - 1), 255, -1)
    # the groove is darker, but the region still runs across it at a neck
    cv2.rectangle(part, (ox + s, oy + s // 2 - 6), (ox + s + 1, oy + s // 2 + 6), 255, -1)
    return crop, part


def test_split_faces_splits_touching_faces_the_same_in_a_tight_or_a_large_crop():
    tight_crop, tight_part = _two_touching_faces((6, 6), (FACE_PX + 12, 2 * FACE_PX + 14))
    big_crop, big_part = _two_touching_faces((150, 90), (420, 520))
    tight = split_faces(tight_part, tight_crop)
    big = split_faces(big_part, big_crop)
    assert len(tight) == 2 and len(big) == 2
    for a, b in zip(tight, big):
        assert b.shape == big_part.shape
        # the same piece, moved by the offset between the two crops
        ya, xa = np.nonzero(a)
        yb, xb = np.nonzero(b)
        assert np.array_equal(ya + 84, yb) and np.array_equal(xa + 144, xb)


def test_split_faces_of_an_empty_region_is_nothing():
    crop = np.zeros((50, 50, 3), np.uint8)
    assert split_faces(np.zeros((50, 50), np.uint8), crop) == []


# ---------------------------------------------------------------- tentative readings (the blob look's)


def _die(value, centre, confidence, side=50.0):
    from companion.vision.dice import Die

    return Die(value, centre, confidence, side)


def test_a_blob_look_reading_is_tentative_and_a_first_look_reading_is_sure():
    from companion.vision.dice import _sure
    from companion.vision.dice_pips import BLOB_CONFIDENCE

    assert not _sure([])
    assert not _sure([_die(None, (0, 0), 0.0)])
    assert not _sure([_die(5, (0, 0), BLOB_CONFIDENCE)])
    assert _sure([_die(5, (0, 0), BLOB_CONFIDENCE), _die(2, (100, 0), 0.6)])


def test_a_later_look_replaces_a_tentative_reading_at_its_place_and_keeps_one_elsewhere():
    from companion.vision.dice import _after

    tentative = _die(5, (100, 100), 0.05)
    # the later look read the same die: its reading wins
    same = [_die(4, (110, 95), 0.9)]
    assert _after([tentative], same) == same
    # the later look reached a neighbouring die only: the tentative reading stays beside it
    beside = [_die(6, (190, 130), 0.9)]
    assert _after([tentative], beside) == beside + [tentative]
    # the later look read nothing: the tentative reading is kept, not its unreadable die
    assert _after([tentative], [_die(None, (100, 100), 0.0)]) == [tentative]


def test_a_later_look_replaces_nothing_read_as_before():
    from companion.vision.dice import _after

    unread = [_die(None, (100, 100), 0.0)]
    seen = [_die(None, (105, 100), 0.0)]
    assert _after(unread, []) == unread
    assert _after(unread, seen) == seen
    read = [_die(3, (100, 100), 0.8)]
    assert _after(unread, read) == read


def test_a_look_is_judged_by_how_near_its_sure_dice_came_to_the_size_it_looked_for():
    from companion.vision.dice import _size_miss

    assert _size_miss([_die(3, (0, 0), 0.9, side=40.0)], 40.0) == pytest.approx(0.0)
    # a die read at half the size looked for misses by as much as one read at twice it
    half = _size_miss([_die(6, (0, 0), 0.6, side=32.0)], 64.0)
    assert half == pytest.approx(_size_miss([_die(6, (0, 0), 0.6, side=128.0)], 64.0))
    assert half > _size_miss([_die(6, (0, 0), 0.6, side=48.0)], 64.0) > 0
    # tentative and unreadable dice say nothing of the size
    assert _size_miss([_die(3, (0, 0), 0.05, side=40.0), _die(None, (0, 0), 0.0, side=40.0)], 40.0) == float("inf")


# ---------------------------------------------------------------- a die with its shadow in one blob


def _sides_looked_at(monkeypatch, blob: np.ndarray, first_look: list) -> list[float]:
    """The die sides ``_read_blob`` reads ``blob`` at, when its first look gives ``first_look``
    and every retry reads nothing."""
    import companion.vision.dice as dice

    sides = []

    def look(img, blob_small, origin, f, side_full, reader=None, dilate=True):
        sides.append(side_full)
        return list(first_look) if len(sides) == 1 else []

    monkeypatch.setattr(dice, "_read_blob_at", look)
    img = np.zeros((400, 400, 3), np.uint8)
    dice._read_blob(img, blob, (10, 10), 1.0, float(max(blob.shape)))
    return sides


def _die_and_shadow_blob() -> np.ndarray:
    """A tilted square die with a shadow along two sides: fills under 0.6 of its box."""
    blob = np.zeros((120, 120), np.uint8)
    square = cv2.boxPoints(((55, 55), (70, 70), 40)).astype(np.int32)
    cv2.fillConvexPoly(blob, square, 1)
    cv2.fillConvexPoly(blob, square + 14, 1)
    return blob > 0


def test_a_blob_whose_first_look_saw_a_face_but_no_layout_is_read_again_smaller(monkeypatch):
    blob = _die_and_shadow_blob()
    assert blob.sum() < 0.6 * blob.size  # (the old rule retried only blobs filling their box)
    sides = _sides_looked_at(monkeypatch, blob, [_die(None, (60, 60), 0.0)])
    assert len(sides) == 2
    assert sides[1] == pytest.approx(sides[0] * 0.75)


def test_a_blob_whose_first_look_saw_nothing_is_not_read_again_smaller(monkeypatch):
    # (nothing seen: the blob may be a light die's shaded sides and shadow, whose shaded side
    # face, read smaller, gives a one where the die has another value)
    sides = _sides_looked_at(monkeypatch, _die_and_shadow_blob(), [])
    assert len(sides) == 1


# ---------------------------------------------------------------- overlapping readings


def test_of_two_overlapping_readings_a_tentative_one_gives_way_to_a_sure_one():
    from companion.vision.dice_sizes import doubt_overlaps

    sure, faint = _die(2, (100, 100), 0.95, side=60.0), _die(3, (140, 110), 0.08, side=40.0)
    apart = _die(5, (300, 100), 0.9, side=60.0)
    doubt_overlaps([sure, faint, apart])
    assert (sure.value, faint.value, apart.value) == (2, None, 5)
    assert "overlaps" in faint.reason


def test_two_overlapping_sure_readings_are_both_unreadable():
    from companion.vision.dice_sizes import doubt_overlaps

    # (a six's two columns read as two threes: neither is the die)
    a, b = _die(3, (100, 100), 0.9, side=40.0), _die(3, (125, 100), 0.8, side=40.0)
    doubt_overlaps([a, b])
    assert a.value is None and b.value is None
    # two tentative readings alike
    c, d = _die(4, (100, 100), 0.05, side=40.0), _die(1, (120, 100), 0.07, side=40.0)
    doubt_overlaps([c, d])
    assert c.value is None and d.value is None


# ---------------------------------------------------------------- a die whose face no look reads


def _three_dice_and(draw) -> np.ndarray:
    """A light table with three plain dice (a five, a three, a six) and whatever ``draw`` adds."""
    img = np.full((480, 640, 3), 235, np.uint8)
    for (cx, cy), pips in (((150, 150), [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)]),
                           ((350, 150), [(-1, -1), (0, 0), (1, 1)]),
                           ((500, 300), [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)])):
        cv2.rectangle(img, (cx - 35, cy - 35), (cx + 35, cy + 35), (60, 60, 60), -1)
        cv2.rectangle(img, (cx - 32, cy - 32), (cx + 32, cy + 32), (250, 250, 250), -1)
        for u, v in pips:
            cv2.circle(img, (cx + 19 * u, cy + 19 * v), 6, (20, 20, 20), -1)
    draw(img)
    return img


def _slanted_die(img: np.ndarray) -> None:
    _slanted_die_at(img, 215, 315)


def _slanted_die_at(img: np.ndarray, x0: int, y0: int) -> None:
    """A die seen at a strong slant: its lit top face squeezed to half its height (its four pips
    slits) above its shaded front face; no layout fits such a face."""
    s = 70
    cv2.rectangle(img, (x0, y0), (x0 + s, y0 + s), (60, 60, 60), -1)
    cv2.rectangle(img, (x0 + 3, y0 + 3), (x0 + s - 3, y0 + s // 2 - 2), (250, 250, 250), -1)
    cv2.rectangle(img, (x0 + 3, y0 + s // 2 + 2), (x0 + s - 3, y0 + s - 3), (165, 165, 165), -1)
    for u in (-1, 1):
        for v in (-1, 1):
            cv2.ellipse(img, (x0 + s // 2 + 19 * u, y0 + s // 4 + 8 * v), (6, 3), 0, 0, 360, (20, 20, 20), -1)


def test_a_die_shaped_blob_no_look_reads_is_an_unreadable_die():
    from companion.vision.dice import read_dice

    found = read_dice(_three_dice_and(_slanted_die))
    assert sorted(d.value for d in found if d.value is not None) == [3, 5, 6]
    unread = [d for d in found if d.value is None]
    assert len(unread) == 1 and np.hypot(unread[0].center[0] - 250, unread[0].center[1] - 350) < 20


def test_a_long_blob_no_look_reads_is_no_die():
    from companion.vision.dice import read_dice

    def pen(img):  # a pen on the table: as wide as a die, three times as long
        cv2.rectangle(img, (180, 330), (390, 400), (90, 60, 40), -1)

    found = read_dice(_three_dice_and(pen))
    assert sorted(d.value for d in found) == [3, 5, 6]


def test_a_retry_at_the_measured_size_that_reads_a_die_elsewhere_keeps_the_first_look(monkeypatch):
    import companion.vision.dice as dice

    # the first look reads a one at the blob's centre, smaller than the size it looked for; the
    # retry at that size reads a two at the blob's edge (a tilted die's side face, ray 64)
    looks = [[_die(1, (60, 60), 0.9, side=50.0)], [_die(2, (20, 40), 0.98, side=52.0)]]
    monkeypatch.setattr(dice, "_read_blob_at", lambda *a, **k: looks.pop(0) if looks else [])
    blob = np.ones((100, 100), bool)
    got = dice._read_blob(np.zeros((200, 200, 3), np.uint8), blob, (10, 10), 1.0, 100.0)
    assert [(d.value, d.center) for d in got] == [(1, (60, 60))]
    # (a retry that reads the same die at its own size replaces the first look, as before)
    looks[:] = [[_die(1, (60, 60), 0.9, side=50.0)], [_die(1, (62, 58), 0.95, side=52.0)]]
    got = dice._read_blob(np.zeros((200, 200, 3), np.uint8), blob, (10, 10), 1.0, 100.0)
    assert [(d.value, d.center) for d in got] == [(1, (62, 58))]


# ---------------------------------------------------------------- what is left of a blob


def test_a_die_left_beside_a_die_read_in_one_blob_is_read_from_the_rest():
    from companion.vision.dice import read_dice
    from companion.vision.dice_eval import score_scene
    from tests.dice_raymarch_light import render_light

    # light 46: a three touching a white die read first (as its four side face); the three was missed
    scene = render_light(46)
    found = read_dice(scene.image)
    three = next(t for t in scene.dice if t.value == 3 and abs(t.center[0] - 1072) < 30)
    assert any(d.value == 3 and math.dist(d.center, three.center) < 0.5 * three.side_px for d in found)
    assert score_scene(scene, found).counts["wrong"] == 0


def test_a_face_read_in_the_rest_within_a_side_of_a_die_read_is_its_side_face(monkeypatch):
    import companion.vision.dice as dice

    top = _die(1, (50, 50), 0.9, side=40.0)
    side_face, neighbour = _die(2, (50, 85), 0.98, side=40.0), _die(5, (50, 110), 0.9, side=40.0)
    blob = np.zeros((140, 100), bool)
    blob[10:135, 10:90] = True
    for beside, kept in ((side_face, []), (neighbour, [neighbour])):
        monkeypatch.setattr(dice, "_read_blob", lambda *a, beside=beside: [beside])
        assert dice._read_remainder(np.zeros((140, 100, 3), np.uint8), blob, (0, 0), 1.0, [top]) == kept


def test_a_die_read_beside_a_lighter_part_of_its_colour_that_reads_nothing_is_its_side_face(monkeypatch):
    """A tilted blue die's side face read as a die (a three) and, beside it in the same blob, a part
    of its blue clearly lighter (the top face, lit from above) that reads nothing: the three is no
    die's value. It is handed back as a side face, and an unreadable die is reported at the lighter
    part (was: the side face's three kept, the die's top face missed). A black die beside a lighter
    grey part (its shadow on a white table, grey as the die) keeps its reading."""
    import companion.vision.dice as dice

    def drawn(top_bgr, side_bgr):
        img = np.zeros((140, 100, 3), np.uint8)
        img[40:80, 20:80] = top_bgr  # the part beside the die read, lighter
        img[80:126, 20:80] = side_bgr  # the die read, a three
        return img

    blue, grey = drawn((240, 170, 110), (160, 100, 50)), drawn((170, 170, 170), (60, 60, 60))
    blob = np.zeros((140, 100), bool)
    blob[40:126, 20:80] = True
    three = _die(3, (50, 100), 0.9, side=40.0)
    monkeypatch.setattr(dice, "SIDE_FACES_BY_SHADE", True)
    monkeypatch.setattr(dice, "_read_blob", lambda *a, **k: [])  # (the lighter part reads nothing)
    for rule in (False, True):
        monkeypatch.setattr(dice, "UNREAD_TOP_FACE_TAKES_ITS_SIDE_FACE", rule)
        side_faces = []
        got = dice._read_remainder(blue, blob, (0, 0), 1.0, [three], side_faces)
        if not rule:
            assert got == [] and side_faces == []
            continue
        assert side_faces == [three]
        assert len(got) == 1 and got[0].value is None and abs(got[0].center[1] - 60) < 8
    side_faces = []
    assert dice._read_remainder(grey, blob, (0, 0), 1.0, [three], side_faces) == [] and side_faces == []
    # a lighter part that reads a die: read, and the shade rule chooses between the two later
    top = _die(1, (50, 58), 0.9, side=40.0)
    monkeypatch.setattr(dice, "_read_blob", lambda *a, **k: [top])
    side_faces = []
    assert dice._read_remainder(blue, blob, (0, 0), 1.0, [three], side_faces) == [top] and side_faces == []


def test_a_lone_slanted_die_with_its_shadow_is_an_unreadable_die():
    from companion.vision.dice import read_dice

    # alone in the photo, and with its shadow longer than it is wide, it sets no typical die size
    img = np.full((480, 640, 3), 235, np.uint8)
    cv2.rectangle(img, (285, 215), (355, 320), (150, 150, 150), -1)  # the shadow beyond its front face
    _slanted_die_at(img, 285, 215)
    found = read_dice(img)
    assert len(found) == 1 and found[0].value is None


def _top_and_side(top_value, side_value, side_at, top_at=(1600.0, 1200.0)):
    """A top face's reading and a side face's (at ``side_at``), sure both, side 100 px."""
    return _die(top_value, top_at, 0.8, side=100.0), _die(side_value, side_at, 0.7, side=90.0)


PHOTO = ((1000.0, 750.0), math.hypot(2000, 1500))  # a 2000x1500 photo's centre and diagonal


def test_of_a_top_face_and_its_side_face_read_apart_the_outer_one_is_the_die(monkeypatch):
    """Perspective pushes a die's top face (nearer the camera) further out from the photo's middle
    than its side faces: of two readings 0.75 of a side apart along the line from the photo's
    centre, the outer is the top face and the inner, a side face, is no die."""
    import companion.vision.dice_sizes as sizes

    monkeypatch.setattr(sizes, "TOP_FACE_OUTWARD", True)  # (off by default: see its comment)
    top, side = _top_and_side(4, 1, (1540.0, 1155.0))
    assert [d.value for d in sizes.doubt_overlaps([side, top], *PHOTO)] == [4]
    monkeypatch.setattr(sizes, "TOP_FACE_OUTWARD", False)  # (the old rule: both unreadable)
    top, side = _top_and_side(4, 1, (1540.0, 1155.0))
    assert [d.value for d in sizes.doubt_overlaps([side, top], *PHOTO)] == [None, None]


@pytest.mark.parametrize("case", ["across the radius", "parts of one face", "by the photo's centre"])
def test_overlapping_readings_no_side_face_is_told_among_stay_unreadable(case, monkeypatch):
    import companion.vision.dice_sizes as sizes
    from companion.vision.dice_sizes import doubt_overlaps

    monkeypatch.setattr(sizes, "TOP_FACE_OUTWARD", True)  # (the rule on, as it may be set)
    if case == "across the radius":  # (side by side across the line from the centre: no telling)
        top, side = _top_and_side(4, 1, (1645.0, 1140.0))
    elif case == "parts of one face":  # (a six's two columns read as threes, one outer)
        top, side = _top_and_side(3, 3, (1540.0, 1155.0))
    else:
        top, side = _top_and_side(4, 1, (1000.0, 750.0), top_at=(1060.0, 795.0))
    assert [d.value for d in doubt_overlaps([side, top], *PHOTO)] == [None, None]


def test_a_tilted_dies_top_face_is_read_beside_its_side_face(monkeypatch):
    """Dev scene 66 (a phone photo tilted 15 degrees): a four's top face and a side face both read,
    their pips squeezed alike, overlapping. The outer reading, the top face, is the die."""
    import companion.vision.dice as dice
    import companion.vision.dice_nested_discs as dice_nested_discs
    import companion.vision.dice_sizes as sizes
    from tests.dice_flags import counts_off_then_on
    from tests.dice_raymarch import render_raymarch

    # (the shade rule, off by default, tells this pair too: test_dice_side_shade.py; off here so the
    # photo's-middle rule is what is measured)
    monkeypatch.setattr(dice, "SIDE_FACES_BY_SHADE", False)
    # (the nested discs read the four right where the overlap leaves both faces unread, the outer
    # report: held off, this test's subject is the photo's-middle rule)
    monkeypatch.setattr(dice_nested_discs, "UNREAD_READ_IN_NESTED_DISCS", False)
    before, after = counts_off_then_on(monkeypatch, sizes, "TOP_FACE_OUTWARD", render_raymarch(66))
    assert after["right"] == before["right"] + 1 and after["wrong"] == 0 and after["extra"] == before["extra"]


def test_a_part_of_a_photo_is_told_where_the_photos_middle_is(monkeypatch):
    """A region cut from a larger photo (the streaming reader's region reads): the side faces lie
    toward the whole photo's middle, not the region's."""
    import companion.vision.dice as dice
    from companion.vision.dice import ReaderSettings, read_dice

    seen = []
    monkeypatch.setattr(dice, "doubt_overlaps", lambda found, *photo: seen.append(photo) or found)
    image = np.full((200, 300, 3), 200, np.uint8)
    cv2.rectangle(image, (100, 60), (150, 110), (40, 40, 160), -1)
    read_dice(image, ReaderSettings(in_photo=(100, 50, 1000, 800)))
    read_dice(image)
    assert seen[0] == ((400.0, 350.0), math.hypot(1000, 800))
    assert seen[-1] == ((150.0, 100.0), math.hypot(300, 200))
