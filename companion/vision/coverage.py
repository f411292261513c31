"""Coverage: which expedition's sheets lie over which hex, from a registered photo.

The photo is resampled onto the board plane (the loch and a margin, ``PPM`` px per mm) and divided
by a *reference*: the empty board, either a calibration photo or the board rendered from the box
profile.  A smooth lighting field (uneven light, colour temperature) is fitted to the uncovered
paper and divided out too, so what remains is each pixel's transmission.  Transparencies multiply
light, so log-transmissions add: a pixel's log-transmission is matched against every combination of
the four expeditions' sheets (up to two of each, plus a grey term for shading); the best match
names the expeditions present.  Pixels that are too bright (glare), saturated, too dark (deep
shadow) or fit no combination (a hand) are *unknown*.

A hex counts as covered by an expedition when any cleaned pixel of that expedition's colour lies
on the hex or on its border lines (polygon grown by half the printed line width); tiny specks of
colour (under ``MIN_BLOB_MM2``) are noise.  A hex not seen covered, with unknown pixels on it, is
*unknown*, never "uncovered".
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from . import boardart
from .registration import Registration, warp_to_board
from .sheets import LINE_MM, point_in_polygon, _seg_dist

EXPEDITIONS = ("independent", "japanese", "british", "american")
PPM = 4.0  # board-plane pixels per mm
MARGIN_MM = 16.0  # land measured round the loch (sheet tips lie there); tracks start further out
SHORE_BAND_MM = 4.0  # land this close to the shore counts for coverage too
MIN_BLOB_MM2 = 2.0
GLARE_LOG = 0.22  # brighter than the paper by this much (natural log): glare
HAZE_LOG = 0.07  # ... in every channel by this much: a veil of glare
HAZE_GROW_MM = 4.0
GHOST_INSIDE = 0.95  # a colour this much inside other expeditions' colours ...
GHOST_ALONE = 0.05  # ... and this rarely alone is taken for their mix (unknown)
SLIVER_CORE_MM = 3.0  # every real sheet shows a patch this wide somewhere; colour only ever
# narrower than that is the fringe of another sheet's edge (blur, JPEG's half-resolution colour)
SUSPECT_GROW_MM = 6.0  # colour blobs mostly this close to a hand or glare are not trusted
DEEP_SHADOW_LOG = -0.9
DIM_LOG = -2.3
OCCLUDED_FRACTION = 0.35  # hex lines fainter than this share of their usual contrast: hidden  # a channel passing less than ~10 % of the light is lost in the noise  # darker than the paper by this much, colour aside: too dark to see
RESIDUAL_MAX = 0.30
SHEET_PENALTY = 0.05  # per sheet in a candidate: prefer the simpler explanation
GREY_PENALTY = 0.0  # per unit of grey (shade) in a candidate: shade explains less than a sheet
BLEND_EXTRA = 3.0  # a part-covered pixel (a sheet edge) costs as much as this many more sheets
UNKNOWN_GROW_MM = 1.0
LINE_GROW_MM = 3.0
LINE_TINT_SHARE = 0.5  # a line pixel takes a sheet's colour when it shows this share of its hue
NEAR_MM = 1.5  # another expedition's colour this close to a line pixel is taken to lie on it too  # how far a colour seen on paper is followed into a printed line

_LUT_LO, _LUT_HI, _LUT_N = -4.5, 1.0, 48


@dataclass
class Layout:
    """The board-plane grid over the loch and every hex's pixels on it (cached per box)."""

    x0: float
    y0: float
    x1: float
    y1: float
    ppm: float
    shape: tuple[int, int]
    addresses: list[str]
    index: np.ndarray  # concatenated flat pixel indices of every hex's region
    offsets: np.ndarray  # start of each hex's run in ``index``
    reference: np.ndarray  # the rendered board, RGB float32 0..1
    paper: np.ndarray  # bool: plain loch paper, away from printed lines
    land: np.ndarray  # bool: plain land in the margin round the loch, away from printed lines
    band: np.ndarray  # bool: the part of ``land`` next to the shore

    def per_hex_any(self, mask: np.ndarray) -> np.ndarray:
        flat = mask.reshape(-1)[self.index].astype(np.int32)
        return np.add.reduceat(flat, self.offsets) > 0

    def hexes_touching(self, mask: np.ndarray) -> list[str]:
        return [a for a, hit in zip(self.addresses, self.per_hex_any(mask)) if hit]


_LAYOUTS: dict = {}


def layout(box, ppm: float = PPM, line_mm: float = LINE_MM) -> Layout:
    key = (box.digest, ppm, line_mm)
    if key in _LAYOUTS:
        return _LAYOUTS[key]
    shore = np.asarray(box.loch.shore_outline, float)
    x0, y0 = np.floor(shore.min(0) - MARGIN_MM)
    x1, y1 = np.ceil(shore.max(0) + MARGIN_MM)
    w, h = int(round((x1 - x0) * ppm)), int(round((y1 - y0) * ppm))
    ref = np.zeros((h, w, 3), np.float32)
    boardart.draw_board(ref, box, boardart.plane_mapper(ppm, x0, y0), tracks=True, line_mm=line_mm)
    # paper: loch pixels at least ~1 mm from any printed line
    loch = np.zeros((h, w), np.uint8)
    boardart.fill(loch, [shore], 255, boardart.plane_mapper(ppm, x0, y0))
    lines = (ref.min(-1) < 0.8).astype(np.uint8)
    k = int(round(0.5 * ppm)) * 2 + 1
    near_line = cv2.dilate(lines, np.ones((k, k), np.uint8)) > 0
    paper = (loch > 250) & ~near_line
    land_px = np.zeros((h, w), np.uint8)
    boardart.fill(land_px, [shore], 255, boardart.plane_mapper(ppm, x0, y0))
    land = (land_px == 0) & ~near_line
    dist = cv2.distanceTransform((land_px == 0).astype(np.uint8), cv2.DIST_L2, 5)
    band = land & (dist <= SHORE_BAND_MM * ppm)
    half = line_mm / 2
    index, offsets, addresses = [], [], []
    n = 0
    templates: dict = {}
    for hx in box.loch.hexes:
        poly = np.asarray(hx.polygon, float)
        lo = np.floor(((poly.min(0) - half) - [x0, y0]) * ppm - 1).astype(int)
        hi = np.ceil(((poly.max(0) + half) - [x0, y0]) * ppm + 1).astype(int)
        local = (poly - [x0, y0]) * ppm - lo  # polygon in the box's pixel units
        tkey = (tuple(np.round(local.ravel(), 6)), tuple(hi - lo))
        if tkey not in templates:
            ii, jj = np.meshgrid(np.arange(hi[0] - lo[0]), np.arange(hi[1] - lo[1]))
            pts = np.c_[ii.ravel() + 0.5, jj.ravel() + 0.5] / ppm
            lp = local / ppm
            sel = point_in_polygon(pts, lp) | (_seg_dist(pts, lp, np.roll(lp, -1, 0)).min(1) <= half + 1e-9)
            templates[tkey] = (ii.ravel()[sel], jj.ravel()[sel])
        ti, tj = templates[tkey]
        gi, gj = ti + lo[0], tj + lo[1]
        ok = (gi >= 0) & (gi < w) & (gj >= 0) & (gj < h)
        flat = gj[ok] * w + gi[ok]
        addresses.append(hx.address)
        offsets.append(n)
        index.append(flat)
        n += len(flat)
    out = Layout(float(x0), float(y0), float(x1), float(y1), ppm, (h, w), addresses,
                 np.concatenate(index), np.array(offsets), ref, paper, land, band)
    _LAYOUTS[key] = out
    return out


@lru_cache(maxsize=8)
def _candidates(colours: tuple[tuple[float, float, float], ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every explanation of a pixel: (log-transmission vectors, expedition bits, penalty).

    Up to two sheets of each expedition (four in all); and, over up to two whole sheets, part of
    one more sheet (a blurred edge), counted present when at least half covers the pixel.
    """
    T = np.clip(np.asarray(colours, float) / 255.0, 1e-3, 1.0)
    a = np.log(T)  # (4, 3)
    full = np.array(list(itertools.product(range(3), repeat=4)), float)
    full = full[full.sum(1) <= 4]
    vecs, bits, cost = [full @ a], [(full > 0) @ (1 << np.arange(4))], [full.sum(1)]
    base = full[full.sum(1) <= 2]
    for k in range(4):
        for alpha in (0.25, 0.5, 0.75):
            part = np.log(1 - alpha + alpha * T[k])
            vecs.append(base @ a + part)
            b = (base > 0) @ (1 << np.arange(4))
            bits.append(b | ((1 << k) if alpha >= 0.5 else 0))
            cost.append(base.sum(1) + alpha + BLEND_EXTRA)
    return (np.concatenate(vecs).astype(np.float32), np.concatenate(bits).astype(np.uint8),
            (SHEET_PENALTY * np.concatenate(cost)).astype(np.float32))


class _Lut:
    """Quantised log-transmission -> (code, grey term), filled in lazily for the bins seen.

    code: bit i set = expedition i present; bit 4 = fits no candidate.
    """

    def __init__(self, colours, s_lo: float, s_hi: float):
        self.vec, self.bit, self.pen = _candidates(colours)
        self.s_lo, self.s_hi = s_lo, s_hi
        n = _LUT_N ** 3
        self.done = np.zeros(n, bool)
        self.code = np.zeros(n, np.uint8)
        self.grey = np.zeros(n, np.float32)

    def lookup(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        need = np.unique(flat)
        need = need[~self.done[need]]
        if len(need):
            q0, rest = np.divmod(need, _LUT_N * _LUT_N)
            q1, q2 = np.divmod(rest, _LUT_N)
            c = ((np.stack([q0, q1, q2], -1) + 0.5) / _LUT_N * (_LUT_HI - _LUT_LO) + _LUT_LO).astype(np.float32)
            # dim channels are noisy in log terms: weigh each channel by its light (0.2 .. 1)
            wts = np.clip(np.exp(c) / 0.3, 0.2, 1.0).astype(np.float32)
            for i in range(0, len(c), 2048):
                diff = c[i:i + 2048, None, :] - self.vec[None]
                w = wts[i:i + 2048, None, :]
                s = np.clip((diff * w).sum(-1) / w.sum(-1), self.s_lo, self.s_hi)
                raw = np.sqrt((w * (diff - s[..., None]) ** 2).sum(-1) * (3.0 / w.sum(-1)))
                best = (raw + self.pen[None, :] + GREY_PENALTY * np.abs(s)).argmin(1)
                idx = np.arange(len(best))
                sel = need[i:i + 2048]
                self.code[sel] = self.bit[best] | np.where(raw[idx, best] > RESIDUAL_MAX, 16, 0).astype(np.uint8)
                self.grey[sel] = s[idx, best]
            self.done[need] = True
        return self.code[flat], self.grey[flat]


@lru_cache(maxsize=16)
def _lut(colours: tuple[tuple[float, float, float], ...], s_lo: float, s_hi: float) -> _Lut:
    return _Lut(colours, s_lo, s_hi)


def _lighting(D: np.ndarray, paper: np.ndarray, ppm: float, cell_mm: float = 8.0,
              window_mm: float = 96.0, glare_mm: float = 64.0) -> np.ndarray:
    """The log-lighting field (per channel) over the grid, from the uncovered paper.

    Sheets only ever darken a channel, so the lighting is the *upper envelope* of the paper's
    brightness: per cell a high percentile, then a grey-level closing wider than any sheet (which
    fills the dips under sheets), smoothed and interpolated to every pixel.
    """
    h, w = paper.shape
    cs = max(4, int(cell_mm * ppm))
    ny, nx = -(-h // cs), -(-w // cs)
    V = np.full((ny, nx, 3), np.nan, np.float32)
    for j in range(ny):
        for i in range(nx):
            m = paper[j * cs:(j + 1) * cs, i * cs:(i + 1) * cs]
            if m.sum() >= cs * cs * 0.15:
                V[j, i] = np.percentile(D[j * cs:(j + 1) * cs, i * cs:(i + 1) * cs][m], 90, axis=0)
    good = ~np.isnan(V[..., 0])
    if good.sum() == 0:
        return np.zeros((h, w, 3), np.float32)
    fill_value = np.nanmedian(V.reshape(-1, 3), axis=0)
    win = int(window_mm / cell_mm) | 1
    kernel = np.ones((win, 2 * win + 1), np.uint8)  # rows x columns: the loch is long and narrow
    small = np.ones((int(glare_mm / cell_mm) | 1,) * 2, np.uint8)
    out = np.empty_like(V)
    for c in range(3):
        ch = np.where(good, V[..., c], -20.0).astype(np.float32)
        ch = cv2.dilate(ch, kernel, borderType=cv2.BORDER_REPLICATE)  # closing: fill dips under sheets
        ch = cv2.erode(ch, kernel, borderType=cv2.BORDER_REPLICATE)
        ch = cv2.erode(ch, small, borderType=cv2.BORDER_REPLICATE)  # opening: drop glare peaks
        ch = cv2.dilate(ch, small, borderType=cv2.BORDER_REPLICATE)
        ch[ch < -10] = fill_value[c]
        out[..., c] = cv2.GaussianBlur(ch, (0, 0), 1.0, borderType=cv2.BORDER_REPLICATE)
    # cell centres -> pixels
    big = cv2.resize(out, (nx * cs, ny * cs), interpolation=cv2.INTER_LINEAR)
    return big[:h, :w]


@dataclass
class CoverageResult:
    covered: dict[str, list[str]]  # expedition -> hexes
    unknown: dict[str, list[str]]  # expedition -> hexes it cannot decide
    unknown_hexes: list[str]  # hexes with unseen pixels (any expedition)
    unknown_regions: list[dict]
    masks: dict[str, np.ndarray]  # expedition -> bool mask on the layout grid
    seen_flat: np.ndarray  # plain paper or land, seen: where a colour's absence means something
    fit_masks: dict[str, np.ndarray]  # expedition -> colour on plain paper and land (for fitting shapes)
    unknown_mask: np.ndarray
    dark_fraction: float
    debug: dict | None = None


def measure(photo: np.ndarray, reg: Registration, box, reference: np.ndarray | None = None,
            colours: dict | None = None, ppm: float = PPM, bgr: bool = False) -> CoverageResult:
    """Per-expedition covered hexes of a registered photo (RGB, or OpenCV's BGR with ``bgr=True``)."""
    lay = layout(box, ppm)
    warped, valid = warp_to_board(photo, reg, lay.x0, lay.y0, lay.x1, lay.y1, ppm)
    if bgr:
        warped = np.ascontiguousarray(warped[..., ::-1])
    if reference is None:
        # the camera softens printed lines; soften the drawn reference alike
        scale = _photo_scale(reg, lay)
        sigma = round(max(0.5, 0.5 * ppm / max(scale, 0.5)), 1)
        log_ref = _log_reference(lay, sigma)
    else:
        ref = reference.astype(np.float32) * (1 / 255.0) if reference.dtype == np.uint8 else reference
        log_ref = cv2.log(np.maximum(ref, 1 / 64))
    # log-transmission, computed in place to keep the memory down
    L = warped.astype(np.float32)
    L *= 1 / 255.0
    np.maximum(L, 1 / 512, out=L)
    cv2.log(L, L)
    L -= log_ref
    paper = lay.paper & valid
    L -= _lighting(L, paper, ppm)
    cols = colours or box.sheet_colours
    # the land's printed colour may differ from the drawing: take its median as uncovered
    land = lay.land & valid
    if land.sum() > 200:
        L[lay.land] -= np.median(L[land], axis=0)
    key = tuple(tuple(float(v) for v in cols[e]) for e in EXPEDITIONS)
    narrow = _lut(key, -1.2, 0.25)
    flat_area = lay.paper | lay.land
    Lf = L[flat_area]
    q = np.clip(((Lf - _LUT_LO) * (_LUT_N / (_LUT_HI - _LUT_LO))).astype(np.int32), 0, _LUT_N - 1)
    del Lf
    code = np.zeros(flat_area.shape, np.uint8)
    s = np.zeros(flat_area.shape, np.float32)
    code[flat_area], s[flat_area] = narrow.lookup((q[:, 0] * _LUT_N + q[:, 1]) * _LUT_N + q[:, 2])
    del q

    glare = flat_area & (L.max(-1) > GLARE_LOG)
    # weaker glare: paper brighter than the light in every channel (added white light); it washes
    # the colour out of sheets nearby, so the whole neighbourhood is unknown
    occluded = _occluded(warped, lay, valid)
    haze = _drop_small(flat_area & (L.min(-1) > HAZE_LOG), 4.0 * ppm * ppm)
    # the bright core: too bright, or lines washed out under near-white light
    core = _drop_small(glare | (occluded & (warped.min(-1) >= 230)), 4.0 * ppm * ppm)
    if haze.any() or core.any():
        # a glare spot fades out over about half its bright core's radius again
        n, _, stats, _ = cv2.connectedComponentsWithStats(core.astype(np.uint8), connectivity=8)
        radius = np.sqrt(stats[1:, cv2.CC_STAT_AREA].max() / np.pi) if n > 1 else 0.0
        kh = 2 * int(max(HAZE_GROW_MM * ppm, 0.6 * radius)) + 1
        glare |= cv2.dilate((haze | core).astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kh, kh))) > 0
    saturated = (warped.min(-1) >= 250) & (L.max(-1) > 0.08)
    dark = (s < DEEP_SHADOW_LOG) & flat_area
    too_dark_px = warped.max(-1) < 25
    # under several sheets two channels sink into the noise: what lies there can't be told apart
    dim = flat_area & ((L < DIM_LOG).sum(-1, dtype=np.uint8) >= 2)
    misfit = ((code & 16) > 0) & flat_area
    ko = int(round(1.0 * ppm)) | 1
    misfit = cv2.morphologyEx(misfit.astype(np.uint8), cv2.MORPH_OPEN, np.ones((ko, ko), np.uint8)) > 0
    unknown = (~valid) | glare | saturated | dark | too_dark_px | misfit | dim | occluded
    unknown = _drop_small(unknown, MIN_BLOB_MM2 * ppm * ppm)
    k = int(round(UNKNOWN_GROW_MM * ppm)) * 2 + 1
    unknown = cv2.dilate(unknown.astype(np.uint8), np.ones((k, k), np.uint8)) > 0
    seen = ~unknown
    loch_px = lay.paper.sum()
    dark_fraction = float((too_dark_px & lay.paper).sum() / max(loch_px, 1))
    grow = int(round(LINE_GROW_MM * ppm))
    cross = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))

    masks, covered, undecided, fit_masks = {}, {}, {}, {}
    occluded_near = None
    suspect = occluded | glare
    if suspect.any():  # colour round a hand is the hand's, round glare washed out: not a sheet's
        kk = int(SUSPECT_GROW_MM * ppm) * 2 + 1
        occluded_near = cv2.dilate(suspect.astype(np.uint8), np.ones((kk, kk), np.uint8)) > 0
    unk_hex = lay.per_hex_any(unknown)
    unk_e = {}
    for i, e in enumerate(EXPEDITIONS):
        has = ((code & (1 << i)) > 0) & seen & valid
        fit_masks[e] = _drop_small(has & flat_area, MIN_BLOB_MM2 * ppm * ppm)
        unk_e[e] = unk_hex
        kept = fit_masks[e]
        if occluded_near is not None:
            kept = _drop_mostly_in(kept, occluded_near, 0.25)
        # a colour seen only ever mixed into other expeditions' overlaps is more likely their mix
        others = ((code & (15 & ~(1 << i))) > 0) & flat_area
        alone = (code & 15) == (1 << i)
        kept = _drop_ghosts(kept, others, alone, int(round(3.5 * ppm)))
        dropped = fit_masks[e] & ~kept
        kept = _drop_slivers(kept, unknown, int(round(SLIVER_CORE_MM * ppm)), int(round(3.5 * ppm)))
        fit_masks[e] = kept
        if dropped.any():  # what was dropped is not "uncovered" either
            kd = int(LINE_GROW_MM * ppm) * 2 + 1
            unk_e[e] = unk_hex | lay.per_hex_any(cv2.dilate(dropped.astype(np.uint8), np.ones((kd, kd), np.uint8)) > 0)
    # on printed lines the light is too dim and the drawing too rough for the full match: judge
    # each expedition by the hue alone (the log-transmission less its grey part), after taking
    # out the hue of the other expeditions' colour seen on the paper right beside the pixel
    line_px = ~flat_area & valid & seen
    chroma = cv2.blur(L, (3, 3))[line_px]
    chroma -= chroma.mean(-1, keepdims=True)
    tints = np.log(np.clip(np.asarray([cols[e] for e in EXPEDITIONS], np.float32) / 255.0, 1e-3, 1.0))
    tints -= tints.mean(-1, keepdims=True)
    kn = np.ones((int(round(NEAR_MM * ppm)) * 2 + 1,) * 2, np.uint8)
    near = {e: cv2.dilate(fit_masks[e].astype(np.uint8), kn)[line_px] for e in EXPEDITIONS}
    for i, e in enumerate(EXPEDITIONS):
        m = fit_masks[e] & (lay.paper | lay.band)
        # printed lines: only next to colour seen on plain paper, at most LINE_GROW_MM into them
        rest = chroma.copy()
        for j, o in enumerate(EXPEDITIONS):
            if o != e and near[o].any():
                rest -= near[o][:, None] * tints[j]
        allowed = np.zeros(flat_area.shape, np.uint8)
        allowed[line_px] = (rest @ tints[i]) / float(tints[i] @ tints[i]) > LINE_TINT_SHARE
        mm = m.astype(np.uint8)
        for _ in range(grow):
            mm = cv2.dilate(mm, cross) & (allowed | mm)
        m = mm > 0
        masks[e] = m
        hit = lay.per_hex_any(m)
        covered[e] = [a for a, h in zip(lay.addresses, hit) if h]
        undecided[e] = [a for a, h, u in zip(lay.addresses, hit, unk_e[e]) if u and not h]
    regions = _regions(unknown, lay, glare, saturated, dark | too_dark_px | dim, ~valid, occluded)
    return CoverageResult(covered, undecided, [a for a, u in zip(lay.addresses, unk_hex) if u], regions,
                          masks, seen & valid & flat_area, fit_masks, unknown, dark_fraction,
                          {'glare': glare, 'saturated': saturated, 'dark': dark, 'too_dark': too_dark_px,
                           'misfit': misfit})


_LOG_REFS: dict = {}


def _log_reference(lay: Layout, sigma: float) -> np.ndarray:
    """log of the drawn reference, softened like the camera (cached per layout and blur)."""
    key = (id(lay), sigma)
    if key not in _LOG_REFS:
        if len(_LOG_REFS) > 8:
            _LOG_REFS.clear()
        ref = cv2.GaussianBlur(lay.reference, (0, 0), sigma)
        _LOG_REFS[key] = cv2.log(np.maximum(ref, 1 / 64))
    return _LOG_REFS[key]


def _photo_scale(reg: Registration, lay: Layout) -> float:
    """Photo pixels per board mm in the middle of the loch."""
    c = np.array([[(lay.x0 + lay.x1) / 2, (lay.y0 + lay.y1) / 2]])
    p = reg.to_photo(np.vstack([c, c + [1.0, 0.0]]))
    return float(np.linalg.norm(p[1] - p[0]))


def _drop_small(mask: np.ndarray, min_px: float) -> np.ndarray:
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    if n <= 1:
        return mask.astype(bool)
    keep = stats[:, cv2.CC_STAT_AREA] >= min_px
    keep[0] = False
    return keep[labels]


def _drop_mostly_in(mask: np.ndarray, region: np.ndarray, share: float) -> np.ndarray:
    """Remove the connected parts of ``mask`` lying ``share`` or more inside ``region``."""
    n, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    if n <= 1:
        return mask
    total = np.bincount(labels.ravel(), minlength=n)
    inside = np.bincount(labels[region], minlength=n)
    drop = inside >= share * np.maximum(total, 1)
    drop[0] = False
    return mask & ~drop[labels]


def _drop_ghosts(mask: np.ndarray, others: np.ndarray, alone: np.ndarray, bridge_px: int) -> np.ndarray:
    """Remove parts of ``mask`` that lie wholly within others' colours and never show alone.

    Parts are joined across the printed lines (which split a sheet's colour into cells).
    """
    k = bridge_px | 1
    joined = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    n, labels = cv2.connectedComponents(joined, connectivity=8)
    if n <= 1:
        return mask
    total = np.maximum(np.bincount(labels[mask], minlength=n), 1)
    inside = np.bincount(labels[others & mask], minlength=n)
    solo = np.bincount(labels[alone & mask], minlength=n)
    drop = (inside >= GHOST_INSIDE * total) & (solo < GHOST_ALONE * total)
    drop[0] = False
    return mask & ~drop[labels]


def _drop_slivers(mask: np.ndarray, neutral: np.ndarray, core_px: int, bridge_px: int) -> np.ndarray:
    """Remove parts of ``mask`` (joined across printed lines) nowhere ``core_px`` wide.

    ``neutral`` (unseen pixels) counts as inside, so a sheet mostly hidden by glare keeps its
    visible strip.
    """
    k = bridge_px | 1
    joined = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    n, labels = cv2.connectedComponents(joined, connectivity=8)
    if n <= 1:
        return mask
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (core_px | 1, core_px | 1))
    core = cv2.erode((mask | neutral).astype(np.uint8), disc) > 0
    has_core = np.bincount(labels[core & mask], minlength=n) > 0
    has_core[0] = False
    return mask & has_core[labels]


def _occluded(warped: np.ndarray, lay: Layout, valid: np.ndarray, block_mm: float = 8.0) -> np.ndarray:
    """Where the printed hex lines have vanished: something opaque (a hand) lies over the loch.

    A transparency darkens a line and the paper beside it alike, so the line's contrast survives
    under any number of sheets; an opaque object or glare wipes it out.
    """
    g = warped.astype(np.float32).mean(-1)
    bg = cv2.dilate(g, np.ones((9, 9), np.uint8))
    line = (lay.reference.min(-1) < 0.5) & valid
    contrast = np.where(line, (bg - g) / np.maximum(bg, 8.0), 0).astype(np.float32)
    h, w = g.shape
    b = max(4, int(block_mm * lay.ppm))
    size = (max(1, w // b), max(1, h // b))
    num = cv2.resize(contrast, size, interpolation=cv2.INTER_AREA)
    den = cv2.resize(line.astype(np.float32), size, interpolation=cv2.INTER_AREA)
    has = den > 0.01
    if has.sum() < 10:
        return np.zeros((h, w), bool)
    ratio = np.where(has, num / np.maximum(den, 1e-6), 1.0)
    typical = float(np.median(ratio[has]))
    bad = (has & (ratio < OCCLUDED_FRACTION * typical)).astype(np.uint8)
    bad = cv2.resize(bad, (w, h), interpolation=cv2.INTER_NEAREST) > 0
    return bad & lay_loch_mask(lay)


def lay_loch_mask(lay: Layout) -> np.ndarray:
    return lay.paper | (lay.reference.min(-1) < 0.8) & ~lay.land


def _regions(unknown, lay: Layout, glare, saturated, dark, outside, occluded=None) -> list[dict]:
    n, labels, stats, _ = cv2.connectedComponentsWithStats(unknown.astype(np.uint8), connectivity=8)
    out = []
    for k in range(1, n):
        m = labels == k
        kinds = []
        for name, src in (("glare", glare | saturated), ("too dark", dark), ("out of view", outside),
                          ("hex lines hidden (a hand or an object?)", occluded if occluded is not None else outside)):
            if (src & m).any():
                kinds.append(name)
        x, y, w, h = stats[k, :4]
        hexes = lay.hexes_touching(m)
        if not hexes:
            continue
        out.append({"reason": ", ".join(kinds) or "unrecognised (a hand or an object?)",
                    "bbox_mm": [round(lay.x0 + x / lay.ppm, 1), round(lay.y0 + y / lay.ppm, 1),
                                round(w / lay.ppm, 1), round(h / lay.ppm, 1)],
                    "hexes": hexes})
    return out
