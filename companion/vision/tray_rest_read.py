"""One read of the dice tray at rest: what differs from the empty tray, read crop by crop.

:func:`read_tray_at_rest` is the whole read, from the first still frame's view to the dice. It
runs as one piece of work that the streaming source spreads over frames in slices of CPU time
(:mod:`companion.sliced_work`), so it is written straight through, with no per-frame steps.

1. After a read, still again: if the tray is as it was at the last read (a hand passed over the
   dice, touching nothing), there is nothing to read.
2. The blobs where the tray differs from its empty picture (:func:`tray_reader.changes`) are cut
   from the full-resolution view and read with the still reader's crop reader, one by one; a
   blob whose die came out at another size than assumed is read again at the size measured. A
   blob of several dice's squares that joins die-sized things apart from each other (two dice
   and a stain between them) is read thing by thing (:meth:`Changes.split`): its whole crop
   would cost 25 dice's.
3. Before the empty tray has been seen (the companion started with dice in it), its picture is
   guessed: what stands out from the colours along the tray's border (the still reader's
   foreground test, about 4 ms at 320x240) is filled in from around it. Nothing standing out at
   all: that is the empty tray. Later, a blob where a die lay at the start that reads as no die is
   the tray seen at last (``uncovered``), and the caller puts it into the picture.
4. A blob read as no die or as an unreadable one (a black die on black felt, whose face the crop
   reader does not tell from the felt) goes to the still-photo reader (``reader``) on the part of
   the tray around it only (``region``): a fraction of the whole tray's cost -- unless every
   expected die was read cleanly beside it: then it is no die (a light spot, a stain) and is left
   out (``no_die``). A tray that reads empty while a throw is expected is looked at again down to
   pip-sized specks (a black one on black felt differs only at its pip).
5. The whole tray goes to the still-photo reader only when the crops cannot be trusted and the
   region did not settle it: the picture no longer fits (the camera moved), a blob neither read,
   fewer dice than ``expected_dice``, or, on a guessed picture, no die at all.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.sliced_work import expect_long_steps

from .dice import Die, ReaderSettings, foreground_mask, read_dice
from .tray_blob_reads import BlobReads, split_still
from .dice_crop import read_crop
from .dice_pip_templates import templates as blurred_face_templates
from .tray_reader import (Blob, Changes, TrayView, changes, cut_crop, differs, differs_in, estimate_side, guess_empty,
                          misjudged_side, read_die_crop, regrown)


WHOLE_TRAY_STEP_S = 0.005  # the whole-tray reader's longest numpy/OpenCV steps on a 640x480 frame (1-3 ms measured on
# a quiet machine, 3.2-4.7 at load 11: its k-means and sums over the frame; a slice keeps back at most half)
GUESS_STEP_S = 0.003  # ... the empty tray guessed at 320x240, or the foreground test alone: its k-means, one
# OpenCV call, took 2.1-3.1 ms measured on this VM in session 10 (1.2 ms on the faster VM of earlier rounds,
# when this was 1.5 ms: cold starts then had frames of 10.3-11.8 ms); the fill is box filters of 0.1-0.3 ms
MIN_STEP_S = 0.0005  # ... and on a crop of a few dice (a region read): well under a millisecond
CROP_STEP_S_PER_PX = 2e-8  # ... and on a die crop, per pixel: measured on 698 crops of rolling and resting
# dice and hands, the longest stretch without a Python call was at most 0.02 ms per thousand pixels (p99;
# 1.1 ms at most on crops up to 30 thousand pixels, a die; 5.5 ms on a hand's 300 thousand)
FIRST_LOOK_PX = 48  # a die's side in the crop a blob is first read at: about its own in a 640x480 camera's
# view (40-60 px), a quarter of the pixels of the crop enlarged to FACE_PX (96). On the 601 crops the 47
# bench sessions' streams cut, 570 read cleanly at 48, each with the values read at 96 (none other); the 31
# others (unreadable, no die, off the size) go on to the crop at 96. 40 px cost as much (0.68x of 96) and
# read 2 crops otherwise; 64 px 0.75x
FIRST_LOOK_SIZE = (0.88, 1.2)  # ... and kept only for dice read at this share of the side assumed, tighter
# than SIZE_RANGE: a part of a die is read a little larger at 48 (bench seed 1105's half of a black two, a
# one: 0.79 of the size at 96, so made unreadable, 0.81 at 48). On the bench crops read cleanly at 48, 1 %
# of the dice fell under 0.88 (0.81, 0.85, 0.87, 0.88) and 1 % over 1.2 (side not yet known): read at 96
FIRST_LOOK_QUICK = True  # ... as a quick look: a face unread at once is left unread, not looked at the kinder ways
# (faint pips, past glare, by the pips' colour, as blobs), since the crop at 96 reads it the full way anyway. On the
# 601 bench crops: the same values, 558 kept at 48 (559 with the kinder looks), CPU 0.755x of the read at 96
# against 0.82x (bench seed 1002's third throw, a three read "off layout" at 48: 4.7 ms quick, 20 ms full)
BIG_CROP_PX = 60_000  # crops bigger than this (smeared dice, hands, touching dice) say their long steps
# (a die at rest is cut at 25-35 thousand pixels; up to 60 thousand the longest stretch was 1.1 ms at most)
REGION_MARGIN = 1.5  # a region read takes in this many dice around the blobs it reads
REGION_MIN_SHARE = 0.4  # ... in a square at least this share of the tray's shorter side (a 4x4-dice box
# of a 640x480 tray): on smaller crops the reader's background colours and sizes came out wrong
REGION_MAX_SHARE = 0.4  # a region bigger than this share of the tray: the whole tray is read instead
GROWN_MAX_DICE = 2.5  # a blob grown over a die's faint body is read again if it is at most this many dice's squares
SPECK_SHARE = 1 / 3  # a tray read empty while a throw is expected is looked at again down to specks this share of
# the smallest blob (a sixth of a die): a one's pip is a quarter of the die across (7 of 25 small px measured)
MAX_SPECKS = 4  # ... at most this many of them, the largest, grown and read (each grown() looks at the whole tray,
# 1-2 ms; a die's pips, up to 6, are one blob once grown, so the first pip's growing takes in the others)
SPLIT_ABOVE_DICE = 2.0  # a blob bigger than this many dice's squares is read thing by thing if it joins things apart.
# 3.0 until session 20: a die and a light spot touching it (development session 3609's third throw: 2.8 squares)
# were one blob whose whole crop at 96 px took 23 ms (52 ms the read, 5-6 frames); split, 14 ms. Two dice's squares
# and their shadows are about 2.5: touching dice stay one piece (Changes.split needs a gap of a sixth of a die).
# On 195 development throws of 5-6 dice the split was tried 74 times and used twice, every value as before
DARK_FACE_SHARE = 0.5  # a die whose square differs from the empty tray (by the change level) in less than this
# share is like the tray: its blob may be a part of it. Measured on first reads of rendered sessions (4560-4561,
# 4600-4607, 4700-4713, 4800-4809): black dice on black felt or a dark table 0.07-0.31, other dice 0.92-1.0
PART_WIDER = 1.35  # ... and such a die read narrower than this share of the widest circle inside what differs
# faintly around it (Changes.faint_width) is a part of a die. The same reads: black dice read right 0.38-1.16,
# a black two's half read as a one 1.54-1.85 (midway); other dice up to 2.1 (dice joined by their shadows)
FAINT_DIE_BOX = 0.9  # a blob grown over a die's faint body holds a die only if its box is at least this share of a
# die's side both ways (the die read in it, and the dice's as measured): a die seen from above fills a box of its side
# or more; 0.9 for its mask's edge. Grown blobs whose first look read right: 1.1-1.4 of the side in the traces of
# this round; bench 1105's two's half, grown 21 x 37 small px, 0.82 of the dice's 25.6 (its one read at 0.89)
SIZE_RANGE = (0.8, 1.25)  # a die read at a size outside this share of the dice's as measured is a part of a die
PART_OF_A_DIE = "of the dice's size (a part of a die?)"  # (the end of such a die's reason)
MAX_BLOB_DICE = 12  # a blob bigger than this many dice's squares (6 touching dice and their shadows) is no dice
DIFFERS_BOXES = 2  # "changed since the last read?" looks first at this many dice's boxes of the last read (then at
# the whole tray): on a throw the first die's place answers; a hand passing over the dice pays these on top (6
# rendered sessions of 1-6 dice: the boxes answered 27 of 35 checks, every throw; the 8 others, hands passing, paid
# 1.6 ms more). Two, not one: a throw may land a die back where one lay
GUESSED_REGROW = True  # while the empty tray's picture is a guess (a cold start), a blob the first look reads
# nothing in where the picture is a guess is grown over the die's faint body against the tray around it
# (tray_reader.regrown) and given a first look, before its own crop at 96 px: a dark die's pips and rims
# stand out from the tray's colours, its body not, so the guess kept the body and the blob is a part of the
# die. Development cold starts 3410 (a blue die on blue felt among five) and 3412 (a dark green die on dark
# felt): their first throws went to the whole-tray reader (60-110 ms, 11-45 frames); regrown, each die
# reads in one first look (2-3 ms). In every read while the picture is a guess, not only the one that made it:
# a nudge's read of such a die (9854) read nothing, took the tray for empty and learnt the die into its picture.
# False: as before (docs/dice-stream.md, fifteenth round)
FAINT_FIRST_AT_96 = True  # a blob grown over a die's faint body (_read_faint_first) whose first look reads a
# whole die cleanly, but off the first look's size (FIRST_LOOK_SIZE), is read at 96 px at once -- the grown
# blob's crop, under the same checks as its first look -- rather than after the blob's own crop at 96 px and a
# second first look of the same grown blob. Bench seed 1100's third throw (a black one on black felt, read 1.27x
# the side assumed at 48 px): the blob's own crop at 96 px (15.8 ms, no die) and the grown blob's first look again
# (3.6 ms) came before the grown crop at 96 px that reads it (6.8 ms): 5-6 frames from rest in every run of main.
# Only once the dice's size is measured (what it reads is then held to SIZE_RANGE): before it, development
# session 4607's first throw, a black two's half, read as a one at 96 px (tests/test_dice_stream_hard_cases.py).
# False: as before (docs/dice-stream.md, sixteenth round)
DEFAULT_SETTINGS = ReaderSettings()
BACKGROUND_SIGMAS = DEFAULT_SETTINGS.background_sigmas  # the still reader's own foreground level


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
    region: str = ""  # why part of the tray went to the still-photo reader ("" if it did not)
    stale: bool = False  # the empty tray's picture no longer fits the view
    unmatched: bool = False  # something in the tray that is no die (the whole-tray reader made none
    # of what the crops saw, or a blob far bigger than the dice)
    seen_empty: bool = False  # the whole tray was looked at and holds nothing: its empty picture
    guessed: tuple | None = None  # (picture, unknown): the empty tray guessed from this view (dice on it)
    uncovered: list = field(default_factory=list)  # blobs where the guessed picture was wrong: tray now
    crop_reads: int = 0
    no_die: int = 0  # blobs left out as no die: every expected die was read cleanly beside them
    side_small: float | None = None  # a die's side as read, in small-image pixels


@dataclass
class ReadAhead:
    """Between a read begun on a moving frame and the source that lends it time: such a read is
    dropped when the next frame moves too, but a crop read of a blob that was still when it began
    (a die at rest while the last ones roll) is worth finishing: the read then goes on through its
    still blobs only, keeping their reads (:class:`BlobReads`) for the read at rest."""

    dropped: bool = False  # set by the source: the read's own result is no longer wanted
    on_still: bool = False  # set by the read: it is at a blob that was still (a read worth keeping)


@dataclass
class TrayMemory:
    """What the source knows when the read starts (the read changes none of it)."""

    empty_picture: np.ndarray | None  # the empty tray (small, float32), None if never seen
    snapshot: np.ndarray | None  # the tray at the last read, if the motion started from a read
    unknown: np.ndarray | None  # where the empty picture is a guess (bool), None if all seen
    side_small: float | None  # a die's side as last read, in small-image pixels
    expected_dice: int  # 0: any number
    reads: BlobReads | None = None  # recent blobs' reads: a blob unchanged since is not read again
    previous: np.ndarray | None = None  # the small view of the frame before: its still blobs are read first
    ahead: ReadAhead | None = None  # a read begun on a moving frame: may be dropped to its still blobs
    snapshot_boxes: list = field(default_factory=list)  # (x, y, w, h) small pixels: the dice at the last read


def min_blob_side(small: np.ndarray, side_small: float | None) -> float:
    """The smallest blob worth reading, in small pixels: half a die, or 3 % of the tray."""
    return 0.5 * side_small if side_small else 0.03 * min(small.shape[:2])


def read_tray_at_rest(view: TrayView, memory: TrayMemory, reader: Callable[[np.ndarray], list[Die]]) -> RestRead:
    """Read the dice in ``view`` (see the module's summary for how)."""
    out = RestRead(side_small=memory.side_small)
    min_side = min_blob_side(view.small, memory.side_small)
    if memory.snapshot is not None:
        # (where the dice lay at the last read first: on a throw they have left those places, which
        # answers for a few dice's boxes of the tray; else the whole tray, changes' answer at 0.6x its CPU)
        if (not differs_in(view.small, memory.snapshot, min_side, memory.snapshot_boxes[:DIFFERS_BOXES])
                and not differs(view.small, memory.snapshot, min_side)):
            out.unchanged = True  # a hand passed over the dice, touching nothing
            return out
    picture, unknown = memory.empty_picture, memory.unknown
    if picture is None:
        expect_long_steps(GUESS_STEP_S)  # the foreground test's k-means: one OpenCV call of 1.2 ms
        things = foreground_mask(view.small, BACKGROUND_SIGMAS)
        if cv2.countNonZero(things) == 0:  # nothing at all stands out: the empty tray
            out.seen_empty = True
            return out
        picture, unknown = guess_empty(view.small, things)
        expect_long_steps(0.0)
        out.guessed = (picture, unknown)
    found = changes(view.small, picture, min_side, unknown)
    if found.stale:
        out.stale = True
        return _full_read(view, out, f"{found.changed_fraction:.0%} of the tray differs from its empty picture",
                          reader)
    standing_out = None  # what stands out from the tray's own colours (only where the picture is a guess)
    failed: list[tuple[Blob, list]] = []  # blobs with a die the crop reader could not read, and what it read
    grown: list[Blob] = []  # blobs grown over a die's faint body (Changes.grown), read as such
    order, still = split_still(found.blobs, view.small, memory.previous, out.side_small)
    ahead = memory.ahead
    for k, blob in enumerate(order):
        if ahead is not None:
            if ahead.dropped and k >= still:
                return out  # dropped: the still blobs' reads are kept, the rest is not wanted
            ahead.on_still = k < still
        if any(g.holds(*blob.centre) for g in grown):
            continue  # another fragment of a die read already
        if blob.area > MAX_BLOB_DICE * estimate_side(blob, out.side_small) ** 2:
            out.unmatched = True  # a hand, a cup: cut at the dice's scale its crop would be huge
            out.dice = []
            return out
        guessed_here = unknown is not None and _mostly_in(blob, unknown)
        if guessed_here and out.guessed is None:
            # where a die lay when the picture was guessed: if nothing there stands out from the
            # tray's colours now (4 ms once, against 3-14 ms for a crop read), it is the tray
            if standing_out is None:
                expect_long_steps(GUESS_STEP_S)  # (its k-means, as in the guess: one long OpenCV call)
                standing_out = foreground_mask(view.small, BACKGROUND_SIGMAS)
                expect_long_steps(0.0)
            if not standing_out[blob.y:blob.y + blob.h, blob.x:blob.x + blob.w][blob.mask].any():
                out.uncovered.append(blob)
                continue
        faint: list[Blob] | None = [] if not guessed_here else None  # (the blob grown first, if it read so)
        regrow = unknown if guessed_here and GUESSED_REGROW else None  # (any read while the picture is a guess)
        if regrow is not None:
            faint = []  # (regrown against the tray around it: GUESSED_REGROW)
        got = (_read_split(view, blob, out, found, memory.reads)
               or _read_blob(view, blob, out, memory.reads, ahead, found, faint, regrow))
        if ahead is not None and ahead.dropped:
            continue  # (only the clean reads kept matter now: no second looks)
        whole = None
        cut = any(isinstance(d, Die) and d.reason.endswith(PART_OF_A_DIE) for d in got)
        if faint:  # read grown, before its own crop at 96 px (_read_faint_first)
            whole = faint[0]
            grown.append(whole)
            got = [d for d in got if not any(_same_place(d, k) for k in out.dice)] or [Nothing(blob)]
        elif not guessed_here and not cut and not any(d.value is not None for d in got):
            whole = found.grown(blob)
            if whole is not None and whole.area > GROWN_MAX_DICE * estimate_side(whole, out.side_small) ** 2:
                whole = None  # grown over more than a die (a smear, a hand): its crop would be dear
            again = _read_blob(view, whole, out, memory.reads) if whole is not None else []
            if any(d.value is not None for d in again) and _plausible(again, whole, view, out.side_small):
                grown.append(whole)
                got = [d for d in again if not any(_same_place(d, k) for k in out.dice)] or [Nothing(blob)]
        if guessed_here and isinstance(got[0], Nothing):
            if out.guessed is None:
                out.uncovered.append(blob)  # the tray where a die lay at the start, seen now
            # (else this read guessed the picture around what stands out, and the blob is what stands
            # out now: the tray's picture there stays a guess. It may be a die the crops cannot read
            # -- a dark green die on dark felt, its pips and rims only -- whose pips and rims, taken
            # for tray, went into the picture, which the tray never matched again: every read of the
            # empty tray went to the still reader, and the guess was never replaced (development cold
            # starts 3410, 3412). The whole tray is read, as before: too few dice, or none)
            continue
        out.dice += got
        if any(d.value is None for d in got):
            failed.append((whole or blob, got))
    if ahead is not None and ahead.dropped:
        return out
    if not found.blobs and memory.expected_dice:
        _read_specks(view, out, found, min_side, memory.reads)
    if not out.dice and not out.guessed:
        return out  # nothing differs from the empty tray: it is empty
    why = _unsure(out.dice, memory.expected_dice) if out.dice else "no die read in what stands out"
    if why and _all_dice_read_beside(out.dice, memory.expected_dice):
        # every die of the throw read cleanly; what else differs read as no die, even grown (a light
        # spot that moved, a stain, a crumb): the still reader would read the same dice, in 10-40 frames
        out.no_die = sum(isinstance(d, Nothing) for d in out.dice)
        out.dice = [d for d in out.dice if not isinstance(d, Nothing)]
        return out
    if why and failed and _region_read(view, out, failed, memory.expected_dice):
        out.region = why
        return out
    if why and out.guessed:
        why = f"the empty tray has not been seen yet; {why}"
    return _full_read(view, out, why, reader) if why else out


def _read_specks(view: TrayView, out: RestRead, found: Changes, min_side: float, reads: BlobReads | None) -> None:
    """Nothing differs from the empty tray by a blob's size, yet a throw is expected: a black die on
    black felt may differ only at its pips, and a one's pip is narrower than ``min_side`` (a 7 px
    speck against 7.2, rendered development session 4402: the tray read empty and the die was
    learnt into its picture until a hand moved it, 13-21 frames). Specks down to ``SPECK_SHARE`` of
    that are grown over the die's faint body (:meth:`Changes.grown`); a grown speck of a die's
    size is read from its crop, and its dice are kept only if they read cleanly, of the dice's
    size, where the speck is (``_plausible``). Anything else leaves the tray empty, as before: no
    still reader's look at an empty tray (a hand passed over it)."""
    specks = found.finer(SPECK_SHARE * min_side)
    smallest = 2 * min_blob_side(view.small, None)  # (the smallest die, as _plausible allows)
    seen: list[Blob] = []
    for speck in sorted(specks.blobs, key=lambda b: -b.area)[:MAX_SPECKS]:  # (a pip before a speck of noise)
        if any(g.holds(*speck.centre) for g in seen):
            continue  # another pip of a die grown already (each grown() looks at the whole tray: 1-2 ms)
        whole = specks.grown(speck)
        if whole is None or any(g.holds(*whole.centre) for g in seen):
            continue
        side = estimate_side(whole, out.side_small)
        if not (side >= smallest and 0.5 * side * side <= whole.area <= GROWN_MAX_DICE * side * side):
            continue  # a speck of noise, or grown over more than a die (a smear)
        seen.append(whole)
        got = [d for d in _read_blob(view, whole, out, reads) if d.value is not None]
        if got and _plausible(got, whole, view, out.side_small):
            out.dice += got


def _mostly_in(blob: Blob, unknown: np.ndarray) -> bool:
    inside = unknown[blob.y:blob.y + blob.h, blob.x:blob.x + blob.w][blob.mask]
    return inside.size > 0 and float(inside.mean()) > 0.5


def _read_blob(view: TrayView, blob: Blob, out: RestRead, reads: BlobReads | None = None,
               ahead: ReadAhead | None = None, found: Changes | None = None,
               faint: list[Blob] | None = None, regrow: np.ndarray | None = None) -> list:
    """The dice in one blob; the die's size is the last one measured, else a guess from the blob,
    read again at the size the dice read came out at if the guess was off. A blob read before
    whose pixels have not changed since (``reads``) is not read again. A read dropped on a moving
    frame (``ahead``) keeps only what the first look reads: the crop at 96 px is left to the read at
    rest (on a blob the first look is unsure of it cost up to 37 ms, and the read at rest waits
    for it: bench session 2851, where the same blob read at rest in 2 ms). ``faint``: a blob the
    first look reads nothing in may be a part of a die like the tray, read grown first
    (:func:`_read_faint_first`): the grown blob goes into ``faint`` if it read so. ``regrow`` (where the
    empty tray's picture is a guess): grown against the tray around it
    instead (:func:`_read_regrown_first`)."""
    side = estimate_side(blob, out.side_small)
    dice = reads.find(view.small, blob, side) if reads is not None else None
    if dice:
        out.side_small = float(np.median([d.side_px for d in dice])) * view.scale
        return dice
    dice = _first_look(view, blob, side, out)
    if dice is None and ahead is not None and ahead.dropped:
        return [Nothing(blob)]
    if dice is None and faint is not None and found is not None:
        grown = (_read_faint_first(view, blob, out, reads, found) if regrow is None
                 else _read_regrown_first(view, blob, out, reads, found, regrow))
        if grown is not None:
            if grown[0] is not None:
                faint.append(grown[0])
            return grown[1]
    for _ in range(0 if dice else 2):
        out.crop_reads += 1
        crop = cut_crop(view, blob, side)
        dice = _read_crop_sliced(crop)
        better = misjudged_side(dice, crop) if out.side_small is None else None
        if better is None:
            break
        side = better * view.scale
    if out.side_small:
        dice = [_doubt_size(d, view.scale, out.side_small) for d in dice]
    elif found is not None:  # (no size to hold it against yet: a dark die's part is told by what is around it)
        dice = [_doubt_dark_part(d, blob, found, view.scale) for d in dice]
    sides = [d.side_px for d in dice if d.value is not None]
    if not sides:  # (a part of a die read as a die stays as such: not the blob to grow, see _doubt_size)
        return [d for d in dice if d.reason.endswith(PART_OF_A_DIE)] or [Nothing(blob)]
    out.side_small = float(np.median(sides)) * view.scale  # the next blobs' size, measured
    if reads is not None and len(sides) == len(dice):  # (only clean reads: the others are looked at again)
        reads.add(view.small, blob, dice)
    return dice


def _read_faint_first(view: TrayView, blob: Blob, out: RestRead, reads: BlobReads | None,
                      found: Changes) -> tuple[Blob | None, list] | None:
    """A blob the first look read nothing in, that is a part of a die like the tray (a black die on
    black felt or a dark table: its body differs from the tray by 9-25 levels, its blob is its pips
    and lit edges), read grown over the die's faint body (:meth:`Changes.grown`) *before* its own
    crop at 96 px: that crop of a part reads the part again -- a lone pip, a two's half as a one --
    at 10-37 ms (the side guessed from a part is small, so its crop is big), and then the grown
    blob was read anyway, or the region read was needed (15-25 ms more). The blob is such a part
    when, grown, less than ``DARK_FACE_SHARE`` of it differs by the change level.

    The grown blob gets a first look only (2-5 ms). Its dice are kept if they read cleanly, are
    what changed there (:func:`_plausible`) and are whole dice: of the dice's size
    (:func:`_doubt_size`), no narrower than what differs faintly around them
    (:func:`_doubt_dark_part`), and the grown blob as wide and as tall as a die (``FAINT_DIE_BOX``:
    a black die's body is dark as a shadow is, which ``grown`` leaves out, so a two's half may grow
    into little more than itself and read as a one at the dice's size -- bench session 1105's third
    throw, grown 21 x 37 small px). Returns (grown blob, its dice) then; (None, the dice made
    unreadable) if a die read there is a part of one (the region read comes at once: the part's
    own crop at 96 px reads the same part, a one at 0.79); else None, nothing learnt, and the blob
    is read as ever (its crop at 96 px, then grown, then the region)."""
    whole = found.grown(blob)
    if whole is None or whole.area > GROWN_MAX_DICE * estimate_side(whole, out.side_small) ** 2:
        return None  # no faint body, or grown over more than a die (a smear, a hand)
    if found.changed_in(whole) >= DARK_FACE_SHARE:
        return None  # a die that differs as dice do (its first look was unsure for another reason)
    seen: list = []  # (what the first look read, kept or not)
    dice = _first_look(view, whole, estimate_side(whole, out.side_small), out, seen) or []
    if not dice and FAINT_FIRST_AT_96 and out.side_small and seen and all(d.value is not None for d in seen):
        dice = _grown_at_96(view, whole, out)  # a whole die read off the first look's size: at 96 px now
    if out.side_small:
        dice = [_doubt_size(d, view.scale, out.side_small) for d in dice]
    dice = [_doubt_box(_doubt_dark_part(d, blob, found, view.scale), whole, view.scale, out.side_small)
            for d in dice]
    if dice and all(d.value is not None or d.reason.endswith(PART_OF_A_DIE) for d in dice) and any(
            d.value is None for d in dice):
        return None, dice  # a die read there, but a part of one: the still reader's look at the region, at once
    if not dice or any(d.value is None for d in dice) or not _plausible(dice, whole, view, out.side_small):
        return None
    out.side_small = float(np.median([d.side_px for d in dice])) * view.scale
    if reads is not None:
        reads.add(view.small, whole, dice)
    return whole, dice


def _read_regrown_first(view: TrayView, blob: Blob, out: RestRead, reads: BlobReads | None, found: Changes,
                        unknown: np.ndarray) -> tuple[Blob, list] | None:
    """A blob the first look read nothing in, where the empty tray's picture is a guess
    (``unknown``): a dark die's pips and rims, whose body the guess kept (it does not stand out
    from the tray's colours). Grown over that body against the tray around it (:func:`tray_reader.regrown`,
    within ``REGION_MARGIN`` dice of the blob), and the grown blob given a first look -- when less than
    ``DARK_FACE_SHARE`` of it differs from the guessed picture (a die like the tray, as
    :func:`_read_faint_first` asks). Its dice are kept as that function keeps them: read cleanly, of the
    dice's size if known, the grown blob a die wide both ways, what changed there. Else None, nothing
    learnt, and the blob is read as ever (its crop at 96 px, and on as before)."""
    side = max(out.side_small or 0.0, estimate_side(blob, None), 2 * min_blob_side(view.small, None))
    whole = regrown(view.small, unknown, blob, side, REGION_MARGIN * side)
    if whole is None or whole.area > GROWN_MAX_DICE * estimate_side(whole, out.side_small) ** 2:
        return None  # no faint body, or grown over more than a die
    if found.changed_in(whole) >= DARK_FACE_SHARE:
        return None  # a die that differs from the guess as dice do (unsure for another reason)
    # (at the grown blob's own size: a one on blue felt read at 1.2 of its neighbours' size, 3410 -- past the
    # first look's range about the dice's, within the still reader's, which _doubt_size then holds it to)
    dice = _first_look(view, whole, estimate_side(whole, None), out) or []
    if out.side_small:
        dice = [_doubt_size(d, view.scale, out.side_small) for d in dice]
    dice = [_doubt_box(d, whole, view.scale, out.side_small) for d in dice]
    if not dice or any(d.value is None for d in dice) or not _plausible(dice, whole, view, out.side_small):
        return None
    out.side_small = out.side_small or float(np.median([d.side_px for d in dice])) * view.scale  # (a known size stays)
    if reads is not None:
        reads.add(view.small, whole, dice)
    return whole, dice


def _doubt_box(die: Die, grown: Blob, scale: float, side_small: float | None) -> Die:
    """``die``, unreadable if the ``grown`` blob it was read in is narrower or shorter than a die (the
    one read, and the dice as measured: ``FAINT_DIE_BOX``): a part of a die, grown over little more
    than itself (see :func:`_read_faint_first`)."""
    if die.value is None or min(grown.w, grown.h) >= FAINT_DIE_BOX * max(die.side_px * scale, side_small or 0.0):
        return die
    return Die(None, die.center, 0.0, die.side_px, f"a {die.value} read in a blob grown over less than a die, "
               + PART_OF_A_DIE)


def _first_look(view: TrayView, blob: Blob, side: float, out: RestRead, seen: list | None = None) -> list | None:
    """The dice a crop at a die's own scale (``FIRST_LOOK_PX``) reads, if it reads them cleanly:
    a die or more, every one read, at the size assumed (``FIRST_LOOK_SIZE``). Else None, and
    the crop enlarged to ``FACE_PX`` is read as ever: the dice the first look is unsure of (a blurred
    or cut face, touching dice, a black die on black felt) keep the full read, and its cost.
    ``seen``: what the crop read goes in there too, kept or not."""
    out.crop_reads += 1
    crop = cut_crop(view, blob, side, FIRST_LOOK_PX)
    crop.quick = FIRST_LOOK_QUICK
    dice = _read_crop_sliced(crop)
    if seen is not None:
        seen += dice
    if dice and all(d.value is not None and FIRST_LOOK_SIZE[0] <= d.side_px / crop.side_full <= FIRST_LOOK_SIZE[1]
                    for d in dice):
        return dice
    return None


def _grown_at_96(view: TrayView, whole: Blob, out: RestRead) -> list:
    """The grown blob ``whole`` read at ``FACE_PX`` (96 px) at the dice's size (``FAINT_FIRST_AT_96``): the
    read a grown blob gets after its first look (``_read_blob``), without the retry at a misjudged size (the
    caller holds what it reads to the dice's size, the grown box and what changed there)."""
    out.crop_reads += 1
    return _read_crop_sliced(cut_crop(view, whole, estimate_side(whole, out.side_small)))


def _doubt_size(die: Die, scale: float, side_small: float) -> Die:
    """``die``, unreadable if it was read far off the dice's size as measured (outside ``SIZE_RANGE``,
    as the still reader allows and second looks here must be): a part of a die read as a die. A
    dark die's blob may be a fragment of it (its body like the tray), and a crop cut through its
    face reads a lone pip of a two as a one (bench seed 1105: 0.79 of the size; 534 other first
    looks on the bench seeds read 0.83-1.21). Unreadable, the still reader reads the region round
    it (growing the blob, the look for a blob that read nothing, grew it over the same part again)."""
    if die.value is None or SIZE_RANGE[0] <= die.side_px * scale / side_small <= SIZE_RANGE[1]:
        return die
    return Die(None, die.center, 0.0, die.side_px, f"a {die.value} read at {die.side_px * scale / side_small:.2f} "
               + PART_OF_A_DIE)


def _doubt_dark_part(die: Die, blob: Blob, found: Changes, scale: float) -> Die:
    """``die``, unreadable if it is like the tray (``DARK_FACE_SHARE``) and narrower than what differs
    faintly around it (``PART_WIDER``): a part of a die read as a die, before the dice's size is known
    (:func:`_doubt_size` takes over then). A black die on black felt or a dark table differs by its
    pips and lit edges only, so its blob may be a part of it; a crop of a two's half reads its pip
    as a one, at that half's size, which nothing else held it against (rendered sessions 4600, 4607,
    4711: the first throw reported wrong, and the size measured on it made later dice "parts").
    Unreadable, the still reader reads the region around it."""
    if die.value is None:
        return die
    side = die.side_px * scale
    x, y = die.center[0] * scale, die.center[1] * scale
    if found.changed_share(x, y, side) >= DARK_FACE_SHARE:
        return die
    width = found.faint_width(blob)
    if width < PART_WIDER * side:
        return die
    return Die(None, die.center, 0.0, die.side_px, f"a {die.value} read at {side / width:.2f} of what differs around "
               "it, " + PART_OF_A_DIE)


def _read_crop_sliced(crop) -> list:
    """``read_die_crop``; a big crop first says how long its steps may run (a slice ends that much
    earlier), since one of its OpenCV calls can outlast what a frame keeps in reserve."""
    px = crop.image.shape[0] * crop.image.shape[1]
    if px <= BIG_CROP_PX:
        return read_die_crop(crop)
    expect_long_steps(CROP_STEP_S_PER_PX * px)
    try:
        return read_die_crop(crop)
    finally:
        expect_long_steps(0.0)


def _read_split(view: TrayView, blob: Blob, out: RestRead, found, reads: BlobReads | None = None) -> list:
    """A blob of several dice's squares that joins die-sized things apart from each other (two dice
    and a stain between them: :meth:`Changes.split`), read thing by thing: the dice read in them,
    as reading the whole blob would give, at the cost of a crop a die (a 6 x 6-dice crop costs 25
    dice's). Things that read as no die are left out, as the whole blob's read leaves them out;
    if none reads a die, [] (the whole blob is read as ever)."""
    side = out.side_small
    if not side or blob.area <= SPLIT_ABOVE_DICE * side * side:
        return []
    parts = found.split(blob, side)
    if not parts:
        return []
    dice = [d for part in parts for d in _read_blob(view, part, out, reads) if not isinstance(d, Nothing)]
    return dice if any(d.value is not None for d in dice) else []


def _all_dice_read_beside(dice: list, expected_dice: int) -> bool:
    """The crops read exactly the ``expected_dice`` dice, every one cleanly and at one size (within
    ``SIZE_RANGE`` of their median), and the only other things are blobs that read as no die at all
    (``Nothing``: not even a part of a die). Then those blobs are no die: a die in them would be one
    die too many. Not with any number of dice expected (0), where a die missed is not counted."""
    if not expected_dice:
        return False
    read = [d for d in dice if not isinstance(d, Nothing)]
    if len(read) != expected_dice or len(read) == len(dice) or any(d.value is None for d in read):
        return False
    middle = float(np.median([d.side_px for d in read]))
    return all(SIZE_RANGE[0] <= d.side_px / middle <= SIZE_RANGE[1] for d in read)


def _unsure(dice: list, expected_dice: int) -> str:
    """Why the crops' reading is not to be trusted on its own ("" if it is)."""
    if any(isinstance(d, Nothing) for d in dice):
        return "a change in the tray the crop reader found no die in"
    if any(d.value is None for d in dice):
        return "a die the crop reader could not read"
    if expected_dice and len(dice) < expected_dice:  # (more are reported as more: no second look helps)
        return f"the crops read {len(dice)} dice, expected {expected_dice}"
    return ""


def _region_read(view: TrayView, out: RestRead, failed: list[tuple[Blob, list]], expected_dice: int) -> bool:
    """The blobs the crop reader could not read, read by the still-photo reader on the part of the
    tray around them: their box and a margin of a die and a half, at least ``REGION_MIN_SHARE`` of
    the tray's shorter side square (the reader learns the background's colours from its border,
    which must be tray), with the whole tray's die-size limits (the reader's are fractions of the
    picture: on a small one, a die's two pips pass for two dice). About 9 ms against 15 for the
    whole tray (640x480) on a black die on black felt. True if that leaves a clean reading; else
    ``out`` is as it was and the whole tray is the next look."""
    side = max([out.side_small or 0.0] + [estimate_side(b, None) for b, _ in failed])
    side = max(side, 2 * min_blob_side(view.small, None))  # a dark die's blob may be only its edge
    h, w = view.small.shape[:2]
    half = max(REGION_MARGIN * side, REGION_MIN_SHARE * min(h, w) / 2)
    x0, x1 = _span([(b.x, b.x + b.w) for b, _ in failed], half, w)
    y0, y1 = _span([(b.y, b.y + b.h) for b, _ in failed], half, h)
    share = (x1 - x0) * (y1 - y0) / (h * w)
    if share > REGION_MAX_SHARE:
        return False  # hardly cheaper than the whole tray
    f = view.scale
    X0, Y0, X1, Y1 = int(x0 / f), int(y0 / f), int(math.ceil(x1 / f)), int(math.ceil(y1 / f))
    region = view.full[Y0:Y1, X0:X1]
    k = min(view.full.shape[:2]) / min(region.shape[:2])
    full_h, full_w = view.full.shape[:2]
    settings = ReaderSettings(min_die_frac=DEFAULT_SETTINGS.min_die_frac * k,
                              max_die_frac=DEFAULT_SETTINGS.max_die_frac * k, in_photo=(X0, Y0, full_w, full_h))
    expect_long_steps(max(MIN_STEP_S, WHOLE_TRAY_STEP_S * share))
    found = [Die(d.value, (d.center[0] + X0, d.center[1] + Y0), d.confidence, d.side_px, d.reason)
             for d in read_dice(region, settings)]
    gone = {id(d) for _, got in failed for d in got}
    kept = [d for d in out.dice if id(d) not in gone]
    # the region may take in dice the crops read already: those are not counted twice
    new = [d for d in found if not any(_same_place(d, k) for k in kept)]
    dice = kept + new
    if not new or _unsure(dice, expected_dice) or _overlapping(dice):
        return False
    if not all(_plausible(new, b, view, out.side_small) for b, _ in failed):
        return False
    out.dice = dice
    out.side_small = float(np.median([d.side_px for d in dice])) * view.scale
    return True


def _span(ranges: list[tuple[int, int]], half: float, limit: int) -> tuple[float, float]:
    """From the first start to the last end of ``ranges``, at least ``2 * half`` long and ``half``
    beyond each, within 0..limit (shifted inwards at an edge rather than cut)."""
    lo, hi = min(a for a, _ in ranges), max(b for _, b in ranges)
    mid = (lo + hi) / 2
    lo, hi = min(lo - half, mid - half), max(hi + half, mid + half)
    if lo < 0:
        lo, hi = 0.0, min(limit, hi - lo)
    if hi > limit:
        lo, hi = max(0.0, lo - (hi - limit)), float(limit)
    return lo, hi


def _plausible(dice: list[Die], blob: Blob, view: TrayView, side_small: float | None) -> bool:
    """Dice read where the crop reader read none (a black die on black felt) are a pip or a part of
    the die read as a die more often than elsewhere: each must be of the dice's size (as last
    measured, else at least the smallest die the blobs allow for), and together they must cover
    what changed in ``blob``."""
    sides = [d.side_px * view.scale for d in dice if d.value is not None]
    if side_small and any(not SIZE_RANGE[0] <= s / side_small <= SIZE_RANGE[1] for s in sides):
        return False
    if not side_small and any(s < 2 * min_blob_side(view.small, None) for s in sides):
        return False
    return _explains(dice, blob, view.scale)


def _explains(dice: list[Die], blob: Blob, scale: float) -> bool:
    """The readable ``dice`` (tray pixels) are what changed in ``blob`` (small pixels): one lies in
    it or on it (the blob's centre within the circle inside the die's face: a dark die's blob may
    be a part of it beside its centre), and none is narrower than 0.8 of the widest circle inside
    the blob (its inscribed circle: a die's shadow makes a blob longer, hardly wider). A pip or a
    corner read as a small die is."""
    readable = [d for d in dice if d.value is not None]
    cx, cy = blob.centre
    if not any(blob.holds(d.center[0] * scale, d.center[1] * scale)
               or math.hypot(d.center[0] * scale - cx, d.center[1] * scale - cy) < 0.5 * d.side_px * scale
               for d in readable):
        return False
    return all(d.side_px * scale >= 0.8 * blob.inscribed for d in readable)


def _overlapping(dice: list[Die]) -> bool:
    """Two dice nearer than a die's side: one die read as two (its pips as ones), not two dice."""
    return any(math.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]) < 0.8 * max(a.side_px, b.side_px)
               for i, a in enumerate(dice) for b in dice[i + 1:])


def _same_place(a: Die, b: Die | Nothing) -> bool:
    if isinstance(b, Nothing):
        return False
    reach = 0.6 * max(a.side_px, b.side_px, 1.0)
    return math.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]) < reach


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
    blurred_face_templates()  # (drawn on first use: ~40 ms, which no frame can lend)


_warmed = threading.Lock()
_warm = False


def warm_up_once() -> None:
    """:func:`warm_up`, once per process (a source calls it when it is made, not in a frame)."""
    global _warm
    with _warmed:
        if not _warm:
            warm_up()
            _warm = True
