"""An unreadable die read again in three nested discs round its report: its top face's value, when
every disc reads it.

A tilted die shows its top face and, round it, one or two side faces whose pips are squeezed and
lie at the die's rim. The reader's doubts about such dice (a two off layout made of a one's pip
and a side face's pip, "marks where a one has no pip", "a lone pip with other marks beside it", a
side face read with its top face beside reading nothing) fire on the marks of the side faces,
which lie *farther from the top face's centre* than any of its own pips (a face's pips lie within
0.42 of a side of its centre; a side face's pips 0.6-1 side from it, past the top face's edge).

So a crop of the top face alone reads its value, and a crop that takes in more of the die reads
the same value only when the side faces' marks do not change it. Round each unreadable report the
photo is read again (the reader's own crop for a die the dice's size, :func:`.dice._read_disc`)
in three discs of growing diameter (``DISCS``: 0.9, 1.0 and 1.2 of the die's side). The value is
taken only when **every** disc reads exactly one value, the same, sure (the face reader's
confidence, ``SURE``), each within half a side of the report, and a die's side from every die
already read. The physical reason: a die's value is a property of its top face, and the top face
is the same in the three crops; what differs between them is what lies beyond it -- the side
faces, the table, a neighbour -- and a value that changes with the disc is read from those.
Where a disc reads nothing, or another value, the die stays unreadable (a side face's two read in
the smaller discs reads nothing in the 1.2 one, its top face's pips come in: fresh ray 3573).

Two guards, each for a way the discs agree on a wrong value (development light 3408, 3154):
* a lone pip reads as a one in every disc, so a one is taken only where no mark like its pip --
  round, of its size and contrast -- lies where a face's other pips would (``ONES_ALONE``): the side
  faces' pips of a tilted one are squeezed into ellipses, seen far more obliquely than its top face;
  a two's or three's pip lost in the table is on the same face as the pip read, as round as it;
* two unreadable reports of one die (two faces seen, both doubted): only the one farther from the
  photo's middle is read (``OUTER_OF_TWO_REPORTS``): the side faces a camera above sees lie on the
  top face's side toward the photo's middle.

(docs/dice-camera.md, thirty-ninth round, h2.)
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable, Sequence, TypeVar

import cv2
import numpy as np

from .dice_face_runs_on import DOUBT as PART_OF_FACE_DOUBT
from .dice_pips_beyond import SIDE_FACE_REASON as PIPS_BEYOND_DOUBT
from .dice_shaded_face import DOUBT_END as SHADED_FACE_DOUBT_END

D = TypeVar("D")  # a :class:`.dice.Die`

#: read an unreadable die again in nested discs and take the value every disc reads (False: the
#: reader as before). Without ``ONES_ALONE`` it read light 3408's blurred pastel two as a one, and
#: without ``OUTER_OF_TWO_REPORTS`` light 3154's one's side face as a four (an extra).
#: OFF since the lead's read (session 40): held out it read 13 unread dice right and one wrong (ray
#: 60041), fresh held out 3 right and one wrong (ray 60281); and the full suite showed development
#: light 6198's doubted part of a defocused two (an unread report 0.7 of a side off the die) read
#: again as a three -- an extra and a near-wrong that dice_face_runs_on's doubt had removed. Its own
#: tests switch it on. Session 41: ``OTHER_FACE_DOUBTS_KEPT`` leaves light 6198's report (a side face
#: in shade, dice_shaded_face's doubt) unread; on the development sets read then the guarded rule added
#: right values only. Session 42: ON -- most dice test files run with it on (those whose counts it
#: changed, each by reading a die right that another rule's switch left unread, hold the discs off);
#: the one wrong read found there (light 3148's side face, doubted for its top face's pips beyond
#: it, read again as a one) kept unread by ``SIDE_FACE_DOUBT_KEPT``; ray 3700-3799, 4300-4399, light
#: 3780-3869, 4000-4039, pool light 6000-6099 read end to end: right values only (docs/dice-camera.md,
#: forty-first round, h1).
UNREAD_READ_IN_NESTED_DISCS = True
#: a report an earlier doubt made of a reading whose *face* it doubted -- not its value -- is left
#: unread (False: every unread report read again, session 40's rule). The discs answer a doubt about
#: the value a face shows (marks beyond its pips that a larger crop brings in or leaves out: the value
#: that stays the same in every disc is the face's own). They do not answer a doubt that the face read
#: is another face than the die's top face: a side face in shade (:mod:`.dice_shaded_face`) or a part
#: of a larger face (:mod:`.dice_face_runs_on`) was read clean, its value from its own pips, and the
#: discs centred on it read those pips again in every disc -- agreement there is no evidence against
#: the doubt. Development light 6198: a translucent two's side face in shade, 0.75 of a side off the
#: die ("a light face 89 darker than the light round it"), read again as a three in every disc (0.94):
#: an extra and a near-wrong.
OTHER_FACE_DOUBTS_KEPT = True
#: the doubts that say the face read is not the die's top face (how the report's reason starts or ends)
OTHER_FACE_DOUBTS_START = (PART_OF_FACE_DOUBT,)
OTHER_FACE_DOUBTS_END = (SHADED_FACE_DOUBT_END,)
#: ... and a reading doubted as a side face because its top face's pips lie beyond it
#: (:mod:`.dice_pips_beyond`), still reported where it was read -- at the side face, its move to the
#: top face refused or switched off (False: such a report is read again, as the session-41 guard
#: did). The same kind of doubt: the face was read clean, from its own pips, and the discs centred on
#: it read that side face's value again, a value of another face than the die's top face.
#: Development light 3148 (an ivory five tilted 22 degrees, its side face a one), read with the
#: five's report lost (dice_one_middle's share bar, dice_pips_beyond's move and the reads past side
#: faces held off, as its test does): the side face's report, 0.6-0.8 of a side inward of the five,
#: read again as a one in every disc. A report *moved* to its top face (the reason ending "reported
#: at that top face") is not this: the discs there are centred on the top face and read its value
#: (development ray 4376's four, read right), so the reason is matched whole.
SIDE_FACE_DOUBT_KEPT = True
OTHER_FACE_DOUBTS_WHOLE = (PIPS_BEYOND_DOUBT,)
#: the discs' diameters, in the die's side: 0.9 holds a top face's pips whole (a corner pip's centre
#: lies within 0.42 of a side of the face's centre; at 0.8, 0.4 across half, a two's corner pips are
#: cut and nothing is read -- fresh ray 3521's dark red two read 2 only from 1.0 up) and little of its
#: side faces, whose pips lie past its edge; 1.0 is the die; 1.2 is the disc the size rule's read-again
#: uses (dice.AGAIN_DISC), which takes in the side faces' rims and pips
DISCS = (0.9, 1.0, 1.2)
#: the least confidence of each disc's value (the face reader's: layout fit, pips' roundness and
#: contrast): the floor a value read again at a guessed scale must clear (dice_doubted_again.AGAIN_SURE)
SURE = 0.6
#: a disc's value must lie within this many sides of the report (a part read off the face's centre
#: lies 0.18-0.4 of a side off its die's: dice_doubted_again.AGAIN_WITHIN)
WITHIN = 0.5
#: ... and at least this many sides from every die already read: a die nearer is that die's face
#: read again (dice_one_beside_side_pip.APART_SIDES)
APART = 0.9


#: ones are taken too (False: a value 2-6 only) -- with ``ONES_ALONE`` only. A lone pip reads as a
#: one in every disc round it whatever the disc's size, so the discs alone cannot tell a one from a two
#: or three whose other pips are lost (development light 3408: a blurred pastel two on a white table,
#: its second pip faint, read as a one in every disc from 0.6 to 1.2 sides); the reader measures a
#: one's face from the crop, so its read side grows with the disc too (1.2-1.5 times from 0.8 to 1.2
#: sides, for right and wrong ones alike).
ONES_TAKEN = True
#: ... a one only where no round mark like a pip lies 0.3-1 side from its pip (:func:`round_marks`):
#: a tilted one's side faces show their pips squeezed into ellipses along the tilt (a disc seen at an
#: angle a from its normal is 1 / cos a long over short; a die seen a from the camera's axis shows its
#: top face at a and its side faces at 90 - a or more: the side faces' pips of the development ones
#: read measured 1.38-3.8), while a two's or three's other pip lies on the same
#: face as the pip read, seen as round as it (light 3408's faint second pip: 1.07). False: every one
#: read in the discs is taken (not safe: light 3408)
ONES_ALONE = True
#: sides: the ring round a one's pip where a face's other pips would lie: a face's pips lie 0.35-0.85
#: of a side from each other (a three's or five's middle pip to its corners 0.35-0.42, a corner to the
#: next or the opposite corner 0.5-0.85); a one read at a three's middle pip has its corners at 0.35
RING = (0.3, 1.0)
#: a mark is round under this long-over-short axis (a top face's pip at a 30 degree tilt: 1.15; a side
#: face's: 1.35 and up, :data:`.dice_side_faces.SIDE_ASPECT`): set between the two. 1.25 is a disc
#: seen 37 degrees off its normal: a side face's pip is that round only on a die seen 53 degrees or
#: more off the camera's axis (then a one is refused: unread, as before)
ROUND = 1.25
#: a mark's area, as a share of the one's pip (a faint or blurred pip of the same face shows smaller)
MARK_AREA = (0.4, 2.5)
#: a mark's contrast (toward the pip's colour from the face's), as a share of the pip's own: the
#: marks are found where the local (top-hat) contrast reaches MARK_FOUND, and must reach MARK_LEAST
MARK_FOUND = 0.3
MARK_LEAST = 0.4
#: the working window: the die's side in pixels
WINDOW_SIDE = 60.0
#: a one is taken only where the ring round its pip is *seen*: where marks of the pip's colour larger
#: than a pip (more than MARK_AREA's most: a marbled die's dark veins, a shadow's edge, the printing of
#: a patterned face) cover more than RING_HIDDEN_MOST of the ring, a face's other pips may lie inside
#: them, joined to them, and the round-mark test above cannot find them -- the one's value is not
#: vouched for. (False: the ring test alone, session 40's rule.) Held out (the lead, session 42): a
#: marbled green three, its corner pips joined to the veins, read as a one in every disc (ray 60041;
#: the one's ring 0.36 hidden; the right ones the discs read there 0-0.20).
RING_SEEN_CLEAN = True
#: the most of the ring that may lie under such larger marks: the ring runs out to a side from the pip,
#: past the face's edge, so any die's own dark rim and shadow cover part of it (the right ones read on
#: the held-out sets: up to 0.20); a third is past that. Set by the lead between those figures (0.20 /
#: 0.36), so the held-out sets no longer measure this guard independently
RING_HIDDEN_MOST = 0.3
#: where two unreadable reports lie within ``APART`` sides of each other (the reader saw two faces of
#: one die and doubted both: "overlaps another die read"), the value is taken only at the report
#: lying farther from the photo's middle along the line from it, by ``OUTWARD`` sides at least: a
#: camera above the table sees the side faces that face it, which lie on the top face's side toward
#: the photo's middle (as :mod:`.dice_top_pips`). Development light 3154: a red one's side face, a
#: four, reported beside its top face, read as a four in every disc -- it lies inward of the one.
#: False: each report read alone.
OUTER_OF_TWO_REPORTS = True
#: sides: the outer report must lie this much farther out (nearer, no telling which face is on top)
OUTWARD = 0.2
#: a pair of reports this near the photo's middle (part of its diagonal) is left: there the side
#: faces show in whatever direction the camera's tilt gives (:data:`.dice_top_pips.OFF_CENTRE`)
OFF_CENTRE = 0.1


def read_in_nested_discs(dice: Sequence[D], read_disc: Callable[[tuple[float, float], float, float], list],
                         one_alone: Callable[[D, float], bool] | None = None,
                         mid: tuple[float, float] | None = None, diag: float | None = None) -> list[D]:
    """``dice`` with each unreadable die given the value read alike in every disc of ``DISCS``
    round it (``read_disc(centre, side, diameter_in_sides)`` -> the dice read there), its side the
    median of the dice read (one throw's dice are one size; its own where none is read); a one only
    with ``ONES_TAKEN``, and with ``ONES_ALONE`` where ``one_alone(die, side)`` says no round mark lies
    beside its pip (:func:`one_alone`). ``mid``, ``diag``: the photo's middle and
    diagonal in the image's pixels, for two reports of one die (``OUTER_OF_TWO_REPORTS``)."""
    if not UNREAD_READ_IN_NESTED_DISCS or all(d.value is not None for d in dice):
        return list(dice)
    read = [d for d in dice if d.value is not None]
    sides = sorted(d.side_px for d in read)
    typical = sides[len(sides) // 2] if sides else None
    out = list(dice)
    for k, d in enumerate(dice):
        if d.value is not None:
            continue
        side = typical or d.side_px
        if side <= 0:
            continue
        if OTHER_FACE_DOUBTS_KEPT and other_face_doubted(d):
            continue
        if OUTER_OF_TWO_REPORTS and not _outer_of_its_pair(d, dice, side, mid, diag):
            continue
        values = []
        for disc in DISCS:
            got = [g for g in read_disc(d.center, side, disc) if g.value is not None]
            if len(got) != 1:
                break  # (nothing read, or two values: no telling which)
            g = got[0]
            if g.confidence < SURE or math.dist(g.center, d.center) > WITHIN * side:
                break
            values.append(g)
        if len(values) != len(DISCS) or len({g.value for g in values}) != 1:
            continue
        g = values[len(values) // 2]  # (the middle disc's reading: the die's own size)
        if g.value == 1 and not ONES_TAKEN:
            continue
        if g.value == 1 and ONES_ALONE and (one_alone is None or g.pips is None or len(g.pips) != 1
                                            or not one_alone(g, side)):
            continue
        taken = value_taken(d, g, values, side, read, APART)
        if taken is not None:
            out[k] = taken
    return out


def value_taken(d: D, g: D, values: Sequence[D], side: float, read: list[D], apart: float) -> D | None:
    """The unreadable die ``d`` given ``g``'s value (read alike in every disc of ``values``), appended
    to ``read`` -- or None where ``g`` lies within ``apart`` sides of a die already read (that die's
    face read again). Shared by the nested discs and the ringed read again."""
    if any(math.dist(g.center, o.center) < apart * max(o.side_px, side) for o in read):
        return None
    taken = replace(d, value=g.value, center=g.center, confidence=min(v.confidence for v in values),
                    side_px=g.side_px, reason="", pips=g.pips, seen_pips=None)
    read.append(taken)
    return taken


def other_face_doubted(d: D) -> bool:
    """Was ``d`` made unreadable by a doubt that its face is not the die's top face
    (``OTHER_FACE_DOUBTS_START``, ``OTHER_FACE_DOUBTS_END``; with ``SIDE_FACE_DOUBT_KEPT``,
    ``OTHER_FACE_DOUBTS_WHOLE``)?"""
    reason = d.reason or ""
    return (reason.startswith(OTHER_FACE_DOUBTS_START) or reason.endswith(OTHER_FACE_DOUBTS_END)
            or (SIDE_FACE_DOUBT_KEPT and reason in OTHER_FACE_DOUBTS_WHOLE))


def _outer_of_its_pair(d: D, dice: Sequence[D], side: float, mid: tuple[float, float] | None,
                       diag: float | None) -> bool:
    """Is ``d`` alone among the unreadable reports (none within APART sides), or the one lying
    OUTWARD sides farther from the photo's middle than every such report beside it?"""
    others = [o for o in dice if o is not d and o.value is None and math.dist(o.center, d.center) < APART * side]
    if not others:
        return True
    if mid is None or diag is None:
        return False
    for o in others:
        cx, cy = 0.5 * (d.center[0] + o.center[0]), 0.5 * (d.center[1] + o.center[1])
        rx, ry = cx - mid[0], cy - mid[1]
        r = math.hypot(rx, ry)
        if r < OFF_CENTRE * diag:
            return False
        out = ((d.center[0] - o.center[0]) * rx + (d.center[1] - o.center[1]) * ry) / r
        if out < OUTWARD * side:
            return False
    return True


def one_alone(img: np.ndarray, d: D, side: float) -> bool:
    """Is the one ``d`` (its pip ``d.pips[0]``, photo pixels) alone: no round mark like its pip in the
    ring RING round it (:func:`round_marks`), and (``RING_SEEN_CLEAN``) the ring seen, not hidden under
    pip-coloured regions larger than a pip (:func:`ring_hidden`)?"""
    found = _marks(img, d.pips[0], side)
    if found is None:
        return True
    if RING_SEEN_CLEAN and _hidden_share(found) > RING_HIDDEN_MOST:
        return False
    return not _round(found)


def round_marks(img: np.ndarray, pip: tuple[float, float, float], side: float) -> list[tuple[float, float, float]]:
    """The marks round ``pip`` (x, y, radius) like it: in the ring RING (sides of ``side``) round it,
    MARK_AREA of its area, ROUND, and MARK_LEAST of its contrast, as (distance in sides, aspect,
    contrast share). Found in a window scaled so the die is WINDOW_SIDE px, as the small blobs that
    stand out toward the pip's colour from the face's (a top-hat, so a side face's or the table's
    shade, larger than a pip, is not one)."""
    found = _marks(img, pip, side)
    return [] if found is None else _round(found)


def ring_hidden(img: np.ndarray, pip: tuple[float, float, float], side: float) -> float:
    """The share of the ring RING round ``pip`` covered by marks of the pip's colour larger than
    MARK_AREA's most (0 where no window could be made)."""
    found = _marks(img, pip, side)
    return 0.0 if found is None else _hidden_share(found)


def _marks(img: np.ndarray, pip: tuple[float, float, float], side: float):
    """The pip-coloured marks round ``pip`` in the working window: (labels, stats, centres, hat,
    contrast, the pip's centre and radius in the window, the ring's mask), or None."""
    px, py, pr = pip
    H, W = img.shape[:2]
    reach = (RING[1] + 0.15) * side
    x0, y0 = int(max(0, px - reach)), int(max(0, py - reach))
    x1, y1 = int(min(W, px + reach + 1)), int(min(H, py + reach + 1))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    k = WINDOW_SIDE / side
    win = cv2.resize(img[y0:y1, x0:x1], None, fx=k, fy=k, interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
    lab = cv2.cvtColor(win, cv2.COLOR_BGR2LAB).astype(np.float32)
    cx, cy, r = (px - x0) * k, (py - y0) * k, max(1.5, pr * k)
    h, w = lab.shape[:2]
    yy, xx = np.mgrid[:h, :w]
    dist = np.hypot(xx - cx, yy - cy)
    ring = (dist > 1.6 * r) & (dist < 2.6 * r)
    core = dist < 0.5 * r
    if not ring.any() or not core.any():
        return None
    face = np.median(lab[ring], axis=0)
    towards = np.median(lab[core], axis=0) - face
    contrast = float(np.linalg.norm(towards))
    if contrast < 1e-3:
        return None
    pip_like = ((lab - face) @ towards) / contrast
    ks = int(5 * r) | 1  # (a disc 2.5 pips across: a pip stands out of it, a shade region does not)
    hat = pip_like - cv2.morphologyEx(pip_like, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ks, ks)))
    n, labels, stats, centres = cv2.connectedComponentsWithStats((hat >= MARK_FOUND * contrast).astype(np.uint8), 8)
    in_ring = (dist >= RING[0] * WINDOW_SIDE) & (dist <= RING[1] * WINDOW_SIDE)
    return labels, stats, centres, hat, contrast, (cx, cy, r), in_ring


def _round(found) -> list[tuple[float, float, float]]:
    labels, stats, centres, hat, contrast, (cx, cy, r), _ = found
    area = math.pi * r * r
    out = []
    for j in range(1, len(stats)):
        at = math.hypot(centres[j][0] - cx, centres[j][1] - cy) / WINDOW_SIDE
        if not RING[0] <= at <= RING[1] or not MARK_AREA[0] * area <= stats[j, cv2.CC_STAT_AREA] <= MARK_AREA[1] * area:
            continue
        inside = labels == j
        pts = np.argwhere(inside).astype(np.float64)
        if len(pts) < 3:
            continue
        ev = np.linalg.eigvalsh(np.cov(pts.T))
        aspect = math.sqrt(ev[1] / max(ev[0], 1e-6))
        share = float(np.median(hat[inside])) / contrast
        if aspect < ROUND and share >= MARK_LEAST:
            out.append((at, aspect, share))
    return out


def _hidden_share(found) -> float:
    labels, stats, _, _, _, (_, _, r), in_ring = found
    if not in_ring.any():
        return 0.0
    big = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] > MARK_AREA[1] * math.pi * r * r)
    big = big[big > 0]  # (label 0 is what is not a mark)
    if not len(big):
        return 0.0
    return float(np.isin(labels[in_ring], big).mean())
