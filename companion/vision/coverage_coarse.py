"""The colour rule judged last on a coarse grid, its answer lifted back onto the work grid.

The last colour rule but one (colourmasks._drop_unlike_sheets: blotches, colour lit unlike its
surroundings) judges *parts* of the cleaned colour -- pieces of sheets tens of millimetres across,
joined across the printed lines -- by shares and rings measured in millimetres: nothing of the
work grid's 3 px/mm.  So it judges every rules_step-th pixel each way, and what it takes out is
carried back to the work grid, whose own pixels still place each part's edges: a work pixel
within a coarse pixel of what was taken out keeps an expedition's colour when the coarse pixel it
falls in, of the same colours, kept it; one whose coarse pixel shows other colours (an edge the
coarse grid stepped over) takes the answer of the coarse pixels round it with its colours.
Elsewhere, and for an expedition the rule took nothing of, the work-grid mask stays as it was.
DRIFT (colour over another's drifting from it alone) stays on the work grid: its step in hue lies
near its threshold for many parts, and judged coarse it moved across it.
"""

from __future__ import annotations

import cv2
import numpy as np

from .colourmasks import EXPEDITIONS, _late_rules
from .maskparts import _bbox

# The grid _drop_unlike_sheets judges on (px per mm): every round(work grid / this)-th work pixel
# each way (every other one of the 3 px/mm grid).  Chosen as the 12 MP photo's own resolution
# (decoded at 2000 x 1500: 1.5 px per board mm).  Scene 77's 12 MP coverage, thread CPU, 12 pairs
# against the work grid's rule: median 220 -> 194 ms, paired 0.90 (the colour stage 72 -> 56 ms).
RULES_PPM = 1.5


def rules_step(ppm: float) -> int:
    """Every how many work pixels (each way, on a grid of ``ppm``) the rules judge."""
    return max(1, int(round(ppm / RULES_PPM)))


def coarse_late_rules(masks: dict, dropped: dict, shade, seen_flat: np.ndarray, cols, ppm: float,
                      drifted: dict | None) -> None:
    """colourmasks._late_rules (same arguments, ``masks`` and ``dropped`` changed in place) judged
    on every rules_step(ppm)-th pixel each way (see the module's docstring)."""
    step = rules_step(ppm)
    # DRIFT on the work grid: its step in hue, a median over bands 2 mm wide, lies near its threshold
    # for many parts, and judged coarse it moved across it (first phone, warm light, seed 62022: a
    # yellow part not taken out, 2 hexes called yellow)
    _late_rules(masks, dropped, shade, seen_flat, cols, ppm, drifted, unlike=step == 1)
    if step == 1:
        return
    sub = _Sub(step, seen_flat.shape)
    bits = np.zeros(seen_flat.shape, np.uint8)  # bit i: expedition i's colour
    for i, e in enumerate(EXPEDITIONS):
        _or_bit(bits, masks[e], 1 << i)
    c_bits = sub(bits)
    c_masks = {e: np.greater(cv2.bitwise_and(c_bits, 1 << i), 0) for i, e in enumerate(EXPEDITIONS)}
    c_dropped: dict = {e: None for e in EXPEDITIONS}
    _late_rules(c_masks, c_dropped, (sub(shade[0]), shade[1]), sub(seen_flat), cols, ppm / step, None, drift=False)
    kept = np.zeros(c_bits.shape, np.uint8)
    for i, e in enumerate(EXPEDITIONS):
        _or_bit(kept, c_masks[e], 1 << i)
    took = [i for i in range(len(EXPEDITIONS)) if np.count_nonzero(cv2.bitwise_and(c_bits, 1 << i))
            != np.count_nonzero(cv2.bitwise_and(kept, 1 << i))]  # the rules only ever take colour out
    if took:
        # worked in the box round what the rules took (grown so that every coarse pixel within one of
        # it has all its neighbours): only there may a work pixel lose its colour
        gone = cv2.bitwise_xor(c_bits, kept)
        y0, y1, x0, x1 = _bbox(gone, 3)
        st = sub.step
        fine = np.s_[y0 * st:y1 * st, x0 * st:x1 * st]
        box = _Sub(st, bits[fine].shape)
        got = _lifted(kept[y0:y1, x0:x1], c_bits[y0:y1, x0:x1], bits[fine], box)
        for i in took:
            # within a coarse pixel of what the rules took: a strip of colour the coarse grid stepped
            # over elsewhere stays (np.greater: a true bool, 0 or 1 a byte -- cv2 and the fitter read
            # the masks' bytes)
            near = box.up(cv2.dilate(cv2.bitwise_and(gone[y0:y1, x0:x1], 1 << i), _NEAR))
            out = cv2.bitwise_and(near, cv2.bitwise_not(cv2.bitwise_and(got, 1 << i)))
            m = masks[EXPEDITIONS[i]].copy()
            m[fine] &= ~np.greater(out, 0)
            masks[EXPEDITIONS[i]] = m
    for e, g in c_dropped.items():
        if g is not None:
            g = sub.up(g)
            dropped[e] = g if dropped[e] is None else dropped[e] | g


def _or_bit(bits: np.ndarray, mask: np.ndarray, bit: int) -> None:
    cv2.bitwise_or(bits, bit, dst=bits, mask=mask.view(np.uint8))


def _lifted(kept: np.ndarray, c_bits: np.ndarray, bits: np.ndarray, sub) -> np.ndarray:
    """The rules' answer (``kept``: colour bits per coarse pixel) for every work pixel: a work
    pixel whose colours (``bits``) are the coarse pixel's it falls in (``c_bits``) takes that
    pixel's answer; another (an edge the coarse grid stepped over) takes the answer of the coarse
    pixels round it with its colours, else -- none has them -- its own colours wherever a coarse
    pixel round it kept them."""
    # a coarse pixel without colour first takes a neighbour's colours and answer (the largest
    # colours'): the work pixels of a sheet's edge it stepped over
    key = (c_bits.astype(np.uint16) << 8) | kept
    hole = c_bits == 0
    if hole.any():
        np.copyto(key, cv2.dilate(key, _NEAR), where=hole)
    cls, ans = sub.up((key >> 8).astype(np.uint8)), sub.up((key & 255).astype(np.uint8))
    same = cv2.compare(bits, cls, cv2.CMP_EQ)
    out = cv2.bitwise_and(ans, ans, mask=same)
    # the rest (two colours meeting within a coarse pixel): the coarse pixels round it with its colours
    cv2.bitwise_not(same, dst=same)
    edge = cv2.findNonZero(cv2.bitwise_and(bits, bits, mask=same))
    if edge is None:
        return out
    xs, ys = edge[:, 0, 0], edge[:, 0, 1]
    st = sub.step
    ch, cw = c_bits.shape
    cy = np.clip((ys // st)[:, None] + _DY[None, :], 0, ch - 1)
    cx = np.clip((xs // st)[:, None] + _DX[None, :], 0, cw - 1)
    nb_bits, nb_kept = c_bits[cy, cx], kept[cy, cx]
    fb = bits[ys, xs]
    match = nb_bits == fb[:, None]
    by_match = np.bitwise_or.reduce(np.where(match, nb_kept, 0), axis=1)
    by_colour = np.bitwise_or.reduce(nb_kept, axis=1) & fb
    out[ys, xs] = np.where(match.any(1), by_match, by_colour)
    return out


_NEAR = np.ones((3, 3), np.uint8)
_DY = np.array([0, -1, -1, -1, 0, 0, 1, 1, 1])
_DX = np.array([0, -1, 0, 1, -1, 1, -1, 0, 1])


class _Sub:
    """Work grid <-> the coarse grid of every ``step``-th pixel (coarse pixel j stands for work
    pixels step j .. step j + step - 1)."""

    def __init__(self, step: int, shape: tuple[int, int]):
        self.step, self.shape = step, shape

    def __call__(self, a: np.ndarray) -> np.ndarray:
        st = self.step
        return np.ascontiguousarray(a[::st, ::st])

    def up(self, m: np.ndarray) -> np.ndarray:
        """A coarse mask (bool) or byte image on the work grid."""
        h, w = self.shape
        st = self.step
        big = cv2.resize(m.view(np.uint8), (m.shape[1] * st, m.shape[0] * st), interpolation=cv2.INTER_NEAREST_EXACT)
        big = np.ascontiguousarray(big[:h, :w])
        return big.view(bool) if m.dtype == bool else big
