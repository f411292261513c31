"""Reading dice in a tray the camera has seen empty: difference against the empty tray, read crops.

The still-photo reader (:func:`companion.vision.dice.read_dice`) must find the dice in an unknown
picture, which costs tens of milliseconds. A streaming camera knows more: it saw the tray empty.
So the dice are where the tray differs from its empty picture (whatever the tray's colour), and
only a small crop around each die is read, by the still reader's own crop read
(:func:`companion.vision.dice_crop.read_crop`).

* :class:`TrayView` -- one frame's tray, downscaled once (``WORK_W`` wide) for every cheap test.
* :class:`EmptyTray` -- the empty tray's picture, kept up to date while the tray is empty, and
  :meth:`EmptyTray.changes` -- the blobs where a view differs from it. Lighting is allowed to
  change in between (a lamp, a camera's auto-exposure, flicker): the view is compared with the
  empty picture times a smooth per-channel gain measured between them.
* :func:`guess_empty` -- the empty tray guessed from a view with dice on it (their places filled
  in from around them), for a camera that starts with dice already in the tray.
* :func:`cut_crop` / :func:`read_die_crop` -- one blob cut from the full-resolution tray, scaled so
  a die is ``FACE_PX`` across, and read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from .dice import Die
from .dice_face_reading import at_face_px
from .dice_pips import FACE_PX
from .dice_crop import read_crop

WORK_W = 320  # the width the tray is compared at: a 48 px die (640x480 camera) is 24 px here
DIFF_LEVEL = 30  # a channel this many levels from the (gain-corrected) empty tray has changed
# ... and a place joined to such a change, when its blob is grown (Changes.grown), differs this many
# times the tray's own noise (the median difference), at least GROW_LEVEL levels (noise here: 2-3)
GROW_NOISE, GROW_LEVEL = 4.0, 7.0
REGROW_BAND = 0.25  # regrown(): the tray's colour is the median of a band this share of a die wide along the
# window's border (a few hundred pixels round a die's window; narrow, so the band stays within a die of the border).
# Chosen once, not tuned: on 3410 and 3412 the band's noise came out 1.6-4.6 levels, the tray's own (2-3)
STALE_FRACTION = 0.3  # more of the tray than this changed: not dice, the empty picture is stale


@dataclass
class TrayView:
    """A frame's tray at full resolution and downscaled to ``WORK_W`` wide (``scale`` = small/full)."""

    full: np.ndarray
    small: np.ndarray
    scale: float

    @classmethod
    def of(cls, tray: np.ndarray) -> TrayView:
        h, w = tray.shape[:2]
        if w <= WORK_W:
            return cls(tray, tray, 1.0)
        f = WORK_W / w
        small = cv2.resize(tray, (WORK_W, max(1, round(h * f))), interpolation=cv2.INTER_AREA)
        return cls(tray, small, f)


@dataclass
class Blob:
    """A connected region that differs from the empty tray, in small-image pixels."""

    x: int
    y: int
    w: int
    h: int
    area: int
    mask: np.ndarray  # bool, (h, w)
    inscribed: float  # diameter of the largest circle inside it
    core: tuple[int, int, np.ndarray, float] | None = None  # without the shadow: x, y (in the box), mask, inscribed

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2

    def holds(self, x: float, y: float) -> bool:
        """(x, y) (small pixels) is in the blob."""
        i, j = int(y) - self.y, int(x) - self.x
        return 0 <= i < self.h and 0 <= j < self.w and bool(self.mask[i, j])


@dataclass
class Changes:
    blobs: list[Blob]
    changed_fraction: float
    _parts: tuple | None = None  # (diff, changed, shadow, guessed, min_side): for grown(); shadow a _Shadows
    _grown: dict = field(default_factory=dict)  # grown()'s answers, by blob

    @property
    def stale(self) -> bool:
        """So much changed that the reference picture, not dice, is the likelier cause."""
        return self.changed_fraction > STALE_FRACTION

    def grown(self, blob: Blob) -> Blob | None:
        """``blob`` grown over the places joined to it that differ less than ``DIFF_LEVEL`` but
        clearly more than the tray's noise (hysteresis, as in an edge detector): a black die on
        black felt differs by 20-25 levels in its body, and only its lit edges and pips by more,
        so its blob is a fragment. None if it does not grow (by a fifth or more). Only asked for a
        blob the crop reader read nothing in: on most dice it only makes the crops bigger."""
        if self._parts is None:
            return None
        key = (blob.x, blob.y, blob.w, blob.h, blob.area)
        if key not in self._grown:  # (asked twice for a blob read grown first that read nothing: 1-4 ms each)
            self._grown[key] = self._grow(blob)
        return self._grown[key]

    def _grow(self, blob: Blob) -> Blob | None:
        diff, changed, shadows, guessed, min_side = self._parts
        shadow = shadows.whole() if shadows is not None else None
        noise = float(np.median(diff[::4, ::4]))  # sparse: most of the tray is unchanged
        low = (diff > max(GROW_LEVEL, GROW_NOISE * noise)).astype(np.uint8)
        if shadow is not None:
            low[shadow > 0] = 0  # a soft shadow's rim would make a die look bigger
        if guessed is not None:
            low[guessed] = 0  # a guessed picture is too rough for it
        seed = np.zeros_like(low)
        box = (slice(blob.y, blob.y + blob.h), slice(blob.x, blob.x + blob.w))
        seed[box][blob.mask & (changed[box] > 0)] = 1
        n, labels = cv2.connectedComponents(cv2.bitwise_or(low, seed), connectivity=8)
        keep = np.zeros(n, np.uint8)
        keep[labels[seed > 0]] = 255
        keep[0] = 0
        region = keep[labels]
        solid = cv2.bitwise_and(region, cv2.bitwise_not(shadow)) if shadow is not None else region
        for b in _blobs(region, solid, min_side):
            if b.area >= 1.2 * blob.area and b.holds(*blob.centre):
                return b
        return None

    def changed_share(self, x: float, y: float, side: float) -> float:
        """The share of the square of ``side`` centred on (x, y) (small pixels) that differs from the
        empty tray by the change level: about all of a die's face as a rule, a fraction of it for a
        die like the tray (a black die on black felt differs at its pips and lit edges only)."""
        if self._parts is None:
            return 1.0
        changed = self._parts[1]
        half = side / 2
        square = changed[max(0, int(y - half)):max(0, int(y + half)), max(0, int(x - half)):max(0, int(x + half))]
        return cv2.countNonZero(square) / square.size if square.size else 1.0

    def changed_in(self, blob: Blob) -> float:
        """The share of ``blob`` that differs from the empty tray by the change level: about all of
        it for a die as a rule, a fraction for a die like the tray grown over its faint body."""
        if self._parts is None or not blob.area:
            return 1.0
        box = self._parts[1][blob.y:blob.y + blob.h, blob.x:blob.x + blob.w]
        return cv2.countNonZero(box[blob.mask]) / blob.area

    def faint_width(self, blob: Blob) -> float:
        """The widest circle (diameter, small pixels) inside what differs faintly (as :meth:`grown`
        takes it) joined to ``blob``, shadows *included*: a black die's body is darker than the
        tray alike in every channel, as a shadow is, so :meth:`grown` leaves it out; a shadow makes
        a die's outline longer, hardly wider. 0 if unknown."""
        if self._parts is None:
            return 0.0
        diff, changed, _, guessed, _ = self._parts
        noise = float(np.median(diff[::4, ::4]))
        low = (diff > max(GROW_LEVEL, GROW_NOISE * noise)).astype(np.uint8)
        if guessed is not None:
            low[guessed] = 0
        box = (slice(blob.y, blob.y + blob.h), slice(blob.x, blob.x + blob.w))
        seed = np.zeros_like(low)
        seed[box][blob.mask & (changed[box] > 0)] = 1
        n, labels = cv2.connectedComponents(cv2.bitwise_or(low, seed), connectivity=8)
        keep = np.zeros(n, np.uint8)
        keep[labels[seed > 0]] = 255
        keep[0] = 0
        return _inscribed(keep[labels])

    def finer(self, min_side: float) -> Changes:
        """The same comparison's blobs down to ``min_side`` (as :func:`changes` with it would give,
        without comparing again: 2-3 ms): specks left out as noise, a pip among them."""
        if self._parts is None:
            return Changes([], self.changed_fraction)
        diff, changed, shadows, guessed, _ = self._parts
        return Changes(_blobs(changed, _solid(changed, shadows), min_side), self.changed_fraction,
                       (diff, changed, shadows, guessed, min_side))

    def split(self, blob: Blob, side: float) -> list[Blob] | None:
        """``blob`` as the die-sized things it joins, or None if it is not such a join.

        A blob's specks are joined (closed over half a die) and filled out to their hull, so a
        die whose body is like the tray is one blob; but so are two dice with a patch of shadow
        or a stain between them, and the crop of such a hull is several dice wide (a 6 x 6-dice
        crop read in 100 ms against 4 ms a die). Here its solid part (no shadow) is joined over a
        sixth of a die only: if that leaves two or more pieces, every one of them die-sized (at
        least half a die's area, and a circle of 0.7 of a die inside: no pip, edge or speck of a
        die like the tray), each is its own blob. ``side``: a die's side, small pixels."""
        if self._parts is None:
            return None
        _, _, shadows, _, _ = self._parts
        box = (slice(blob.y, blob.y + blob.h), slice(blob.x, blob.x + blob.w))
        solid = blob.mask.astype(np.uint8) * 255
        if shadows is not None:
            solid = cv2.bitwise_and(solid, cv2.bitwise_not(shadows.box(blob.x, blob.y, blob.w, blob.h)))
        k = max(3, int(side / 6)) | 1
        solid = cv2.morphologyEx(solid, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        pieces = _components(_hulls(cv2.bitwise_and(solid, self._parts[1][box])))
        if len(pieces) < 2:
            return None
        parts = []
        for x, y, w, h, area, mask in pieces:
            inscribed = _inscribed(mask)
            if area < 0.5 * side * side or inscribed < 0.7 * side:
                return None  # a speck or a sliver: the blob may be one die like the tray
            parts.append(Blob(blob.x + x, blob.y + y, w, h, area, mask, inscribed))
        return parts


def regrown(small: np.ndarray, unknown: np.ndarray, blob: Blob, side: float, reach: float) -> Blob | None:
    """``blob`` grown over a die's faint body where the empty tray's picture is a guess that holds
    that body: a cold start's dark die (its pips and rims stand out from the tray's colours, so the
    guess was filled around those only, and the picture kept the body). :meth:`Changes.grown` cannot
    grow there (the picture is the body). So the tray is taken afresh around the blob: within
    ``reach`` (small pixels) of its box, compared with the tray's colour along that window's border
    (the median of a band ``REGROW_BAND`` of a die wide, what stands out left out: ``unknown``), and the blob grown
    over what differs from it by more than ``GROW_NOISE`` times the band's own noise (at least
    ``GROW_LEVEL``), as ``grown`` does, joined as blobs are (closed over ``side * 0.6``, hulls). None
    if it does not grow by a fifth, as ``grown``. 0.5-1.6 ms (development cold starts 3410, 3412)."""
    h, w = small.shape[:2]
    x0, y0 = max(0, int(blob.x - reach)), max(0, int(blob.y - reach))
    x1, y1 = min(w, int(math.ceil(blob.x + blob.w + reach))), min(h, int(math.ceil(blob.y + blob.h + reach)))
    window = small[y0:y1, x0:x1].astype(np.float32)
    band = max(2, int(side * REGROW_BAND))
    ring = np.zeros(window.shape[:2], bool)
    ring[:band, :] = ring[-band:, :] = ring[:, :band] = ring[:, -band:] = True
    ring &= ~unknown[y0:y1, x0:x1]
    if np.count_nonzero(ring) < band * band:
        return None  # no tray seen around it (the tray's corner, dice all round)
    tray = np.median(window[ring], axis=0).astype(np.float32)
    diff = np.abs(window - tray)  # (per channel: the tray's colour broadcast over the window)
    diff = cv2.blur(_channel_max(diff) if diff.ndim == 3 else diff, (3, 3))
    low = (diff > max(GROW_LEVEL, GROW_NOISE * float(np.median(diff[ring])))).astype(np.uint8)
    seed = np.zeros_like(low)
    bx, by = blob.x - x0, blob.y - y0
    seed[by:by + blob.h, bx:bx + blob.w][blob.mask] = 1
    n, labels = cv2.connectedComponents(cv2.bitwise_or(low, seed), connectivity=8)
    keep = np.zeros(n, np.uint8)
    keep[labels[seed > 0]] = 255
    keep[0] = 0
    k = max(3, int(side * 0.6)) | 1  # (as _joined: the specks of a die like the tray join)
    region = _hulls(cv2.morphologyEx(keep[labels], cv2.MORPH_CLOSE,
                                     cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))))
    cx, cy = blob.centre
    for x, y, bw, bh, area, mask in _components(region):
        grown = Blob(x0 + x, y0 + y, bw, bh, area, mask, _inscribed(mask))
        if area >= 1.2 * blob.area and grown.holds(cx, cy):
            return grown
    return None


def gain_field(small: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per pixel and channel, ``small / ref`` as a smooth field (float32, like ``small``).

    Measured on a coarse grid and median-filtered there, so a die or a hand covering a few cells
    does not count as lighting; what is left is exposure, white balance and lamp gradients.
    """
    h, w = small.shape[:2]
    gw, gh = 16, max(4, round(16 * h / max(w, 1)))
    a = cv2.resize(small, (gw, gh), interpolation=cv2.INTER_AREA).astype(np.float32)
    b = cv2.resize(ref, (gw, gh), interpolation=cv2.INTER_AREA).astype(np.float32)
    ratio = np.clip(a / np.maximum(b, 4.0), 0.2, 5.0)
    ratio = cv2.medianBlur(ratio, 5)
    return cv2.resize(ratio, (w, h), interpolation=cv2.INTER_LINEAR)


def changes(small: np.ndarray, ref: np.ndarray, min_side: float, guessed: np.ndarray | None = None) -> Changes:
    """The blobs where ``small`` differs from the reference picture ``ref`` (float32), lighting
    changes aside; blobs narrower than ``min_side`` (small pixels) are noise and left out.
    ``guessed`` (bool): where ``ref`` is a guess, too rough to grow the changes over."""
    expected, diff, changed, fraction = _changed(small, ref)
    if fraction > STALE_FRACTION:
        return Changes([], fraction)
    shadows = _Shadows(small, expected) if small.ndim == 3 else None
    return Changes(_blobs(changed, _solid(changed, shadows), min_side), fraction, (diff, changed, shadows, guessed, min_side))


def _solid(changed: np.ndarray, shadows):
    """What changed without the shadows, as ``_blobs`` asks for it: the whole mask, or a function of
    a box (the blobs' boxes only: a die's core is all that is asked of the shadows, mostly)."""
    if shadows is None:
        return changed

    def solid(x, y, w, h):
        return cv2.bitwise_and(changed[y:y + h, x:x + w], cv2.bitwise_not(shadows.box(x, y, w, h)))
    return solid


def differs(small: np.ndarray, ref: np.ndarray, min_side: float) -> bool:
    """Would :func:`changes` find ``small`` stale against ``ref`` or a blob in it? The same answer
    for less: no shadows, no blob's core or inscribed circle, and a blob is known at once from a
    speck already of a blob's size, since joining specks (a closing, then hulls) only adds to the
    parts it joins. Every read after the first compares the tray with its picture at the last read
    (nothing to read if a hand passed over the dice) before its crops: 2.7 ms against changes()'
    4.5 (3,312 pairs of rendered frames, load 6, the same answer on every one)."""
    _, _, changed, fraction = _changed(small, ref)
    if fraction > STALE_FRACTION:
        return True
    if fraction == 0:
        return False
    n, _, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
    if any(_blob_sized(w, h, area, min_side) for _, _, w, h, area in stats[1:n].tolist()):
        return True
    return any(_blob_sized(bw, bh, area, min_side) for _, _, bw, bh, area, _ in _components(_joined(changed, min_side)))


def differs_in(small: np.ndarray, ref: np.ndarray, min_side: float, boxes: list[tuple[int, int, int, int]]) -> bool:
    """True if :func:`differs` is sure to say so from one of ``boxes`` (x, y, w, h) alone: a speck of
    a blob's size among its changes there. False means "not from these boxes" (ask :func:`differs`).
    On a throw the dice have left where they lay at the last read: the first such box answers, for
    the comparison of a die's box instead of the whole tray. The same pixels as :func:`differs`' (the
    lighting from the whole tray, then each pixel's change, its 3x3 blur with a pixel around the
    box), and a part of a blob's size in a box lies in a part at least as big in the whole tray:
    never True where :func:`differs` says False."""
    if not boxes:
        return False
    gain = gain_field(small, ref)
    h, w = small.shape[:2]
    for x, y, bw, bh in boxes:
        x, y, bw, bh = max(0, x), max(0, y), min(w, x + bw) - max(0, x), min(h, y + bh) - max(0, y)  # (in the tray)
        if bw <= 0 or bh <= 0:
            continue
        x0, y0, x1, y1 = max(0, x - 1), max(0, y - 1), min(w, x + bw + 1), min(h, y + bh + 1)
        expected = ref[y0:y1, x0:x1] * gain[y0:y1, x0:x1]
        diff = cv2.absdiff(small[y0:y1, x0:x1].astype(np.float32), expected)
        if diff.ndim == 3:
            diff = _channel_max(diff)
        diff = cv2.blur(diff, (3, 3))[y - y0:y - y0 + bh, x - x0:x - x0 + bw]  # (its rim blurred as in the tray)
        changed = (diff > DIFF_LEVEL).astype(np.uint8) * 255
        n, _, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        if any(_blob_sized(sw, sh, area, min_side) for _, _, sw, sh, area in stats[1:n].tolist()):
            return True
    return False


def _changed(small: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(the reference with the lighting of ``small``, the largest channel's difference from it,
    the mask of changes, the share of the tray that changed)."""
    expected = ref * gain_field(small, ref)
    diff = cv2.absdiff(small.astype(np.float32), expected)
    if diff.ndim == 3:  # the largest channel's change (cv2.max: numpy's max over an axis is ~50x slower)
        diff = _channel_max(diff)
    diff = cv2.blur(diff, (3, 3))
    changed = (diff > DIFF_LEVEL).astype(np.uint8) * 255
    return expected, diff, changed, cv2.countNonZero(changed) / changed.size


def _blob_sized(w: int, h: int, area: int, min_side: float) -> bool:
    """A part of the joined changes this big is a blob (smaller ones are noise)."""
    return max(w, h) >= min_side and area >= 0.4 * min_side * min_side


def _joined(changed: np.ndarray, min_side: float) -> np.ndarray:
    """The changes' specks joined: a die's pips, edges and shadow are separate specks when its
    body is like the tray."""
    k = max(3, int(min_side * 1.2)) | 1  # min_side is half a die: the pips of a dark die on dark felt join
    return _hulls(cv2.morphologyEx(changed, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))))


def _blobs(changed: np.ndarray, solid, min_side: float) -> list[Blob]:
    """The blobs of a mask of changes (``solid``: without shadows; or a function of a box, x, y, w, h,
    giving it there)."""
    blobs = []
    for x, y, bw, bh, area, mask in _components(_joined(changed, min_side)):
        if not _blob_sized(bw, bh, area, min_side):
            continue
        core = solid[y:y + bh, x:x + bw] if isinstance(solid, np.ndarray) else solid(x, y, bw, bh)
        blobs.append(Blob(x, y, bw, bh, area, mask, _inscribed(mask), _core(core, mask)))
    return blobs


def _components(mask: np.ndarray) -> list[tuple[int, int, int, int, int, np.ndarray]]:
    """The 8-connected parts of ``mask``: (x, y, w, h, area, bool mask in the box) each, as
    ``connectedComponentsWithStats`` gives them -- which took 0.41 ms on a 320x240 tray against
    0.04 for the labels alone (OpenCV 4, one thread): each part's box is its outer contour's."""
    n, labels = cv2.connectedComponents(mask, connectivity=8)
    if n < 2:
        return []
    # two levels: parts' outer contours, and their holes' (a part inside another's hole is a part too)
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    parts = []
    for c, (_, _, _, parent) in zip(contours, hierarchy[0]):
        if parent >= 0:
            continue  # a hole's contour
        x, y, w, h = cv2.boundingRect(c)
        i = int(labels[c[0, 0, 1], c[0, 0, 0]])  # the part this contour goes round
        inside = labels[y:y + h, x:x + w] == i
        parts.append((i, (x, y, w, h, int(np.count_nonzero(inside)), inside)))
    return [p for _, p in sorted(parts, key=lambda p: p[0])]  # in label order, as before


def _inscribed(mask: np.ndarray) -> float:
    """The diameter of the widest circle inside ``mask`` (bool, or uint8 0/nonzero), its border outside."""
    # (copyMakeBorder, not np.pad: the same pixels, a tenth of the cost -- 2 of each blob's comparison)
    framed = cv2.copyMakeBorder(mask.astype(np.uint8, copy=False), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    return 2.0 * float(cv2.distanceTransform(framed, cv2.DIST_L2, 3).max())


def _channel_max(img: np.ndarray) -> np.ndarray:
    b, g, r = cv2.split(img)
    return cv2.max(cv2.max(b, g), r)


class _Shadows:
    """:func:`_shadow` of a tray, worked out where it is asked for: the blobs' boxes (their cores)
    as a rule, the whole tray only to grow a blob (a die like the tray). A pixel's shadow is its
    own colour's ratio to the tray's, so a box's is the whole tray's there; 0.67 ms for a 320x240
    tray, most of it for pixels no blob takes in."""

    def __init__(self, small: np.ndarray, expected: np.ndarray):
        self._small, self._expected, self._whole = small, expected, None

    def box(self, x: int, y: int, w: int, h: int) -> np.ndarray:
        if self._whole is not None:
            return self._whole[y:y + h, x:x + w]
        return _shadow(self._small[y:y + h, x:x + w], self._expected[y:y + h, x:x + w])

    def whole(self) -> np.ndarray:
        if self._whole is None:
            self._whole = _shadow(self._small, self._expected)
        return self._whole


def _shadow(small: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Pixels that are the tray, darkened alike in every channel: a die's shadow (uint8 mask)."""
    ratio = cv2.divide(small.astype(np.float32), cv2.max(expected, 1.0))
    b, g, r = cv2.split(ratio)
    lo, hi = cv2.min(cv2.min(b, g), r), cv2.max(cv2.max(b, g), r)
    return ((lo > 0.3) & (hi < 0.93) & (hi - lo < 0.12)).astype(np.uint8) * 255


def _core(solid: np.ndarray, mask: np.ndarray) -> tuple[int, int, np.ndarray, float] | None:
    """The blob without its shadow, as its hull: (x, y, mask, inscribed) inside the blob's box."""
    part = cv2.bitwise_and(solid, mask.astype(np.uint8) * 255)
    pts = cv2.findNonZero(part)
    if pts is None or len(pts) < 9:
        return None
    x, y, w, h = cv2.boundingRect(pts)
    hull = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(hull, cv2.convexHull(pts - np.array([x, y], np.int32)), 255)
    return x, y, hull > 0, _inscribed(hull)


def _hulls(mask: np.ndarray) -> np.ndarray:
    """Each region of ``mask`` replaced by its convex hull. A white die on white paper differs from
    the tray only at its rim, pips and shadow -- often an open ring around a lone pip; its hull is
    the die (and takes the pip in)."""
    out = np.zeros_like(mask)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for c in contours:
        cv2.fillConvexPoly(out, cv2.convexHull(c), 255)
    return out


class EmptyTray:
    """The empty tray's picture (small, float32), learnt from frames the caller knows are empty --
    or guessed, with the places it was not seen (``unknown``), when the dice were there already."""

    def __init__(self, learn_rate: float = 0.2):
        self.picture: np.ndarray | None = None
        self.unknown: np.ndarray | None = None  # bool: where the picture is a guess (under dice at start)
        self.learn_rate = learn_rate  # how fast a still, empty tray's slow changes are followed

    @property
    def known(self) -> bool:
        return self.picture is not None

    def learn(self, small: np.ndarray, fresh: bool = False) -> None:
        if fresh or self.picture is None or self.picture.shape != small.shape:
            self.picture, self.unknown = small.astype(np.float32), None
        else:
            cv2.accumulateWeighted(small, self.picture, self.learn_rate)

    def guess(self, picture: np.ndarray, unknown: np.ndarray) -> None:
        """A picture seen with dice on it, the dice's places filled in from around them."""
        self.picture, self.unknown = picture.astype(np.float32), unknown

    def uncover(self, small: np.ndarray, x: int, y: int, mask: np.ndarray) -> None:
        """The tray seen at last where it was guessed: ``mask`` (bool) at (x, y) in small pixels."""
        h, w = mask.shape
        region = self.picture[y:y + h, x:x + w]
        region[mask] = small[y:y + h, x:x + w][mask]
        if self.unknown is not None:
            self.unknown[y:y + h, x:x + w][mask] = False

    def forget(self) -> None:
        self.picture, self.unknown = None, None


def guess_empty(small: np.ndarray, things: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The tray as it would look without ``things`` (uint8 mask: what stands out on it): those
    places, grown by a margin for their shadows, filled with the mean of the tray around them
    (a normalised box filter about a die wide, twice as wide where that finds no tray). Returns
    the picture (float32) and where it was guessed (bool).

    Against the tray seen empty later (42 renders, 1-6 dice): 95 % of the guessed pixels within
    13.8 levels on average and 1 false blob, against 15.7 and 10 for ``cv2.inpaint`` (Telea), in
    a third of its time (0.8 against 2.6 ms at 320x240; inpainting around 6 dice was one call of 4 ms, a
    step a slice cannot pause in)."""
    k = max(3, int(0.03 * min(small.shape[:2]))) | 1  # a shadow's width: a third of a die or so
    grown = cv2.dilate(things, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    tray = cv2.bitwise_not(grown)
    picture = small.astype(np.float32)
    weight = (tray > 0).astype(np.float32)
    sums = cv2.multiply(picture, cv2.merge([weight] * 3))
    todo = grown
    size = max(5, int(0.08 * min(small.shape[:2])))  # about a die (as SMALLEST_DIE assumes, and more)
    for _ in range(4):
        share = cv2.blur(weight, (size, size))
        mean = cv2.divide(cv2.blur(sums, (size, size)), cv2.merge([cv2.max(share, 1e-6)] * 3))
        here = cv2.bitwise_and(todo, (share > 0.05).astype(np.uint8) * 255)
        cv2.copyTo(mean, here, picture)
        todo = cv2.bitwise_and(todo, cv2.bitwise_not(here))
        if not cv2.countNonZero(todo):
            break
        size *= 2
    return picture, grown > 0


@dataclass
class DieCrop:
    """A blob cut from the full-resolution tray, scaled by ``s`` so a die is about FACE_PX across."""

    image: np.ndarray
    mask: np.ndarray
    origin: tuple[int, int]  # full-resolution tray pixel of the crop's (0, 0)
    s: float
    side_full: float  # the die side assumed, in full-resolution pixels
    blob: Blob
    px: int = FACE_PX  # the die's side the crop was scaled to (and is read at)
    quick: bool = False  # read as a quick look (``at_face_px``): a full read follows where it is unsure


def estimate_side(blob: Blob, known_side: float | None) -> float:
    """A die's side in small pixels: the one measured at the last read (a game's dice are alike,
    and an overhead camera sees them alike anywhere in the tray); else the blob's (its shadow left
    out when that leaves a die), or, when it holds more (touching dice), the widest circle inside."""
    if known_side:
        return known_side
    if blob.core is not None:
        _, _, core, inscribed = blob.core
        return max(0.9 * min(math.sqrt(float(core.sum())), inscribed), 1.0)  # 0.9: side faces, rims
    return max(0.95 * min(math.sqrt(blob.area), blob.inscribed), 1.0)  # 0.95: a rim of shadow


def _region(blob: Blob, side_small: float) -> tuple[int, int, np.ndarray]:
    """What to cut: the blob without its shadow if that is still a whole die (not, say, only the
    pips of a white die on white paper), else the whole blob. (x, y, bool mask) in small pixels."""
    if blob.core is not None:
        cx, cy, core, inscribed = blob.core
        if inscribed >= 0.8 * side_small:
            return blob.x + cx, blob.y + cy, core
    return blob.x, blob.y, blob.mask


def cut_crop(view: TrayView, blob: Blob, side_small: float, px: int = FACE_PX) -> DieCrop:
    """The die's box (with a margin) at full resolution, scaled so a die is ``px`` across."""
    f = view.scale
    H, W = view.full.shape[:2]
    side_full = side_small / f
    x, y, region = _region(blob, side_small)
    h, w = region.shape
    pad = 3  # small pixels: the region has the die's edge already; the mask is grown by 2 below
    X0, Y0 = max(0, int((x - pad) / f)), max(0, int((y - pad) / f))
    X1 = min(W, int(math.ceil((x + w + pad) / f)))
    Y1 = min(H, int(math.ceil((y + h + pad) / f)))
    s = min(px / max(side_full, 1.0), 4.0)
    crop = view.full[Y0:Y1, X0:X1]
    cw, ch = max(1, round(crop.shape[1] * s)), max(1, round(crop.shape[0] * s))
    crop = cv2.resize(crop, (cw, ch), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    # the region's mask in crop pixels: small (x, y) -> crop ((x / f - X0) * s, ...)
    k = s / f
    M = np.array([[k, 0, (x - X0 * f) * k], [0, k, (y - Y0 * f) * k]], np.float32)
    mask = cv2.warpAffine(region.astype(np.uint8) * 255, M, (cw, ch), flags=cv2.INTER_NEAREST)
    mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    return DieCrop(crop, mask, (X0, Y0), s, side_full, blob, px)


def read_die_crop(crop: DieCrop) -> list[Die]:
    """The dice the still reader's ``read_crop`` finds in a crop, in full-resolution tray pixels."""
    out = []
    if crop.px == FACE_PX:
        readings = read_crop(crop.image, crop.mask)
    else:
        with at_face_px(crop.px, quick=crop.quick):
            readings = read_crop(crop.image, crop.mask)
    for r in readings:
        cx, cy = r.center
        out.append(Die(r.value, (crop.origin[0] + cx / crop.s, crop.origin[1] + cy / crop.s),
                       r.confidence, r.side / crop.s, r.reason))
    return out


def misjudged_side(dice: list[Die], crop: DieCrop) -> float | None:
    """The side the readable dice measured (full pixels), if the crop's guess was off by > 20 %
    (beyond that, a face is read at a scale its thresholds were not made for)."""
    sides = [d.side_px for d in dice if d.value is not None]
    if not sides:
        return None
    measured = float(np.median(sides))
    return measured if not 0.8 <= measured / crop.side_full <= 1.25 else None  # as read_dice allows
