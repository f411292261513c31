"""The light falling on the board: a smooth log-lighting field fitted to the uncovered paper.

Sheets only ever darken a channel, so the lighting is the *upper envelope* of the paper's
brightness: per cell a high percentile, then a grey-level closing wider than any sheet (which fills
the dips under sheets), an opening narrower than the loch (which drops glare peaks), smoothed and
interpolated to every pixel.
"""

from __future__ import annotations

import cv2
import numpy as np

PERCENTILE = 90  # of the paper in a cell: its white level, clear of noise and of sheets' edges
SAMPLE_MM = 1.0  # cells are sampled on this grid (neighbouring pixels say nothing new about light)
MIN_PAPER = 0.15  # share of a cell that must be plain paper to measure the light there


def lighting(D: np.ndarray, paper: np.ndarray, ppm: float, cell_mm: float = 8.0,
             window_mm: float = 96.0, glare_mm: float = 64.0) -> np.ndarray:
    """The log-lighting field (h x w x 3, float32) of a log image ``D`` from its ``paper`` pixels."""
    h, w = paper.shape
    cs = max(4, int(cell_mm * ppm))
    ny, nx = -(-h // cs), -(-w // cs)
    V = _cell_percentiles(D, paper, cs, ny, nx, max(1, int(round(SAMPLE_MM * ppm))))
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


def _cell_percentiles(D: np.ndarray, paper: np.ndarray, cs: int, ny: int, nx: int, step: int) -> np.ndarray:
    """Per cell (ny x nx x 3) the PERCENTILE of the paper pixels sampled every ``step`` px; NaN
    where too little paper."""
    h, w = paper.shape
    k = -(-cs // step)  # samples per cell side
    Ds = np.full((ny * k, nx * k, 3), np.nan, np.float32)
    sub = _every(D, step)
    ok = paper[::step, ::step]
    Ds[:sub.shape[0], :sub.shape[1]] = np.where(ok[..., None], sub, np.nan)
    cells = Ds.reshape(ny, k, nx, k, 3).transpose(0, 2, 4, 1, 3).reshape(ny, nx, 3, k * k)
    cells = np.sort(cells, axis=-1)  # NaN last
    n = (~np.isnan(cells[..., 0, :])).sum(-1)  # (ny, nx)
    pos = np.maximum(n - 1, 0) * (PERCENTILE / 100.0)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(n - 1, 0))
    frac = (pos - lo)[..., None].astype(np.float32)
    a = np.take_along_axis(cells, lo[..., None, None].repeat(3, 2), -1)[..., 0]
    b = np.take_along_axis(cells, hi[..., None, None].repeat(3, 2), -1)[..., 0]
    V = a + (b - a) * frac
    V[n < MIN_PAPER * k * k] = np.nan
    return V


ADDED_REACH_MM = 16.0  # added light is spread this far over the cells without paper (see added_light)


def added_light(L: np.ndarray, paper: np.ndarray, ppm: float, cell_mm: float = 8.0,
                reach_mm: float = ADDED_REACH_MM, spread: list | None = None) -> np.ndarray:
    """The white light added on top of the lighting (glare, a veil of reflection), as a share of
    the paper's white, per ``cell_mm`` cell (a small float32 image; resize it to the pixels).

    ``L``: the log-transmission (h x w x 3), the lighting divided out.  Light added to a pixel
    lifts every channel, so per cell the uncovered paper's (``paper``) mean in each channel, less
    the board's usual level of that channel, is that channel's rise; the added light is the
    channels' mean rise.  Means per channel, not the mean of each pixel's darkest channel: the
    darkest of three noisy channels is pulled down by the noise, and a phone's noise varies over
    the photo (with the light), which read as light added where the noise is low.  Spread
    ``reach_mm`` over the cells without paper (under sheets), where it matters most: a dark
    overlap passing a tenth of the light is lifted by ten times the share.  ``spread``: a list
    given to be appended the paper cells' own noise in rise (log; ``_cell_noise``), none when too
    few cells hold paper.
    """
    h, w = paper.shape
    cs = max(4, int(cell_mm * ppm))
    size = (max(1, w // cs), max(1, h // cs))
    # every other pixel each way: a cell's mean needs no more (a quarter of the work)
    st = 2 if cs >= 8 else 1
    p = paper[::st, ::st]
    pf = (p.view(np.uint8) if p.dtype == bool else p).astype(np.float32)
    share = cv2.resize(pf, size, interpolation=cv2.INTER_AREA)
    ok = share > MIN_PAPER
    if ok.sum() < 10:
        return np.zeros(size[::-1], np.float32)
    Ls = cv2.multiply(_every(L, st), cv2.merge([pf, pf, pf]))
    means = cv2.resize(Ls, size, interpolation=cv2.INTER_AREA) / np.maximum(share, 1e-6)[..., None]
    rise = np.mean(means - np.median(means[ok], axis=0), axis=2)
    if spread is not None:
        spread.append(_cell_noise(rise, ok))
    extra = np.where(ok, np.expm1(np.maximum(rise, 0.0)), 0.0).astype(np.float32)
    r = max(1, int(round(reach_mm / cell_mm)))
    return cv2.dilate(extra, np.ones((2 * r + 1, 2 * r + 1), np.uint8))


def _cell_noise(rise: np.ndarray, ok: np.ndarray) -> float:
    """The cells' own noise in ``rise`` (log): the robust standard deviation (1.4826 x the median
    absolute deviation) of the differences between neighbouring cells both holding paper, over
    sqrt 2.  Differences of neighbours leave out light that varies smoothly over the board (a real
    veil spreads over several cells, a vignette over the whole board); what is left is the
    cell-to-cell scatter of the photo's paper (noise, sharpening, compression).  0 with too few."""
    d = np.concatenate([(rise[:, 1:] - rise[:, :-1])[ok[:, 1:] & ok[:, :-1]],
                        (rise[1:] - rise[:-1])[ok[1:] & ok[:-1]]])
    if len(d) < 10:
        return 0.0
    return float(1.4826 * np.median(np.abs(d - np.median(d))) / np.sqrt(2.0))


def _every(img: np.ndarray, st: int) -> np.ndarray:
    """``img[::st, ::st]``, contiguous.  When the sides are multiples of ``st`` a nearest-neighbour
    resize picks the same pixels (pixel st * i) at a fifth of the cost of numpy's strided copy."""
    h, w = img.shape[:2]
    if st > 1 and h % st == 0 and w % st == 0:
        return cv2.resize(img, (w // st, h // st), interpolation=cv2.INTER_NEAREST)
    return np.ascontiguousarray(img[::st, ::st])
