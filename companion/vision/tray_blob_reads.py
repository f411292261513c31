"""Dice read in blobs of recent frames, kept so a blob that has not changed is not read again.

Real dice come to rest one after another: while the last one still rolls, the others lie still,
and the read begun on each frame with motion (to be ready soon after rest) is dropped when the
next frame moves too. What those dropped reads found in the still dice stands, though: a blob
of the same box whose pixels have not changed since (the tray's small picture, brightness
changes taken out) holds the same die, so its read (3-5 ms a die, most of a read's cost) is
taken from here and only the dice that moved last are read when all are still. A hand's touch
(a nudge moving one die) leaves the other dice's reads standing the same way.

The reads' worker threads add entries and look them up while the frame loop waits (one runs at a
time); appending to a bounded deque is safe without a lock.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from .tray_reader import Blob

KEEP = 32  # blob reads kept (six dice over five frames, and more)
BOX_SLACK = 1  # small pixels a blob's box may move by and still be the same blob (noise at its rim)
PAD = 2  # small pixels around the box compared too (a die's rim, blurred)
LEVEL = 8  # levels a (3x3-blurred) channel may differ by (noise 2-3), the brightness taken out
SHARE = 1 / 16  # fewer pixels than this share of a die's area beyond LEVEL: unchanged. Stricter than
# the motion test's sixth: a die that turns over or slides by a pixel changes far more than this


@dataclass
class _Entry:
    box: tuple[int, int, int, int]  # x, y, w, h (small pixels)
    patch: np.ndarray  # the small view there, PAD around the box
    origin: tuple[int, int]  # the patch's top left (small pixels)
    looked_at: np.ndarray  # where in the patch the crop read looks: the blob, grown by PAD (uint8)
    dice: list  # what the blob read (Die, full-resolution tray pixels)


class BlobReads:
    """The dice read in recent blobs (see the module's summary)."""

    def __init__(self, keep: int = KEEP):
        self._entries: deque[_Entry] = deque(maxlen=keep)
        self.reused = 0  # reads taken from here

    def add(self, small: np.ndarray, blob: Blob, dice: list) -> None:
        """``dice`` (all readable) were read in ``blob`` of the small view ``small``."""
        x0, y0, x1, y1 = _padded(blob.x, blob.y, blob.w, blob.h, small.shape)
        self._entries.append(_Entry((blob.x, blob.y, blob.w, blob.h), small[y0:y1, x0:x1].copy(), (x0, y0),
                                    _looked_at(blob, x0, y0, x1, y1), list(dice)))

    def find(self, small: np.ndarray, blob: Blob, side: float) -> list | None:
        """The dice read before in this blob, if its pixels have not changed since (``side``: a
        die's side, small pixels); None if there is no such read."""
        for e in reversed(self._entries):  # the newest first
            if max(abs(a - b) for a, b in zip(e.box, (blob.x, blob.y, blob.w, blob.h))) > BOX_SLACK:
                continue
            x0, y0 = e.origin
            h, w = e.patch.shape[:2]
            now = small[y0:y0 + h, x0:x0 + w]
            if now.shape != e.patch.shape or not same_pixels(e.patch, now, side, e.looked_at):
                continue
            self.reused += 1
            return list(e.dice)
        return None


def still_first(blobs: list[Blob], small: np.ndarray, previous: np.ndarray | None, side_small: float | None) -> list[Blob]:
    """``blobs`` with those whose pixels did not change since the frame before (``previous``, the
    small view then) first, the others after them smallest first: on a frame where the last dice
    still roll, the dice already at rest are read first, and their reads are kept
    (:class:`BlobReads`) when this read is dropped; a smeared pair of dice (a crop of 20-50 ms)
    comes last."""
    return split_still(blobs, small, previous, side_small)[0]


def split_still(blobs: list[Blob], small: np.ndarray, previous: np.ndarray | None,
                side_small: float | None) -> tuple[list[Blob], int]:
    """(:func:`still_first`'s order, how many of them lead it as still): a read dropped on a moving
    frame may go on through those, their reads being worth keeping. Nothing is still without a
    frame before to compare with."""
    if previous is None or previous.shape != small.shape or not blobs:
        return blobs, 0

    def moving(blob: Blob) -> bool:
        x0, y0, x1, y1 = _padded(blob.x, blob.y, blob.w, blob.h, small.shape)
        side = side_small or min(blob.w, blob.h)
        return not same_pixels(previous[y0:y1, x0:x1], small[y0:y1, x0:x1], side, _looked_at(blob, x0, y0, x1, y1))

    keys = [(1, b.area) if moving(b) else (0, 0) for b in blobs]
    order = sorted(range(len(blobs)), key=keys.__getitem__)  # (stable: still ones as found)
    return [blobs[i] for i in order], sum(k[0] == 0 for k in keys)


def _padded(x: int, y: int, w: int, h: int, shape: tuple) -> tuple[int, int, int, int]:
    return max(0, x - PAD), max(0, y - PAD), min(shape[1], x + w + PAD), min(shape[0], y + h + PAD)


def _looked_at(blob: Blob, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """The blob's mask in its padded box, grown by PAD: what its crop read looks at (a neighbour's
    shadow reaching into the box's corner is not)."""
    region = np.zeros((y1 - y0, x1 - x0), np.uint8)
    region[blob.y - y0:blob.y - y0 + blob.h, blob.x - x0:blob.x - x0 + blob.w][blob.mask] = 255
    return cv2.dilate(region, np.ones((2 * PAD + 1, 2 * PAD + 1), np.uint8))


def same_pixels(then: np.ndarray, now: np.ndarray, side: float, where: np.ndarray | None = None) -> bool:
    """Fewer than ``SHARE`` of a die's area (in ``where``, a uint8 mask) differs by more than
    ``LEVEL`` in a channel, the brightness (lamp flicker, exposure) taken out per channel."""
    gain = [(a + 1.0) / (b + 1.0) for a, b in zip(cv2.mean(now, where)[:3], cv2.mean(then, where)[:3])]
    diff = cv2.absdiff(now, cv2.multiply(then, (*gain, 1.0), dtype=cv2.CV_8U))
    diff = cv2.blur(diff, (3, 3))
    if diff.ndim == 3:  # (the largest channel's: cv2.max, as numpy's max over an axis costs ~10x more)
        b, g, r = cv2.split(diff)
        worst = cv2.max(cv2.max(b, g), r)
    else:
        worst = diff
    changed = (worst > LEVEL).astype(np.uint8)
    if where is not None:
        changed = cv2.bitwise_and(changed, where)
    return cv2.countNonZero(changed) < max(4, SHARE * side * side)
