"""Which expeditions' sheets explain a pixel's log-transmission (coverage.py's colour match).

Transparencies multiply light, so log-transmissions add: a pixel's log-transmission is matched
against every combination of the four expeditions' sheets (up to two of each, four in all), plus
a part-covered sheet over up to two whole ones (a blurred edge), plus a grey term for shading.
The best match names the expeditions present.  The match depends only on the (quantised)
log-transmission, so it is kept in a table filled in lazily for the values seen.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import cv2
import numpy as np

RESIDUAL_MAX = 0.30  # worse than this (log units, RMS over the channels): fits nothing (a hand)
SHEET_PENALTY = 0.05  # per sheet in a candidate: prefer the simpler explanation
GREY_PENALTY = 0.0  # per unit of grey (shade) in a candidate
BLEND_EXTRA = 3.0  # a part-covered pixel (a sheet edge) costs as much as this many more sheets
MISFIT = 16  # code bit: fits no candidate
DARK = 32  # code bit (lookup_code): the grey term is below the threshold asked for
PART = 64  # code bit: an expedition is counted only for part of a sheet (a blurred edge; see Table.part)
_NOT_DONE = 255  # no real code has every bit set (bits 6 and 7 are never used)

# The table's range and resolution: log-transmission -4.5 .. 1 in 48 steps (0.11) per channel;
# darker than exp(-4.5) is lost in the noise, brighter than exp(1) is glare.
LUT_LO, LUT_HI, LUT_N = -4.5, 1.0, 48

# A stack of films darkens a channel by the product of their spectra, not of their channel
# values: where the films both pass little of a channel's band, what passes depends on where
# inside the band each lets light through (and on the sensor's colour matrix and tone curve down
# there), so log-transmissions measured one film at a time (a calibration) no longer add.  Second
# generator (tests/board_raycast.py), development photos 0-9 read calibrated: the stacks' darkest
# channel 0.5-2.2 log units off the sum, 4 in 5 darker; the other two within ~0.1 after the shade
# term.  With this on, a calibrated read's table (``table(..., calibrated=True)``: coverage.py asks
# for it with a reference only) matches a candidate of two or more whole sheets with its darkest
# channel censored when that is predicted below STACK_DIM_LOG: the shade term is fitted on the
# other two channels and the darkest only has to be dark (lighter than predicted by more than
# STACK_LIGHTER costs as before; darker costs nothing).  Only stacks whose every film darkens one
# of the other two channels by STACK_SEEN_LOG (see _censored).  Single sheets, part-covered
# candidates and every uncalibrated read are matched as before.
STACKS_CENSORED = True
STACK_DIM_LOG = -1.8  # ~16 % of the light: set after seeing photo 0's overlaps (darkest -1.96 .. -3.1)
STACK_LIGHTER = 0.5  # set after seeing photo 0 (a Japanese + British overlap 0.48 lighter than the sum)
# A single film's channel calibrated below the table's floor (a calibration clamps at 1 of 255,
# log -5.5) compared as at the floor, where a pixel that dark is read (LUT_LO's bin): else the film's
# own pixels miss it by a log unit (second generator, development photos 9, 10, 63, 65, 66: a
# Japanese film's blue or an American's green or red at 1 of 255 under every light; the sheet
# misfit whole).  Only single whole sheets: a stack's floored channel would take a film's sign
# away (see STACK_SEEN_LOG).  Calibrated reads only (``table(..., calibrated=True)``).
SINGLE_AT_FLOOR = True
STACK_SEEN_LOG = 0.25  # each film of a censored stack darkens another channel by this (22 %): photos 0, 8


@lru_cache(maxsize=8)
def candidates(colours: tuple[tuple[float, float, float], ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every explanation of a pixel: (log-transmission vectors, expedition bits, penalty).

    Up to two sheets of each expedition (four in all); and, over up to two whole sheets, part of
    one more sheet (a blurred edge), counted present when at least half covers the pixel.
    """
    T = np.clip(np.asarray(colours, float) / 255.0, 1e-3, 1.0)
    a = np.log(T)  # (4, 3)
    full = np.array(list(itertools.product(range(3), repeat=4)), float)
    full = full[full.sum(1) <= 4]
    vecs, bits, cost = [full @ a], [(full > 0) @ (1 << np.arange(4))], [full.sum(1)]
    parts = [np.zeros(len(full), np.uint8)]
    base = full[full.sum(1) <= 2]
    for k in range(4):
        for alpha in (0.25, 0.5, 0.75):
            part = np.log(1 - alpha + alpha * T[k])
            vecs.append(base @ a + part)
            b = (base > 0) @ (1 << np.arange(4))
            bits.append(b | ((1 << k) if alpha >= 0.5 else 0))
            cost.append(base.sum(1) + alpha + BLEND_EXTRA)
            # the expedition counted for the part sheet alone (none when a whole one is there too)
            parts.append(np.where((alpha >= 0.5) & (base[:, k] == 0), 1 << k, 0).astype(np.uint8))
    return (np.concatenate(vecs).astype(np.float32), np.concatenate(bits).astype(np.uint8),
            (SHEET_PENALTY * np.concatenate(cost)).astype(np.float32), np.concatenate(parts))


class Table:
    """Quantised log-transmission -> (code, grey term), filled in lazily for the bins seen.

    code: bit i set = expedition i present; bit 4 (``MISFIT``) = fits no candidate; bit 6
    (``PART``) = an expedition is counted for part of a sheet only (``part[best]`` says which).
    """

    def __init__(self, colours, s_lo: float, s_hi: float, stacks_censored: bool = False,
                 single_at_floor: bool = False):
        self.vec, self.bit, self.pen, self.part = candidates(colours)
        self.n_whole = _n_whole(colours)  # candidates of whole sheets only: the first entries
        # per candidate and channel: matched as censored (STACKS_CENSORED), or None
        self.cens = _censored(colours) if stacks_censored else None
        if single_at_floor:
            self.vec = _single_at_floor(colours)
        self.s_lo, self.s_hi = s_lo, s_hi
        n = LUT_N ** 3
        self.done = np.zeros(n, bool)
        self.code = np.zeros(n, np.uint8)
        self.grey = np.zeros(n, np.float32)
        self.best = np.zeros(n, np.int32)  # the best candidate's index (into vec / bit / pen)
        self._packed: dict = {}  # dark threshold -> code | DARK per packed bin, _NOT_DONE until filled

    def lookup(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(code, grey) of every bin index in ``flat`` (any shape)."""
        miss = ~self.done[flat]
        if miss.any():
            self._fill(np.unique(flat[miss]))
        return self.code[flat], self.grey[flat]

    def lookup_packed(self, packed_bins: np.ndarray, dark_below: float, bands=None) -> np.ndarray:
        """The code of every pixel of a ``packed_bins`` image, with bit 5 (``DARK``) set where the
        grey term is below ``dark_below``: one gather per pixel (no done / code / grey lookups).

        The table is indexed by the packed bins themselves (byte c = channel c's bin), so no
        per-pixel arithmetic is needed to find a pixel's entry.  ``bands``: the gather in row bands
        side by side (coverage_bands.Bands; the table is only read there), bins not yet in the
        table filled after, in this thread, as without.
        """
        key = float(dark_below)
        table_ = self._packed.get(key)
        if table_ is None:
            # every byte of a packed bin is below LUT_N <= 64: 22 bits (4 MB)
            table_ = self._packed[key] = np.full(1 << 22, _NOT_DONE, np.uint8)
        if bands is None:
            out = np.take(table_, packed_bins)
        else:  # (every packed bin is in the table's range: "clip" gathers the same, unbuffered)
            out = np.empty(packed_bins.shape, np.uint8)
            bands.run(lambda a, b: np.take(table_, packed_bins[a:b], out=out[a:b], mode="clip"))
        miss = out == _NOT_DONE
        if miss.any():
            need = np.unique(packed_bins[miss])
            dense = unpack(need)
            todo = np.unique(dense[~self.done[dense]])
            if len(todo):
                self._fill(todo)
            table_[need] = self.code[dense] | np.where(self.grey[dense] < key, DARK, 0).astype(np.uint8)
            out[miss] = np.take(table_, packed_bins[miss])
        return out

    def _fill(self, need: np.ndarray) -> None:
        best, raw, s = self._match(need, self.vec, self.pen, self.cens)
        self.code[need] = (self.bit[best] | np.where(raw > RESIDUAL_MAX, MISFIT, 0).astype(np.uint8)
                           | np.where(self.part[best] > 0, PART, 0).astype(np.uint8))
        self.grey[need] = s
        self.best[need] = best
        self.done[need] = True

    def without(self, flat: np.ndarray, bits: int, dark_below: float, whole_only: bool = False) -> np.ndarray:
        """The code (with ``DARK`` where the grey term is below ``dark_below``) of every bin index
        in ``flat`` (1-d) matched only against the candidates with none of the expedition ``bits``
        (whole or part): what a pixel is when those sheets are ruled out there.  ``whole_only``:
        no part-covered candidates either."""
        need, inv = np.unique(flat, return_inverse=True)
        keep = (self.bit & bits) == 0
        if whole_only:
            keep &= np.arange(len(keep)) < self.n_whole
        best, raw, s = self._match(need, self.vec[keep], self.pen[keep],
                                   None if self.cens is None else self.cens[keep])
        code = (self.bit[keep][best] | np.where(raw > RESIDUAL_MAX, MISFIT, 0).astype(np.uint8)
                | np.where(self.part[keep][best] > 0, PART, 0).astype(np.uint8)
                | np.where(s < dark_below, DARK, 0).astype(np.uint8))
        return code[inv.ravel()]

    def _match(self, need: np.ndarray, vec: np.ndarray, pen: np.ndarray, cens: np.ndarray | None = None):
        """(best candidate, its residual, its grey term) of every bin index in ``need``;
        ``cens``: the candidates' channels matched as censored (STACKS_CENSORED), or None."""
        q0, rest = np.divmod(need, LUT_N * LUT_N)
        q1, q2 = np.divmod(rest, LUT_N)
        c = ((np.stack([q0, q1, q2], -1) + 0.5) / LUT_N * (LUT_HI - LUT_LO) + LUT_LO).astype(np.float32)
        # dim channels are noisy in log terms: weigh each channel by its light (0.2 .. 1)
        wts = np.clip(np.exp(c) / 0.3, 0.2, 1.0).astype(np.float32)
        cens_at = None  # the candidates with a censored channel
        if cens is not None and cens.any():
            cens_at = np.nonzero(cens.any(1))[0]
        best = np.empty(len(need), np.int64)
        raw_best = np.empty(len(need), np.float32)
        s_best = np.empty(len(need), np.float32)
        for i in range(0, len(c), 2048):
            diff = c[i:i + 2048, None, :] - vec[None]
            w = wts[i:i + 2048, None, :]
            # sums over the three channels as sums of their planes: numpy reduces a last axis of
            # three several times slower, adding in the same order ((c0 + c1) + c2): the same sums
            dw = diff * w
            w_sum = w[..., 0] + w[..., 1] + w[..., 2]
            s = np.clip((dw[..., 0] + dw[..., 1] + dw[..., 2]) / w_sum, self.s_lo, self.s_hi)
            e = w * (diff - s[..., None]) ** 2
            if cens_at is not None:
                # the censored candidates again: the shade fitted on the channels not censored; a
                # censored one costs only what it is lighter than predicted by more than STACK_LIGHTER
                keep = ~cens[cens_at][None]
                dj, wj = diff[:, cens_at], w  # (w: the pixel's weights, the same for every candidate)
                sj = np.clip((dw[:, cens_at] * keep).sum(-1) / (wj * keep).sum(-1), self.s_lo, self.s_hi)
                dj = dj - sj[..., None]
                s[:, cens_at] = sj
                e[:, cens_at] = wj * np.where(keep, dj, np.maximum(dj - STACK_LIGHTER, 0)) ** 2
            raw = np.sqrt((e[..., 0] + e[..., 1] + e[..., 2]) * (3.0 / w_sum))
            b = (raw + pen[None, :] + GREY_PENALTY * np.abs(s)).argmin(1)
            idx = np.arange(len(b))
            best[i:i + 2048], raw_best[i:i + 2048], s_best[i:i + 2048] = b, raw[idx, b], s[idx, b]
        return best, raw_best, s_best


@lru_cache(maxsize=8)
def _censored(colours) -> np.ndarray:
    """(candidates, 3) bool: the channel matched as censored (see STACKS_CENSORED) -- a candidate's
    darkest channel, when predicted below STACK_DIM_LOG, the candidate is of two or more whole
    sheets (no part-covered one), and each of its films darkens one of the other two channels by
    STACK_SEEN_LOG at least: a film that darkens only the censored channel leaves no sign of itself
    in the channels still matched, so a censored match cannot say it is there (a Japanese film,
    nearly clear in red and green, on development photos 0 and 8)."""
    vec = candidates(colours)[0]
    a = np.log(np.clip(np.asarray(colours, float) / 255.0, 1e-3, 1.0))  # (4, 3)
    full = np.array(list(itertools.product(range(3), repeat=4)), float)
    full = full[full.sum(1) <= 4]
    darkest = vec == vec.min(1, keepdims=True)
    out = np.zeros(vec.shape, bool)
    for k, n in enumerate(full):
        c = int(np.argmin(vec[k]))
        if n.sum() < 2 or vec[k, c] >= STACK_DIM_LOG or darkest[k].sum() != 1:
            continue
        others = [j for j in range(3) if j != c]
        if all(np.abs(a[e, others]).max() >= STACK_SEEN_LOG for e in range(4) if n[e] > 0):
            out[k, c] = True
    return out


@lru_cache(maxsize=8)
def _single_at_floor(colours) -> np.ndarray:
    """The candidates' vectors, each single whole sheet's channels no darker than the table's
    darkest bin's centre (SINGLE_AT_FLOOR)."""
    vec = candidates(colours)[0].copy()
    full = np.array(list(itertools.product(range(3), repeat=4)), float)
    full = full[full.sum(1) <= 4]
    one = np.nonzero(full.sum(1) == 1)[0]
    floor = np.float32(LUT_LO + 0.5 * (LUT_HI - LUT_LO) / LUT_N)
    vec[one] = np.maximum(vec[one], floor)
    return vec


def _n_whole(colours) -> int:
    """How many of ``candidates``' first entries are whole sheets only (the part-covered follow)."""
    return sum(1 for c in itertools.product(range(3), repeat=4) if sum(c) <= 4)


def table(colours: tuple[tuple[float, float, float], ...], s_lo: float, s_hi: float,
          calibrated: bool = False) -> Table:
    """The colour table of these colours; ``calibrated``: colours a calibration measured, one film
    at a time (STACKS_CENSORED and SINGLE_AT_FLOOR apply, while they are on)."""
    return _table(colours, s_lo, s_hi, calibrated and STACKS_CENSORED, calibrated and SINGLE_AT_FLOOR)


@lru_cache(maxsize=16)
def _table(colours, s_lo: float, s_hi: float, stacks_censored: bool, single_at_floor: bool) -> Table:
    return Table(colours, s_lo, s_hi, stacks_censored, single_at_floor)


def bins(L: np.ndarray) -> np.ndarray:
    """The table bin (int32, h x w) of every pixel of a log-transmission image (h x w x 3, float32)."""
    scale = LUT_N / (LUT_HI - LUT_LO)
    # |scale * L - scale * LO - 0.5| rounded = floor(scale * (L - LO)) for L >= LO (the 1e-4 keeps
    # L = LO, whose -0.5 could round away from zero, in bin 0); clamp both ends (numpy for the
    # clamps: cv2's scalar ops touch only the first channel)
    q = cv2.convertScaleAbs(np.maximum(L, np.float32(LUT_LO)), alpha=scale, beta=-LUT_LO * scale - 0.5 + 1e-4)
    np.minimum(q, LUT_N - 1, out=q)
    q0, q1, q2 = cv2.split(q)
    out = q0.astype(np.int32)
    out *= LUT_N
    out += q1
    out *= LUT_N
    out += q2
    return out


def packed_bins(L: np.ndarray) -> np.ndarray:
    """The table bins of every pixel packed in one uint32 (h x w): byte c = channel c's bin.

    The same bins as ``bins`` (``unpack`` turns one into the other) at half the cost: cv2 clamps
    and rounds all channels at once, and the three bytes are joined by a colour conversion, not arithmetic.
    (The uint32 value is q0 + 256 q1 + 65536 q2 on little-endian machines, x86 and the Pi's ARM.)
    """
    h, w = L.shape[:2]
    scale = LUT_N / (LUT_HI - LUT_LO)
    flat = np.ascontiguousarray(L).reshape(h, w * 3)  # one channel: cv2's scalar ops touch every value
    q = cv2.convertScaleAbs(cv2.max(flat, LUT_LO), alpha=scale, beta=-LUT_LO * scale - 0.5 + 1e-4)
    q = cv2.min(q, LUT_N - 1).reshape(h, w, 3)
    # the fourth byte added in one pass (cvtColor sets it to 255, cleared below in place): a split
    # and a merge cost two passes (0.5 ms less of a 12 MP photo's 3.5)
    packed = cv2.cvtColor(q, cv2.COLOR_RGB2RGBA).view(np.uint32)[..., 0]
    packed &= np.uint32(0x00FFFFFF)  # byte 3 is the high byte on little-endian machines
    return packed


def unpack(packed: np.ndarray) -> np.ndarray:
    """``bins`` index (int64) of packed bins (1-d), read byte by byte as they lie in memory."""
    q = np.ascontiguousarray(packed, np.uint32).view(np.uint8).reshape(-1, 4).astype(np.int64)
    return (q[:, 0] * LUT_N + q[:, 1]) * LUT_N + q[:, 2]
