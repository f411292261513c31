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

import hashlib
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from . import boardart
from .lighting import lighting as _lighting
from .registration import Registration, grid_maps
from .sheets import LINE_MM, point_in_polygon, _seg_dist
from .transmission import DARK, MISFIT, packed_bins, table

EXPEDITIONS = ("independent", "japanese", "british", "american")
PPM = 4.0  # board-plane pixels per mm of the masks handed on (the sheet fitter's grid)
# ... and of the grid the photo is judged on: a 12 MP photo has about 2.3 px per board mm, a
# 1600x1200 one about 1.9, so 3 px/mm loses nothing the camera saw and costs half of 4 px/mm
# (decisions on the 84 bench scenes as right at 3 px/mm as at 4; 2.5 was worse)
WORK_PPM = 3.0
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
LOOKALIKE_HUE = 0.6  # log-hue distance under which one sheet passes for two others overlapping
LOOKALIKE_RING_MM = 2.0  # ... and is taken for them when ringed by their colours, this wide
LOOKALIKE_RINGED = 0.6  # ... over this share of the ring
SUSPECT_GROW_MM = 6.0  # colour blobs mostly this close to a hand or glare are not trusted
DEEP_SHADOW_LOG = -0.9  # darker than the paper by this much, colour aside: too dark to see
DIM_LOG = -2.3  # a channel passing less than ~10 % of the light is lost in the noise
OCCLUDED_FRACTION = 0.35  # hex lines fainter than this share of their usual contrast: hidden
UNKNOWN_GROW_MM = 1.0
# How far (octagonal distance) a colour seen on paper is followed into a printed line: far enough to
# cross the paper's margin and pass the middle of the line (0.9 mm; 1.05 mm at a corner), no
# further, since colour bled along a line (blur, JPEG) would carry the sheet past its edge.
LINE_GROW_MM = 1.5
LINE_BLUR_PX = 1  # no averaging of line pixels: blur would carry colour past sheet edges (JPEG already blurs colour)
LINE_TINT_SHARE = 0.5  # a line pixel takes a sheet's colour when it shows this share of its hue
NEAR_MM = 1.5  # another expedition's colour this close to a line pixel is taken to lie on it too
MAP_STEP_PX = 8  # the photo<->plane maps are smooth: computed every this many pixels, interpolated
# log(v / 255) of every 8-bit value (0 read as half a level: the log must stay finite)
_LOG8 = np.log(np.maximum(np.arange(256, dtype=np.float64), 0.5) / 255.0).astype(np.float32)


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

    def __post_init__(self):
        # derived masks, used on every photo
        self.flat = self.paper | self.land  # plain paper or land: where the full colour match applies
        self.measured = self.paper | self.band  # where colour seen decides coverage
        r, g, b = cv2.split(self.reference)  # cv2 per channel: numpy's min over a last axis of 3 is slow
        darkest = cv2.min(cv2.min(r, g), b)
        self.printed = darkest < 0.5  # the printed lines themselves
        self.loch = self.paper | (darkest < 0.8) & ~self.land

    def per_hex_any(self, mask: np.ndarray) -> np.ndarray:
        flat = mask.reshape(-1)[self.index].astype(np.int32)
        return np.add.reduceat(flat, self.offsets) > 0

    def per_hex_bits(self, bits: np.ndarray) -> np.ndarray:
        """Per hex the OR of a bit image (uint8, uint16) over the hex's pixels: many masks at once."""
        return np.bitwise_or.reduceat(bits.reshape(-1)[self.index], self.offsets)

    def hexes_touching(self, mask: np.ndarray) -> list[str]:
        return [a for a, hit in zip(self.addresses, self.per_hex_any(mask)) if hit]


_LAYOUTS: dict = {}
_ARRAYS = ("index", "offsets", "reference", "paper", "land", "band")


def layout(box, ppm: float = PPM, line_mm: float = LINE_MM) -> Layout:
    """The layout for a box, from memory, else from the on-disk cache, else drawn (about a third
    of a second on a desktop core, far more on the Pi: every CLI process would pay it)."""
    key = (box.digest, ppm, line_mm)
    if key in _LAYOUTS:
        return _LAYOUTS[key]
    path = _layout_path(box.digest, ppm, line_mm)
    out = _load_layout(path) if path is not None else None
    if out is None:
        out = _build_layout(box, ppm, line_mm)
        if path is not None:
            _save_layout(out, path)
    _LAYOUTS[key] = out
    return out


def _code_version() -> str:
    """A digest of the code that draws a layout (this module, the board art, the hex geometry) and
    of the libraries that draw it: any change makes a new cache file rather than a stale layout."""
    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for name in ("coverage.py", "boardart.py", "sheets.py"):
        h.update((here / name).read_bytes())
    h.update(f"{cv2.__version__} {np.__version__}".encode())
    return h.hexdigest()[:16]


def _layout_path(digest: str, ppm: float, line_mm: float) -> Path | None:
    try:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        name = hashlib.sha256(f"{digest} {ppm!r} {line_mm!r} {_code_version()}".encode()).hexdigest()[:24]
        return Path(base) / "nessie-companion" / f"layout-{name}.npz"
    except Exception:  # no home, unreadable source: just draw the layout
        return None


def _load_layout(path: Path) -> Layout | None:
    """A cached layout, or None when missing, unreadable or corrupt (it is then drawn afresh)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in _ARRAYS}
            x0, y0, x1, y1, ppm = (float(v) for v in z["bounds"])
            addresses = [str(a) for a in z["addresses"]]
        h, w = arrays["reference"].shape[:2]
        n = h * w
        # a sound file is self-consistent: check what a truncated or foreign file would break
        ok = (arrays["paper"].shape == arrays["land"].shape == arrays["band"].shape == (h, w)
              and arrays["reference"].shape == (h, w, 3) and arrays["reference"].dtype == np.float32
              and len(arrays["offsets"]) == len(addresses) and len(arrays["index"]) > 0
              and int(arrays["index"].min()) >= 0 and int(arrays["index"].max()) < n
              and all(arrays[k].dtype == bool for k in ("paper", "land", "band")))
        if not ok:
            return None
        return Layout(x0, y0, x1, y1, ppm, (h, w), addresses, *(arrays[k] for k in _ARRAYS))
    except Exception:  # missing, truncated, garbage: draw it
        return None


def _save_layout(lay: Layout, path: Path) -> None:
    """Write the layout atomically (a reader never sees half a file); failures are silent."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".layout-", suffix=".npz")
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, bounds=np.array([lay.x0, lay.y0, lay.x1, lay.y1, lay.ppm]),
                                addresses=np.array(lay.addresses), **{k: getattr(lay, k) for k in _ARRAYS})
        os.replace(tmp, path)
        tmp = None
    except Exception:  # read-only home, full disk: the layout is simply drawn next time too
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _build_layout(box, ppm: float, line_mm: float) -> Layout:
    shore = np.asarray(box.loch.shore_outline, float)
    x0, y0 = np.floor(shore.min(0) - MARGIN_MM)
    x1, y1 = np.ceil(shore.max(0) + MARGIN_MM)
    w, h = int(round((x1 - x0) * ppm)), int(round((y1 - y0) * ppm))
    ref = np.zeros((h, w, 3), np.float32)
    boardart.draw_board(ref, box, boardart.plane_mapper(ppm, x0, y0), tracks=True, line_mm=line_mm)
    # paper: loch pixels at least ~1 mm from any printed line
    loch = np.zeros((h, w), np.uint8)
    boardart.fill(loch, [shore], 255, boardart.plane_mapper(ppm, x0, y0))
    lines = (cv2.min(cv2.min(ref[..., 0].copy(), ref[..., 1].copy()), ref[..., 2].copy()) < 0.8).astype(np.uint8)
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
    return Layout(float(x0), float(y0), float(x1), float(y1), ppm, (h, w), addresses,
                  np.concatenate(index), np.array(offsets), ref, paper, land, band)


@dataclass
class CoverageResult:
    covered: dict[str, list[str]]  # expedition -> hexes
    unknown: dict[str, list[str]]  # expedition -> hexes it cannot decide
    unknown_hexes: list[str]  # hexes with unseen pixels (any expedition)
    unknown_regions: list[dict]
    masks: Mapping[str, np.ndarray]  # expedition -> bool mask on the layout grid
    seen_flat: np.ndarray  # plain paper or land, seen: where a colour's absence means something
    fit_masks: Mapping[str, np.ndarray]  # expedition -> colour on plain paper and land (for fitting shapes)
    unknown_mask: np.ndarray
    dark_fraction: float
    debug: dict | None = None


def measure(photo: np.ndarray, reg: Registration, box, reference: np.ndarray | None = None,
            colours: dict | None = None, ppm: float = PPM, bgr: bool = False) -> CoverageResult:
    """Per-expedition covered hexes of a registered photo (RGB, or OpenCV's BGR with ``bgr=True``).

    The masks come on the ``ppm`` layout (``layout(box, ppm)``); the photo is judged at
    ``WORK_PPM`` when that is coarser (see there), its masks then scaled up.
    """
    _tick(None)
    out_lay = layout(box, ppm)
    ppm = min(ppm, WORK_PPM)
    lay = layout(box, ppm)
    if reference is not None and reference.shape[:2] != lay.shape:
        reference = cv2.resize(reference, lay.shape[::-1], interpolation=cv2.INTER_AREA)
    warped, valid = _warp(photo, reg, lay)
    _tick('warp')
    if bgr:
        warped = cv2.cvtColor(warped, cv2.COLOR_BGR2RGB)
    if reference is None:
        # the camera softens printed lines; soften the drawn reference alike
        scale = _photo_scale(reg, lay)
        sigma = round(max(0.5, 0.5 * ppm / max(scale, 0.5)), 1)
        log_ref = _log_reference(lay, sigma)
    else:
        ref = reference.astype(np.float32) * (1 / 255.0) if reference.dtype == np.uint8 else reference
        log_ref = cv2.log(np.maximum(ref, 1 / 64))
    L = cv2.LUT(warped, _LOG8)  # log-transmission: log(photo) - log(reference) - log(light)
    cv2.subtract(L, log_ref, dst=L)
    _tick('log')
    flat_area = lay.flat
    cv2.subtract(L, _lighting(L, lay.paper & valid, ppm), dst=L)
    _tick('lighting')
    cols = colours or box.sheet_colours
    # the land's printed colour may differ from the drawing: take its median as uncovered
    land = lay.land & valid
    n_land = np.count_nonzero(land)
    if n_land > 200:
        step = max(1, int(n_land // 20000))  # a sample is plenty for a median
        med = np.median(L[land][::step], axis=0).astype(np.float32)
        # cv2's masked subtract: numpy's where= over a broadcast mask is ten times slower
        cv2.subtract(L, tuple(float(v) for v in med) + (0.0,), dst=L, mask=lay.land.view(np.uint8))
    key = tuple(tuple(float(v) for v in cols[e]) for e in EXPEDITIONS)
    code = table(key, -1.2, 0.25).lookup_packed(packed_bins(L), DEEP_SHADOW_LOG)
    dark = ((code & DARK) > 0) & flat_area
    code[~flat_area] = 0
    code &= ~np.uint8(DARK)
    _tick('table')
    Lc = cv2.split(L)
    Lmax = cv2.max(cv2.max(Lc[0], Lc[1]), Lc[2])
    wc = cv2.split(warped)  # contiguous planes: cv2 would copy each strided channel view
    wmin = cv2.min(cv2.min(wc[0], wc[1]), wc[2])

    glare = flat_area & (Lmax > GLARE_LOG)
    # weaker glare: paper brighter than the light in every channel (added white light); it washes
    # the colour out of sheets nearby, so the whole neighbourhood is unknown
    occluded = _occluded(warped, lay, valid)
    _tick('occluded')
    haze = _drop_small(flat_area & (cv2.min(cv2.min(Lc[0], Lc[1]), Lc[2]) > HAZE_LOG), 4.0 * ppm * ppm)
    # the bright core: too bright, or lines washed out under near-white light
    core = _drop_small(glare | (occluded & (wmin >= 230)), 4.0 * ppm * ppm)
    if haze.any() or core.any():
        # a glare spot fades out over about half its bright core's radius again
        n, _, areas = _labelled(core)
        radius = np.sqrt(areas[1:].max() / np.pi) if n > 1 else 0.0
        kh = 2 * int(max(HAZE_GROW_MM * ppm, 0.6 * radius)) + 1
        glare |= _grown(haze | core, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kh, kh)))
    saturated = (wmin >= 250) & (Lmax > 0.08)
    too_dark_px = cv2.max(cv2.max(wc[0], wc[1]), wc[2]) < 25
    # under several sheets two channels sink into the noise: what lies there can't be told apart
    dim = flat_area & (((Lc[0] < DIM_LOG).view(np.uint8) + (Lc[1] < DIM_LOG).view(np.uint8)
                        + (Lc[2] < DIM_LOG).view(np.uint8)) >= 2)
    # the planes and the warped photo are done with: free them before the masks are built, so the
    # process's peak memory stays in bounds on a 12 MP photo (about 90 MB at 4 px/mm)
    del Lc, wc, Lmax, wmin, warped
    _tick('glare')
    misfit = ((code & MISFIT) > 0).view(np.uint8)
    ko = int(round(1.0 * ppm)) | 1
    misfit = cv2.morphologyEx(misfit, cv2.MORPH_OPEN, np.ones((ko, ko), np.uint8)) > 0
    unknown = (~valid) | glare | saturated | dark | too_dark_px | misfit | dim | occluded
    unknown = _drop_small(unknown, MIN_BLOB_MM2 * ppm * ppm)
    k = int(round(UNKNOWN_GROW_MM * ppm)) * 2 + 1
    unknown = _grown(unknown, np.ones((k, k), np.uint8))
    seen = ~unknown
    dark_fraction = float(np.count_nonzero(too_dark_px & lay.paper) / max(np.count_nonzero(lay.paper), 1))
    _tick('unknown')

    occluded_near = hand_near = None
    suspect = occluded | glare
    if suspect.any():  # colour round a hand is the hand's, round glare washed out: not a sheet's
        kk = int(SUSPECT_GROW_MM * ppm) * 2 + 1
        occluded_near = _grown(suspect, np.ones((kk, kk), np.uint8))
        if occluded.any():
            hand_near = _grown(occluded, np.ones((kk, kk), np.uint8))
    # a strip of colour is a sheet's only when some of it is a sheet's width across, or hidden
    # beyond: by a hand, deep shadow, the frame's edge -- not by glare or murk (too dim, fits
    # nothing), whose fringe over a dark overlap lifts the dim channels and so passes for a strip
    # of another colour
    hidden = unknown & _grown(~valid | occluded | dark | too_dark_px, np.ones((k + 2, k + 2), np.uint8))
    colour, dropped, fit_masks = _colour_masks(code, seen & valid & flat_area, unknown, occluded_near, ppm, cols,
                                               hand_near, hidden)
    _tick('colour')
    line_px = ~flat_area & valid & seen
    masks = _onto_lines(L, line_px, colour, lay, cols, ppm)
    _tick('lines')

    # one pass over every hex's pixels for all masks: bit i = expedition i's colour, bit 4 =
    # unknown, bit 5 + i = near expedition i's colour that was dropped as untrustworthy
    bits = unknown.astype(np.uint16) << 4
    for i, e in enumerate(EXPEDITIONS):
        _set_bit(bits, masks[e], 1 << i)
        if dropped[e] is not None:
            _set_bit(bits, dropped[e], 1 << (5 + i))
    per_hex = lay.per_hex_bits(bits)
    _tick('perhex')
    unk_hex = (per_hex & 16) > 0
    covered, undecided = {}, {}
    for i, e in enumerate(EXPEDITIONS):
        hit = (per_hex & (1 << i)) > 0
        # what was dropped is not "uncovered" either
        unk_e = unk_hex | ((per_hex & (1 << (5 + i))) > 0)
        covered[e] = [a for a, h in zip(lay.addresses, hit) if h]
        undecided[e] = [a for a, h, u in zip(lay.addresses, hit, unk_e) if u and not h]
    regions = _regions(unknown, lay, glare, saturated, dark | too_dark_px | dim, ~valid, occluded)
    _tick('regions')
    up = _upsampler(lay, out_lay)
    return CoverageResult(covered, undecided, [a for a, u in zip(lay.addresses, unk_hex) if u], regions,
                          _Upsampled(masks, up), up(seen & valid & flat_area),
                          _Upsampled(fit_masks, up), up(unknown), dark_fraction,
                          {'glare': glare, 'saturated': saturated, 'dark': dark, 'too_dark': too_dark_px,
                           'misfit': misfit})


_STAGES: list | None = None  # set to a list to have measure() append (stage, thread CPU s) (profiling)


def _tick(stage) -> None:
    if _STAGES is not None:
        _STAGES.append((stage, time.thread_time()))


class _Upsampled(Mapping):
    """Expedition -> mask on the output layout, scaled up from the work layout when first asked
    for (the caller often needs only some of them).  Safe across threads: two threads asking at
    once both compute the same mask."""

    def __init__(self, masks: dict, up):
        self._work, self._up, self._done = masks, up, {}

    def __getitem__(self, key):
        got = self._done.get(key)
        if got is None:
            got = self._done[key] = self._up(self._work[key])
        return got

    def __iter__(self):
        return iter(self._work)

    def __len__(self):
        return len(self._work)


def _upsampler(work: Layout, out: Layout):
    """Bool masks on the ``work`` layout -> the same masks on the finer ``out`` layout (both grids
    start at the same corner; each fine pixel takes the coarse pixel its centre lies in)."""
    if work is out:
        return lambda m: m
    size = out.shape[::-1]

    def up(m: np.ndarray) -> np.ndarray:
        return cv2.resize(m.view(np.uint8), size, interpolation=cv2.INTER_NEAREST_EXACT).view(bool)
    return up


def _set_bit(bits: np.ndarray, mask: np.ndarray, bit: int) -> None:
    """``bits |= bit`` where ``mask``, worked only in the box round the mask's pixels."""
    b = _bbox(mask.view(np.uint8), 0)
    if b is not None:
        sl = np.s_[b[0]:b[1], b[2]:b[3]]
        bits[sl] |= mask[sl].astype(bits.dtype) * bits.dtype.type(bit)


def _warp(photo: np.ndarray, reg: Registration, lay: Layout) -> tuple[np.ndarray, np.ndarray]:
    """The photo resampled on the layout's grid, and where the photo had pixels.

    The maps (homography and lens distortion) are smooth, so they are computed every
    ``MAP_STEP_PX`` pixels and interpolated; cv2.remap then runs on fixed-point maps.
    """
    h, w = lay.shape
    st = MAP_STEP_PX
    nx, ny = -(-w // st) + 2, -(-h // st) + 2
    # cv2.resize (linear, by st) puts coarse sample j at fine pixel st * j + (st - 1) / 2; one
    # extra sample each side keeps the edges interpolated, not clamped
    fx = (np.arange(nx) - 1) * st + (st - 1) / 2
    fy = (np.arange(ny) - 1) * st + (st - 1) / 2
    u, v = grid_maps(reg, lay.x0 + (fx + 0.5) / lay.ppm, lay.y0 + (fy + 0.5) / lay.ppm)
    mx = cv2.resize(u, (nx * st, ny * st), interpolation=cv2.INTER_LINEAR)[st:st + h, st:st + w]
    my = cv2.resize(v, (nx * st, ny * st), interpolation=cv2.INTER_LINEAR)[st:st + h, st:st + w]
    ph, pw = photo.shape[:2]
    inside = cv2.bitwise_and(cv2.inRange(mx, 0, pw - 1), cv2.inRange(my, 0, ph - 1))  # 0 / 255
    valid = np.bitwise_and(inside, 1, out=inside).view(bool)
    m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
    return cv2.remap(photo, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0), valid


def _colour_masks(code, seen_flat, unknown, suspect_near, ppm, cols, hand_near=None, hidden=None):
    """Each expedition's colour on plain paper and land, cleaned of noise and artefacts.

    Returns (masks, dropped, fit): ``dropped[e]`` is colour taken out as untrustworthy (near a hand
    or glare, or a likely mix of the others), grown a little, or None.  ``fit[e]`` is the colour for
    fitting sheet shapes: ``masks[e]`` plus the parts dropped as "ghosts" (seen solely inside other
    expeditions' colours) or for lying by glare.  Coverage drops those because a hex claimed
    wrongly costs a wrong ruling; but a sheet lying mostly under another expedition's sheet shows
    its colour exactly so, and without those pixels its shape can't be fitted at all (nor the end
    of a sheet beside glare).  A ghost that is really the others' mix lies within their sheets, so
    the fitter sees a patch no larger than their overlap.  Colour by a hand stays out of it
    (``hand_near``: skin passes for a sheet's colour).  ``hidden``: where a sheet may be hidden
    for the sliver test of the coverage masks (default ``unknown``).
    """
    masks, dropped, fit = {}, {}, {}
    bridge = int(round(3.5 * ppm))
    for i, e in enumerate(EXPEDITIONS):
        has = ((code & (1 << i)) > 0) & seen_flat
        raw = _drop_small(has, MIN_BLOB_MM2 * ppm * ppm)
        kept = raw
        if suspect_near is not None:
            kept = _roi_apply(_drop_mostly_in, kept, (suspect_near,), 2, 0.25)
        # a colour seen only ever mixed into other expeditions' overlaps is more likely their mix
        others = ((code & (15 & ~(1 << i))) > 0) & seen_flat
        alone = (code & 15) == (1 << i)
        core = int(round(SLIVER_CORE_MM * ppm))
        kept, unghosted = _ghosts_then_slivers(kept, others, alone, unknown if hidden is None else hidden,
                                               core, bridge)
        gone = raw & ~unghosted
        masks[e] = kept
        # for fitting: ghosts kept, and colour by glare kept (glare pales a sheet's colour but
        # doesn't make it up: a wrong hex ruling is costly, an unexplained patch beside a sheet is
        # not); colour by a hand still dropped (skin passes for a sheet), slivers too (edge fringes)
        fit_in = raw if hand_near is None else _roi_apply(_drop_mostly_in, raw, (hand_near,), 2, 0.25)
        fit[e] = _roi_apply(lambda m, n: _drop_slivers(m, n, core, bridge), fit_in, (unknown,), max(bridge, core) + 2)
        dropped[e] = None
        if gone.any():
            kd = int(LINE_GROW_MM * ppm) * 2 + 1
            dropped[e] = _grown(gone, np.ones((kd, kd), np.uint8))
    for i, a, b in _lookalikes(cols):
        e = EXPEDITIONS[i]
        seen_a, seen_b = ((code & (1 << a)) > 0) & seen_flat, ((code & (1 << b)) > 0) & seen_flat
        mix = _roi_apply(_mix_lookalikes, masks[e], (seen_a, seen_b, seen_flat),
                         bridge + int(LOOKALIKE_RING_MM * ppm) + 2, bridge, int(LOOKALIKE_RING_MM * ppm))
        if mix.any():
            for m in (masks, fit):
                m[e] = m[e] & ~mix
                m[EXPEDITIONS[a]] = m[EXPEDITIONS[a]] | mix
                m[EXPEDITIONS[b]] = m[EXPEDITIONS[b]] | mix
            kd = int(LINE_GROW_MM * ppm) * 2 + 1
            grown = _grown(mix, np.ones((kd, kd), np.uint8))
            dropped[e] = grown if dropped[e] is None else dropped[e] | grown
    return masks, dropped, fit


def _lookalikes(cols) -> list[tuple[int, int, int]]:
    """(e, a, b): expedition e's sheet has nearly the hue of a's and b's sheets overlapping
    (with the house colours: independent green ~ japanese yellow over american blue)."""
    t = np.log(np.clip(np.asarray([cols[e] for e in EXPEDITIONS], float) / 255.0, 1e-3, 1.0))
    out = []
    for i in range(len(EXPEDITIONS)):
        rest = [k for k in range(len(EXPEDITIONS)) if k != i]
        for ai, a in enumerate(rest):
            for b in rest[ai + 1:]:
                d = t[a] + t[b] - t[i]
                if np.linalg.norm(d - d.mean()) < LOOKALIKE_HUE:
                    out.append((i, a, b))
    return out


def _mix_lookalikes(mask, mask_a, mask_b, seen_flat, bridge_px: int, ring_px: int) -> np.ndarray:
    """Parts of ``mask`` that are more likely the overlap of a and b: seen without a or b, yet
    ringed by a's and b's colour (two sheets' overlap is bordered by each sheet alone; a sheet of
    its own by paper, or by its own overlaps with others)."""
    k = bridge_px | 1
    joined = cv2.morphologyEx(mask.view(np.uint8), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    n, labels = cv2.connectedComponents(joined, connectivity=8)
    out = np.zeros(mask.shape, bool)
    if n <= 1:
        return out
    # each part is judged in its own box grown by the ring (not on the whole mask's box)
    h, w = labels.shape
    boxes = _part_boxes(labels, n)
    kernel = np.ones((2 * ring_px + 1,) * 2, np.uint8)
    for c in range(1, n):
        y0, y1, x0, x1 = boxes[c]
        sl = np.s_[max(0, y0 - ring_px - 1):min(h, y1 + ring_px + 1), max(0, x0 - ring_px - 1):min(w, x1 + ring_px + 1)]
        part = labels[sl] == c
        inside = part & mask[sl]
        ma, mb = mask_a[sl], mask_b[sl]
        if np.count_nonzero(inside & (ma | mb)) >= 0.5 * np.count_nonzero(inside):
            continue  # seen with a or b on top: a real sheet over their overlap
        ring = (cv2.dilate(part.view(np.uint8), kernel) > 0) & ~part & seen_flat[sl]
        total = np.count_nonzero(ring)
        if total < ring_px * ring_px:
            continue
        ra, rb = np.count_nonzero(ring & ma), np.count_nonzero(ring & mb)
        if np.count_nonzero(ring & (ma | mb)) >= LOOKALIKE_RINGED * total and min(ra, rb) >= 0.15 * total:
            out[sl] |= inside
    return out


def _part_boxes(labels: np.ndarray, n: int) -> np.ndarray:
    """(y0, y1, x0, x1) per label 1..n-1 (row 0 unused), from one pass over the labelled pixels."""
    ys, xs = np.nonzero(labels)
    lab = labels[ys, xs]
    order = np.argsort(lab, kind="stable")
    ys, xs = ys[order], xs[order]
    first = np.searchsorted(lab[order], np.arange(1, n))
    boxes = np.zeros((n, 4), np.int64)
    boxes[1:, 0] = np.minimum.reduceat(ys, first)
    boxes[1:, 1] = np.maximum.reduceat(ys, first) + 1
    boxes[1:, 2] = np.minimum.reduceat(xs, first)
    boxes[1:, 3] = np.maximum.reduceat(xs, first) + 1
    return boxes


def _onto_lines(L, line_px, fit_masks, lay: Layout, cols, ppm):
    """Each expedition's colour on paper followed into the printed lines next to it.

    On printed lines the light is too dim and the drawing too rough for the full match: each
    expedition is judged by the hue alone (the log-transmission less its grey part), after taking
    out the hue of the other expeditions' colour seen on the paper right beside the pixel, and only
    up to LINE_GROW_MM from colour seen on paper.
    """
    tints = np.log(np.clip(np.asarray([cols[e] for e in EXPEDITIONS], np.float64) / 255.0, 1e-3, 1.0))
    tints -= tints.mean(-1, keepdims=True)
    norm2 = (tints * tints).sum(1)
    # the tints have no grey part, so hue . tint = log-transmission . tint: one linear map gives
    # every expedition's share of its own hue
    proj = (tints / norm2[:, None]).astype(np.float32)
    gram = (tints @ tints.T) / norm2[None, :]  # [o, i]: tint o's share of tint i's hue
    rn = int(round(NEAR_MM * ppm))
    kn = np.ones((rn * 2 + 1,) * 2, np.uint8)
    grow = int(np.ceil(LINE_GROW_MM * ppm - 1e-6))  # never short of LINE_GROW_MM (4.5 px would round to 4)
    # cross and square steps in turn: an octagon, near enough a disc (a cross alone falls short
    # of the corners where three lines meet, a square alone overshoots along the diagonals)
    steps = (cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3)), np.ones((3, 3), np.uint8))
    present = [e for e in EXPEDITIONS if fit_masks[e].any()]
    masks = {}
    for i, e in enumerate(EXPEDITIONS):
        out = np.zeros(lay.shape, bool)
        masks[e] = out
        if e not in present:
            continue
        m = (fit_masks[e] & lay.measured).view(np.uint8)
        box_ = _bbox(m, grow + 2)
        if box_ is None:
            continue
        # all the work in the box round this colour: the line pixels it may grow into lie there
        sl = np.s_[box_[0]:box_[1], box_[2]:box_[3]]
        Ls = L[sl]
        if LINE_BLUR_PX > 1:
            Ls = cv2.blur(Ls, (LINE_BLUR_PX, LINE_BLUR_PX))
        own = cv2.transform(Ls, proj[i:i + 1])
        for j, o in enumerate(EXPEDITIONS):
            if o != e and o in present:
                # the other colour grown by NEAR_MM, from a box that reaches rn past this one
                y0, y1, x0, x1 = box_
                Y0, Y1, X0, X1 = max(0, y0 - rn), min(lay.shape[0], y1 + rn), max(0, x0 - rn), min(lay.shape[1], x1 + rn)
                nb = cv2.dilate(fit_masks[o][Y0:Y1, X0:X1].view(np.uint8), kn)[y0 - Y0:y1 - Y0, x0 - X0:x1 - X0]
                own -= nb * np.float32(gram[j, i])
        mm = m[sl].copy()
        allowed = ((own > LINE_TINT_SHARE) & line_px[sl]).view(np.uint8) | mm
        for n in range(grow):
            mm = cv2.dilate(mm, steps[n % 2]) & allowed
        out[sl] = mm > 0
    return masks


def _bbox(mask: np.ndarray, pad: int):
    """(y0, y1, x0, x1) of a mask's pixels grown by ``pad``, or None if empty."""
    m = mask.view(np.uint8) if mask.dtype == bool else mask
    x, y, bw, bh = cv2.boundingRect(m)  # of the non-zero pixels; far faster than numpy's any()
    if bw == 0:
        return None
    h, w = mask.shape
    return (max(0, y - pad), min(h, y + bh + pad), max(0, x - pad), min(w, x + bw + pad))


def _log_reference(lay: Layout, sigma: float) -> np.ndarray:
    """log of the drawn reference, softened like the camera (cached per layout and blur)."""
    refs = lay.__dict__.setdefault("_log_refs", {})  # on the layout: an id() could be reused
    if sigma not in refs:
        if len(refs) > 8:
            refs.clear()
        ref = cv2.GaussianBlur(lay.reference, (0, 0), sigma)
        refs[sigma] = cv2.log(np.maximum(ref, 1 / 64))
    return refs[sigma]


def _photo_scale(reg: Registration, lay: Layout) -> float:
    """Photo pixels per board mm in the middle of the loch."""
    c = np.array([[(lay.x0 + lay.x1) / 2, (lay.y0 + lay.y1) / 2]])
    p = reg.to_photo(np.vstack([c, c + [1.0, 0.0]]))
    return float(np.linalg.norm(p[1] - p[0]))


def _grown(mask: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """A bool mask dilated by ``kernel``, worked only in the box round its pixels."""
    return _roi_apply(lambda m: cv2.dilate(m.view(np.uint8), kernel) > 0, mask.astype(bool, copy=False), (),
                      max(kernel.shape) // 2 + 1)


def _roi_apply(fn, mask: np.ndarray, extra: tuple, pad: int, *args) -> np.ndarray:
    """``fn(mask, *extra, *args)`` run only on the box round the mask's pixels (grown by ``pad``):
    the same answer, without labelling a whole board of empty pixels."""
    b = _bbox(mask.view(np.uint8), pad)
    if b is None:
        return np.zeros(mask.shape, bool)
    sl = np.s_[b[0]:b[1], b[2]:b[3]]
    out = np.zeros(mask.shape, bool)
    out[sl] = fn(mask[sl], *[x[sl] for x in extra], *args)
    return out


def _labelled(mask: np.ndarray, areas: bool = True):
    """(n, labels, areas) of a mask's 8-connected parts (``areas`` None unless asked; areas[0],
    the background, is not counted).

    cv2.connectedComponentsWithStats costs ten times what labelling alone does (OpenCV 5.0),
    so the areas are counted from the labels, of the mask's pixels only.
    """
    m = mask.view(np.uint8) if mask.dtype == bool and mask.flags.c_contiguous else mask.astype(np.uint8)
    n, labels = cv2.connectedComponents(m, connectivity=8)
    if not areas:
        return n, labels, None
    return n, labels, np.bincount(labels[mask if mask.dtype == bool else m > 0], minlength=n)


def _drop_small(mask: np.ndarray, min_px: float) -> np.ndarray:
    return _roi_apply(_drop_small_here, mask.astype(bool, copy=False), (), 2, min_px)


def _drop_small_here(mask: np.ndarray, min_px: float) -> np.ndarray:
    n, labels, areas = _labelled(mask)
    if n <= 1:
        return mask.astype(bool)
    keep = areas >= min_px
    if keep[1:].all():  # nothing small: skip the per-pixel lookup
        return mask.astype(bool, copy=False)
    keep[0] = False
    return np.take(keep, labels)


def _drop_mostly_in(mask: np.ndarray, region: np.ndarray, share: float) -> np.ndarray:
    """Remove the connected parts of ``mask`` lying ``share`` or more inside ``region``."""
    n, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    if n <= 1:
        return mask
    total = np.bincount(labels[mask], minlength=n)  # label 0 (background) not counted: never dropped
    inside = np.bincount(labels[region & mask], minlength=n)
    drop = inside >= share * np.maximum(total, 1)
    drop[0] = False
    if not drop.any():
        return mask
    return mask & ~np.take(drop, labels)


def _ghosts_then_slivers(mask, others, alone, neutral, core_px: int, bridge_px: int):
    """(_drop_slivers(_drop_ghosts(mask)), _drop_ghosts(mask)), in the box round the mask, the
    parts (joined across printed lines) labelled once when no ghost is dropped."""
    b = _bbox(mask.view(np.uint8), max(bridge_px, core_px) + 2)
    if b is None:
        return np.zeros(mask.shape, bool), np.zeros(mask.shape, bool)
    sl = np.s_[b[0]:b[1], b[2]:b[3]]
    m = mask[sl]
    parts = _joined_parts(m, bridge_px)
    m2 = _drop_ghosts(m, others[sl], alone[sl], bridge_px, parts)
    m3 = _drop_slivers(m2, neutral[sl], core_px, bridge_px, parts if m2 is m else None)
    unghosted, out = np.zeros(mask.shape, bool), np.zeros(mask.shape, bool)
    unghosted[sl] = m2
    out[sl] = m3
    return out, unghosted


def _joined_parts(mask: np.ndarray, bridge_px: int):
    """(n, labels) of a mask's parts joined across gaps up to ``bridge_px`` (the printed lines)."""
    k = bridge_px | 1
    joined = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    return cv2.connectedComponents(joined, connectivity=8)


def _drop_ghosts(mask: np.ndarray, others: np.ndarray, alone: np.ndarray, bridge_px: int,
                 parts=None) -> np.ndarray:
    """Remove parts of ``mask`` that lie wholly within others' colours and never show alone.

    Parts are joined across the printed lines (which split a sheet's colour into cells).
    Returns ``mask`` itself when nothing is removed.
    """
    n, labels = parts if parts is not None else _joined_parts(mask, bridge_px)
    if n <= 1:
        return mask
    total = np.maximum(np.bincount(labels[mask], minlength=n), 1)
    inside = np.bincount(labels[others & mask], minlength=n)
    solo = np.bincount(labels[alone & mask], minlength=n)
    drop = (inside >= GHOST_INSIDE * total) & (solo < GHOST_ALONE * total)
    drop[0] = False
    if not drop.any():
        return mask
    return mask & ~np.take(drop, labels)


def _drop_slivers(mask: np.ndarray, neutral: np.ndarray, core_px: int, bridge_px: int,
                  parts=None) -> np.ndarray:
    """Remove parts of ``mask`` (joined across printed lines) nowhere ``core_px`` wide.

    ``neutral`` (unseen pixels) counts as inside, so a sheet mostly hidden by glare keeps its
    visible strip.  ``parts``: the mask's joined parts when already labelled.
    """
    n, labels = parts if parts is not None else _joined_parts(mask, bridge_px)
    if n <= 1:
        return mask
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (core_px | 1, core_px | 1))
    core = cv2.erode((mask | neutral).astype(np.uint8), disc) > 0
    has_core = np.bincount(labels[core & mask], minlength=n) > 0
    has_core[0] = False
    if has_core[1:].all():
        return mask
    return mask & np.take(has_core, labels)


def _printed8(lay: Layout) -> np.ndarray:
    """The printed lines as a 0/255 mask (cached on the layout)."""
    if getattr(lay, "_printed8", None) is None:
        lay._printed8 = lay.printed.view(np.uint8) * np.uint8(255)
    return lay._printed8


def _occluded(warped: np.ndarray, lay: Layout, valid: np.ndarray, block_mm: float = 8.0) -> np.ndarray:
    """Where the printed hex lines have vanished: something opaque (a hand) lies over the loch.

    A transparency darkens a line and the paper beside it alike, so the line's contrast survives
    under any number of sheets; an opaque object or glare wipes it out.
    """
    # all in uint8 up to the division: the channel mean rounds to 8 bits anyway, and its local
    # maximum minus itself is exact in 8 bits
    g = cv2.transform(warped, np.full((1, 3), 1 / 3))  # mean of the channels (uint8)
    bg = cv2.dilate(g, np.ones((9, 9), np.uint8))
    h, w = g.shape
    whole = bool(valid.all())
    line = lay.printed if whole else lay.printed & valid
    line8 = _printed8(lay) if whole else line.view(np.uint8) * np.uint8(255)
    diff = cv2.bitwise_and(cv2.subtract(bg, g), line8)  # 0 off the lines
    contrast = cv2.divide(diff.astype(np.float32), cv2.max(bg, 8).astype(np.float32))
    b = max(4, int(block_mm * lay.ppm))
    size = (max(1, w // b), max(1, h // b))
    num = cv2.resize(contrast, size, interpolation=cv2.INTER_AREA)
    # the share of printed line per block: fixed for the layout when the whole loch is in view
    shares = lay.__dict__.setdefault("_line_share", {})
    den = shares.get(size) if whole else None
    if den is None:
        den = cv2.resize(line.astype(np.float32), size, interpolation=cv2.INTER_AREA)
        if whole:
            shares[size] = den
    has = den > 0.01
    if has.sum() < 10:
        return np.zeros((h, w), bool)
    ratio = np.where(has, num / np.maximum(den, 1e-6), 1.0)
    typical = float(np.median(ratio[has]))
    bad = (has & (ratio < OCCLUDED_FRACTION * typical)).astype(np.uint8)
    bad = cv2.resize(bad, (w, h), interpolation=cv2.INTER_NEAREST) > 0
    return bad & lay.loch


def _hex_ids(lay: Layout) -> np.ndarray:
    """The hex number of every entry of ``lay.index`` (cached on the layout)."""
    if getattr(lay, "_hex_ids", None) is None:
        lay._hex_ids = np.repeat(np.arange(len(lay.addresses)), np.diff(np.r_[lay.offsets, len(lay.index)]))
    return lay._hex_ids


def _regions(unknown, lay: Layout, glare, saturated, dark, outside, occluded=None) -> list[dict]:
    b = _bbox(unknown.view(np.uint8), 1)
    if b is None:
        return []
    # labelled in the box round the unknown pixels (labelling costs as much on empty board)
    n, part_labels, _ = _labelled(unknown[b[0]:b[1], b[2]:b[3]], areas=False)
    if n <= 1:
        return []
    labels = np.zeros(unknown.shape, np.int32)
    labels[b[0]:b[1], b[2]:b[3]] = part_labels
    # each part's bounding box (x, y, w, h) from its pixels, grouped by label
    ys, xs = np.nonzero(part_labels)
    lab_px = part_labels[ys, xs]
    order = np.argsort(lab_px, kind="stable")
    first = np.searchsorted(lab_px[order], np.arange(1, n))
    xs, ys = xs[order], ys[order]
    stats = np.zeros((n, 4), np.int64)
    stats[1:, 0] = np.minimum.reduceat(xs, first) + b[2]
    stats[1:, 1] = np.minimum.reduceat(ys, first) + b[0]
    stats[1:, 2] = np.maximum.reduceat(xs, first) + b[2] + 1 - stats[1:, 0]
    stats[1:, 3] = np.maximum.reduceat(ys, first) + b[0] + 1 - stats[1:, 1]
    # reported in raster order of each part's first pixel (labels' numbering varies with the box)
    first_px = np.minimum.reduceat(ys.astype(np.int64) * unknown.shape[1] + xs, first)
    # every part's kinds and hexes from one pass over the labels (not one full-board mask per part)
    flat = labels.reshape(-1)
    kinds_of = []
    for name, src in (("glare", glare | saturated), ("too dark", dark), ("out of view", outside),
                      ("hex lines hidden (a hand or an object?)", occluded if occluded is not None else outside)):
        kinds_of.append((name, np.bincount(flat[src.reshape(-1)], minlength=n) > 0))
    hex_id = _hex_ids(lay)
    lab = np.take(flat, lay.index)
    on = lab > 0
    pairs = np.unique(lab[on].astype(np.int64) * len(lay.addresses) + hex_id[on])
    part, hx = np.divmod(pairs, len(lay.addresses))  # sorted by part, then by hex (address order)
    starts = np.searchsorted(part, np.arange(n + 1))
    out = []
    for k in 1 + np.argsort(first_px, kind="stable"):
        hexes = [lay.addresses[i] for i in hx[starts[k]:starts[k + 1]]]
        if not hexes:
            continue
        kinds = [name for name, has in kinds_of if has[k]]
        x, y, w, h = stats[k, :4]
        out.append({"reason": ", ".join(kinds) or "unrecognised (a hand or an object?)",
                    "bbox_mm": [round(lay.x0 + x / lay.ppm, 1), round(lay.y0 + y / lay.ppm, 1),
                                round(w / lay.ppm, 1), round(h / lay.ppm, 1)],
                    "hexes": hexes})
    return out
