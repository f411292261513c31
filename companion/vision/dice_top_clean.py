"""Two more checks that a tilted die's top face was read from its own pips, not from part of them.

:func:`.dice_side_shade.reads_clean` keeps a top face's reading alone (its side face's dropped)
only when its pips lie on the top face. Two wrong readings pass that test (held out, session 12):

* a two whose second pip neither reading found, read as a one: the one's pip is the two's pip
  by the edge with the side face. A one's pip lies at the middle of its face: the top face's
  region reaches as far beyond the pip as short of it, toward the side face and across
  (:func:`one_at_the_middle`). The region is measured from the photo's pixels, not from the
  reading's square (whose size, for a one, comes from little more than the pip). And a one is
  alone on its face: no other mark like its pip lies in that region (development ray 4665: a clear
  three whose grey corner pips the reader missed, its middle pip read as a one).
* a six whose near row of pips lies on the edge with the side face, read as a four from its
  other two rows: a part of a larger face has the rest of that face's pips beyond it, in line
  with its own rows at its own pitch. A four has no line of marks like its pips there, on the
  top face's colour or at its edge (:func:`no_line_beyond`).

Both look at the photo round the two readings only, so they cost little (they run only for the
pairs the shade rule tells apart: a few per photo at most).

Development pairs (session 13): the top and side faces the shade rule met on the ray-marched sets
0-79, 1000-1119, 2000-2159, 4000-4079, 4200-4259 and the tilted (18-30 degrees) 4300-4599 and
4600-4999, the light sets 0-59, 3100-3129 and the tilted 3200-3399 and 3400-3999, and the first
renderer's 5000-5119; and, from each top face read right, the readings a part of it would give
(its pips nearest the side face as ones, a six's two rows as a four), which the checks must refuse.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

#: a one's pip is at its face's middle when, along each of two lines through it (toward the side
#: face and square to that), the face's reach on one side of the pip is at least this share of its
#: reach on the other. Development pairs (module docstring): the 14 ones read right whose face ends
#: on both lines 0.65-1.0 on both; a two's pip by the edge taken for a one (24 cases, from twos
#: read right) at most 0.36 on the worse line. Set halfway between.
ONE_MIDDLE = 0.5
#: the farthest the walk from a one's pip looks for its face's end, in read sides (of the larger
#: reading): a face open to a table like itself ends nowhere within it, and its one is not clean
ONE_REACH = 1.2
#: a hole in the top face's region round a one counts as a mark like its pip when its area is within
#: this range of the pip's (a smaller speck is noise, a pore of the texture; a larger hole is no pip:
#: a side face enclosed by the top face's lit rim, light 3668, 9 times a pip)
MARK_AREA = (0.3, 3.0)
#: ... and is as dark as a pip (see :data:`MARK_SHARE`) at this percentile of its pixels' L (its
#: core: its rim is the pip's soft edge, half face; light 3699's corner pips, missed by the reader,
#: had medians just past the bar)
MARK_CORE = 25
#: the walk starts this many pip radii out (past the pip's dark disc and its dimple's soft edge)
PIP_CLEAR = 1.5
#: a pixel is of the top face's colour when its Lab chroma (a, b) lies within this of the face's
#: (as :data:`.dice_side_shade.CHROMA_STEP`: an ivory die's faces 13 apart) ...
FACE_CHROMA = 20.0
#: ... and its lightness within half the step from the top face to the side face of the top face's
#: (toward the side face, that is the faces' halfway shade), or this much (Lab L), if more: the
#: face's own shading and noise (a table much lighter than a grey die's face is no face of it)
FACE_SHADE_LEAST = 15.0
#: a place continuing a line of the reading's pips holds a mark like them when its darkest spot
#: (lightest, for light pips) lies this share of the way from the pips' own shade toward the face
#: shade nearest it (for dark pips on a light die, the side face's) or less
MARK_SHARE = 0.5
#: ... looked for within this many pip radii of the place (perspective bends a tilted face's rows)
MARK_SEARCH = 1.0
#: ... and it counts when it lies on the top face or at its edge with the side face: at least this
#: share of a ring round it (``RING`` pip radii) of the top face's colour. Development pairs (module
#: docstring): the 14 fours read right, marks at their places 0-0.28 (side faces' pips, in their
#: darker face); fours made of a six's two rows (8 sixes, either end row left out: 16), the
#: best-marked place 0.46-1.0. Set halfway between.
ON_FACE_OR_EDGE = 0.37
#: the ring round a place, in pip radii (as :data:`.dice_side_shade.RING`)
RING = (1.6, 2.6)
#: a line beyond the four counts when this share of its places hold such marks: one of two (a six's
#: row on the edge may show one pip only, the other lost in the edge's shading: drawn test)
LINE_MARKED = 0.5


class TopFace:
    """The top face's colour (Lab L, a, b) and the step to its side face's shade, to tell its pixels."""

    def __init__(self, img: np.ndarray, top, mid: float | None):
        self.img = img
        colour = self._round_pips(top.pips)
        self.light, self.ab = float(colour[0]), colour[1:]
        if mid is None:
            mid = self.light - FACE_SHADE_LEAST  # (no side face known: the face's own shading only)
        self.shade = max(abs(self.light - mid), FACE_SHADE_LEAST)
        self.side_light = 2 * mid - self.light  # (mid is halfway between the two faces' L)

    def _round_pips(self, pips) -> np.ndarray:
        """The median Lab colour (a, b centred on 0) of the rings round ``pips`` (``RING`` pip
        radii, other pips left out): the top face's own pixels (a disc round the reading's centre
        takes in a six's pips, and a pip by the edge's side face)."""
        H, W = self.img.shape[:2]
        reach = max(RING[1] * p[2] for p in pips) + 2
        x0, y0 = max(0, int(min(p[0] for p in pips) - reach)), max(0, int(min(p[1] for p in pips) - reach))
        x1, y1 = min(W, int(max(p[0] for p in pips) + reach) + 1), min(H, int(max(p[1] for p in pips) + reach) + 1)
        lab = self.lab(x0, y0, x1, y1)
        yy, xx = np.ogrid[y0:y1, x0:x1]
        ring = np.zeros(lab.shape[:2], bool)
        off = np.zeros(lab.shape[:2], bool)
        for px, py, pr in pips:
            d2 = (xx - px) ** 2 + (yy - py) ** 2
            ring |= (d2 >= (RING[0] * pr) ** 2) & (d2 <= (RING[1] * pr) ** 2)
            off |= d2 <= (1.5 * pr) ** 2
        ring &= ~off
        if not ring.any():
            return np.array([0.0, 0.0, 0.0])
        return np.median(lab[ring], axis=0) - np.array([0.0, 128.0, 128.0])

    def lab(self, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        return cv2.cvtColor(np.ascontiguousarray(self.img[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB).astype(np.float32)

    def of_it(self, lab: np.ndarray) -> np.ndarray:
        """Which of the Lab pixels (8-bit Lab, any shape + 3) are of the top face's colour."""
        chroma = np.hypot(lab[..., 1] - 128 - self.ab[0], lab[..., 2] - 128 - self.ab[1])
        return (np.abs(lab[..., 0] - self.light) <= self.shade) & (chroma <= FACE_CHROMA)


def one_at_the_middle(top, side, img: np.ndarray, mid: float) -> bool:
    """Does ``top``, a one, have its pip at the middle of the top face's region (the pixels of its
    colour, :class:`TopFace`) along the line from ``top`` to ``side`` and the line square to it?
    The region ends at the edge with the side face, and elsewhere at the face's edge with the
    table (a darker or lighter table, one of another colour, a rim or shadow). A face whose end is
    not found within reach (a light die on a table like it) is not clean: its middle is not known."""
    if not top.pips:
        return False
    px, py, pr = top.pips[0]
    dx, dy = side.center[0] - top.center[0], side.center[1] - top.center[1]
    norm = math.hypot(dx, dy)
    if norm <= 0:
        return False
    face = TopFace(img, top, mid)
    ex, ey = dx / norm, dy / norm
    reach = ONE_REACH * max(top.side_px, side.side_px)
    for ux, uy in ((ex, ey), (-ey, ex)):
        ahead = face_reach(face, (px, py), (ux, uy), PIP_CLEAR * pr, reach, pr)
        behind = face_reach(face, (px, py), (-ux, -uy), PIP_CLEAR * pr, reach, pr)
        if ahead is None or behind is None or min(ahead, behind) < ONE_MIDDLE * max(ahead, behind):
            return False
    return alone_on_its_face(face, [(px, py, pr)], reach)


def alone_on_its_face(face: TopFace, pips: list[tuple[float, float, float]], reach: float) -> bool:
    """Are the reading's ``pips`` the only marks like them on their face: no other hole in the
    region of the top face's colour round them of about a pip's size (``MARK_AREA``) and, at its
    core, as dark (light, for light pips) as halfway from the pips to the face? The window reaches
    ``reach`` px round the pips' middle (a one's pip).
    (A three whose corner pips the reader missed, read as a one: its middle pip is the face's.)"""
    cx, cy = float(np.mean([p[0] for p in pips])), float(np.mean([p[1] for p in pips]))
    pr = float(np.median([p[2] for p in pips]))
    H, W = face.img.shape[:2]
    x0, y0 = max(0, int(cx - reach)), max(0, int(cy - reach))
    x1, y1 = min(W, int(cx + reach) + 1), min(H, int(cy + reach) + 1)
    lab = face.lab(x0, y0, x1, y1)
    of_it = face.of_it(lab).astype(np.uint8)
    _, labels = cv2.connectedComponents(of_it, connectivity=8)
    yy, xx = np.ogrid[y0:y1, x0:x1]
    ring = np.zeros(of_it.shape, bool)
    near = np.zeros(of_it.shape, bool)  # (the pips' own discs and soft edges)
    core = np.zeros(of_it.shape, bool)
    for px, py, r in pips:
        d2 = (xx - px) ** 2 + (yy - py) ** 2
        ring |= (d2 >= (RING[0] * r) ** 2) & (d2 <= (RING[1] * r) ** 2)
        near |= d2 <= (PIP_CLEAR * r) ** 2
        core |= d2 <= (0.5 * r) ** 2
    ring &= (of_it > 0) & ~near
    if not ring.any():
        return False
    region = (labels == np.bincount(labels[ring]).argmax()).astype(np.uint8)
    filled = region.copy()
    cnts, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(filled, cnts, -1, 1, -1)
    holes = (filled > 0) & (region == 0) & ~near
    pip_l = float(np.median(lab[..., 0][core]))
    bar = pip_l + MARK_SHARE * (face.light - pip_l)
    k, marks, stats, centres = cv2.connectedComponentsWithStats(holes.astype(np.uint8), connectivity=8)
    for j in range(1, k):
        if not MARK_AREA[0] <= stats[j, cv2.CC_STAT_AREA] / (math.pi * pr * pr) <= MARK_AREA[1]:
            continue  # (a speck of noise; or a side face the top face's lit rim encloses)
        if MARKS_PAST_A_LIT_RIM_SKIPPED and pip_l > face.light and _past_a_lit_rim(
                lab[..., 0], (x0, y0), pips, (centres[j][0] + x0, centres[j][1] + y0),
                math.sqrt(stats[j, cv2.CC_STAT_AREA] / math.pi), face.light, pip_l):
            continue  # (a dark die's side face: its pips lie past the lit edge between the faces)
        # (its core's shade, as the pips': a hole's rim is the soft edge of a pip, half face)
        shade = float(np.percentile(lab[..., 0][marks == j], MARK_CORE if pip_l < face.light else 100 - MARK_CORE))
        if (shade <= bar) if pip_l < face.light else (shade >= bar):
            return False
    return True


#: a light pip's face is a dark die's, and its side faces are as dark: the face region runs on into
#: them round the ends of the lit edge between the faces, and a side face's pips become holes in
#: it, taken for marks like the one's pip (development ray 2130, 1033: black dice's ones, read right
#: by the loose look and refused so; session 35). Between a pip and such a mark lies that lit edge,
#: a line as light as a pip; between a face's own pips (a three's middle and corners, a five's)
#: lies only the face. A mark past such a line is no mark of the face. Light pips only: a light
#: face's side faces are shaded, and the region stops at them. False: every mark counts, the old rule
MARKS_PAST_A_LIT_RIM_SKIPPED = True
#: a lit edge is a ridge on the line from the pip to the mark, the line's lightness (averaged across
#: it over a pip's width: a ridge runs across, noise does not) rising to at least this share of the
#: way from the face's lightness to the pip's ... (set after seeing ray 2130: its lit edge 0.40 and
#: 0.44 of the way toward its two side-face pips, single pixels of its dark face's noise up to 0.2)
RIM_SHARE = 0.3
#: ... and falling back from it, on either side, at least this share of the way to the face's
#: lightness: face on both sides, as a thin edge has (a pip's soft halo only falls off, toward the
#: face; ray 2130's edge, beside its side face's pip, falls 0.59 of the way before that pip's halo)
RIM_FALL = 0.5
#: the line is looked along from PIP_CLEAR pip radii out of the pip to this many of the mark's
#: radii short of the mark's middle (past their soft edges: a pip's halo is half face, half pip)
MARK_CLEAR = 1.5


def _past_a_lit_rim(light: np.ndarray, at: tuple[int, int], pips: list[tuple[float, float, float]],
                    mark: tuple[float, float], mark_r: float, face_l: float, pip_l: float) -> bool:
    """Does the straight line from the nearest of ``pips`` to ``mark`` (photo px) cross a lit ridge
    between their soft edges (RIM_SHARE of the way from ``face_l`` to ``pip_l``, Lab L, and
    RIM_FALL; ``light`` is the window's L, its corner at ``at``): a lit edge of the die between the
    pip's face and the mark's?"""
    px, py, pr = min(pips, key=lambda p: math.dist(p[:2], mark))
    length = math.dist((px, py), mark)
    t = np.arange(PIP_CLEAR * pr, length - MARK_CLEAR * mark_r, 0.5)
    if len(t) < 3:
        return False
    ex, ey = (mark[0] - px) / length, (mark[1] - py) / length
    across = np.linspace(-max(1.0, 0.5 * pr), max(1.0, 0.5 * pr), 5)
    xs = np.clip(np.round(px + t[:, None] * ex - across[None, :] * ey).astype(int) - at[0], 0, light.shape[1] - 1)
    ys = np.clip(np.round(py + t[:, None] * ey + across[None, :] * ex).astype(int) - at[1], 0, light.shape[0] - 1)
    line = light[ys, xs].mean(axis=1)
    top = int(np.argmax(line))
    low = line[top] - RIM_FALL * (line[top] - face_l)
    return bool(line[top] >= face_l + RIM_SHARE * (pip_l - face_l)
                and line[:top].size and line[:top].min() <= low and line[top + 1:].size and line[top + 1:].min() <= low)


def face_reach(face: TopFace, at: tuple[float, float], e: tuple[float, float], start: float, reach: float,
                pr: float) -> float | None:
    """How far from ``at`` along ``e`` (px) the photo stays the top face's, starting ``start`` out:
    the first step whose band across the line (a pip across) is mostly not of its colour; None when
    none is within ``reach`` or the photo ends first."""
    H, W = face.img.shape[:2]
    t = np.arange(start, reach, 1.0)
    if len(t) == 0:
        return None
    half = max(1.0, pr)
    s = np.linspace(-half, half, 5)
    xs = at[0] + t[:, None] * e[0] - s[None, :] * e[1]
    ys = at[1] + t[:, None] * e[1] + s[None, :] * e[0]
    x0, y0 = int(max(0, math.floor(xs.min()))), int(max(0, math.floor(ys.min())))
    x1, y1 = int(min(W, math.ceil(xs.max()) + 1)), int(min(H, math.ceil(ys.max()) + 1))
    if x1 <= x0 or y1 <= y0:
        return None
    lab = face.lab(x0, y0, x1, y1)
    xi, yi = np.rint(xs).astype(int) - x0, np.rint(ys).astype(int) - y0
    inside = (xi >= 0) & (xi < x1 - x0) & (yi >= 0) & (yi < y1 - y0)
    band = lab[np.clip(yi, 0, y1 - y0 - 1), np.clip(xi, 0, x1 - x0 - 1)]
    ended = (inside & face.of_it(band)).mean(axis=1) < 0.5
    if not ended.any():
        return None
    first = int(np.argmax(ended))
    if not inside[first].any():
        return None  # (the photo's edge, not the face's)
    return float(t[first])


def no_line_beyond(top, side, img: np.ndarray, mid: float) -> bool:
    """Is there no line of marks like ``top``'s pips just beyond its face, a four's side moved out
    by the square's other side (the rest of a larger face: a six's row by the edge, read as a
    four)? A mark counts on the top face's colour or at its edge with the side face (a side
    face's own pips, inside its darker face, do not)."""
    pips = top.pips
    if not pips or top.value != 4 or len(pips) != 4:
        return True
    pr = float(np.median([p[2] for p in pips]))
    face = TopFace(img, top, mid)
    looks = _Looks(face)
    pip_l = float(np.median([looks.light_at(complex(p[0], p[1]), 0.5 * p[2], np.median) for p in pips]))
    face_l = min((face.light, face.side_light), key=lambda v: abs(v - pip_l))
    dark_pips = pip_l < face_l
    bar = pip_l + MARK_SHARE * (face_l - pip_l)
    for line in _lines_beyond([complex(p[0], p[1]) for p in pips]):
        marked = 0
        for q in line:
            spot = looks.light_at(q, MARK_SEARCH * pr, np.min if dark_pips else np.max, blur=pr)
            if spot is not None and (spot <= bar if dark_pips else spot >= bar) \
                    and looks.share_of_face(q, RING[0] * pr, RING[1] * pr) >= ON_FACE_OR_EDGE:
                marked += 1
        if marked >= LINE_MARKED * len(line):
            return False
    return True


def _lines_beyond(z: list[complex]) -> list[list[complex]]:
    """The places one pitch beyond a four's pips ``z``, side by side of its square: each side's
    two pips moved out by the square's other side."""
    c = sum(z) / len(z)
    ring = sorted(z, key=lambda p: math.atan2((p - c).imag, (p - c).real))
    out = []
    for k in range(4):
        a, b = ring[k], ring[(k + 1) % 4]
        a_back, b_back = ring[(k - 1) % 4], ring[(k + 2) % 4]
        out.append([a + (a - a_back), b + (b - b_back)])
    return out


class _Looks:
    """Lab L and the top face's colour round places of the photo, per small window."""

    def __init__(self, face: TopFace):
        self.face = face

    def _window(self, q: complex, r: float):
        H, W = self.face.img.shape[:2]
        reach = int(r) + 2
        x0, y0 = max(0, int(q.real) - reach), max(0, int(q.imag) - reach)
        x1, y1 = min(W, int(q.real) + reach + 1), min(H, int(q.imag) + reach + 1)
        if x1 <= x0 or y1 <= y0:
            return None
        yy, xx = np.ogrid[y0:y1, x0:x1]
        return self.face.lab(x0, y0, x1, y1), (xx - q.real) ** 2 + (yy - q.imag) ** 2

    def light_at(self, q: complex, r: float, pick, blur: float = 0.0) -> float | None:
        """``pick`` (np.median, np.min, ...) of L within ``r`` px of ``q``, after a box blur of
        ``blur`` px across (noise and texture are no mark)."""
        got = self._window(q, r + blur)
        if got is None:
            return None
        lab, d2 = got
        light = lab[..., 0]
        if blur >= 2:
            k = int(blur) | 1
            light = cv2.blur(light, (k, k))
        disc = d2 <= max(r, 1.0) ** 2
        return float(pick(light[disc])) if disc.any() else None

    def share_of_face(self, q: complex, inner: float, outer: float) -> float:
        """The share of the ring ``inner``..``outer`` px round ``q`` of the top face's colour."""
        got = self._window(q, outer)
        if got is None:
            return 0.0
        lab, d2 = got
        ring = (d2 >= inner ** 2) & (d2 <= outer ** 2)
        return float(self.face.of_it(lab[ring]).mean()) if ring.any() else 0.0
