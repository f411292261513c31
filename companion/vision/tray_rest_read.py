"""One read of the dice tray at rest: what differs from the empty tray, read crop by crop.

:func:`read_tray_at_rest` is the whole read, from the first still frame's view to the dice. It
runs as one piece of work that the streaming source spreads over frames in slices of CPU time
(:mod:`companion.sliced_work`), so it is written straight through, with no per-frame steps.

1. After a read, still again: if the tray is as it was at the last read (a hand passed over the
   dice, touching nothing), there is nothing to read.
2. The blobs where the tray differs from its empty picture (:func:`tray_reader.changes`) are cut
   from the full-resolution view and read with the still reader's crop reader, one by one; a
   blob whose die came out at another size than assumed is read again at the size measured.
3. Before the empty tray has been seen (the companion started with dice in it), its picture is
   guessed: what stands out from the colours along the tray's border (the still reader's
   foreground test, about 4 ms at 320x240) is filled in from around it. Nothing standing out at
   all: that is the empty tray. Later, a blob where a die lay at the start that reads as no die is
   the tray seen at last (``uncovered``), and the caller puts it into the picture.
4. The whole tray goes to the still-photo reader (``reader``) only when the crops cannot be
   trusted: the picture no longer fits (the camera moved), a blob read as no die or as an
   unreadable one, fewer dice than ``expected_dice``, or, on a guessed picture, no die at all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.sliced_work import expect_long_steps

from .dice import Die, ReaderSettings, foreground_mask, read_crop
from .tray_reader import (Blob, TrayView, changes, cut_crop, estimate_side, guess_empty, misjudged_side,
                          read_die_crop)


WHOLE_TRAY_STEP_S = 0.0025  # the whole-tray reader's longest numpy/OpenCV steps on a 640x480 frame (measured 1-3 ms)
MAX_BLOB_DICE = 12  # a blob bigger than this many dice's squares (6 touching dice and their shadows) is no dice
BACKGROUND_SIGMAS = ReaderSettings().background_sigmas  # the still reader's own foreground level


@dataclass
class Nothing:
    """A blob the crop reader found no readable die in: the read is unsure without a second look."""

    blob: Blob
    value = None


@dataclass
class RestRead:
    """What one read of the tray at rest found."""

    dice: list = field(default_factory=list)  # Die (and, before a full read, Nothing) in tray pixels
    unchanged: bool = False  # as at the last read: nothing was read
    full: str = ""  # why the whole tray went to the still-photo reader ("" if it did not)
    stale: bool = False  # the empty tray's picture no longer fits the view
    unmatched: bool = False  # something in the tray that is no die (the whole-tray reader made none
    # of what the crops saw, or a blob far bigger than the dice)
    seen_empty: bool = False  # the whole tray was looked at and holds nothing: its empty picture
    guessed: tuple | None = None  # (picture, unknown): the empty tray guessed from this view (dice on it)
    uncovered: list = field(default_factory=list)  # blobs where the guessed picture was wrong: tray now
    crop_reads: int = 0
    side_small: float | None = None  # a die's side as read, in small-image pixels


@dataclass
class TrayMemory:
    """What the source knows when the read starts (the read changes none of it)."""

    empty_picture: np.ndarray | None  # the empty tray (small, float32), None if never seen
    snapshot: np.ndarray | None  # the tray at the last read, if the motion started from a read
    unknown: np.ndarray | None  # where the empty picture is a guess (bool), None if all seen
    side_small: float | None  # a die's side as last read, in small-image pixels
    expected_dice: int  # 0: any number


def min_blob_side(small: np.ndarray, side_small: float | None) -> float:
    """The smallest blob worth reading, in small pixels: half a die, or 3 % of the tray."""
    return 0.5 * side_small if side_small else 0.03 * min(small.shape[:2])


def read_tray_at_rest(view: TrayView, memory: TrayMemory, reader: Callable[[np.ndarray], list[Die]]) -> RestRead:
    """Read the dice in ``view`` (see the module's summary for how)."""
    out = RestRead(side_small=memory.side_small)
    min_side = min_blob_side(view.small, memory.side_small)
    if memory.snapshot is not None:
        since = changes(view.small, memory.snapshot, min_side)
        if not since.stale and not since.blobs:
            out.unchanged = True  # a hand passed over the dice, touching nothing
            return out
    picture, unknown = memory.empty_picture, memory.unknown
    if picture is None:
        things = foreground_mask(view.small, BACKGROUND_SIGMAS)
        if cv2.countNonZero(things) == 0:  # nothing at all stands out: the empty tray
            out.seen_empty = True
            return out
        picture, unknown = guess_empty(view.small, things)
        out.guessed = (picture, unknown)
    found = changes(view.small, picture, min_side)
    if found.stale:
        out.stale = True
        return _full_read(view, out, f"{found.changed_fraction:.0%} of the tray differs from its empty picture",
                          reader)
    standing_out = None  # what stands out from the tray's own colours (only where the picture is a guess)
    for blob in found.blobs:
        if blob.area > MAX_BLOB_DICE * estimate_side(blob, out.side_small) ** 2:
            out.unmatched = True  # a hand, a cup: cut at the dice's scale its crop would be huge
            out.dice = []
            return out
        guessed_here = unknown is not None and _mostly_in(blob, unknown)
        if guessed_here and out.guessed is None:
            # where a die lay when the picture was guessed: if nothing there stands out from the
            # tray's colours now (4 ms once, against 3-14 ms for a crop read), it is the tray
            if standing_out is None:
                standing_out = foreground_mask(view.small, BACKGROUND_SIGMAS)
            if not standing_out[blob.y:blob.y + blob.h, blob.x:blob.x + blob.w][blob.mask].any():
                out.uncovered.append(blob)
                continue
        got = _read_blob(view, blob, out)
        if guessed_here and isinstance(got[0], Nothing):
            out.uncovered.append(blob)  # the tray where a die lay at the start, seen now
            continue
        out.dice += got
    if not out.dice and not out.guessed:
        return out  # nothing differs from the empty tray: it is empty
    why = _unsure(out.dice, memory.expected_dice) if out.dice else "no die read in what stands out"
    if why and out.guessed:
        why = f"the empty tray has not been seen yet; {why}"
    return _full_read(view, out, why, reader) if why else out


def _mostly_in(blob: Blob, unknown: np.ndarray) -> bool:
    inside = unknown[blob.y:blob.y + blob.h, blob.x:blob.x + blob.w][blob.mask]
    return inside.size > 0 and float(inside.mean()) > 0.5


def _read_blob(view: TrayView, blob: Blob, out: RestRead) -> list:
    """The dice in one blob; the die's size is the last one measured, else a guess from the blob,
    read again at the size the dice read came out at if the guess was off."""
    side = estimate_side(blob, out.side_small)
    for _ in range(2):
        out.crop_reads += 1
        crop = cut_crop(view, blob, side)
        dice = read_die_crop(crop)
        better = misjudged_side(dice, crop) if out.side_small is None else None
        if better is None:
            break
        side = better * view.scale
    sides = [d.side_px for d in dice if d.value is not None]
    if not sides:
        return [Nothing(blob)]
    out.side_small = float(np.median(sides)) * view.scale  # the next blobs' size, measured
    return dice


def _unsure(dice: list, expected_dice: int) -> str:
    """Why the crops' reading is not to be trusted on its own ("" if it is)."""
    if any(isinstance(d, Nothing) for d in dice):
        return "a change in the tray the crop reader found no die in"
    if any(d.value is None for d in dice):
        return "a die the crop reader could not read"
    if expected_dice and len(dice) < expected_dice:  # (more are reported as more: no second look helps)
        return f"the crops read {len(dice)} dice, expected {expected_dice}"
    return ""


def _full_read(view: TrayView, out: RestRead, why: str, reader: Callable) -> RestRead:
    """The whole tray read by the still-photo reader, replacing what the crops read."""
    out.full = why
    expect_long_steps(WHOLE_TRAY_STEP_S)
    seen_by_crops = bool(out.dice)
    out.dice = list(reader(view.full))
    if not out.dice:
        out.unmatched, out.seen_empty = seen_by_crops, not seen_by_crops
    sides = [d.side_px for d in out.dice if d.value is not None]
    if sides:
        out.side_small = float(np.median(sides)) * view.scale
    return out


def warm_up() -> None:
    """Pay the first-call costs once, before the first frame: OpenCV builds its Lab colour tables
    on the first Lab conversion in a process (about 70 ms), and numpy and OpenCV set up other
    paths on first use. A made-up die (a light square with three dark pips on grey) is looked at
    and read as a crop; what it reads does not matter."""
    size = 128
    img = np.full((size, size, 3), 90, np.uint8)
    cv2.rectangle(img, (16, 16), (112, 112), (235, 235, 235), -1)
    for c in (34, 64, 94):
        cv2.circle(img, (c, c), 8, (20, 20, 20), -1)
    mask = np.zeros((size, size), np.uint8)
    cv2.rectangle(mask, (12, 12), (116, 116), 255, -1)
    read_crop(img, mask)
    guess_empty(img, foreground_mask(img, BACKGROUND_SIGMAS))
