"""The board-plane grid coverage works on: the loch and a margin at ``ppm`` px per mm, the board
drawn on it from the box profile, its plain paper, and every hex's pixels (for per-hex sums).

Drawing it takes about a third of a second on a desktop core, far more on the Pi, so layouts are
kept in memory and on disk ($XDG_CACHE_HOME/nessie-companion/), keyed by the box, the grid and a
digest of the code that draws them.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from . import boardart
from .sheets import LINE_MM, point_in_polygon, _seg_dist

PPM = 4.0  # board-plane pixels per mm of the masks handed on (the sheet fitter's grid)
MARGIN_MM = 16.0  # land measured round the loch (sheet tips lie there); tracks start further out
SHORE_BAND_MM = 4.0  # land this close to the shore counts for coverage too


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
    for name in ("coverage_layout.py", "boardart.py", "sheets.py"):
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
