"""A die read at its side face: its top face's pips lie beyond the reading, away from the photo's middle.

Seen from above at a slant, a die shows its side faces toward the photo's middle and its top face
outward (:mod:`.dice_unread_place`). When a side face is read as the die -- its top face unread,
lit as the table, or joined to a neighbour -- the value is that side face's, a wrong one for the
die, 0.6-0.8 of a side inward of the top face (17 of the 24 wrong and near-wrong readings of the
development sets and of helper s26h2's fresh pool, every one with its top face outward: docs/dice-camera.md,
twenty-fifth round). Right beyond such a reading lie the top face's pips: marks like the reading's
own pips (dark on a light die, light on a dark one; pip-sized; on a face at least as light as the
one read, and of its hue, not the table's grain). Beyond a top face read right lies the table, its
shadow or the die's edge. A reading with ``NEED`` such marks beyond it, none of them on another
die read, is made unreadable: the die is there, its value is not known.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace
from typing import Sequence, TypeVar

import cv2
import numpy as np

from .dice_crop import lab_window
# (a moved report stays farther than APART of a die's side from every other report: the reader's
# duplicate rule, the one dice_unread_place moves its reports by)
from .dice_unread_place import APART

D = TypeVar("D")  # a :class:`.dice.Die`

#: a reading this near the photo's middle (part of its diagonal) is left alone: there the side
#: faces show in whatever direction the camera's tilt gives (:data:`.dice_unread_place.OFF_CENTRE`)
OFF_CENTRE = 0.1
#: read sides from the reading's centre, along the line from the photo's middle: the band a top
#: face's pips lie in when the reading is its side face. The top face's centre lies 0.6-0.8 sides
#: out (the near-wrong readings above), its pips +-0.3 round it; the reading's own face ends at
#: 0.5 (0.71 at its corners, where its pips are not: they lie within 0.35)
BAND = (0.55, 1.25)
#: ... and at most this many read sides to either side of that line (a face's half width, and the
#: slant of the line to the face's edges)
LATERAL = 0.6
#: a mark: a black-hat (dark pips) or top-hat (light pips) response over this many Lab L units,
#: in a structuring disc of HAT_SIDES of the read side (a pip is 0.2 sides across; the gaps
#: between a six's pips are 0.15). Set beforehand, not varied: the top faces' pips of the pool's
#: near-wrong cases measured 54-250; a wood table's grain reaches it too (its hue rejects it, below)
MARK_CONTRAST = 30.0
HAT_SIDES = 0.35
#: a mark's area, as shares of a pip's of the reading (its pips' median radius; without pips,
#: 0.1 of the read side): a top face's pips, seen nearer face-on than the side face's, are no
#: smaller (set beforehand, not varied); a speck of noise or a shadow's broad edge is outside this
MARK_AREA = (0.25, 3.0)
#: a mark's bounding box at most this elongated (a squeezed pip 2-2.5; a wood grain's streak more)
MARK_ELONGATION = 3.5
#: the ring round a mark (its radii 1.6-2.6 of the mark's) is the face it lies on: at most this
#: chroma (Lab a, b) from the reading's face ... (chosen on an approximation of the rule run over
#: the base's readings of s26h2's pool and the development sets: without it 31 right readings of
#: the pool had two marks beyond them, wood grain and felt round small webcam dice; 12 kept those
#: out and also a pastel die's lit top face, 19 from its shaded side face; 30 kept every right one out)
FACE_HUE = 30.0
#: ... and at least this lighter than it, in Lab L (negative: the most it may be darker). Light
#: comes from above: the top face is lit at least as well as a side face
FACE_LIGHTER = -10.0
#: marks needed: two (one pip alone may be a speck, a neighbour's corner; a one's top face has one
#: pip and so is not caught -- the rule doubts no reading it cannot back with two marks)
NEED = 2
#: a mark within this many sides (of the other die) of another die read is that die's pip
OTHER_DIE = 0.6


#: why a reading is made unreadable here
SIDE_FACE_REASON = "a side face? its top face's pips lie beyond it, away from the photo's middle"


#: the reading made unreadable is reported at its top face -- the middle of the marks beyond it and
#: the place a side face's top face lies (``TOP_FACE_STEP`` read sides outward), averaged -- not at
#: the side face read, 0.6-0.8 sides inward of the die's top face: there the players look and the
#: evaluator matches a die within half a side (development, start of session 34: 7 of the 37 dice
#: missed were such reports, 0.62-0.77 sides off; light 3149, 3180, 3186 twice, 3194, ray 1033,
#: 4376). The rule moves the place only; the reads of the photo sharpened along a smear or squared
#: (dice.read_dice) then give the unread die a value read at its new place (light 3180, 3194: right).
#: False: at the side face read, the old rule
TOP_FACE_AT_ITS_PIPS = True
#: read sides from a side face's centre out to its top face's centre, along the line from the
#: photo's middle (the near-wrong readings this rule was made on: 0.6-0.8; the middle taken). The
#: step and its averaging with the marks were chosen after seeing the seven cases above (the marks'
#: middle alone left them 0.01-0.48 sides off their die, the step alone 0.14-0.42)
TOP_FACE_STEP = 0.7


def doubt_pips_beyond(dice: list[D], img: np.ndarray, middle: tuple[float, float], diagonal: float) -> list[D]:
    """The dice with each reading that has a top face's pips beyond it made unreadable (and, with
    TOP_FACE_AT_ITS_PIPS, reported at that top face)."""
    read = [d for d in dice if d.value is not None]
    out, tops = [], {}
    for d in dice:
        if d.value is not None:
            marks = _pips_beyond(d, img, middle, diagonal, [o for o in read if o is not d])
            if len(marks) >= NEED:
                tops[len(out)] = _top_face_at(d, marks, middle)
                d = replace(d, value=None, confidence=0.0, reason=SIDE_FACE_REASON)
        out.append(d)
    return _moved_to_top_faces(out, tops) if TOP_FACE_AT_ITS_PIPS else out


def _top_face_at(d, marks: Sequence[tuple[float, float]], middle: tuple[float, float]) -> tuple[float, float]:
    """Where the top face of ``d``, a side face, lies: its pips' middle (a face's pips lie round
    its centre, but only some may be found) averaged with ``TOP_FACE_STEP`` read sides outward
    of ``d`` (the side face's geometry, blind to the pips)."""
    ox, oy = d.center[0] - middle[0], d.center[1] - middle[1]
    out = math.hypot(ox, oy)
    step = TOP_FACE_STEP * d.side_px / out
    stepped = (d.center[0] + step * ox, d.center[1] + step * oy)
    mx, my = float(np.mean([m[0] for m in marks])), float(np.mean([m[1] for m in marks]))
    return ((mx + stepped[0]) / 2, (my + stepped[1]) / 2)


def _moved_to_top_faces(dice: list[D], tops: dict[int, tuple[float, float]]) -> list[D]:
    """``dice`` with each doubted reading ``k`` of ``tops`` moved to its top face ``tops[k]``, when
    no other report lies as near that place (the pips beyond were then another die's, a neighbour
    outward: they are its own) nor within half a side of it (the reader's duplicate rule)."""
    out = list(dice)
    for k, at in tops.items():
        d = dice[k]
        mine = math.dist(at, d.center)
        if any(j != k and math.dist(at, o.center) <= mine for j, o in enumerate(dice)):
            continue
        if any(j != k and math.dist(at, o.center) <= APART * max(o.side_px, d.side_px) for j, o in enumerate(out)):
            continue
        out[k] = replace(d, center=at, reason=TOP_FACE_REASON, seen_at=d.center)
    return out


#: why a reading moved to its top face is unreadable (:func:`placed_at_top_face` tells it by this)
TOP_FACE_REASON = SIDE_FACE_REASON + "; reported at that top face"


def placed_at_top_face(d) -> bool:
    """Was ``d`` reported at its top face by this rule (so no later rule moves it again)?"""
    return d.reason == TOP_FACE_REASON


def _pips_beyond(d, img: np.ndarray, middle: tuple[float, float], diagonal: float,
                 others: Sequence) -> list[tuple[float, float]]:
    """The marks like ``d``'s pips in the band beyond ``d``, away from ``middle`` (their centres,
    photo pixels)."""
    ox, oy = d.center[0] - middle[0], d.center[1] - middle[1]
    out = math.hypot(ox, oy)
    if d.side_px < 4 or out < OFF_CENTRE * diagonal:
        return []
    ux, uy = ox / out, oy / out
    win = lab_window(img, d.center, d.side_px, BAND[1] + 0.3, WORK_SIDE)
    if win is None:
        return []
    lab, g, (x0, y0) = win
    x, y, s = (d.center[0] - x0) * g, (d.center[1] - y0) * g, d.side_px * g  # (window pixels)
    light = lab[..., 0].astype(np.uint8)
    yy, xx = np.ogrid[:lab.shape[0], :lab.shape[1]]
    k = max(3, int(HAT_SIDES * s)) | 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    dark, lit = (cv2.morphologyEx(light, op, disc) > MARK_CONTRAST for op in (cv2.MORPH_BLACKHAT, cv2.MORPH_TOPHAT))
    face = ((xx - x) ** 2 + (yy - y) ** 2 <= (0.4 * s) ** 2) & ~(dark | lit)
    if not face.any():
        return []
    face_lab = np.median(lab[face], axis=0)
    marks = dark if _dark_pips(d, light, face_lab[0], (x0, y0), g) else lit
    pip_r = g * float(np.median([p[2] for p in d.pips])) if d.pips else 0.1 * s
    area = math.pi * pip_r * pip_r
    n, labels, stats, centres = cv2.connectedComponentsWithStats(marks.astype(np.uint8))

    @functools.cache
    def table_ab():
        """The table's Lab a/b round the reading, worked out only when a mark asks (most readings
        have none beyond them); None where the reading's own pips are not round here (a smear or a
        squeeze: a mark's shape tells nothing) or no table is seen."""
        table = ((xx - x) ** 2 + (yy - y) ** 2 >= (TABLE_RING * s) ** 2) & ~(dark | lit)
        if not table.any() or not _own_pips_round(d, labels, stats, (x0, y0), g):
            return None
        return np.median(lab[table][:, 1:], axis=0)

    marks_beyond = []
    for j in range(1, n):
        bw, bh, a = int(stats[j, 2]), int(stats[j, 3]), int(stats[j, 4])
        if not MARK_AREA[0] * area <= a <= MARK_AREA[1] * area or max(bw, bh) > MARK_ELONGATION * max(1, min(bw, bh)):
            continue
        px, py = centres[j]
        along, across = (px - x) * ux + (py - y) * uy, -(px - x) * uy + (py - y) * ux
        if not (BAND[0] * s <= along <= BAND[1] * s and abs(across) <= LATERAL * s):
            continue
        at = (px / g + x0, py / g + y0)
        if any(math.dist(at, o.center) < OTHER_DIE * o.side_px for o in others):
            continue
        r = math.sqrt(a / math.pi)
        d2 = (xx - px) ** 2 + (yy - py) ** 2
        ring = (d2 >= (1.6 * r) ** 2) & (d2 <= (2.6 * r) ** 2) & ~(dark | lit)
        if not ring.any():
            continue
        ring_lab = np.median(lab[ring], axis=0)
        hue_off = math.hypot(ring_lab[1] - face_lab[1], ring_lab[2] - face_lab[2])
        if hue_off > FACE_HUE or ring_lab[0] - face_lab[0] < FACE_LIGHTER:
            continue
        if (ROUND_OR_SAME_HUE_MARKS and hue_off > SAME_HUE and _elongation(_component(labels, stats, j)) > ROUND_MARK
                and table_ab() is not None and math.dist(ring_lab[1:], table_ab()) < hue_off):
            continue  # a streak on a surface of the table's hue, not the face's: the table's grain
        marks_beyond.append(at)
    return marks_beyond


#: a mark counts only when it is round (a top face's pip, seen nearer the vertical than the side
#: face read), or lies on the read face's own hue, or on a surface nearer the face's hue than the
#: table's (the table: the window's outer ring, ``TABLE_RING``); an elongated mark on a surface of
#: the table's hue is its grain, beside a die of about the table's colour (dark red, brown or
#: translucent dice on wood). Merged or smeared pips of a top face are elongated too, but they lie
#: on the die, not the table (the table's-hue clause was added after seeing one such case on the
#: check set, rayphone 6213: a marbled three's merged pips). Found on the first renderer's scenes
#: (dice_render.py): every reading the rule made unreadable there was right (9 of 9 on 440
#: scenes: grain, or a touching neighbour's pips beyond them), where on the ray-marched sets every
#: one was a side face or a wrong value but two. False: every mark of the shape and hue tests above
#: counts (session 26's rule)
ROUND_OR_SAME_HUE_MARKS = True
#: round: the mark's second moments' axes at most this far apart (sqrt of their ratio; a pip
#: seen at 30 degrees is 1.15, a pixelated 5-10 px disc measures 1.1-1.5). Chosen in session 33
#: after looking at the 20 cases above (the marks of the rule's true catches measured 1.1-1.5,
#: the grain's 1.6-4.8)
ROUND_MARK = 1.6
#: the read face's own hue: at most this far in Lab a/b (the true catches' top faces 0-9 from the
#: side face read; the grain round the first renderer's dark dice 11-28). Chosen with ROUND_MARK
SAME_HUE = 10.0
#: the table round the die: the window beyond this many read sides from the reading's centre (the
#: window reaches 1.55; a top face read right ends by 0.71, its side faces by about 1.1)
TABLE_RING = 1.2


def _own_pips_round(d, labels: np.ndarray, stats: np.ndarray, origin: tuple[int, int], g: float) -> bool:
    """Are the reading's own pips round here (their median elongation at most ROUND_MARK)? A smear
    or a squeeze lengthens every pip of the photo, the top face's beyond too: there a mark's shape
    tells nothing (False also when no pip of the reading is found among the marks)."""
    h, w = labels.shape
    found = []
    for px, py, _ in d.pips or ():
        j = labels[min(h - 1, max(0, int(round((py - origin[1]) * g)))), min(w - 1, max(0, int(round((px - origin[0]) * g))))]
        if j:
            found.append(_elongation(_component(labels, stats, int(j))))
    return bool(found) and float(np.median(found)) <= ROUND_MARK


def _component(labels: np.ndarray, stats: np.ndarray, j: int) -> np.ndarray:
    """Component ``j``'s pixels, cut to its bounding box."""
    bx, by, bw, bh = (int(v) for v in stats[j, :4])
    return labels[by:by + bh, bx:bx + bw] == j


def _elongation(blob: np.ndarray) -> float:
    """How elongated a mark is: the square root of its second moments' ratio (1 for a disc)."""
    m = cv2.moments(blob.astype(np.uint8), True)
    a, b, c = m["mu20"], m["mu11"], m["mu02"]
    half, root = (a + c) / 2, math.sqrt(max(0.0, ((a - c) / 2) ** 2 + b * b))
    return math.sqrt((half + root) / max(half - root, 1e-6))


#: the window is looked at with the read side scaled down to at most this many pixels (a pip then
#: 8-10 px across): the cost does not grow with the die's size in pixels (a 270 px die's disc
#: would be 95 px wide at full size)
WORK_SIDE = 48.0


def _dark_pips(d, light: np.ndarray, face_l: float, origin: tuple[int, int], g: float) -> bool:
    """Are ``d``'s pips darker than its face (its pips' centres when known; else a light face)?"""
    if d.pips:
        h, w = light.shape
        values = [float(light[min(h - 1, max(0, int(round((py - origin[1]) * g)))),
                              min(w - 1, max(0, int(round((px - origin[0]) * g))))]) for px, py, _ in d.pips]
        return float(np.median(values)) < face_l
    return face_l >= 128.0
