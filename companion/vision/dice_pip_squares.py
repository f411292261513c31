"""Faces found from their pips: a light die on a light table.

A white, ivory or pastel die on white paper has a top face of the paper's own colour: the face
region the reader grows from the face colour runs out over the table, or (filled to the hull of
the die's shadow and shaded sides) covers only part of the face. Its pips, though, are as clear
as on any die, and a die's pips alone say where its face is: the layout fitted to them (any
rotation and scale) puts the face's centre, size and turn in the image. So here the pips come
first: the marks unlike the table in a region are grouped by distance, each group is fitted to a
layout, and the face is taken as the fitted square; that square (with the face-coloured pixels in
it) is then read by the ordinary face reader, with all its checks (the vacancy check above all:
a part of a larger die, two or three of its pips, leaves marks where the smaller value has none).

A lone pip has no layout to fit: it is read as a one only inside a square of a die's size that
the image's edges outline on three sides (the die's bevel, its shaded sides, its shadow line); a
crumb or a knot in the wood has no such outline round it. Two sides (an L, a light die's shaded sides)
do where the pip is a lone speck of the photo's foreground, no other speck or mark within a die of it.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .dice_layouts import fit_frame
from .dice_crop import crop_lab
from .dice_pips import FACE_PX, FaceReading, Pip, _colour_distance, _consistent, _face_colour, fill_holes, \
    find_pips, read_face

# Pips of one face are at most 0.71 of a side apart (the two of a two, corner to corner; every
# other layout has a neighbour within half a side); pips of two dice apart are farther. The crop
# is scaled from a guess of the die's size, so the reach allows a die 1.2 times the guess.
REACH = 0.85 * FACE_PX
FAR_REACH = 1.5 * FACE_PX  # ... and a second grouping for a die up to twice the guess
# The fitted face's side against the size the crop was scaled for (the guess is from a blob that
# may hold the die's shadow: the die can be much smaller than it, hardly larger).
SIDE_RANGE = (0.5, 2.0)
# The fitted face with this much of a half-side around it must lie in the crop: a die cut by the
# crop's edge shows only some of its pips (two of a four on a diagonal read as a two), and its
# vacancies beyond the edge cannot be checked.
MARGIN = 0.4
# Where the crop's edge is the photo's own edge, the margin is this much of a half-side round the
# fitted face's corners instead: nothing lies beyond that edge to cut a die, only the face must
# lie in the photo for its vacancies to be checked. (The crop round a die near the photo's edge is
# cut there, and a face whose centre lay under 1.4 half-diagonals from it was left unread: a five
# and a two 50-90 px from the photo's edge, light 38 and 11.) A die the photo's edge does cut is
# still not read: its fitted face runs off the photo.
IMAGE_EDGE_MARGIN = 0.1
# ... or rather (PIP_PLACES_IN_PHOTO) the face's pip places, every layout's corner pips at half its
# half-side from its centre each way, must lie in the photo with this much of a half-side round them
# (a pip's radius, about 0.15-0.2, and its rim). The fitted square's corners are no part of the die
# (its corners are rounded) and lie farther out than its face when the pips sit nearer its middle
# than the layouts say: light 3962, a cream four 80 px from the photo's corner, turned 40 degrees,
# its fitted square's corner 1 px from the photo's edge, was left unread. A die the photo's edge
# cuts has a pip place beyond it and is still not read. (False: the corners rule, the old one.)
PIP_PLACES_IN_PHOTO = True
PLACE_ROOM = 0.3
NO_IMAGE_EDGES = (False, False, False, False)  # (left, top, right, bottom): crop edges that are the photo's
# The face level: this many times the region's median distance from its commonest colour, within
# PIP_LEAST and the reader's usual 40 (as dice_pips' faint-pip look: 3 times, at least 8).
PIP_TIMES_SPREAD = 3.0
PIP_LEAST = 8.0
LAYOUT_RMS = {2: 0.08, 3: 0.08}  # twos and threes fit a line too easily (dice_pips allows 0.1)
LAYOUT_RMS_MORE = 0.14


def read_by_pip_squares(crop: np.ndarray, mask: np.ndarray, unfit: bool = False,
                        image_edges: tuple[bool, bool, bool, bool] = NO_IMAGE_EDGES,
                        specks: np.ndarray | None = None) -> list[FaceReading]:
    """The faces in a normalised crop (a die about FACE_PX across, by a guess) whose face colour
    is the table's: the pips within ``mask`` grouped into dice and each group read on its square.
    With ``unfit``, a group of pips that fits no layout is returned too, as an unreadable die (a
    check on other readings; on its own such a group may be any specks). ``image_edges`` says
    which of the crop's edges (left, top, right, bottom) are the photo's own; ``specks`` (crop
    pixels, n x 2) are the centres of the photo's small foreground blobs, pips and crumbs, when known
    (a one outlined on two sides only is read where its pip is a lone one of them)."""
    _, lab = crop_lab(crop)
    inner = cv2.erode(mask, np.ones((5, 5), np.uint8))
    colour = _face_colour(lab, inner if cv2.countNonZero(inner) > 50 else mask)
    dist = _colour_distance(lab, colour)
    dl = lab - colour
    vals = np.clip(dist[mask > 0], 0, 255).astype(np.uint8).reshape(-1, 1)
    if vals.size < 16:
        return []
    otsu, _ = cv2.threshold(vals, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # two levels for the face: the reader's usual one (Otsu, 14..40), and one set by the table's
    # own spread (the region is mostly table), under which a blurred or faint pip still stands out
    levels = [float(np.clip(otsu, 14, 40)), float(np.clip(PIP_TIMES_SPREAD * np.median(vals), PIP_LEAST, 40))]
    edges = edge_map(lab[..., 0])
    best: list[FaceReading] = []
    per_level = []
    for t in levels:
        got = _read_at_level(dist, dl, mask, t, edges, unfit, image_edges, specks)
        per_level.append(got)
        if sum(r.value is not None for r in got) > sum(r.value is not None for r in best):
            best = got
    if LEVELS_BY_PLACE:
        # (the crop may hold several dice, each with its own best level: a face read at the other
        # level where the chosen one read nothing at all is kept)
        best = list(best)
        for got in per_level:
            if got is not best:
                best += [r for r in got if r.value is not None and _apart(r, best)]
    return best


#: the level chosen for a crop is chosen for the faces in it, not for the crop: a face read at the
#: other level, a side or more from every reading (or doubt) of the chosen level, is kept too. The
#: crop round one blob holds its neighbours too, and the level that reads more faces wins the crop
#: whole: light 3178, a cream two beside its side face read only at the table's-spread level (its
#: pips faint), lost to a white three's pips read at the Otsu level in the same crop. (False: one
#: level for the whole crop, the old rule)
LEVELS_BY_PLACE = True
#: ... apart: this many of the larger side between the two readings' centres (two dice side by side
#: lie a side apart; a part of a face read at the other level lies within half a side of the face)
LEVEL_FACES_APART = 1.0


def _apart(r: FaceReading, readings: list[FaceReading]) -> bool:
    """Does ``r`` lie at least LEVEL_FACES_APART sides from each of ``readings``?"""
    return all(math.dist(r.center, o.center) >= LEVEL_FACES_APART * max(r.side, o.side) for o in readings)


def _read_at_level(dist: np.ndarray, dl: np.ndarray, mask: np.ndarray, t: float, edges: np.ndarray,
                   unfit: bool = False, image_edges: tuple[bool, bool, bool, bool] = NO_IMAGE_EDGES,
                   specks: np.ndarray | None = None) -> list[FaceReading]:
    face = ((dist < t) & (mask > 0)).astype(np.uint8) * 255
    face = cv2.morphologyEx(face, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    filled = fill_holes(face)
    marks = find_pips(filled, face, dist, float(FACE_PX), dl)
    # (the pips of one face are alike; two dice's in one crop need not be: PIPS_ALIKE_BY_GROUP)
    pips = [p for g in _groups(marks, REACH, None) for p in _consistent(g)] if PIPS_ALIKE_BY_GROUP \
        else _consistent(marks)
    out = []
    first = [(g, _read_group(g, face, dist, dl, image_edges) if len(g) > 1
              else _read_lone(g[0], face, dist, dl, edges, marks, specks, image_edges))
             for g in _groups(pips)]
    # the guess of the die's size may be short (a blob of the die's shadow alone): the pips of the
    # groups that read nothing are grouped once more at a longer reach; only new groups are read
    unread = [p for g, r in first if r is None or r.value is None for p in g]
    seen = {frozenset(id(p) for p in g) for g, _ in first}
    second = [(g, _read_group(g, face, dist, dl, image_edges)) for g in _groups(unread, FAR_REACH)
              if len(g) > 1 and frozenset(id(p) for p in g) not in seen]
    for group, reading in first + second:
        if reading is not None:
            out.append(reading)
        elif unfit and len(group) > 1:
            x, y = float(np.mean([p.x for p in group])), float(np.mean([p.y for p in group]))
            out.append(FaceReading(None, (x, y), 0.0, float(FACE_PX), f"{len(group)} pips fit no layout"))
    return out


#: the marks are held alike (one size, one contrast: ``_consistent``) group by group, each group of
#: marks within a face's reach of each other, not over the whole crop: a crop round one blob holds
#: its neighbours, whose pips differ in size and contrast by the view and their colours (light 3178:
#: a cream two's faint 65-75 px pips dropped beside a white three's 180 px ones). False: over the
#: whole crop, the old rule.
PIPS_ALIKE_BY_GROUP = True


def _groups(pips: list[Pip], reach: float = REACH, most: int | None = 6) -> list[list[Pip]]:
    """Single-linkage groups of pips within ``reach`` of each other, up to ``most`` pips each
    (None: every group)."""
    n = len(pips)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            if math.hypot(pips[i].x - pips[j].x, pips[i].y - pips[j].y) <= reach:
                parent[root(i)] = root(j)
    groups: dict[int, list[Pip]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(pips[i])
    return [g for g in groups.values() if most is None or len(g) <= most]


def _read_group(group: list[Pip], face: np.ndarray, dist: np.ndarray, dl: np.ndarray,
                image_edges: tuple[bool, bool, bool, bool] = NO_IMAGE_EDGES) -> FaceReading | None:
    value, rms, beta, alpha = fit_frame([complex(p.x, p.y) for p in group])
    if value is None or rms > LAYOUT_RMS.get(value, LAYOUT_RMS_MORE):
        return None
    side = 2 * abs(alpha)
    if not SIDE_RANGE[0] * FACE_PX <= side <= SIDE_RANGE[1] * FACE_PX:
        return None
    corners = [beta + alpha * complex(x, y) for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    if not _in_crop(face.shape, beta, alpha, corners, image_edges):
        return None
    square = np.zeros_like(face)
    cv2.fillConvexPoly(square, np.array([[round(z.real), round(z.imag)] for z in corners], np.int32), 255)
    reading = read_face(cv2.bitwise_and(face, square), dist, dl)
    if reading.value not in (None, value):
        # (the face reader saw other marks on the square: a die seen, but which value is not known)
        return FaceReading(None, reading.center, 0.0, reading.side, f"{len(group)} pips, read as {reading.value}")
    return reading


def _in_crop(shape: tuple[int, int], beta: complex, alpha: complex, corners: list[complex],
             image_edges: tuple[bool, bool, bool, bool]) -> bool:
    """Does the fitted face (centre ``beta``, half-side vector ``alpha``) lie in the crop: within
    :data:`MARGIN` of it from a cut edge, its corners within :data:`IMAGE_EDGE_MARGIN` from the
    photo's own edge?"""
    h, w = shape
    reach = (1 + MARGIN) * abs(alpha) * math.sqrt(2)
    edge = IMAGE_EDGE_MARGIN * abs(alpha)
    if PIP_PLACES_IN_PHOTO:
        # (the pip places, half the corners' reach from the centre, with a pip's room round them)
        corners = [beta + 0.5 * (z - beta) for z in corners]
        edge = PLACE_ROOM * abs(alpha)
    xs, ys = [z.real for z in corners], [z.imag for z in corners]
    left, top, right, bottom = image_edges
    return ((min(xs) >= edge if left else beta.real >= reach)
            and (min(ys) >= edge if top else beta.imag >= reach)
            and (max(xs) < w - edge if right else beta.real < w - reach)
            and (max(ys) < h - edge if bottom else beta.imag < h - reach))


# A die's edge: a lightness gradient this many times the crop's typical one (the crop is mostly
# table, so that is the table's texture and noise); smoothed first over about a pip's rim.
EDGE_TIMES_TYPICAL = 2.5
EDGE_SMOOTH = 1.5
EDGE_SLACK_PX = 3  # an edge this near the square's side counts (the rounded edge is a band)


def edge_map(lum: np.ndarray) -> np.ndarray:
    """Where the crop's lightness changes sharply (a die's edges, bevels, shadow line), widened
    by :data:`EDGE_SLACK_PX`."""
    smooth = cv2.GaussianBlur(lum, (0, 0), EDGE_SMOOTH)
    grad = cv2.magnitude(cv2.Sobel(smooth, cv2.CV_32F, 1, 0), cv2.Sobel(smooth, cv2.CV_32F, 0, 1))
    typical = float(np.percentile(grad, 90)) + 1e-3
    edges = (grad > EDGE_TIMES_TYPICAL * typical).astype(np.uint8)
    k = 2 * EDGE_SLACK_PX + 1
    return cv2.dilate(edges, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))


def square_support(edges: np.ndarray, centre: complex, half: float, turn: float, n: int = 16) -> list[float]:
    """For the square of half-side ``half`` turned ``turn`` radians about ``centre``: the share of
    each side's points (the middle 80 %, clear of the rounded corners) that lie on an edge."""
    h, w = edges.shape
    rot = complex(math.cos(turn), math.sin(turn)) * half
    out = []
    along = np.linspace(-0.8, 0.8, n)
    for side in (1, 1j, -1, -1j):
        pts = centre + rot * side * (1 + 1j * along)
        xs, ys = np.round(pts.real).astype(int), np.round(pts.imag).astype(int)
        ok = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
        out.append(float(edges[ys[ok], xs[ok]].sum()) / n)
    return out


def best_square(edges: np.ndarray, centre: complex) -> tuple[float, float, list[float]]:
    """The square about ``centre`` (half-side, turn) best outlined by edges, and its sides' support."""
    best = (0.0, 0.0, [0.0] * 4)
    for half in np.arange(*HALF_RANGE) * FACE_PX:
        for turn in np.radians(np.arange(0, 90, 5)):
            sup = square_support(edges, centre, float(half), float(turn))
            if sum(sup) > sum(best[2]):
                best = (float(half), float(turn), sup)
    return best


HALF_RANGE = (0.25, 0.71, 0.03)  # half-sides tried for a one's face, in FACE_PX (the crop's guess)
# A one's square must be outlined on three sides (a side is outlined when this share of it is on
# an edge). The lit sides of a light die on a light table often show no edge, but an L of two
# edges also fits the near corner of a larger die round one of its corner pips (tried: it read
# wrong values), so a one outlined only on two sides is left unread, unless its pip is a lone speck
# of the photo's foreground (ONE_SPECK_REACH below).
ONE_SIDE_SUPPORT = 0.6
ONE_SIDES = 3
# No pip-like mark within this many sides of a one's pip: the far pip of a two (0.71 of a side
# away) missed by the grouping, or a neighbour's pip, leaves a pip of a two or of a touching die
# that its outline's edges can still frame (tried: a two read as a one). A one beside a touching
# die is then left unread, not misread.
ONE_CLEAR_SIDES = 1.0
# A one's face round its pip is plain: this share of its square (less the pip) is face colour. A
# square framed round one pip of a larger die takes in its groove, shadow or other pips.
ONE_PLAIN = 0.9


# A one whose pip is a lone speck of the photo's foreground: one speck within ONE_SPECK_REACH of
# its side of the pip, none other within ONE_SPECK_ALONE sides. A light die on a light table shows
# its face the table's colour, open to it on the lit sides, so its pips are specks of their own; a
# pip of a larger die, read alone as a one, has that face's other pips, specks too, within 0.71
# sides. Used here for a one outlined on two adjacent sides only (an L: a light die's shaded sides,
# its lit sides as light as the table), and by dice.py for a one read from a filled blob.
ONE_SPECK_REACH = 0.25
ONE_SPECK_ALONE = 1.0


#: a lone pip's face near the photo's own edge is checked in the photo, as a group's face is
#: (:func:`_in_crop`; False: the crop's margin on every side, the old rule)
LONE_PIPS_AT_PHOTO_EDGE = True


def _an_l(outlined: list[bool]) -> bool:
    """Are exactly two adjacent sides of a square outlined?"""
    return sum(outlined) == 2 and any(outlined[i] and outlined[(i + 1) % 4] for i in range(4))


def lone_speck(centre: complex, side: float, specks: np.ndarray | None, alone_side: float | None = None) -> bool:
    """Is there one speck at ``centre`` (within :data:`ONE_SPECK_REACH` of ``side``) and no other
    within :data:`ONE_SPECK_ALONE` of ``alone_side`` (``side`` when not given) of it?"""
    if specks is None or not len(specks):
        return False
    far = np.hypot(specks[:, 0] - centre.real, specks[:, 1] - centre.imag)
    alone = ONE_SPECK_ALONE * (side if alone_side is None else alone_side)
    return bool((far < ONE_SPECK_REACH * side).sum() == 1 and (far < alone).sum() == 1)


def _like(mark: Pip, pip: Pip) -> bool:
    """Is ``mark`` as pip-like as ``pip`` (not a faint speck of the table's texture)?"""
    return mark is not pip and mark.area >= 0.3 * pip.area and mark.contrast >= 0.4 * pip.contrast


def _read_lone(pip: Pip, face: np.ndarray, dist: np.ndarray, dl: np.ndarray, edges: np.ndarray,
               marks: list[Pip], specks: np.ndarray | None = None,
               image_edges: tuple[bool, bool, bool, bool] = NO_IMAGE_EDGES) -> FaceReading | None:
    """A lone pip, read as a one only inside a square the image outlines: a die's edges round it
    (its bevel, its side faces, its shadow line) on most sides, at a die's size. A crumb or a knot
    has no such square round it; a pip of a larger die has other pips within its reach."""
    centre = complex(pip.x, pip.y)
    half, turn, sup = best_square(edges, centre)
    outlined = [v >= ONE_SIDE_SUPPORT for v in sup]
    framed = sum(outlined) >= ONE_SIDES
    # a one framed by an L only: its speck alone, and clear of marks, as far as a crop's die too (an L
    # framing a corner pip of a larger die fits a square of half that die's side: light 5, a two read as a one)
    l_reach = max(2 * half, float(FACE_PX))
    if half <= 0 or not (framed or (_an_l(outlined) and lone_speck(centre, 2 * half, specks, l_reach))):
        return None
    clear = ONE_CLEAR_SIDES * (2 * half if framed else l_reach)
    if any(_like(m, pip) and 0 < abs(complex(m.x, m.y) - centre) < clear for m in marks):
        return None
    alpha = complex(math.cos(turn), math.sin(turn)) * half
    corners = [centre + alpha * complex(x, y) for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    # (in the crop with a margin, as a group's face; where the crop's edge is the photo's, only its
    # square in the photo: no larger die's pips lie beyond that edge to be missed -- light 11 and 27,
    # ones 56 and 50 px from the photo's edge, were left unread)
    if LONE_PIPS_AT_PHOTO_EDGE:
        if not _in_crop(face.shape, centre, alpha, corners, image_edges):
            return None
    else:
        h, w = face.shape
        reach = (1 + MARGIN) * half * math.sqrt(2)
        if not (reach <= centre.real < w - reach and reach <= centre.imag < h - reach):
            return None
    square = np.zeros_like(face)
    cv2.fillConvexPoly(square, np.array([[round(z.real), round(z.imag)] for z in corners], np.int32), 255)
    on_face = cv2.bitwise_and(face, square)
    if cv2.countNonZero(on_face) < ONE_PLAIN * (cv2.countNonZero(square) - pip.area):
        return None
    reading = read_face(on_face, dist, dl)
    if reading.value not in (None, 1):
        return FaceReading(None, reading.center, 0.0, reading.side, f"a lone pip, read as {reading.value}")
    return reading
