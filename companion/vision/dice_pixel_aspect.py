"""Photos whose pixels are not square, told by the dice's own pips.

Photo collections and image pipelines often resize a photo to a fixed frame without keeping its
shape (a 4:3 phone photo or a 16:9 webcam frame stretched to 640 x 640): every die's top face is then
a rectangle or a rhombus, its pips ellipses, and the reader's looks, which expect a square face with
round pips, read fewer of them (session 30: 80 development scenes, 97.0 % right as rendered, 90.6 %
with the height squeezed to 0.75).

The stretch is measured on the dice read: a four's or five's pips stand at the corners of a square
(and its middle), so their spread along the photo's x axis equals their spread along its y axis at
any turn of the die; in a stretched photo the ratio of the two spreads is the stretch itself. A
tilted camera foreshortens the top faces too (by the cosine of the tilt, along the tilt's direction):
on those 80 scenes as rendered, the four's and five's ratios lay within 0.91-1.17 for 90 % of them,
up to 1.39 for a die seen at a 30 degree tilt; squeezed to 0.75, 1.21-1.47 for 90 %. So the photo
is taken as stretched only when every four and five agrees on a stretch well beyond a tilt's (house
thresholds below, set on those measurements). Even so a camera tilted 23-30 degrees can foreshorten
every die of a photo alike (development ray 4957: 0.69, 0.84, 0.68), and the photo made square read
whole gave side faces as extra dice there; so the squared reading is asked only about the dice left
unreadable, each taking the value read at its place (:func:`companion.vision.dice.read_dice`).

A squeeze as strong as 16:9 into a square leaves no four or five read (fours read as twos): then the
pips' own shapes measure it (a pip is round on the die), and the photo read whole with square pixels
is taken only when its fours and fives come out square. And since a tilted camera in a photo's own
frame can look like a stretch, a stretch is looked for only in a square frame (collections stretch
into squares; a camera's frame is 4:3 or 16:9). Measured: docs/dice-camera.md, twenty-ninth round.

When neither tells a squeeze and the pips read are not round (or too few to say), the photo is read
again at the stretches of the camera frames squeezed into a square, and the first squared reading
with more dice, round pips and square fours is taken (:data:`CAMERA_FRAMES_TRIED`; thirty-first round).
"""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

#: the least stretch (the larger spread over the smaller, of a four's or five's pips) taken as the
#: photo's rather than the die's: beyond the tilt's foreshortening seen on most dice (up to 1.17)
STRETCH_MIN = 1.2
#: one die alone must show more: a die at a 30 degree tilt showed 1.39 and 1.32 (ray 4312), but
#: tilts that steep are rare and a stretched photo's dice lie at 1.2-1.5; a lone die needs this much
STRETCH_ALONE_MIN = 1.25
#: every four and five of the photo must show a stretch of the same sense, at least this large:
#: a tilt foreshortens some dice and not others (towards the tilt), a stretch every die alike
STRETCH_EACH_MIN = 1.1
#: no stretch beyond this is mended (a 16:9 frame squeezed into a square is 1.78)
STRETCH_MAX = 2.5


#: a frame this close to square (its sides' ratio) is taken for one a photo may have been stretched
#: into; other frames are taken as the camera's own, with square pixels
SQUARE_FRAME_TOLERANCE = 0.01


def square_frame(width: int, height: int) -> bool:
    """A photo frame one may have stretched a photo into (a square; a part cut from a photo, such as a
    dice tray's region, is judged by the whole photo's frame)."""
    return abs(width - height) <= SQUARE_FRAME_TOLERANCE * max(width, height)


def layout_stretch(pips) -> float | None:
    """x spread over y spread of a four's or five's pip centres (1.0 on square pixels)."""
    if pips is None or len(pips) < 4:
        return None
    p = np.array([q[:2] for q in pips], float)
    p -= p.mean(axis=0)
    vx, vy = float((p[:, 0] ** 2).mean()), float((p[:, 1] ** 2).mean())
    if vx <= 0 or vy <= 0:
        return None
    return math.sqrt(vx / vy)


def _fours_and_fives(dice) -> list[float]:
    """The layout stretch of every four and five read with its pips."""
    return [r for r in (layout_stretch(d.pips) for d in dice if d.value in (4, 5)) if r is not None]


def photo_stretch(dice, least: float = STRETCH_MIN, alone_least: float = STRETCH_ALONE_MIN) -> float | None:
    """The photo's stretch (x over y) when its fours and fives agree on one of at least ``least``
    (``alone_least`` for a lone one); else None."""
    ratios = _fours_and_fives(dice)
    if not ratios:
        return None
    logs = [math.log(r) for r in ratios]
    if not (all(v >= math.log(STRETCH_EACH_MIN) for v in logs) or all(v <= -math.log(STRETCH_EACH_MIN) for v in logs)):
        return None
    middle = float(np.median(logs))
    least = math.log(least if len(ratios) > 1 else alone_least)
    if not least <= abs(middle) <= math.log(STRETCH_MAX):
        return None
    return math.exp(middle)


def squared(image: np.ndarray, stretch: float) -> tuple[np.ndarray, float, float]:
    """The image with square pixels (the squeezed axis enlarged), and the x and y scales applied."""
    H, W = image.shape[:2]
    sx, sy = (1.0, stretch) if stretch > 1 else (1.0 / stretch, 1.0)
    return cv2.resize(image, (round(W * sx), round(H * sy)), interpolation=cv2.INTER_CUBIC), sx, sy


def back_to_photo(dice, sx: float, sy: float):
    """Dice read on the squared image, placed in the photo given (sizes along its unscaled axis)."""
    out = []
    for d in dice:
        pips = None if d.pips is None else tuple((x / sx, y / sy, r / math.sqrt(sx * sy)) for x, y, r in d.pips)
        seen_at = None if getattr(d, "seen_at", None) is None else (d.seen_at[0] / sx, d.seen_at[1] / sy)
        out.append(replace(d, center=(d.center[0] / sx, d.center[1] / sy), pips=pips, seen_at=seen_at))
    return out


def unread_told_by(dice, again):
    """``dice`` with each unreadable die replaced by the nearest reading of ``again`` with a value
    within half a side of it (each used once); the dice read, and places with no die, left as they are."""
    out, used = [], set()
    for d in dice:
        if d.value is None:
            side = max(d.side_px, 1.0)
            # (a report moved to its top face answers at its first place too: dice_pips_beyond)
            places = [d.center] + ([d.seen_at] if getattr(d, "seen_at", None) is not None else [])
            near = sorted((min(math.dist(a.center, p) for p in places), k)
                          for k, a in enumerate(again) if a.value is not None and k not in used)
            near = [(dist, k) for dist, k in near if dist < 0.5 * max(side, again[k].side_px)]
            if near:
                used.add(near[0][1])
                out.append(again[near[0][1]])
                continue
        out.append(d)
    return out


# ---------------------------------------------------------------- a squeeze too strong to read fours

#: the least stretch of the pips' own shapes taken as the photo's: squeezed 16:9 into a square (1.78)
#: no four or five is read to measure by, and the fours read as twos; a pip is round on the die, and on
#: 80 development scenes as rendered the median pip of a photo measured 0.74-1.30 (a tilt foreshortens
#: pips too), squeezed 16:9 1.45-1.97 in most (house threshold set on those)
PIP_SHAPE_MIN = 1.4
#: the least number of pips measured for their shapes to speak for the photo (squeezed 16:9, the
#: reader reads few: 0-5 on most of those 80 scenes; the squared reading must then show square fours)
PIP_SHAPE_LEAST = 3
#: a squared reading is taken whole only when its fours and fives are square to within this
SQUARED_LAYOUT_MAX = 1.15


def pip_window(gray: np.ndarray, x: float, y: float, R: int) -> tuple[np.ndarray, float, float] | None:
    """The (2R+1)-square window of ``gray`` round the pip at (x, y) as float32, its rim's median level
    and its middle's mean (3 x 3), or None where the window leaves the photo. (Shared by the pips'
    shape here and their smear, :func:`.dice_motion.pip_smear`.)"""
    x0, y0 = int(round(x)) - R, int(round(y)) - R
    if x0 < 0 or y0 < 0 or x0 + 2 * R + 1 > gray.shape[1] or y0 + 2 * R + 1 > gray.shape[0]:
        return None
    win = gray[y0:y0 + 2 * R + 1, x0:x0 + 2 * R + 1].astype(np.float32)
    rim = float(np.median(np.concatenate([win[0], win[-1], win[:, 0], win[:, -1]])))
    middle = float(win[R - 1:R + 2, R - 1:R + 2].mean())
    return win, rim, middle


def pip_shape(gray: np.ndarray, x: float, y: float, r: float) -> float | None:
    """x spread over y spread of the pip at (x, y) of radius ``r`` in ``gray`` (a round pip: 1.0),
    the pip cut from its window by the level halfway between its middle and the window's rim."""
    R = max(3, int(round(2.2 * r)))
    cut = pip_window(gray, x, y, R)
    if cut is None:
        return None
    win, rim, middle = cut
    level = (rim + middle) / 2
    inside = (win < level) if middle < rim else (win > level)
    _, labels = cv2.connectedComponents(inside.astype(np.uint8))
    if labels[R, R] == 0:
        return None
    m = cv2.moments((labels == labels[R, R]).astype(np.uint8), True)
    if m["m00"] < 4 or m["mu20"] <= 0 or m["mu02"] <= 0:
        return None
    return math.sqrt(m["mu20"] / m["mu02"])


#: two pips measured suffice (a 16:9 frame squeezed into a square reads few pips: 0-2 on 40 of 80
#: development scenes; the squared reading must still show square fours and fives to be taken)
#: (False: ``PIP_SHAPE_LEAST``, as session 30; set after seeing those scenes, session 31)
TWO_PIPS_TELL_A_SQUEEZE = True
#: the least number of pips measured when ``TWO_PIPS_TELL_A_SQUEEZE``
PIP_SHAPE_LEAST_TWO = 2


def _least_pips() -> int:
    return PIP_SHAPE_LEAST_TWO if TWO_PIPS_TELL_A_SQUEEZE else PIP_SHAPE_LEAST


def pips_stretch(image: np.ndarray, dice) -> float | None:
    """The photo's stretch (x over y) from the shapes of the pips read, when they show a strong one."""
    pips = [p for d in dice if d.pips for p in d.pips]
    if len(pips) < _least_pips():
        return None  # (before the photo's grey copy: most photos end here or earlier)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    shapes = [s for s in (pip_shape(gray, *p) for p in pips) if s is not None]
    if len(shapes) < _least_pips():
        return None
    middle = float(np.median(shapes))
    if not math.log(PIP_SHAPE_MIN) <= abs(math.log(middle)) <= math.log(STRETCH_MAX):
        return None
    return middle


def squared_layouts_square(dice) -> bool:
    """At least one four or five read, and every one square to within ``SQUARED_LAYOUT_MAX``."""
    ratios = _fours_and_fives(dice)
    return bool(ratios) and all(abs(math.log(r)) <= math.log(SQUARED_LAYOUT_MAX) for r in ratios)


# ---------------------------------------------------------------- no squeeze measured: the camera's frames tried

#: a square photo whose squeeze the dice read cannot tell (no four or five, under two pips measured:
#: 20 of 80 development scenes squeezed 16:9 into a square), or whose squared reading shows no four
#: or five to check it by, is read again at the stretches a camera's frame squeezed into a square
#: shows, and the reading taken that reads more dice with round pips and square fours (session 32;
#: False: such a photo is read as given)
CAMERA_FRAMES_TRIED = True
#: the stretches (x over y) of 16:9, 3:2 and 4:3 frames squeezed into a square, each way; the
#: strongest first (it costs the most right readings when not undone)
CAMERA_FRAME_STRETCHES = (9 / 16, 16 / 9, 2 / 3, 3 / 2, 3 / 4, 4 / 3)
#: pips are round when the median of their shapes lies within this of 1 (a camera tilted 30 degrees
#: foreshortens a pip by 1.15; squeezed 4:3 a round pip measures 1.33)
ROUND_PIPS_MAX = 1.2
#: the least pips measured for a reading's pips to count as round
ROUND_PIPS_LEAST = 2


def pip_shapes(image: np.ndarray, dice) -> list[float]:
    """The shape (x over y spread) of every pip read in ``dice`` that could be measured."""
    pips = [p for d in dice if d.pips for p in d.pips]
    if not pips:
        return []
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return [s for s in (pip_shape(gray, *p) for p in pips) if s is not None]


def pips_round(shapes: list[float]) -> bool:
    """Enough pips measured, their median shape round."""
    return len(shapes) >= ROUND_PIPS_LEAST and abs(math.log(float(np.median(shapes)))) <= math.log(ROUND_PIPS_MAX)


def camera_frames(measured: float | None) -> list[float]:
    """The camera frames' stretches to try: those of the measured stretch's sense when the pips told one."""
    if measured is None:
        return list(CAMERA_FRAME_STRETCHES)
    return [s for s in CAMERA_FRAME_STRETCHES if (s > 1) == (measured > 1)]


def read_count(dice) -> int:
    return sum(d.value is not None for d in dice)


def squared_reading_sound(shapes: list[float], dice, first) -> bool:
    """A squared reading to take whole: more dice read than ``first``, its pips round, and every
    four and five it read square."""
    if read_count(dice) <= read_count(first) or not pips_round(shapes):
        return False
    return all(abs(math.log(r)) <= math.log(SQUARED_LAYOUT_MAX) for r in _fours_and_fives(dice))
