"""Reading one die: its top face, the pips on it, and which of the six layouts they make.

Works on a crop normalised so the die is about :data:`FACE_PX` pixels across, whatever the photo's
scale. The top face is the largest region of one colour in the crop; pips are the holes in it
(so darker and lighter pips are found the same way); the pips must then fit one of the canonical
layouts of 1..6 under a similarity transform (any rotation, any scale), or the die is unreadable.
A tilted die's side face joined to the top face lends it foreshortened pips, which are told from
the top face's and left out (:mod:`.dice_side_faces`); pips are found and sifted in
:mod:`.dice_pip_finding`; a face that reads nothing so is looked at for blobs (:mod:`.dice_face_blobs`).
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

from .dice_bitten_pip import read_with_a_bitten_pip
from .dice_face_blobs import BLOB_CONFIDENCE, read_face_blobs
from .dice_pip_templates import read_blurred_face
from .dice_face_reading import FACE_PX, FaceReading, face_px, fill_holes, quick_look
from .dice_top_face import read_ace_by_its_shade
from .dice_layouts import LAYOUTS, fit_frame, fit_layout, square_aspect
from .dice_one_middle import at_its_face_middle, off_its_face_middle
from .dice_one_face import (SIDE_FACE_PIP_DOUBT, UNLIKE_PIPS_DOUBTED, a_column_of_more, a_side_face_pip_among,
                            on_one_shade, painted_alike, side_face_marks, side_face_pips_among)
from .dice_pip_finding import Pip, _consistent, face_hull, find_pips, split_touching_pips
from .dice_quick_stats import median_of
from .dice_side_faces import alike_marks_beside, beyond_the_face, ends_at_its_edges, pips_alike, side_face_pips
from .dice_missing_pips import read_missing_pips, read_no_part
from .dice_marks import (_agrees_with_face, _dropped_blob_on_a_pip_place, _could_be_more, _rect_frame,
                         marks_on_the_corners, other_kind_on_a_place,
                         _square_covered, _vacancies_empty, alpha_angle, plain_mark)

__all__ = ["BLOB_CONFIDENCE", "FACE_PX", "LAYOUTS", "FaceReading", "Pip", "_consistent", "_could_be_more",
           "_vacancies_empty", "face_hull", "fill_holes", "find_pips", "fit_frame", "fit_layout", "read_face",
           "read_face_blobs", "split_touching_pips"]


def _colour_distance(lab: np.ndarray, colour: np.ndarray) -> np.ndarray:
    d = lab - colour
    return np.sqrt(0.6 * d[..., 0] ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)


def _face_colour(lab: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The commonest colour among the masked pixels (a coarse 3-D histogram's fullest bin)."""
    px = lab[mask > 0]
    if len(px) == 0:
        return np.array([128, 128, 128], np.float32)
    q = np.clip((px / 16).astype(np.int32), 0, 15)
    keys = q[:, 0] * 256 + q[:, 1] * 16 + q[:, 2]
    counts = np.bincount(keys, minlength=4096).reshape(16, 16, 16).astype(np.float32)
    # smooth the histogram so a colour on a bin border is not split in two
    counts = cv2.GaussianBlur(counts.reshape(16, 256), (3, 3), 0).reshape(16, 16, 16)
    k = int(np.argmax(counts))
    centre = np.array([k // 256, (k // 16) % 16, k % 16], np.float32) * 16 + 8
    near = np.sqrt(((px - centre) ** 2).sum(axis=1)) < 24
    return px[near].mean(axis=0) if near.sum() > 10 else centre


def fit_with_outliers(pips: list[Pip]) -> tuple[int | None, float, complex, float, list[Pip]]:
    """Fit a layout; if all pips do not fit, drop up to two that lie outside the fitted face.

    Pips outside the face are side-face pips of a tilted die or specks on the table; a pip inside
    the fitted face is never dropped (that could turn a six with a missed pip into a four).
    Of the ways to drop that fit equally well -- any two pips fit a two exactly -- the one whose
    pips are the least squeezed is kept (:data:`TIES_BY_ROUNDEST`): a tilted die's top face is
    the face seen most squarely, its side faces' pips are foreshortened.
    """
    value, rms, centre, half = fit_layout([complex(p.x, p.y) for p in pips])
    if value is not None and rms <= 0.16:
        return value, rms, centre, half, pips
    best = (None, math.inf, complex(0, 0), 0.0, pips)
    best_key = (math.inf, math.inf)
    for drop in (1, 2):
        if len(pips) - drop < 2:  # (a two or three kept must still match the face: read_face checks)
            break
        for keep in itertools.combinations(range(len(pips)), len(pips) - drop):
            sub = [pips[i] for i in keep]
            v, r, c, hf = fit_layout([complex(p.x, p.y) for p in sub])
            if v is None or r > (0.08 if v in (2, 3) else 0.16):
                continue
            key = (round(r, 3), max(p.aspect for p in sub) if TIES_BY_ROUNDEST else 0.0)
            if key >= best_key:
                continue
            dropped = [pips[i] for i in range(len(pips)) if i not in keep]
            if all(max(abs(q.real), abs(q.imag)) > DROPPED_OUTSIDE for q in
                   ((complex(p.x, p.y) - c) / max(hf, 1e-6) * _unrot(sub, c) for p in dropped)):
                best, best_key = (v, r, c, hf, sub), key
        if best[0] is not None:
            return best
    return value, rms, centre, half, pips


#: of the ways to drop pips that fit equally well (rms to 0.001; any two pips fit a two exactly),
#: the one whose most squeezed pip is the least squeezed is kept (False: the first found, the old
#: rule -- ray 31: a side face's two pips, aspect 1.78 and 1.54, kept before the top face's, 1.16
#: and 1.22). (Tried first and dropped: the face nearest the crop's die in size -- a two whose pips
#: sit 0.3 of a side from the middle fits a face 1.2 times the die, and ray 1067's top-face two
#: lost to a pair of a top-face pip and a side-face pip that fit 1.03 times it.)
TIES_BY_ROUNDEST = True
#: a pip may be dropped only this far out of the fitted face, at least (half-sides, Chebyshev, in the
#: face's frame: its edges at 1). The layouts put a two's pips at 0.5; dice put them at 0.48-0.6
#: (0.24-0.30 of a side from the middle), so the fitted face is up to 1.2 times the real one, whose
#: edge then lies at 0.83: a side face's pip just past it measured 0.99 and 1.02 (ray 44, 31).
DROPPED_OUTSIDE = 0.9


def _unrot(sub: list[Pip], centre: complex) -> complex:
    """The rotation that takes the face's axes to x/y (from the pip farthest from the centre)."""
    far = max(sub, key=lambda p: abs(complex(p.x, p.y) - centre))
    d = complex(far.x, far.y) - centre
    if abs(d) < 1e-6:
        return complex(1, 0)
    # corner pips sit on the diagonals: rotate the farthest one onto 45 degrees
    return complex(math.cos(math.pi / 4), math.sin(math.pi / 4)) / (d / abs(d))


def read_face(face: np.ndarray, dist: np.ndarray, dl: np.ndarray | None = None,
              filled: np.ndarray | None = None) -> FaceReading:
    """Read one top face given its mask (uint8 0/255, face colour only), the colour distance from
    the face colour and (optional) the Lab offset from it.

    If the face does not read, and its pips agree on a colour clearly unlike the face (red pips on
    a black die), it is read once more looking only for that colour: glare, which is white, then
    neither hides a pip it touches nor counts as one. ``filled``: ``fill_holes(face)``, if the caller
    has it already.
    """
    if quick_look():  # (a full read follows where this one is unsure: the kinder looks are left to it)
        return _read_face_once(face, dist, dl, marks=_FirstMarks(face, dist, dl), filled=filled)
    got = _read_face_colours(face, dist, dl, filled)
    if got.value is None and dl is not None and dl.ndim == 3 and BLOB_LOOK:
        blobs = read_face_blobs(face, dl)
        if blobs is not None:
            return blobs
    if got.value is None and dl is not None and dl.ndim == 3 and TEMPLATE_LOOK and not got.reason.startswith(_DOUBTS):
        # (a face with a doubtful mark is not given this kinder look either)
        blurred = read_blurred_face(face, dl)
        if blurred is not None:
            return blurred
    if got.value is None and MISSING_PIPS_LOOK and dl is not None and dl.ndim == 3 \
            and got.reason.startswith(("2 pips off layout", "3 pips off layout")) and got.face_mask is not None:
        completed = _completed_by_its_missing_pips(face, got.face_mask, dist, dl)
        if completed is not None:
            return completed
    if got.value is None and PARTS_DISPROVED and dl is not None and dl.ndim == 3 and got.face_mask is not None \
            and got.reason.startswith(("2 pips off layout", "3 pips off layout")) \
            and got.reason.endswith(": not along the face's diagonal)"):
        side = math.sqrt(max(float(cv2.countNonZero(got.face_mask)), 1.0))
        pips = _consistent(find_pips(got.face_mask, face, dist, side, dl))
        pips = fit_with_outliers(pips)[4] if len(pips) >= 2 else pips
        alone = read_no_part(got.face_mask, dl, dist, pips, len(pips) >= 2 and pips_alike(pips))
        if alone is not None:
            return alone
    return got


#: a two or three refused only as perhaps a part of a larger face (like marks beside it: a tilted
#: die's side-face pips) is read when its own empty places are plain and every larger layout taking
#: its pips in has a plain place on the face (:func:`.dice_missing_pips.read_no_part`). False: the old reader
PARTS_DISPROVED = False


#: a face whose two or three pips make no layout (a part of a face) is read when exactly one
#: larger layout taking them in has a pip at each of its other places (:mod:`.dice_missing_pips`:
#: a marbled die's veins take pips in). Development right 3,506 -> 3,512, nothing else changed;
#: the lead's held-out dice (2,915) two unread -> right, nothing else. False: the old reader
MISSING_PIPS_LOOK = True


def _completed_by_its_missing_pips(face: np.ndarray, filled: np.ndarray, dist: np.ndarray,
                                   dl: np.ndarray) -> FaceReading | None:
    """The refused face's pips (as ``_read_face_once`` took them) completed to a larger layout."""
    side = math.sqrt(max(float(cv2.countNonZero(filled)), 1.0))
    pips = _consistent(find_pips(filled, face, dist, side, dl))
    if len(pips) >= 2:
        pips = fit_with_outliers(pips)[4]
    return read_missing_pips(filled, dl, dist, pips)


#: a face that read nothing is looked at once more for its pips as blobs (False: the old reader)
BLOB_LOOK = True
#: ... and, failing that, matched against the six layouts blurred (:mod:`.dice_pip_templates`)
TEMPLATE_LOOK = True


class _FirstMarks:
    """The marks the first look found on the face region (``find_pips``), kept for the later looks
    at the same region, which ask for them again with the same arguments (up to three more times
    on a face that does not read at once: 0.5-1.5 ms each)."""

    def __init__(self, face: np.ndarray, dist: np.ndarray, dl: np.ndarray | None):
        self.face, self.dist, self.dl = face, dist, dl
        self.filled: np.ndarray | None = None
        self.side = math.nan
        self.raw: list[Pip] = []

    def of(self, filled: np.ndarray, side: float) -> list[Pip]:
        """``find_pips(filled, face, dist, side, dl)``."""
        if filled is self.filled and side == self.side:
            return list(self.raw)
        return find_pips(filled, self.face, self.dist, side, self.dl)


def _read_face_colours(face: np.ndarray, dist: np.ndarray, dl: np.ndarray | None = None,
                       filled: np.ndarray | None = None) -> FaceReading:
    """:func:`read_face` by the face colour: pips are the holes in the face region."""
    marks = _FirstMarks(face, dist, dl)
    first = _read_face_once(face, dist, dl, marks=marks, filled=filled)
    if first.value is None and first.reason == "no pips":
        faint = _read_faint_pips(first.face_mask, dist, dl)
        if faint is not None and faint.value is not None:
            return faint
    if first.value is not None or dl is None or dl.ndim != 3:
        return first
    unglared = _read_past_glare(face, dist, dl, first.face_mask, marks)
    if unglared is not None and unglared.value is not None:
        return unglared
    if first.reason.startswith(_DOUBTS):
        return first  # (a face with a doubtful mark is not given a second, kinder look)
    filled = first.face_mask
    whole_side = math.sqrt(max(cv2.countNonZero(filled), 1))  # (_marks_of's)
    pips = _consistent(marks.of(filled, whole_side))
    if len(pips) < 2:
        return (ACE_BY_SHADE_LOOK and read_ace_by_its_shade(filled, marks.of(filled, whole_side), dl)) or first
    ref = np.median(np.array([p.colour for p in pips]), axis=0).astype(np.float32)
    n = float(np.linalg.norm(ref))
    if n < 30:
        return first
    coloured = float(np.linalg.norm(ref[1:])) >= 20  # red pips; else white or black ones
    closeness = np.sqrt(((dl - ref) ** 2).sum(axis=2))
    pipish = (closeness < (0.5 if coloured else 0.3) * n) & (filled > 0)
    face2 = ((filled > 0) & ~pipish).astype(np.uint8) * 255
    second = _read_face_once(face2, np.clip(n - closeness, 0, None).astype(np.float32), dl)
    if second.value is None and EDGE_PIPS_LOOK:
        # pips on the face's edge: the shaded bevel between the face and a side face, not of the
        # face's colour either, runs into them and makes them ragged blobs; within the face's hull
        # only the pips' own colour is taken for pip, so they are read by their cores
        region = cv2.bitwise_or(filled, face_hull(face)) > 0
        pipish = (closeness < (0.5 if coloured else 0.3) * n) & region
        face3 = (region & ~pipish).astype(np.uint8) * 255
        edge = _read_face_once(face3, np.clip(n - closeness, 0, None).astype(np.float32), dl)
        if edge.value is not None and edge.value >= EDGE_PIPS_LEAST:
            second = edge
    if second.value is None and BITTEN_PIP_LOOK:
        # a corner pip bitten out of the face region's edge (defocus runs it into the rim): the
        # other pips make no layout; completed by its missing place (:mod:`.dice_bitten_pip`)
        bitten = read_with_a_bitten_pip(face, filled, dist, dl, _judge)
        if bitten is not None:
            return bitten
    if second.value == 1 and _marks_beside(marks.of(filled, float(first.side)), second.center,
                                           second.side):
        return first  # (a glare spot read as a one, the real pips left out of the second look)
    if second.value is None and ACE_BY_SHADE_LOOK:
        return read_ace_by_its_shade(filled, marks.of(filled, whole_side), dl) or first
    return second if second.value is not None else first


#: a face whose pips make no layout is read with one pip more at the layout's one empty place on
#: the face's edge, if a disc of the pips' colour is there. OFF: on development ray 2070 it read a
#: white five as a four (three of its pips in an L, the fourth corner put on the shaded side face,
#: as dark as the black pips); kept, off, for a next round (a disc of the pips' colour must be a
#: round mark, not a part of a larger dark region)
BITTEN_PIP_LOOK = False
EDGE_PIPS_LOOK = True  # (False: no look at the pips' cores within the face's hull)
#: the least value the look at the pips' cores may read: a two or three fits any two or three of
#: a larger face's pips, and a face whose pips run into its rim has lost some (dev seeds 1040 and
#: 3002: a four and a six read as twos so; the look's right readings were fours to sixes but one)
EDGE_PIPS_LEAST = 4
ACE_BY_SHADE_LOOK = True  # (False: no look at the top face by the shade round a lone large pip)


FAINT_TIMES_FACE = 3.0  # a blurred pip's mark: this many times the face's own median colour distance
FAINT_LEAST = 8.0  # ... and never under this (Lab units): the face's texture and noise stay face
#: a face region whose median distance from its own colour is over this is no face of one colour:
#: no faint look (faces that read so measured 3-7; a blurred die's halo taken for a face, 26)
FAINT_FLAT = 12.0


def _read_faint_pips(filled: np.ndarray | None, dist: np.ndarray, dl: np.ndarray | None) -> FaceReading | None:
    """A face with no pips at the reader's threshold, read once more at one set by the face's own
    spread: defocus or motion blur spreads a small pip into the face around it until it is only
    faintly unlike it (the threshold, chosen to keep pips apart from the face's shading, then
    takes it for face). The layout fit and the vacancy checks still judge what is found, the
    fitted face's size and cover against the whole face region (:data:`FAINT_EXTENT`); failing
    that level, the face region's own split is tried (:data:`FAINT_OWN_SPLIT`)."""
    if filled is None or cv2.countNonZero(filled) < 0.45 * face_px() * face_px():
        return None
    inside = dist[filled > 0]
    spread = float(np.median(inside))
    if spread > FAINT_FLAT:
        return None  # (no face of one colour: a blurred die's halo round its face, marbling)
    level = max(FAINT_LEAST, FAINT_TIMES_FACE * spread)
    got = _read_at_level(filled, dist, dl, level)
    if (got is None or got.value is None) and FAINT_OWN_SPLIT:
        # the face and its pips, split where the region's own distances part in two: blurred
        # light pips on a light face stand 10-30 from it, and at the spread's level the shading
        # of its rim runs into its corner pips (dev 4022: a light blue four, split at 12, not 8)
        inside8 = np.clip(inside, 0, 255).astype(np.uint8).reshape(-1, 1)
        otsu, _ = cv2.threshold(inside8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        if level < otsu < FAINT_SPLIT_MOST:
            again = _read_at_level(filled, dist, dl, float(otsu))
            if again is not None and (got is None or again.value is not None):
                got = again
    if (got is None or got.value is None) and FAINT_LADDER and \
            cv2.countNonZero(filled) <= FAINT_LADDER_MOST * face_px() * face_px():
        plateau = _read_on_a_plateau(filled, dist, dl, level)
        if plateau is not None:
            got = plateau
    return got


#: a faint look that reads nothing at the spread's level or at the region's own split tries the
#: levels under the spread's, a ladder of FAINT_STEP apart from FAINT_LEAST, and takes a value that
#: the face holds over FAINT_PLATEAU levels in a row with no other value read on the ladder (False:
#: no ladder). The face's spread counts its rim's shading, marbling and the pips themselves, so
#: three times it can lie above faint pips' own step (dev ray 4981, a translucent red four, spread
#: 9, level 27: its white pips read at 10-16; light 53, a light blue marbled four, level 23: read
#: at 10-14); a layout held over a range of levels is the face's, not a level's accident
FAINT_LADDER = True
FAINT_STEP = 2.0  # Lab units between the ladder's levels (the face threshold's noise: about 2)
FAINT_PLATEAU = 3  # levels in a row one value must hold (4 Lab units: no one level's accident)
#: the ladder is tried on a region of one die at most (in FACE_PX squares: the crop read's own bound
#: for a region read as one face); larger ones are the table or a halo round dice, and cost most
FAINT_LADDER_MOST = 1.6


def _read_on_a_plateau(filled: np.ndarray, dist: np.ndarray, dl: np.ndarray | None,
                       top: float) -> FaceReading | None:
    """The value read alone over FAINT_PLATEAU or more ladder levels in a row under ``top``: the
    reading at the middle of its longest run, or None (no such run, or two values on the ladder)."""
    levels = np.arange(FAINT_LEAST, top, FAINT_STEP)
    readings: list[FaceReading | None] = [None] * len(levels)
    # every other level first: a run of FAINT_PLATEAU (3) levels holds one of them, so a ladder
    # whose every other level reads nothing holds no plateau (most faces looked at so: halving it)
    for order in (range(0, len(levels), 2), range(1, len(levels), 2)):
        for i in order:
            readings[i] = _read_at_level(filled, dist, dl, float(levels[i]))
        read = {r.value for r in readings if r is not None and r.value is not None}
        if len(read) != 1:
            return None  # (nothing read, or the face's marks make two values at two levels: no plateau)
    values = [r.value if r is not None else None for r in readings]
    best, run, start = (0, 0), 0, 0
    for i, v in enumerate(values):
        if v is None:
            run = 0
            continue
        if run == 0:
            start = i
        run += 1
        best = max(best, (run, start))
    run, start = best
    if run < FAINT_PLATEAU:
        return None
    return readings[start + run // 2]


def _read_at_level(filled: np.ndarray, dist: np.ndarray, dl: np.ndarray | None, level: float) -> FaceReading | None:
    """The face region ``filled`` read with its pixels under ``level`` as face, the rest as marks."""
    face2 = ((dist < level) & (filled > 0)).astype(np.uint8) * 255
    face2 = cv2.morphologyEx(face2, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    if cv2.countNonZero(face2) < 0.5 * cv2.countNonZero(filled):
        return None  # (the face is no one colour at that level: shading, marbling)
    got = _read_face_once(face2, dist, dl, filled if FAINT_EXTENT else None)
    if got.value == 1 and dl is not None and not plain_mark(face2, filled, dl, got.center):
        # a lone "pip" with marks inside is a die's face in a halo of its own blur, not an ace
        return FaceReading(None, got.center, 0.0, got.side, "a lone mark with marks inside it", filled)
    return got


#: the faint look's fitted face is judged (its size, its cover) against the first look's whole face
#: region, not the tighter region it found its pips in (False: against that one, the old rule)
FAINT_EXTENT = True
#: a faint look that reads nothing at three times the face's spread is tried once more at the
#: level where the face region's own distances part in two (Otsu) (False: no second level)
FAINT_OWN_SPLIT = True
#: the split of a face's own distances is a faint look only under the face threshold's top (the
#: reader's colour threshold is clipped to 14..40): marks standing further out were holes already,
#: and a split above it is a side face's shading against its strong pip (dev 2097: a three's dark
#: side face split at 58 read its pip as a one)
FAINT_SPLIT_MOST = 40.0


# doubts about a pip missed, or a side face's pip taken (dice_one_face.SIDE_FACE_PIP_AMONG): no
# kinder look clears them
#: (a doubt no kinder look at the same region clears, ``_DOUBTS``: the look for an ace by its shade
#: read the same frame's pip as a one again -- light 12, a two's pip, where the old reading's low
#: confidence had let the pips-first look read the two)
FRAMED_ONE_DOUBT = "a lone pip on a face region that is a frame"
_DOUBTS = ("a faint mark", "marks where", SIDE_FACE_PIP_DOUBT, FRAMED_ONE_DOUBT, "the four's pips an oblong")

GLARE_FLOOR = 0.55  # a light mark under this part of the light pips' step from the face is glare
# a pip's core: at least this part of the step; glare on a dark die can come near a white pip's
# lightness, so a stricter core is tried when the first does not read
PIP_CORES = (0.7, 0.85)


def _read_past_glare(face: np.ndarray, dist: np.ndarray, dl: np.ndarray, filled: np.ndarray | None,
                     marks: _FirstMarks | None = None) -> FaceReading | None:
    """Read a face with light pips once more, taking faint light marks for glare.

    Glare only adds light: it can neither dim a light pip (white or yellow pips on a dark or
    coloured die) nor darken the face. So when the face's strongest marks are lighter than the
    face, a mark lifted less than :data:`GLARE_FLOOR` of their step is glare on the face (not a
    pip, and no doubt about one), and a pip run together with a glare spot is its core, the pixels
    lifted at least a :data:`PIP_CORES` part of the step. Faces with dark pips get no such look:
    there glare can dim a pip, and a faint dark mark stays a doubt. None if the face's marks are not lighter.
    """
    if filled is None or cv2.countNonZero(filled) < 0.45 * face_px() * face_px():
        return None  # (a fragment of a face: its one pip may be any pip of the die)
    holes = (filled > 0) & (face == 0)
    if np.count_nonzero(holes) < 10:
        return None
    strength = dist[holes]
    strong = dl[holes][strength >= 0.8 * float(np.percentile(strength, 95))]
    ref = np.median(strong, axis=0).astype(np.float32)
    n = float(np.linalg.norm(ref))
    if n < 30 or ref[0] < 0.5 * n:  # not clearly lighter: dark or coloured pips
        return None
    unit = ref / n
    along = dl @ unit  # how far each pixel is lifted towards the pips' colour
    across = np.sqrt(np.maximum((dl * dl).sum(axis=2) - along * along, 0))
    lifted = np.clip(along - GLARE_FLOOR * n, 0, None) * (1.0 / (1.0 - GLARE_FLOOR))
    dist2 = np.where(across < 0.5 * n, lifted, 0).astype(np.float32)
    for core in PIP_CORES:
        pipish = (along >= core * n) & (across < 0.5 * n) & (filled > 0)
        face2 = ((filled > 0) & ~pipish).astype(np.uint8) * 255
        second = _read_face_once(face2, dist2, dl)
        if second.value is not None:
            break
    side = math.sqrt(float(np.count_nonzero(filled)))
    raw = marks.of(filled, side) if marks is not None else find_pips(filled, face, dist, side, dl)
    if second.value == 1 and _marks_beside(raw, second.center, second.side):
        return None  # (a faint mark beside a lone pip may be a blurred or cut pip, not glare)
    return second


def _marks_beside(raw: list[Pip], centre: tuple[float, float], side: float) -> bool:
    """Is there a pip-like mark (of the first look) away from the pip at ``centre``?"""
    strongest = max((p.contrast for p in raw), default=0.0)
    return any(p.contrast >= 0.4 * strongest and p.area >= 0.002 * side * side
               and math.hypot(p.x - centre[0], p.y - centre[1]) > 0.2 * side for p in raw)


def _read_face_once(face: np.ndarray, dist: np.ndarray, dl: np.ndarray | None,
                    extent: np.ndarray | None = None, marks: _FirstMarks | None = None,
                    filled: np.ndarray | None = None) -> FaceReading:
    filled = fill_holes(face) if filled is None else filled
    area = float(cv2.countNonZero(filled))
    side = math.sqrt(max(area, 1.0))
    # (the face's extent, for the checks of the fitted face's size and cover: a tighter look's
    # region has lost its blurred rim and its corner pips' notches, so is smaller than its face)
    extent = filled if extent is None else cv2.bitwise_or(filled, extent)
    m = cv2.moments(filled, binaryImage=True)
    cx, cy = (m["m10"] / m["m00"], m["m01"] / m["m00"]) if m["m00"] else (0.0, 0.0)
    raw = find_pips(filled, face, dist, side, dl)
    if marks is not None:
        marks.filled, marks.side, marks.raw = filled, side, raw
    pips = _consistent(raw)
    got = _judge(raw, pips, filled, dist, dl, (cx, cy), side, extent)
    if got.value is not None or len(pips) < 2:
        return got
    # a tilted die's side face joined to its top face: its foreshortened pips taken as well spoil
    # the top face's layout; read once more without them (every check still applies)
    side_pips = side_face_pips(pips)
    if not side_pips or len(side_pips) == len(pips):
        return got
    rest = [p for p in pips if not any(p is q for q in side_pips)]
    marks = [b for b in raw if any(b is p for p in rest) or not any(b is q for q in side_face_pips(rest + [b]))]
    if len(pips) <= 6 and fit_layout([complex(p.x, p.y) for p in pips])[1] <= 0.16 and len(pips) >= 3:
        return got  # (all of them make a layout: the squeezed ones are the top face's, cut by its edge)
    if len(rest) == 1 and len(side_pips) < 2:
        return got  # (a two with one pip cut by the edge is a lone pip and a squeezed one too)
    again = _judge(marks, rest, filled, dist, dl, (cx, cy), side, extent)
    if again.value is None or (again.value >= 2 and not beyond_the_face(side_pips, rest, again.value)):
        return got
    if again.value == 1 and any(math.hypot(p.x - rest[0].x, p.y - rest[0].y) < ONES_SIDE_PIPS * face_px()
                                for p in side_pips):
        return got  # (a side face's pips lie past the top face's edge, half a die from a one's pip)
    return again


def _judge(raw: list[Pip], pips: list[Pip], filled: np.ndarray, dist: np.ndarray, dl: np.ndarray | None,
           centroid: tuple[float, float], side: float, extent: np.ndarray | None = None) -> FaceReading:
    """The value the pips make on the face region ``filled``, or why they make none. ``raw`` are
    all marks found on the face, ``pips`` the ones taken for pips."""
    cx, cy = centroid
    if not pips:
        return FaceReading(None, (cx, cy), 0.0, side, "no pips", filled)
    if len(pips) == 1:
        p = pips[0]
        # a mark as contrasted as the pip is a pip whatever its size (a glare spot merged with the
        # middle pip of a three is bigger than the real corner pips); a fainter one counts if large,
        # or if at its strongest it is as strong (a pip cut by the face's edge, half table)
        if any(b is not p and ((b.area >= 0.4 * p.area and b.contrast >= 0.4 * p.contrast)
                               or (b.area >= 0.15 * p.area and b.contrast >= 0.75 * p.contrast)
                               or (b.area >= 0.4 * p.area and b.peak >= CUT_PIP_PEAK * p.peak)) for b in raw):
            # a lone pip with pip-like marks beside it: glare taken for a one, or pips dropped
            return FaceReading(None, (p.x, p.y), 0.0, side, "a lone pip with other marks beside it", filled)
        if FRAMED_ONES_DOUBTED and _solidity(filled) < ONE_LEAST_SOLIDITY:
            return FaceReading(None, (p.x, p.y), 0.0, side, FRAMED_ONE_DOUBT, filled)
        off = math.hypot(p.x - cx, p.y - cy) / side
        rel = math.sqrt(p.area) / side
        # in the middle of the face: near its centroid, or (a side face joined on) as far from
        # its edge as a top face's centre is
        dt = cv2.distanceTransform(cv2.copyMakeBorder(filled, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0),
                                   cv2.DIST_L2, 5)
        deep = float(dt[int(round(p.y)) + 1, int(round(p.x)) + 1]) / side
        at_middle = off < 0.18 or deep >= 0.38 or (
            ONES_BY_THEIR_FACES_MIDDLE and 0.06 <= rel <= LARGEST_ACE and at_its_face_middle(p, dl, side))
        if at_middle and 0.06 <= rel <= LARGEST_ACE:
            if ONES_OFF_THEIR_FACES_MIDDLE_DOUBTED and off_its_face_middle(p, dl, side):
                return FaceReading(None, (p.x, p.y), 0.0, side, ONE_OFF_MIDDLE_DOUBT, filled)
            if not _vacancies_empty(dist, complex(p.x, p.y), _rect_frame(filled), 1, pips):
                return FaceReading(None, (p.x, p.y), 0.0, side, "marks where a one has no pip", filled)
            if marks_on_the_corners(dl, complex(p.x, p.y), _rect_frame(filled), p):
                return FaceReading(None, (p.x, p.y), 0.0, side, "marks of either kind on the corners of a one", filled)
            conf = _confidence(off / 0.18, pips)
            return FaceReading(1, (p.x, p.y), conf, side, "", filled, pips)
        return FaceReading(None, (cx, cy), 0.0, side, "lone pip off centre", filled)
    value, rms, centre, half, pips = fit_with_outliers(pips)
    if value is None:
        return FaceReading(None, (cx, cy), 0.0, side, f"{len(pips)} pips", filled)
    pip_r = math.sqrt(median_of([p.area for p in pips]) / math.pi)
    ratio = pip_r / max(half, 1e-6)  # pip radius in half-sides: about 0.1-0.25 on real dice
    extent = filled if extent is None else extent
    reach = side if extent is filled else math.sqrt(max(float(cv2.countNonZero(extent)), 1.0))
    size_ok = 0.4 * side <= 2 * half <= 1.5 * reach
    ok_geometry = True
    inside = 0 <= int(centre.imag) < filled.shape[0] and 0 <= int(centre.real) < filled.shape[1] \
        and filled[int(centre.imag), int(centre.real)] > 0
    alpha = fit_frame([complex(p.x, p.y) for p in pips])[3]
    # (a tilted die's side-face pips beside a two or three are no pips of a larger face round it)
    beside = raw if value not in (2, 3) else _without(raw, side_face_marks(raw, pips, filled, dl))
    if value in (2, 3) and ok_geometry and not _agrees_with_face(filled, centre, half, alpha_angle(pips, centre)):
        # the face region is no clean square (side faces, a shadow or the table of the same
        # colour joined on, marbling): judged by the fitted face itself, a two or three must be
        # of the die's size (the crop makes a die FACE_PX across) with no pip like its own beside
        ok_geometry = ALONE_WITHOUT_REGION[0] <= 2 * half / face_px() <= ALONE_WITHOUT_REGION[1] \
            and pips_alike(pips) and not alike_marks_beside(beside, pips, centre, alpha) \
            and ends_at_its_edges(dist, centre, alpha, pips)
    if value in (2, 3) and ok_geometry and UNLIKE_PIPS_DOUBTED and not (
            painted_alike(pips) and on_one_shade(pips, filled, dl)):
        ok_geometry = False  # (a one's pip with a side face's or a far face's pip beside it)
    if value in (2, 3) and ok_geometry and a_column_of_more(pips, dl):
        ok_geometry = False  # (a six's column, a four's side: the rest of the face beside it)
    if rms > (0.1 if value == 3 else 0.16) or not 0.06 <= ratio <= 0.4 or not size_ok or not inside or not ok_geometry:
        failed = ", ".join(name for name, bad in (("misfit", rms > (0.1 if value == 3 else 0.16)),
                                                  ("pip size", not 0.06 <= ratio <= 0.4), ("face size", not size_ok),
                                                  ("centre off the face", not inside),
                                                  ("not along the face's diagonal", not ok_geometry)) if bad)
        why = f"{len(pips)} pips off layout (rms {rms:.2f}, pip/face {ratio:.2f}: {failed})"
        return FaceReading(None, (centre.real, centre.imag) if inside else (cx, cy), 0.0, side, why, filled,
                           seen=pips if len(pips) == 2 else None)
    if value == 4 and OBLONG_FOURS_DOUBTED and square_aspect([complex(p.x, p.y) for p in pips]) < FOUR_LEAST_ASPECT:
        return FaceReading(None, (centre.real, centre.imag), 0.0, side,
                           "the four's pips an oblong, not a square (two rows of a six?)", filled)
    if _square_covered(extent, centre, alpha) < 0.7:
        return FaceReading(None, (centre.real, centre.imag), 0.0, side,
                           "the pips fit a face that is not there (pips of a side face taken?)", filled)
    if _dropped_blob_on_a_pip_place(raw, pips, centre, alpha, value):
        return FaceReading(None, (centre.real, centre.imag), 0.0, side,
                           "a faint mark where a pip could be (glare on a pip?)", filled)
    if not _vacancies_empty(dist, centre, alpha, value, pips, dl):
        return FaceReading(None, (centre.real, centre.imag), 0.0, side,
                           f"marks where a {value} has no pip (glare or a missed pip)", filled)
    if other_kind_on_a_place(dl, centre, alpha, value, pips):
        return FaceReading(None, (centre.real, centre.imag), 0.0, side,
                           f"a mark of the other kind where a {value} has no pip (a blurred face's blend?)", filled)
    if value in (2, 3) and alike_marks_beside(beside, pips, centre, alpha, loose=True):
        return FaceReading(None, (centre.real, centre.imag), 0.0, side,
                           f"pips like the {value}'s just beside it (a part of a larger face?)", filled)
    if value in (2, 3) and a_side_face_pip_among(pips, filled, dl):
        # (last: only a reading that would stand is doubted so, and no kinder look clears it)
        return FaceReading(None, (centre.real, centre.imag), 0.0, side,
                           f"{SIDE_FACE_PIP_DOUBT} of the {value} (squeezed more, on another shade)", filled)
    if value >= 4 and side_face_pips_among(pips, filled, dl):
        return FaceReading(None, (centre.real, centre.imag), 0.0, side,
                           f"{SIDE_FACE_PIP_DOUBT} of the {value} (smaller, squeezed more, on another shade)", filled)
    return FaceReading(value, (centre.real, centre.imag), _confidence(rms / 0.16, pips), 2 * half, "", filled, pips)


#: a lone pip is no one when its face region is a frame, far from filling its hull: a light die's
#: lit rim and shaded sides round a top face of the table's colour that the region leaves open, a
#: pip of that face at the frame's inner corner near the region's centroid (light 3119 at scale
#: 0.35: a white six read as a one on a U-shaped region, 0.60-0.66 of its hull). False: the old rule
FRAMED_ONES_DOUBTED = True
#: ... a one's region at least this share of its convex hull: a face, with side faces or a shadow
#: joined, is near convex; a frame's open middle leaves it about half (light 3119 at 0.35: the U
#: 0.59-0.60, other regions there 0.37-0.48). Set between that and the least of a one read right on
#: the development sets: light 51, a black die's one on a region of 0.68-0.69 (0.75 lost it)
ONE_LEAST_SOLIDITY = 0.64


def _solidity(filled: np.ndarray) -> float:
    """The region's area over its convex hull's."""
    pts = cv2.findNonZero(filled)
    if pts is None or len(pts) < 3:
        return 1.0
    hull = cv2.contourArea(cv2.convexHull(pts))
    return float(len(pts)) / hull if hull > 0 else 1.0


def _without(marks: list[Pip], gone: list[Pip]) -> list[Pip]:
    return [m for m in marks if not any(m is g for g in gone)]


#: a lone pip off its region's middle (a side face of the top face's colour joined on) is a one
#: when the face of the colour round it reaches alike on either side of it along four lines
#: (:mod:`.dice_one_middle`). False: only the region's centroid and depth tell, the old rule
ONES_BY_THEIR_FACES_MIDDLE = True
#: a lone pip taken for a one at its region's middle (by centroid or depth) is left unread when the
#: face of its colour, walked along four lines through it, ends much nearer on one side than the
#: other on three of them (:func:`.dice_one_middle.off_its_face_middle`): the region was wrong (the
#: die with its shadow, part of the face) and the pip is a corner pip of a two or three whose other
#: pips were lost (docs/dice-camera.md, twenty-sixth round, group B). Development wrong 3 -> 2,
#: two fresh pools 10 -> 6, no right reading lost; the lead's held-out dice (2,915) one wrong -> right,
#: nothing else. False: the old rule
ONES_OFF_THEIR_FACES_MIDDLE_DOUBTED = True
ONE_OFF_MIDDLE_DOUBT = "a lone pip off its face's middle (a two's or three's corner pip?)"
#: a lone pip's sqrt(area) over the face region's: the largest aces, a third of the side across, are
#: 0.3 (a side face joined on only lowers it), blur spreads them: drawn and blurred 0.31, a big
#: ray-marched ace under motion blur 0.341. A blurred die in its halo, read as a pip in a "face"
#: of table colour, measured 0.377. (The old bound was 0.4; the margin either side is thin.)
LARGEST_ACE = 0.36
#: a four whose pips make an oblong, not a square, is unreadable: two adjacent rows of a six (1:2
#: face-on) fit a four's layout within the misfit the fit allows (0.16) once a tilt shortens the
#: long side (ray 4361 under a warm cast: a black six's face region lost its third row, the other
#: four pips read as a four at 0.64, rms 0.156). A doubt no kinder look clears (``_DOUBTS``). OFF:
#: on the development sets it made webcam pipeline 8084's right four (a 28 px die, its pips an
#: oblong in the webcam's frame) unreadable and a later look then read a two there -- a wrong value
#: added; with the doubt in ``_DOUBTS`` 8084 is unread instead (no wrong) and ray 4361 still reads
#: its six, but that version was not read on every development scene. False: read, the old rule
OBLONG_FOURS_DOUBTED = False
#: ... the shorter sides over the longer at least this: a square seen 45 degrees from straight on
#: (cos 45 = 0.71; the renders' cameras tilt at most 30 degrees, a phone held at a slant more)
FOUR_LEAST_ASPECT = 0.68
ONES_SIDE_PIPS = 0.5  # a side face's pips beside a one lie at least this part of the crop's die from its pip
CUT_PIP_PEAK = 0.6  # a mark beside a lone pip whose strongest pixels reach this part of the pip's is a pip
#: a two or three judged by its fitted face alone: its side over FACE_PX (the crop's die) within
#: these. A part of a face read as a two or three is 0.71 of the die (a column of a six, two pips
#: side by side) or 0.5 (a corner and the middle); the lower bound sits just over the larger part.
ALONE_WITHOUT_REGION = (0.75, 1.4)


def _confidence(misfit: float, pips: list[Pip]) -> float:
    """0..1 from how well the layout fits (misfit 0..1), how round and how contrasted the pips are."""
    circ = min(1.0, float(np.mean([p.circularity for p in pips])) / 0.85)
    contrast = min(1.0, median_of([p.contrast for p in pips]) / 40.0)
    areas = np.array([p.area for p in pips])
    spread = float(areas.std() / areas.mean()) if len(pips) > 1 else 0.0
    c = (1 - 0.5 * misfit) * (0.6 + 0.4 * circ) * (0.6 + 0.4 * contrast) * (1 - min(0.3, spread * 0.5))
    return round(max(0.0, min(1.0, c)), 3)
