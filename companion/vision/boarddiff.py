"""What changed on the loch between two still views, in the board plane.

Each view is registered on its own (its markers) and resampled on the board plane around the loch,
so a camera nudged between the views changes nothing.  A transparency is a colour filter: where a
sheet of colour ``c`` arrives, every channel is multiplied by ``c / 255`` whatever lies beneath
(paper, printed lines, other sheets); where one leaves, divided by it.  So the per-channel
log-ratio of the two views is ``log(c / 255)`` where a sheet arrived, ``-log(c / 255)`` where one
left, and zero elsewhere -- after the overall exposure change (the median log-ratio) is taken out.

Each changed pixel is matched to the nearest of these signatures; pixels that match none (a hand,
a shadow, a coin) are *unexplained*.  A large unexplained area means the view is obstructed and
no call is made on it.

Pure numpy/OpenCV on arrays; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from . import gridfit
from .adjudicate import Photo, registered
from .registration import Registration, warp_to_board
from .sheets import place

PPM = 4.0  # board-plane pixels per mm: 0.25 mm pixels, so poses come out well inside a millimetre
MARGIN_MM = 25.0  # around the loch: the pointed ends on the shore, and a sheet's edge beyond it
CHANGE_LOG = 0.12  # |log-ratio| in some channel above this: the pixel changed (about 11 %; the yellow sheet darkens green by 16 %)
MATCH_LOG = 0.45  # weighted distance to a sheet's signature that still counts as that sheet
DIM = 40.0  # grey level below which a channel is too dim to trust its ratio (printed lines, dark overlaps)
FLOOR = 10.0  # ... and the level a channel may fall to and still be read (sheets over sheets)
CLEAN_MM = 1.0  # openings of this size drop the slivers left by registration error along edges
EDGE_MM = 2.5  # a partly covered band wider than this is not a sheet's edge
MIN_CHANGE_MM2 = 20.0  # a change smaller than this is noise
OBSTRUCTION_MM2 = 150.0  # an unexplained change at least this large makes the view obstructed


@dataclass
class BoardView:
    """One still view resampled on the board plane (BGR uint8) with the mask of where it has pixels."""

    plane: np.ndarray
    valid: np.ndarray
    registration: Registration
    at: float  # the caller's clock, seconds


@dataclass(frozen=True)
class Grid:
    """The board-plane grid: pixel (i, j) has its centre at (x0 + (j + 0.5) / ppm, y0 + (i + 0.5) / ppm) mm."""

    x0: float
    y0: float
    x1: float
    y1: float
    ppm: float = PPM

    @property
    def shape(self) -> tuple[int, int]:
        return int(round((self.y1 - self.y0) * self.ppm)), int(round((self.x1 - self.x0) * self.ppm))

    def raster(self, poly_mm: np.ndarray) -> np.ndarray:
        """A polygon in board mm as a bool mask on this grid."""
        m = np.zeros(self.shape, np.uint8)
        px = (np.asarray(poly_mm, float) - [self.x0, self.y0]) * self.ppm - 0.5
        cv2.fillPoly(m, [np.round(px * 16).astype(np.int32)], 1, lineType=cv2.LINE_8, shift=4)
        return m > 0

    def sheet(self, box, pose) -> np.ndarray:
        return self.raster(place(box.equipment[pose.equipment].shape, pose.x, pose.y, pose.angle_deg))

    def near(self, poly_mm: np.ndarray, mm: float) -> np.ndarray:
        """Every pixel within the polygon's bounding box grown by ``mm`` (a generous, cheap "nearby")."""
        poly = np.asarray(poly_mm, float)
        (c0, r0), (c1, r1) = ((poly.min(0) - mm - [self.x0, self.y0]) * self.ppm).astype(int), \
            ((poly.max(0) + mm - [self.x0, self.y0]) * self.ppm).astype(int) + 1
        m = np.zeros(self.shape, bool)
        m[max(r0, 0):max(r1, 0), max(c0, 0):max(c1, 0)] = True
        return m

    def mm2(self, mask: np.ndarray) -> float:
        return float(mask.sum()) / (self.ppm * self.ppm)

    def bbox_mm(self, mask: np.ndarray) -> list[float]:
        ys, xs = np.nonzero(mask)
        return [round(self.x0 + xs.min() / self.ppm, 1), round(self.y0 + ys.min() / self.ppm, 1),
                round((xs.max() - xs.min() + 1) / self.ppm, 1), round((ys.max() - ys.min() + 1) / self.ppm, 1)]


def loch_grid(box, margin_mm: float = MARGIN_MM, ppm: float = PPM) -> Grid:
    shore = np.asarray(box.loch.shore_outline, float)
    lo, hi = shore.min(0) - margin_mm, shore.max(0) + margin_mm
    lo = np.maximum(lo, 0.0)
    hi = np.minimum(hi, [box.width, box.height])
    return Grid(float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]), ppm)


def board_view(frame_bgr: np.ndarray, box, grid: Grid, at: float) -> BoardView:
    """Register a frame and resample it on the grid, or raise VisionRefusal (too dark, no markers...)."""
    grey = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
    reg = registered(Photo(frame_bgr, grey, "board camera"), box)
    # the hex grid pins the registration down to about 0.1 mm (markers alone: 0.3 mm), so two views
    # from a nudged camera line up and their printed lines do not read as change
    reg = gridfit.refine(reg, grey, box)
    plane, valid = warp_to_board(frame_bgr, reg, grid.x0, grid.y0, grid.x1, grid.y1, grid.ppm)
    return BoardView(plane, valid, reg, at)


def signatures(colours: dict) -> dict[str, np.ndarray]:
    """Each expedition's log-transmission (BGR order, like the planes)."""
    out = {}
    for e, rgb in colours.items():
        t = np.clip(np.asarray(rgb, np.float32)[::-1] / 255.0, 0.05, 1.0)
        out[e] = np.log(t)
    return out


@dataclass
class Change:
    """The change from a reference view to the current one, pixel by pixel on the grid."""

    changed: np.ndarray  # bool: some channel changed (before cleaning: every trace, for the reference update)
    seen: np.ndarray  # bool: both views have the pixel, bright enough to read a ratio
    arrived: dict[str, np.ndarray]  # expedition -> bool: a sheet of this colour arrived here
    left: dict[str, np.ndarray]  # expedition -> bool: a sheet of this colour left
    unexplained: np.ndarray  # bool: changed, matching no sheet's signature (cleaned)


def compare(reference: BoardView, current: BoardView, colours: dict, grid: Grid) -> Change:
    # a light blur first: camera noise in dim channels would otherwise read as change
    ref = cv2.GaussianBlur(reference.plane.astype(np.float32), (3, 3), 0.7)
    cur = cv2.GaussianBlur(current.plane.astype(np.float32), (3, 3), 0.7)
    both = reference.valid & current.valid
    lr = np.log(cur + 2.0) - np.log(ref + 2.0)
    # exposure and white balance drift: most of the loch is unchanged, so its median ratio is the drift
    if both.sum() > 100:
        lr -= np.median(lr[::4, ::4][both[::4, ::4]], axis=0)
    # a channel's ratio is only as good as its light: weigh it down when both views are dim there (a
    # printed line), or when it went nearly black (noise is all that is left)
    weight = np.clip(np.maximum(ref, cur) / DIM, 0.0, 1.0) * np.clip(np.minimum(ref, cur) / FLOOR, 0.0, 1.0)
    seen = both & (weight.max(-1) >= 0.5)
    changed = both & ((np.abs(lr) * weight).max(-1) > CHANGE_LOG)
    sigs = signatures(colours)
    names = list(sigs)
    # what may have happened at a pixel: one sheet arrived (+s) or left (-s), or two arrived or left
    # together (two sheets put down, overlapping, between two looks: their signatures add)
    events = [(sign, (e,)) for e in names for sign in (1.0, -1.0)]
    events += [(sign, (a, b)) for i, a in enumerate(names) for b in names[i:] for sign in (1.0, -1.0)]
    # only the changed pixels are matched (few)
    rows, cols = np.nonzero(changed & seen)
    d_lr, d_w = lr[rows, cols], weight[rows, cols]
    norm = np.maximum(d_w.sum(-1), 1e-3)
    best = np.full(len(rows), np.inf, np.float32)
    label = np.full(len(rows), -1, np.int16)
    for k, (sign, exps) in enumerate(events):
        target = sign * sum(sigs[e] for e in exps)
        d = np.sqrt((((d_lr - target) ** 2) * d_w).sum(-1) / norm)
        closer = d < best
        best[closer], label[closer] = d[closer], k
    label[best >= MATCH_LOG] = -1
    # a pixel a sheet's edge only partly covers (a sheet slid a fraction of a millimetre, blur) shows
    # a blend of paper and sheet: explained, though it belongs to neither side
    unsure = np.nonzero(label == -1)[0]
    if len(unsure):
        edge = _near_blend(d_lr[unsure], d_w[unsure], norm[unsure], [sigs[e] for e in names])
        label[unsure[edge]] = -3
    labels = np.full(changed.shape, -2, np.int16)  # -2 unchanged, -1 no sheet, -3 a sheet's edge, k a signature
    labels[rows, cols] = label
    # ... but an edge is thin: a broad blend-coloured area is something else (skin reads like a faint red)
    thick = _open(labels == -3, _kernel(EDGE_MM, grid.ppm))
    labels[thick] = -1
    k_open = _kernel(CLEAN_MM, grid.ppm)
    arrived = {e: np.zeros(changed.shape, bool) for e in names}
    left = {e: np.zeros(changed.shape, bool) for e in names}
    for k, (sign, exps) in enumerate(events):
        where = labels == k
        if not where.any():
            continue
        for e in exps:
            (arrived if sign > 0 else left)[e] |= where
    arrived = {e: _open(m, k_open) for e, m in arrived.items()}
    left = {e: _open(m, k_open) for e, m in left.items()}
    unexplained = _open(labels == -1, k_open)
    unexplained = _drop_small(unexplained, MIN_CHANGE_MM2 * grid.ppm ** 2)
    return Change(changed, seen, arrived, left, unexplained)


def _near_blend(lr: np.ndarray, w: np.ndarray, norm: np.ndarray, sigs: list[np.ndarray]) -> np.ndarray:
    """Which log-ratios lie near a partial cover: log(1 - a + a t) for some 0 < a < 1, arriving or leaving."""
    near = np.zeros(len(lr), bool)
    for sig in sigs:
        t = np.exp(sig)
        for a in np.linspace(0.1, 0.9, 9):
            blend = np.log(1 - a + a * t).astype(np.float32)
            for sign in (1.0, -1.0):
                d = np.sqrt((((lr - sign * blend) ** 2) * w).sum(-1) / norm)
                near |= d < MATCH_LOG / 2
    return near


def _kernel(mm: float, ppm: float) -> np.ndarray:
    k = max(1, int(round(mm * ppm))) | 1
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))


def _open(mask: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    return cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, kernel) > 0


def _drop_small(mask: np.ndarray, min_px: float) -> np.ndarray:
    if not mask.any():
        return mask
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    keep = np.zeros(n, bool)
    keep[1:] = stats[1:, cv2.CC_STAT_AREA] >= min_px
    return keep[labels]


def grow(mask: np.ndarray, mm: float, ppm: float) -> np.ndarray:
    return cv2.dilate(mask.astype(np.uint8), _kernel(2 * mm, ppm)) > 0
