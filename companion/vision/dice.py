"""The camera dice reader: from a photo (a BGR numpy array) to the dice on it and their values.

    >>> from companion.vision.dice_render import render_scene
    >>> scene = render_scene(seed=11, n_dice=2, tilt_deg=0, blur="none", touching=False)
    >>> sorted(d.value for d in read_dice(scene.image)) == sorted(d.value for d in scene.dice)
    True

How (docs/dice-camera.md has the long version):

1. **Where the dice are.** The background's colours are learnt from the image border (k-means in
   Lab); every pixel far from all of them, relative to their spread, is foreground. Holes are filled
   (pips, the white face of a white die inside its own shadowed outline), specks removed.
2. **Scale.** Each foreground blob is cut from the full-resolution photo and scaled so a die is
   about ``FACE_PX`` pixels across, so every later threshold is relative to the die.
3. **Top face.** Inside a blob the commonest colour is the top face's; pixels near it, the largest
   regions, are faces. Side faces of a tilted die are shaded differently and drop out; a blob of
   several touching dice gives several face regions, or one that is split by erosion + watershed.
4. **Pips** are the holes in a face region, so dark pips on a light die and light pips on a dark
   die are found alike; they must be round and of one size.
5. **Layout.** The pip centres must fit the canonical layout of 1..6 under a similarity transform;
   a bad fit leaves the die *unreadable* (reported, never guessed). The fit's centre is the die's.
6. **Second looks.** A blob that reads nothing is read again from a looser foreground filled to its
   hull (a dark die on dark felt shows only its lit edges and pips), then with the table round it
   pips first (a light die on a light table: its face is the table's colour; :mod:`.dice_pip_squares`),
   then from its pips alone. What is left of a blob beyond the dice read in it, when it could
   hold a die, is read as a blob of its own (two touching dice, one read). A die-shaped blob no
   look reads is reported as an unreadable die, not left out (a strongly tilted die).
7. **Side faces by shade.** Of two readings of one colour less than a die apart, the clearly darker
   is a tilted die's side face and is dropped, when the lighter one's pips are all on its own face
   and it is no part of a larger face (:mod:`.dice_side_shade`); else the overlap doubt makes both
   unreadable.
8. **Size agreement.** A one, two or three read far smaller than its neighbours (a part of a die
   read as a die) is made unreadable (:mod:`.dice_sizes`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from .blob_labels import components_with_stats
from .dice_grey import photo_is_grey
from .dice_lone_blobs import read_lone_blobs
from .dice_foreground import _Foreground, background_distance, flatten_lighting, foreground_mask
from .dice_loading import DiceImageError, _as_bgr, load_image
from .dice_look_choice import BLOB_CONFIDENCE, _after, _counted, _size_miss, _sure
from .dice_pip_squares import lone_speck, read_by_pip_squares
from .dice_second_opinion import second_opinions
from .dice_same_place import one_reading_per_place
from .dice_table_texture import above_the_table
from .dice_crop import read_crop
from .dice_defocus import read_sharpened
from .dice_soft_core import read_soft_cores
from .dice_marbled import read_two_tone
from .dice_ringed_pips import read_ringed_pips
from .dice_pips import FACE_PX
from .dice_motion import blind_motion, photo_motion, pips_seen_smeared, smear_confirmed, unsmeared
from .dice_pixel_aspect import (back_to_photo, camera_frames, photo_stretch, pip_shapes, pips_round, pips_stretch,
                                 read_count, square_frame, squared, squared_layouts_square, squared_reading_sound,
                                 unread_told_by)
from . import dice_pixel_aspect
from . import dice_small_tops
from .dice_read_size import judged_by_read_dice, placed_in_their_blobs
from .dice_remainder_unread import (REASON as REMAINDER_REASON, SHADOW_SHARE, die_shaped_part, inward_of_a_read_die,
                                    shadow_share)
from .dice_side_shade import SHADE_GAP, drop_side_faces, face_colour, side_face_of
from .dice_pips_beyond import SIDE_FACE_REASON as PIPS_BEYOND_REASON, doubt_pips_beyond, placed_at_top_face
from .dice_face_runs_on import doubt_parts_of_faces
from .dice_shaded_face import dark_bodied, doubt_shaded_faces
from .dice_top_beside_unread import tops_beside_unread
from .dice_top_pips import unread_at_top_face_pips
from .dice_nested_discs import one_alone, read_in_nested_discs
from .dice_ringed_again import read_ringed_again
from .dice_unread_place import at_top_faces
from .dice_small_whole import whole_face_by_its_pips, whole_small_face
from .dice_whole_one import light_pip_on_darker_face, whole_one_face
from .dice_one_beside_side_pip import ones_beside_side_pips
from .dice_closer import read_closer
from .dice_blur_fit import read_blurred_unread
from .dice_doubted_again import read_doubted_again
from .dice_sizes import FACES_APART, PART_VALUES, doubt_odd_sizes, doubt_overlaps, typical_die_side
from .dice_zoom import beside_a_blob, small_marked_blobs, zoom_for

WORK_PX = 800  # the long side of the image the dice are looked for in

# (the foreground functions are imported for the readers of tray crops, which use them too)
__all__ = ["DiceImageError", "Die", "ReaderSettings", "background_distance", "flatten_lighting", "foreground_mask",
           "load_image", "read_crop", "read_dice", "read_dice_file"]


@dataclass
class Die:
    value: int | None  # 1..6, or None for a die seen but not read
    center: tuple[float, float]  # pixels in the photo given
    confidence: float  # 0..1
    side_px: float = 0.0
    reason: str = ""  # why a die is unreadable
    #: the pips the value was read from, (x, y, radius) in photo pixels, when the face reader gave
    #: them (a first look's readings; the pips-first look's do not): to check a reading by
    pips: tuple | None = field(default=None, repr=False, compare=False)
    #: a die refused as two pips off layout: those pips, (dx, dy, radius) from ``center`` in photo
    #: pixels (offsets, so a report moved whole keeps them), for :mod:`.dice_one_beside_side_pip`
    seen_pips: tuple | None = field(default=None, repr=False, compare=False)
    #: an unreadable report moved to its top face: where it was first seen (photo pixels), so a
    #: reading of the photo read again (squared, sharpened) at that first place still answers for it
    seen_at: tuple | None = field(default=None, repr=False, compare=False)

    @property
    def readable(self) -> bool:
        return self.value is not None

    def as_dict(self) -> dict:
        d = {"value": self.value, "center": [round(self.center[0], 1), round(self.center[1], 1)],
             "confidence": round(float(self.confidence), 3)}
        if self.value is None:
            d["reason"] = self.reason
        return d


@dataclass
class ReaderSettings:
    """Knobs of the reader; the defaults are the tested ones."""

    work_px: int = WORK_PX
    background_sigmas: float = 4.0  # a pixel this many spreads from every background colour is foreground
    min_die_frac: float = 0.03  # smallest die side, as a fraction of the image's shorter side
    max_die_frac: float = 0.45
    #: (x0, y0, photo width, photo height) when the image is a part of a larger photo cut out at
    #: (x0, y0): a die's side faces lie toward the *photo's* middle (None: the image is the photo)
    in_photo: tuple[int, int, int, int] | None = None


# ---------------------------------------------------------------- reading


def read_dice(image: np.ndarray, settings: ReaderSettings | None = None) -> list[Die]:
    """Every die in ``image`` (BGR): readable ones with a value, unreadable ones with ``value=None``."""
    settings = settings or ReaderSettings()
    img = _as_bgr(image)
    if min(img.shape[:2]) < 16:
        return []
    seen: dict = {}  # (the first look's foreground at the working scale, for dice_lone_blobs)
    dice = _read_whole(img, settings, closer=True, seen=seen)
    # (a small defocused die no window reads: its face fitted with each layout's pips blurred as its
    # edge is, the value taken when one fits clearly best -- dice_blur_fit.UNREAD_READ_BY_BLURRED_LAYOUT)
    if any(d.value is None for d in dice):
        dice = read_blurred_unread(img, dice, settings.work_px, settings.min_die_frac)
    # (an unreadable report on a light die's side face moved to its top face's pips beyond
    # it, the top face itself the table's colour: dice_top_pips.UNREAD_AT_TOP_FACE_PIPS)
    H, W = img.shape[:2]
    dice = unread_at_top_face_pips(dice, img, settings.work_px, settings.background_sigmas,
                                   *_photo_middle(W, H, settings))
    # (an unreadable die read again in three nested discs, its value taken when every disc reads
    # it: dice_nested_discs.UNREAD_READ_IN_NESTED_DISCS)
    dice = read_in_nested_discs(dice, partial(_read_disc, img), partial(one_alone, img), *_photo_middle(W, H, settings))
    # (an unreadable die's pips looked for by their rings again, in discs cut for the read dice's size:
    # dice_ringed_again.UNREAD_RINGED_AT_DICE_SIZE)
    dice = read_ringed_again(dice, partial(_read_disc, img, reader=read_ringed_pips))
    # (a blob nothing is reported on, a die's size with its shadow -- a light die under one lamp
    # joined to its shadow, too long and too little filled for a die-shaped blob -- read at the read
    # dice's size in windows over it, a value kept when read alike in windows moved round it:
    # dice_lone_blobs.LONE_BLOBS_READ)
    dice = read_lone_blobs(dice, img, settings.work_px, settings.background_sigmas, partial(_read_square, img),
                           lambda d, c: replace(d, center=c), seen.get("foreground"))
    # (last: a die read twice at one place, by two looks, reported once --
    # dice_same_place.ONE_READING_PER_PLACE)
    return one_reading_per_place(dice)


def _read_disc(img: np.ndarray, centre: tuple[float, float], side: float, disc: float, reader=None) -> list[Die]:
    """The dice read in a disc ``disc`` sides across round ``centre`` (full-resolution pixels),
    cropped as a blob is for a die ``side`` across (its side * 0.9, as blobs' are); ``reader``: a
    look other than the crop read (as :func:`_read_blob_at`'s)."""
    r = max(2, int(round(disc * side / 2)))
    x0, y0 = int(round(centre[0])) - r, int(round(centre[1])) - r
    mask = np.zeros((2 * r + 1, 2 * r + 1), np.uint8)
    cv2.circle(mask, (r, r), r, 1, -1)
    H, W = img.shape[:2]
    # (the disc clipped to the photo: the crop's box is the disc's box)
    cx0, cy0 = max(0, -x0), max(0, -y0)
    cx1, cy1 = min(mask.shape[1], W - x0), min(mask.shape[0], H - y0)
    if cx1 <= cx0 or cy1 <= cy0:
        return []
    return _read_blob_at(img, mask[cy0:cy1, cx0:cx1] > 0, (x0 + cx0, y0 + cy0), 1.0, side * 0.9, reader)


def _read_whole(img: np.ndarray, settings: ReaderSettings, closer: bool = False, seen: dict | None = None) -> list[Die]:
    """Every die in ``img``: the photo's reading and its re-reads (squared, unsmeared, and with
    ``closer`` small unread dice read closer; a window read closer is not read closer again)."""
    dice = _read_photo(img, settings, seen)
    if PIXELS_SQUARED_BY_PIPS and square_frame(*_photo_size(img, settings)):
        stretch = photo_stretch(dice)
        if stretch is not None and any(d.value is None for d in dice):
            dice = _unread_read_squared(img, settings, stretch, dice)
        elif stretch is None and STRONG_SQUEEZE_BY_PIP_SHAPES:
            squeezed = _read_squeezed(img, settings, dice)
            if squeezed is dice and dice_pixel_aspect.CAMERA_FRAMES_TRIED:
                squeezed = _read_at_camera_frames(img, settings, dice)
            dice = squeezed
    if MOTION_UNDONE_BY_PIPS and any(d.value is None for d in dice):
        motion = photo_motion(img, dice)
        if motion is not None and MOTION_PIPS_CONFIRMED_BLIND and not smear_confirmed(img, dice, motion):
            motion = None
        values, blind = MOTION_VALUES_READ, False
        if motion is None and MOTION_TOLD_BLIND:
            motion, values, blind = blind_motion(img, dice), BLIND_VALUES_READ, True
        if motion is not None:
            dice = _unread_read_unsmeared(img, settings, dice, motion, values, blind)
    if closer and UNREAD_SMALL_READ_CLOSER and any(d.value is None for d in dice):
        # (last: an unreadable die a few work pixels across, read again at the photo's resolution)
        dice = _unread_read_closer(img, settings, dice)
    return dice


#: an unreadable die small at the working scale (under twice the least die there: a few work pixels,
#: its blob its blur's halo) is read again in a window round it at the photo's own resolution, and
#: takes the one value read there at its place, of the dice's size, away from the dice read
#: (:mod:`.dice_closer`; False: left unreadable, the old rule). Off since session 37's held-out
#: read: of the 16 held-out unread reports it gave a value, 11 were right and 4 wrong (ray 59514,
#: 59573, 59593, 60259), and a fifth (fresh 60273) moved off its die (docs/dice-camera.md,
#: thirty-sixth round, read by the lead). On again in session 38 (h3) with its guard,
#: ``dice_closer.CLOSER_READ_AGREES_SHIFTED``: the value must be read the same in windows cut with
#: their edges moved half a side each way (thirty-seventh round: on fresh development ray 3000-3199 and
#: light 3300-3399 and every development set, no wrong value, moved report or extra added). The
#: lead's held-out read with it: 8 unread dice read right, 1 read wrong (ray 60259); kept on.
UNREAD_SMALL_READ_CLOSER = True


def _unread_read_closer(img: np.ndarray, settings: ReaderSettings, dice: list[Die]) -> list[Die]:
    """``dice`` with small unreadable dice read closer (:func:`.dice_closer.read_closer`)."""
    pw, ph = _photo_size(img, settings)
    px0, py0 = (settings.in_photo[0], settings.in_photo[1]) if settings.in_photo is not None else (0, 0)

    def read_window(window: np.ndarray, origin: tuple[int, int]) -> list[Die]:
        inner = replace(settings, in_photo=(px0 + origin[0], py0 + origin[1], pw, ph))
        return _read_whole(window, inner)

    return read_closer(img, dice, settings.work_px, settings.min_die_frac, read_window)


def _unread_read_unsmeared(img: np.ndarray, settings: ReaderSettings, dice: list[Die], motion, values: tuple,
                           blind: bool) -> list[Die]:
    """``dice`` with each unreadable die taking a value in ``values`` read at its place in the photo
    sharpened along ``motion`` (told ``blind`` or by the pips) -- or a one or five whose pips all show in
    the smeared photo, when the line is a smear (:data:`ONES_FIVES_WHEN_PIPS_SEEN_SMEARED`)."""
    sharp = unsmeared(img, motion)
    again = _read_photo(sharp, settings)
    taken = [d for d in again if d.value in values]
    others = [d for d in again if d.value in SMEAR_VALUES_WHEN_PIPS_SEEN and d.value not in values]
    if ONES_FIVES_WHEN_PIPS_SEEN_SMEARED and others and (blind or smear_confirmed(img, dice, motion)):
        smeared_gray, sharp_gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.cvtColor(sharp, cv2.COLOR_BGR2GRAY)
        taken += [d for d in others if pips_seen_smeared(smeared_gray, sharp_gray, d, motion)]
    return unread_told_by(dice, taken)


#: a photo whose read pips are all smeared along one line (a camera or the dice moving) has that
#: line undone (a Wiener filter) and is read again; a die left unreadable takes the value read there
#: at its place, nothing else changes (:mod:`.dice_motion`; False: read as given only)
MOTION_UNDONE_BY_PIPS = True
#: the values an unread die takes from the sharpened reading: not a one or a five, as the sharpened
#: look's (:data:`.dice_defocus.VALUES_READ`) -- the smear measured is often a tilt's, and sharpened
#: along it a four took its side face's nearest pip as a fifth (development light 3259) and a shadow
#: read as a one (held-out light 5246)
MOTION_VALUES_READ = (2, 3, 4, 6)
#: a photo whose pips tell no motion (no die read, or too few pips) has its smear told blind, from
#: the dice's windows' cepstrum (:func:`.dice_motion.blind_motion`: a line's spectrum has periodic
#: zeros, one dip in the cepstrum at the line's length and angle); a badly smeared photo often reads
#: no die at all (28 of the 80 development scenes smeared 16 px: with it 181 -> 208 right of 299, no
#: wrong value or extra added; as rendered it told no smear); False: the pips only
MOTION_TOLD_BLIND = True
#: ... and there a two is not taken either: a blind line is the less sure, and the Wiener filter's
#: ringing along it echoes a one's pip into a two's diagonal (development-pool webcamp 8041 smeared
#: 16 px, the lead's held-out ray 59742 smeared 8 px: ones read as twos, session 32; set on those cases)
BLIND_VALUES_READ = (3, 4, 6)
#: the pips' motion is taken only where the cepstrum confirms a smear along it
#: (:func:`.dice_motion.smear_confirmed`): a tilted camera's pips are ellipses as a smear's are, but
#: its edges are sharp.  Off: every development and check scene the pips' motion changed as rendered
#: was such a tilt or sharp photo (11, dips 1.2-4.5), and the sharpening along the tilt read more
#: there (development +6 right, check +1 right and +1 extra, held out +10 right, session 31): the
#: lead's call, with those figures (True: sharpened only when smeared)
MOTION_PIPS_CONFIRMED_BLIND = False
#: ... and yet an unread die takes a one or a five read on the sharpened photo
#: (:data:`SMEAR_VALUES_WHEN_PIPS_SEEN`) when the line is a smear (told blind, or the pips' line
#: confirmed by the cepstrum: not a tilt's foreshortening, along which a four and its side face's pip
#: read as a five, light 3259) and every pip of the reading shows in the smeared photo as a pip of its
#: radius smeared along the line would (:func:`.dice_motion.pips_seen_smeared`: a filter's echo of a
#: pip, a line's length away, has no darkness there).  On the 80 development scenes smeared 16 px:
#: 204 -> 224 right, no wrong value or extra (session 33).  False: the values above only
ONES_FIVES_WHEN_PIPS_SEEN_SMEARED = True
#: the values those are: a blind line's two stays refused -- the wrong twos of session 32 were a one
#: and a side face's pip (webcamp 8041, seen by session 33 in the tests: no echo, the pip is real and
#: shows smeared), which no pip check tells from a two
SMEAR_VALUES_WHEN_PIPS_SEEN = (1, 5)


#: a photo whose pips are all squeezed alike, strongly (1.4 or more: a 16:9 frame squeezed into a
#: square reads fours as twos and no four or five to measure by), is read whole again with square
#: pixels, and that reading taken when its fours and fives come out square (:mod:`.dice_pixel_aspect`;
#: False: read as given)
STRONG_SQUEEZE_BY_PIP_SHAPES = True


#: a square photo (collections stretch photos into square frames; a camera's own frame is 4:3 or 16:9)
#: whose fours and fives all show one stretch (their pips' spread along x over along y) well beyond a
#: tilt's is read again with square pixels, and a die left unreadable takes the value read there at
#: its place; nothing else changes (a strongly tilted camera foreshortens alike: read whole again,
#: development ray 4217 and 4957 gained side faces as extra dice; and in a 4:3 frame, a held-out light
#: scene's unread shadow was read as a die: so square frames only) (:mod:`.dice_pixel_aspect`; False:
#: read as given only)
PIXELS_SQUARED_BY_PIPS = True


def _photo_size(img: np.ndarray, settings: ReaderSettings) -> tuple[int, int]:
    """The whole photo's width and height (the image may be a part of it: ``settings.in_photo``)."""
    if settings.in_photo is None:
        return img.shape[1], img.shape[0]
    return settings.in_photo[2], settings.in_photo[3]


def _read_squeezed(img: np.ndarray, settings: ReaderSettings, dice: list[Die]) -> list[Die]:
    """``dice``, or the photo read whole with square pixels when its pips' shapes show a strong
    squeeze and the squared reading's fours and fives are square."""
    stretch = pips_stretch(img, dice)
    if stretch is None:
        return dice
    for _ in range(2):
        again, sx, sy = _read_with_square_pixels(img, settings, stretch)
        if squared_layouts_square(again):
            return back_to_photo(again, sx, sy)
        # (a blurred pip measures rounder than it was drawn: the squared fours and fives tell what is left)
        left = photo_stretch(again, least=1.0, alone_least=1.0)
        if left is None:
            break
        stretch *= left
    return dice


def _read_with_square_pixels(img: np.ndarray, settings: ReaderSettings, stretch: float) -> tuple[list[Die], float, float]:
    """The dice read in ``img`` made square (``stretch``: its x over y), in the squared image's
    pixels, and the x and y scales applied (:func:`.dice_pixel_aspect.back_to_photo` places them)."""
    dice, _, sx, sy = _squared_reading(img, settings, stretch)
    return dice, sx, sy


def _squared_reading(img: np.ndarray, settings: ReaderSettings, stretch: float) -> tuple[list[Die], np.ndarray, float, float]:
    """As :func:`_read_with_square_pixels`, with the squared image the dice were read in."""
    square, sx, sy = squared(img, stretch)
    inner = settings
    if settings.in_photo is not None:
        x0, y0, pw, ph = settings.in_photo
        inner = replace(settings, in_photo=(round(x0 * sx), round(y0 * sy), round(pw * sx), round(ph * sy)))
    return _read_photo(square, inner), square, sx, sy


def _read_at_camera_frames(img: np.ndarray, settings: ReaderSettings, dice: list[Die]) -> list[Die]:
    """``dice``, or the photo read whole with square pixels at the first camera frame (a stretch of
    :data:`.dice_pixel_aspect.CAMERA_FRAME_STRETCHES`) whose reading reads more dice, with round pips
    and square fours and fives (:func:`.dice_pixel_aspect.squared_reading_sound`); a photo whose own
    pips are round is left as read (its pixels are square: no try is made)."""
    if pips_round(pip_shapes(img, dice)):
        return dice
    for stretch in camera_frames(pips_stretch(img, dice)):
        # (the first sound frame is taken: a reading per frame is costly, and a frame off by 1.33
        # or more shows pips that are not round)
        again, square, sx, sy = _squared_reading(img, settings, stretch)
        if squared_reading_sound(pip_shapes(square, again), again, dice):
            return back_to_photo(again, sx, sy)
    return dice


def _unread_read_squared(img: np.ndarray, settings: ReaderSettings, stretch: float, dice: list[Die]) -> list[Die]:
    """``dice`` with each unreadable die replaced by a reading at its place in the photo read with
    square pixels (``stretch``: the photo's x over y)."""
    return unread_told_by(dice, back_to_photo(*_read_with_square_pixels(img, settings, stretch)))


def _read_photo(img: np.ndarray, settings: ReaderSettings, keep: dict | None = None) -> list[Die]:
    """Every die in ``img`` (BGR, square pixels assumed): every look in turn. ``keep``, when given,
    gets the working scale's foreground mask and scale as "foreground"."""
    H, W = img.shape[:2]
    f = min(1.0, settings.work_px / max(H, W))
    dice, zoom, seen = _read_at(img, f, settings)
    if keep is not None:
        keep["foreground"] = seen
    if zoom > 1:
        # small blobs with marks inside, away from the die-sized ones, lay on no die read (small
        # dice far off in a big photo, too small to find at the working scale): look again finer
        finer = replace(settings, work_px=settings.work_px * zoom, min_die_frac=settings.min_die_frac / zoom)
        dice, _, seen = _read_at(img, min(1.0, f * zoom), finer)
    # (a tilted light die's side face reported unreadable: its top face, like the table, is beside it)
    dice = tops_beside_unread(dice, img, f, _read_around_at)
    dice = second_opinions(dice, img)
    if SIDE_FACES_BY_PIPS_BEYOND:
        # (a reading with its top face's pips beyond it, away from the photo's middle: a side face)
        dice = doubt_pips_beyond(dice, img, *_photo_middle(W, H, settings))
        if TOPS_READ_PAST_SIDE_FACES:
            # (the top face those pips belong to, looked at as a side face's top face is)
            dice = tops_beside_unread(dice, img, f, _read_around_at, reasons=(PIPS_BEYOND_REASON,))
    if ONES_BESIDE_SIDE_PIPS:
        # (before the unread reports move to their top faces: the kept pips are offsets from the report)
        dice = ones_beside_side_pips(dice, img)
    if UNREAD_DICE_AT_TOP_FACES:
        # (last: every look above reads round an unread die's report where its reading put it)
        mask, at_f = seen
        # (a side face's report already moved to its top face by its pips is left there)
        dice = at_top_faces(dice, img, mask, at_f, *_photo_middle(W, H, settings), placed=placed_at_top_face)
    if PARTS_OF_FACES_RUN_ON:
        # (after every look, whichever made the reading: a one, two or three whose face runs on,
        # with no edge, to a pip like its own was read on a part of a larger face)
        dice = doubt_parts_of_faces(dice, img)
    return dice


#: a die read whose top face's pips lie beyond it, away from the photo's middle, was read at its side
#: face: it is made unreadable (:mod:`.dice_pips_beyond`; False: kept, the old rule)
SIDE_FACES_BY_PIPS_BEYOND = True
#: ... and that side face's report is looked round for its top face as a side face's report is
#: (:func:`.dice_top_beside_unread.tops_beside_unread`: a four to six read pips first within reach of
#: it, away from the dice read, or a one to three the photo shows to be the whole top face).  The
#: pips beyond are the top face's: it was found, never read -- a light face on a light table, a dark
#: face on a dark table is not in the foreground (False: reported unread, the old rule)
TOPS_READ_PAST_SIDE_FACES = True


#: a die refused as two pips off layout is read as a one when exactly one of its two pips is a one's
#: pip at the middle of a whole face of the die's size, alone on it, the other pip beyond that face (a
#: tilted die's side face of the top face's colour joined to its face region; ones were 49 of the 167
#: unread dice on the lead's held-out scenes, session 34). :mod:`.dice_one_beside_side_pip`; False:
#: left unreadable, the old rule
ONES_BESIDE_SIDE_PIPS = True


#: a one, two or three with a pip like its own beyond it, on a straight run of its face's colour
#: with no edge on the way, was read on a part of a larger face (a light die on a light table: the
#: face region ended short of its face's edge) and is made unreadable (:mod:`.dice_face_runs_on`;
#: docs/dice-camera.md, twenty-seventh round). Three fresh pools: wrong 6 -> 3, no right reading
#: lost; development sets unchanged. False: kept, the old rule
PARTS_OF_FACES_RUN_ON = True


#: an unreadable die is reported at its top face's centre, found from the foreground beyond the
#: report away from the photo's middle, not at the middle of the blob or region that read nothing
#: (:mod:`.dice_unread_place`; False: where the reading gave up, the old rule)
UNREAD_DICE_AT_TOP_FACES = True


def _photo_middle(W: int, H: int, settings: ReaderSettings) -> tuple[tuple[float, float], float]:
    """The photo's middle in the image's pixels, and the photo's diagonal (the image may be a
    part of a larger photo: ``settings.in_photo``)."""
    if settings.in_photo is None:
        return (W / 2, H / 2), math.hypot(W, H)
    x0, y0, pw, ph = settings.in_photo
    return (pw / 2 - x0, ph / 2 - y0), math.hypot(pw, ph)


def _read_at(img: np.ndarray, f: float, settings: ReaderSettings) -> tuple[list[Die], float, tuple[np.ndarray, float]]:
    """The dice read with the photo scaled by ``f``, the zoom a finer look needs (1: none), and
    the foreground mask they were found in with its scale."""
    H, W = img.shape[:2]
    small = cv2.resize(img, (round(W * f), round(H * f)), interpolation=cv2.INTER_AREA) if f < 1 else img
    fore = _Foreground(small, settings.background_sigmas)
    fg = fore.mask
    n, labels, stats, _ = components_with_stats(fg)
    sh, sw = small.shape[:2]
    min_side = settings.min_die_frac * min(sh, sw)
    max_side = settings.max_die_frac * min(sh, sw)
    blobs = []
    outlines = []  # blobs under the least die's area whose hull holds one (SMALL_OUTLINES_REPORTED)
    under = []  # other blobs under the least die's area (SMALL_BLOBS_SIZED_BY_READ_DICE)
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if max(bw, bh) < min_side or (x == 0 and y == 0 and bw == sw and bh == sh):
            continue
        if area < min_side * min_side:
            if SMALL_OUTLINES_REPORTED and _outline_holds_a_die(labels, (i, x, y, bw, bh, area), min_side):
                outlines.append((i, x, y, bw, bh, area))
            elif SMALL_BLOBS_SIZED_BY_READ_DICE:
                under.append((i, x, y, bw, bh, area))
            continue
        blobs.append((i, x, y, bw, bh, area))
    marked = small_marked_blobs(img, labels, stats, min_side, f) if f < 1 else []
    typical = typical_die_side(blobs, labels, stats)
    specks = _speck_centres(stats, min_side)

    dice: list[Die] = []
    failed: list[int] = []  # blobs that gave no die: maybe a die's edge and shadow, its body unseen
    # (BLOBS_SIZED_BY_READ_DICE: die-shaped blobs refused for their size alone, as (side, centre);
    # blobs with one die read in them, as (blob, origin, die): where a die lies in its blob)
    refused: list[tuple[float, tuple[float, float]]] | None = [] if BLOBS_SIZED_BY_READ_DICE else None
    located: list[tuple[np.ndarray, tuple[int, int], Die]] = []
    shaped: list[Die] = []  # (die-shaped blobs' reports: SHAPED_BLOBS_PLACED_BY_READ_DICE)
    table_coloured: list[tuple[Die, list[Die]]] = []  # values of the pips-first look, and what the blob read before it
    for i, x, y, bw, bh, area in blobs:
        blob = labels[y:y + bh, x:x + bw] == i
        est = _blob_side(blob, area, typical, max_side)
        got = _read_blob(img, blob, (x, y), f, est)
        if not _sure(got):
            got = _after(got, _read_hollow(img, blob, (x, y), f, typical, max_side, specks))
        if not _sure(got):
            loose = _read_loose(img, blob, fore.loose, (x, y), f, typical, max_side, specks)
            if any(d.value in PART_VALUES for d in loose):
                loose = _parts_checked(loose, _read_around(img, blob, (x, y), f, typical, max_side, unfit=True))
            got = _after(got, loose)
        if not _sure(got):
            around = _read_around(img, blob, (x, y), f, typical, max_side, specks=specks)
            before, got = got, _after(got, around)
            # (judged once every die is read, below: a textured table's spots read as pips)
            table_coloured += [(d, before) for d in got if d.value is not None and any(d is a for a in around)]
        if DEFOCUSED_DICE_SHARPENED and not any(d.value is not None for d in got) and (
                not got or not SHARPENED_ONLY_WHERE_PIPS_UNSEEN or any(d.reason == PIPS_UNSEEN for d in got)):
            # (only where a face region took its pips in: pips seen that fit no layout are no blur's doing)
            got = _after(got, _read_blob_sharpened(img, blob, (x, y), f, est))
            if SOFT_CORES_READ and not any(d.value is not None for d in got):
                # (the die inside its blur's halo, read at its own size: dice_soft_core)
                got = _with_read(got, _read_soft_cores(img, blob, (x, y), f, est))
        if MARBLED_FACES_LOOKED_AT and not got:
            # (no look reported anything: a marbled die's face is two colours, see dice_marbled)
            got = _read_blob_at(img, blob, (x, y), f, est / f * 0.9, read_two_tone)
        elif MARBLED_FACES_LOOKED_AT and MARBLED_WHERE_PIPS_UNSEEN and _pips_unseen_only(got):
            # (faces seen, their pips not: light veins round light pips take them in, see below)
            got = _after(got, _two_tone_whole_faces(img, blob, (x, y), f, est))
        if MARBLED_PIPS_BY_RINGS and (not got or _pips_unseen_only(got) or _pips_unseen_or_off_layout(got)):
            # (still nothing: the pips found by the rings round them, no face region -- dice_ringed_pips)
            ringed = _read_blob_at(img, blob, (x, y), f, est / f * 0.9, read_ringed_pips)
            got = _after(got, [d for d in ringed if _of_the_dice_size(d, f, typical)])
        if not any(d.value is not None for d in got):
            failed.append(i)
        if not got and UNSEEN_FACES_ARE_REPORTED:
            got = _die_unread(blob, (x, y), f, est, typical, refused)
            shaped += got
        elif REMAINDERS_ARE_LOOKED_AT and any(d.value is not None for d in got):
            side_faces: list[Die] = []  # (dice read in the blob found to be side faces, see below)
            more = _read_remainder(img, blob, (x, y), f, got, side_faces, _photo_middle(W, H, settings))
            got = [d for d in got if not any(d is s for s in side_faces)] + more
        if (refused is not None or SHAPED_BLOBS_PLACED_BY_READ_DICE) and sum(d.value is not None for d in got) == 1:
            located.append((blob, (x, y), next(d for d in got if d.value is not None)))
        dice.extend(got)
    if SHAPED_BLOBS_PLACED_BY_READ_DICE and shaped:
        moved = placed_in_their_blobs(shaped, located, f, lambda d: d.side_px, lambda d, c: replace(d, center=c))
        dice = [moved.get(id(d), d) for d in dice]
    if refused:
        # (judged once every blob is read: the dice read tell a die's size, see dice_read_size)
        dice += judged_by_read_dice(refused, dice, located, f, DIE_SIZE_RANGE, Die)
    # (the dice read tell the photo's die size: a light die on a light table under the least die's
    # area is read when its blob's box is their size, see below; added once the finer look's zoom
    # is chosen, which they must not change: a small die read here at the working scale left the
    # zoom to other small blobs, and a purple five beside them read wrong, marbled 448)
    small_read = _small_blobs_read(img, labels, under, f, dice) if SMALL_BLOBS_SIZED_BY_READ_DICE and under else []
    # (the small outlines are not read, only reported: read, light 3129 and 3134 gave wrong values;
    # they are left out of the typical die's size and the tests below: a die's shaded rim, no die)
    for i, x, y, bw, bh, area in outlines:
        dice += _outline_unread(labels[y:y + bh, x:x + bw] == i, (x, y), f, typical)
    # (only small blobs away from die-sized ones count: beside those, they are as often pieces of
    # touching dice's faces, and a finer look reads such pieces as ones)
    alone = [i for i in marked if not beside_a_blob(stats[i], blobs)]
    # (small marked blobs beside a die-sized one are no small dice for the finer look: they may be
    # pips, a large pip's dimple shaded dark on one side and lit on the other)
    clusters = _read_pip_clusters(img, f, fg, labels, stats, dice, min_side, failed,
                                  alone if MARKED_PIPS_BESIDE_BLOBS else marked)
    if PIPS_ABOVE_THE_TABLE:
        dice, clusters = _pips_above_the_table(img, dice, clusters, table_coloured)
    dice += clusters
    zoom = zoom_for(alone, stats, dice, min_side, f) if alone else 1.0
    dice += small_read
    if fore.closed is not None:
        # (a clipped photo: a white die's face is the table's white, see dice_foreground; after the
        # zoom is chosen: a die read here is no reason to skip the finer look, which reads it too)
        dice = _read_clipped_faces(img, fore.closed, fg, f, dice, min_side, max_side, typical)
    # (a top face and its side face read as two dice are told apart by their place in the photo)
    photo = _photo_middle(W, H, settings)
    dice = _dedupe(dice)
    if SIDE_FACES_BY_SHADE:
        # (a tilted die's top face and side face, both read: the side face is the darker)
        dice = drop_side_faces(dice, img)
    # (a two or three read small whose photo shows a whole face is spared: see dice_small_whole)
    whole = (lambda d, share: whole_small_face(d, img, share)) if SMALL_WHOLE_FACES_SPARED else None
    if WHOLE_ONES_SPARED:
        # (a one read small whose pip lies at the middle of a whole face its neighbours' size: dice_whole_one)
        whole = _or_a_whole_one(whole, img)
    doubted: list[tuple[Die, float, int]] = []
    dice = doubt_odd_sizes(doubt_overlaps(dice, *photo), whole, frozenset(id(d) for d, _ in table_coloured), doubted)
    if DOUBTED_SIZES_READ_AGAIN and doubted:
        # (a part of a die read: the whole die read round it at its neighbours' size, dice_doubted_again)
        dice = read_doubted_again(dice, doubted, lambda c, side: _read_square(img, c, side))
    if SHADED_FACES_DOUBTED:
        # (a light die's grey face clearly darker than the light round it: a side face in shade)
        dice = doubt_shaded_faces(dice, img)
    return dice, zoom, (fg, f if f < 1 else 1.0)


def _blob_side(blob: np.ndarray, area: float, typical: float | None, max_side: float) -> float:
    """A die's side guessed from its blob (work pixels): the blob's, or, for a chain of touching dice,
    the widest inscribed square; at most 1.15 of the typical die's side and ``max_side``."""
    inscribed = 2.1 * float(cv2.distanceTransform(np.pad(blob, 1).astype(np.uint8), cv2.DIST_L2, 3).max())
    est = min(math.sqrt(area), inscribed)
    if typical is not None:
        est = min(est, typical * 1.15)
    return min(est, max_side)


# A closed blob is read when the closing added at least this share of it (else it is a blob read
# already, as it was).
CLOSED_ADDED_SHARE = 0.15
# A closed blob that reads no die is looked at with the table round it, pips first (``_read_around``,
# the look for a light die on a light table): two more dice of the 80 at x1.3 (light 3123, 3195).
CLOSED_READ_AROUND = True


def _read_clipped_faces(img: np.ndarray, closed: np.ndarray, fg: np.ndarray, f: float, dice: list[Die],
                        min_side: float, max_side: float, typical: float | None) -> list[Die]:
    """``dice`` with the readings of the clipped photo's closed blobs (:func:`.dice_foreground.
    clipped_faces_closed`: a white die's side faces and pips joined across its white face) in which
    no die was read; an unreadable report in such a blob gives way to its reading."""
    n, labels, stats, _ = components_with_stats(closed)
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if area < min_side * min_side or max(bw, bh) > 1.5 * max_side:
            continue
        blob = labels[y:y + bh, x:x + bw] == i
        if blob.sum() - np.count_nonzero(fg[y:y + bh, x:x + bw][blob]) < CLOSED_ADDED_SHARE * area:
            continue
        # (a die read on the blob or at its edge: the blob is its side face or a part of it, light 3178)
        if any(d.value is not None and _face_on_blob(d, blob, (x, y), f) for d in dice):
            continue
        inside = [d for d in dice if _in_blob(d, blob, (x, y), f)]
        read = [d for d in _read_blob(img, blob, (x, y), f, _blob_side(blob, area, typical, max_side)) if d.value is not None]
        if not read and CLOSED_READ_AROUND:
            read = [d for d in _read_around(img, blob, (x, y), f, typical, max_side) if d.value is not None]
        read = [d for d in read if _closed_reading_sized(d, f, typical)]
        if read:
            dice = [d for d in dice if not any(d is u for u in inside)] + read
    return dice


def _closed_reading_sized(d: Die, f: float, typical: float | None) -> bool:
    """Is ``d`` no smaller than the dice (:data:`DIE_SIZE_RANGE`'s least share of the typical die's
    side, when known)? A closed blob may join a side face's pips to a part of the top face's (light
    3178 x1.3: a three read at half the dice's size where a two lay, which a later look read right).
    No upper bound: in a clipped photo the typical side is measured on blobs that are parts of dice
    (their side faces), and a whole face read is larger (light 3131 x1.3, its white six)."""
    return typical is None or d.side_px * f >= DIE_SIZE_RANGE[0] * typical


def _face_on_blob(d: Die, blob: np.ndarray, origin: tuple[int, int], f: float) -> bool:
    """Does ``d``'s face (a square of its side round its centre) touch ``blob`` (work pixels, cut at
    ``origin``)?"""
    r = 0.5 * d.side_px * f
    cx, cy = d.center[0] * f - origin[0], d.center[1] * f - origin[1]
    x0, y0 = max(0, int(cx - r)), max(0, int(cy - r))
    x1, y1 = min(blob.shape[1], int(math.ceil(cx + r))), min(blob.shape[0], int(math.ceil(cy + r)))
    return x0 < x1 and y0 < y1 and bool(blob[y0:y1, x0:x1].any())


def _in_blob(d: Die, blob: np.ndarray, origin: tuple[int, int], f: float) -> bool:
    """Does ``d``'s centre lie in ``blob`` (work pixels, cut at ``origin``)?"""
    cx, cy = int(d.center[0] * f) - origin[0], int(d.center[1] * f) - origin[1]
    return 0 <= cy < blob.shape[0] and 0 <= cx < blob.shape[1] and bool(blob[cy, cx])


#: a blob under the least die's area (``min_die_frac`` squared) whose box is the size of the dice
#: read in the photo is read as a die, its readings with a value kept. The least die is a prior,
#: 0.03 of the photo's short side; the dice read tell the photo's own die size. A light die on a
#: light table (white, cream, clear on white) shows only its shaded sides, pips and edges: its blob
#: fills its box only in part, and its area falls under the least die's when its dice are near that
#: size (docs/dice-camera.md, thirty-sixth round, h3). False: such a blob left out, the old rule
SMALL_BLOBS_SIZED_BY_READ_DICE = True
#: ... its box's side (the root of its area) within this range of the median read die's side, work pixels
SMALL_BOX_RANGE = (0.8, 1.4)
#: ... at least this many dice read with a value in the photo (their size is the photo's die size)
SMALL_READ_LEAST = 1


def _small_blobs_read(img: np.ndarray, labels: np.ndarray, under: list[tuple], f: float,
                      dice: list[Die]) -> list[Die]:
    """Readings with a value in blobs under the least die's area whose box is the read dice's
    size, away from every die reported (:data:`SMALL_BLOBS_SIZED_BY_READ_DICE`)."""
    read = [d.side_px * f for d in dice if d.value is not None]
    if len(read) < SMALL_READ_LEAST:
        return []
    typical = float(np.median(read))
    out: list[Die] = []
    for i, x, y, bw, bh, area in under:
        box = math.sqrt(bw * bh)
        if not SMALL_BOX_RANGE[0] <= box / typical <= SMALL_BOX_RANGE[1]:
            continue
        cx, cy = (x + bw / 2) / f, (y + bh / 2) / f
        if any(math.hypot(d.center[0] - cx, d.center[1] - cy) < d.side_px for d in dice + out):
            continue
        got = _read_square(img, (cx, cy), typical / f)
        if SMALL_BLOBS_SHARPENED and not any(d.value is not None for d in got):
            # (a pale die is often a soft one too: the sharpened look, as for a blob with no pips seen)
            got = _read_blob_sharpened(img, _filled(labels[y:y + bh, x:x + bw] == i), (x, y), f, typical)
        kept = [d for d in got if d.value is not None
                and DIE_SIZE_RANGE[0] <= d.side_px * f / typical <= DIE_SIZE_RANGE[1]
                and math.hypot(d.center[0] - cx, d.center[1] - cy) < 0.5 * box / f]
        if not kept and dice_small_tops.SMALL_TOPS_IN_OPEN_PART:
            # (a light die's blob is its side faces and shadow round a top face the table's tone:
            # the top face lies in the hull's open part, read there -- see dice_small_tops)
            kept = _small_top_read(img, labels[y:y + bh, x:x + bw] == i, (x, y), f, typical)
        out += kept
    return out


def _small_top_read(img: np.ndarray, blob: np.ndarray, origin: tuple[int, int], f: float,
                    typical: float) -> list[Die]:
    """The die read at the middle of a small blob's hull's open part (its top face), with a value, or
    reported unreadable there when a face's marks are seen (:mod:`.dice_small_tops`); [] otherwise."""
    oc = dice_small_tops.open_part_centre(blob, _hull_points(blob))
    if oc is None or oc[2] < dice_small_tops.OPEN_SHARE:
        return []
    c = ((origin[0] + oc[0]) / f, (origin[1] + oc[1]) / f)
    side = typical / f
    got = _read_square(img, c, side)
    kept = [d for d in got if d.value is not None
            and DIE_SIZE_RANGE[0] <= d.side_px / side <= DIE_SIZE_RANGE[1]
            and math.dist(d.center, c) < 0.5 * side]
    marks = bool(got) or not dice_small_tops.UNREAD_ONLY_WHERE_MARKS_SEEN
    if not kept and marks and dice_small_tops.SMALL_TOPS_UNREAD_REPORTED:
        kept = [Die(None, c, 0.0, side, dice_small_tops.UNREAD_REASON)]
    if dice_small_tops.FIRED is not None:
        dice_small_tops.FIRED.append(len(kept))
    return kept


#: ... and where that reads nothing, the sharpened look (:func:`_read_blob_sharpened`) at its filled hull
SMALL_BLOBS_SHARPENED = True


def _filled(blob: np.ndarray) -> np.ndarray:
    """A blob filled to its convex hull."""
    cnts, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros(blob.shape, np.uint8)
    cv2.fillPoly(out, [cv2.convexHull(np.vstack(cnts))], 1)
    return out > 0


#: a blob under the least die's area (``min_die_frac`` squared) that is an outline -- it covers
#: under ``HOLLOW`` of its convex hull, and the hull reaches that area -- is reported as an
#: unreadable die when its hull is die-sized (below), at the middle of the hull's part the outline
#: leaves open: a light die on a light table shows only as its shaded side faces and shadow, an L
#: round a face the table's colour (ray 1038 and 1068: blobs of 249 and 240 work px^2, hulls 340
#: and 408, against a least area of 324; nothing was reported there; the open part's middle lay
#: 0.31 and 0.35 sides off the top face's centre, the hull's own 0.51 and 0.44). Such a blob is
#: not read: read with every look, light 3129 and 3134 gave wrong values and none came right.
#: False: such blobs are dropped, the old rule
SMALL_OUTLINES_REPORTED = True


def _outline_holds_a_die(labels: np.ndarray, stat: tuple, min_side: float) -> bool:
    i, x, y, bw, bh, area = stat
    if bw * bh < min_side * min_side:
        return False
    hull = cv2.contourArea(_hull_points(labels[y:y + bh, x:x + bw] == i))
    return hull >= min_side * min_side and area < HOLLOW * hull


def _hull_points(blob: np.ndarray) -> np.ndarray:
    """The convex hull of a blob mask's outer contours."""
    cnts, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return cv2.convexHull(np.vstack(cnts))


# The hull's rotated box: its long side within DIE_SIZE_RANGE of the typical die's (an L of a side
# face and a shadow spans about a side: 0.95 and 1.07 at ray 1038 and 1068; the hull's area is a
# triangle's, 0.63-0.76 of a square side), and at most this elongated (ray 1068's 34x18 hull: 1.89)
OUTLINE_ELONGATION = 2.0


def _outline_unread(blob: np.ndarray, origin: tuple[int, int], f: float, typical: float | None) -> list[Die]:
    """An outline blob (work pixels, at ``origin``) reported as one unreadable die at the middle of
    its hull's open part, when the hull is die-like; [] otherwise."""
    points = _hull_points(blob)
    (_, _), (rw, rh), _ = cv2.minAreaRect(points)
    long_side = max(rw, rh)
    if long_side > OUTLINE_ELONGATION * max(1.0, min(rw, rh)):
        return []
    if typical is not None and not DIE_SIZE_RANGE[0] <= long_side / typical <= DIE_SIZE_RANGE[1]:
        return []
    hull = np.zeros(blob.shape, np.uint8)
    cv2.fillPoly(hull, [points], 1)
    m = cv2.moments(((hull > 0) & ~blob).astype(np.uint8), True)
    if m["m00"] <= 0:
        return []
    centre = ((origin[0] + m["m10"] / m["m00"]) / f, (origin[1] + m["m01"] / m["m00"]) / f)
    side = long_side if typical is None else min(long_side, typical)
    return [Die(None, centre, 0.0, side / f, "an outline of a die, no face read in it")]


#: a two or three the size rule would doubt (read far smaller than its neighbours) keeps its value
#: when the photo round it shows a whole face: pips a die's size for its square, the face's edge
#: where a whole face's is, no other pip-like mark on it (:mod:`.dice_small_whole`; light dice's
#: neighbours read large with their shadows, and a farther or smaller die of a set reads small).
#: False: every such reading doubted, the old rule
SMALL_WHOLE_FACES_SPARED = True

#: a one the size rule would make unreadable keeps its value when its pip lies at the middle of a
#: face of its neighbours' size, ended on every side, with no other mark on it (a light one on a
#: light table: its face region stopped short of its edge; :mod:`.dice_whole_one`, session 29).
#: False (the default): ones read small stay doubted, the old rule. Left off for now: development
#: +3 right and the fresh pool +1, nothing wrong or extra added, but the check sets and the whole
#: dice test suite were not run with it on (docs/dice-camera.md, twenty-eighth round, h2). The
#: lead's held-out read (session 29, all 1,050 held-out scenes): +1 right (ray 59927) and **one wrong
#: value added** (light 5391, a white five main read right, now a one): off
WHOLE_ONES_SPARED = False


def _or_a_whole_one(whole, img: np.ndarray):
    """The size rule's ``whole`` check widened to a one on a whole face (WHOLE_ONES_SPARED)."""
    return lambda d, share: (whole is not None and whole(d, share)) or whole_one_face(d, img, share)


#: a die the size rule made unreadable is read again in a crop made for a die its neighbours' size
#: round it, and takes that reading when it is one sure value of that size
#: (:mod:`.dice_doubted_again`). False: it stays unreadable, the old rule
DOUBTED_SIZES_READ_AGAIN = True
#: the disc the crop's reading is held to, round the doubted reading: this many of the neighbours'
#: read sizes across. A die turned 45 degrees spans 1.41 of its side, and a read size is 1.1-1.25
#: of the die's side (dice_sizes): 1.2 holds a die of that size whatever its turn
AGAIN_DISC = 1.2

#: small blobs with marks inside (:func:`.dice_zoom.small_marked_blobs`) that lie beside a die-sized
#: blob are grouped as pips by the pips-alone look (:func:`_read_pip_clusters`): the finer look takes
#: only such blobs away from die-sized ones, so these were read by neither (light 3968: a white four's
#: four pips, 24 px dimples shaded on one side, beside its side face's blob). False: left out, the old rule
MARKED_PIPS_BESIDE_BLOBS = True

#: a value read by the pips-first look round a blob or by the pips-alone look, whose face is the
#: table's colour, is kept only where its pips stand out from the table's own spots round it (a
#: grained desk in a noisy webcam frame: :mod:`.dice_table_texture`). False: kept always, the old rule
PIPS_ABOVE_THE_TABLE = True

def _pips_above_the_table(img: np.ndarray, dice: list[Die], clusters: list[Die],
                          table_coloured: list[tuple[Die, list[Die]]]) -> tuple[list[Die], list[Die]]:
    """The values read on the table's colour (the pips-first look's, with what their blob read
    before it; the pips-alone look's ``clusters``) judged against every die read, all known now
    (a neighbour not yet read lies in the table's ring as spots: light 4003). A pips-first value
    whose pips do not stand out gives back its blob's earlier readings, or is reported unreadable
    at its place (it may be a part of a faint die: light 3235); a pips-alone one is dropped (specks
    grouped, no die round them)."""
    everyone = dice + clusters
    kept = set(map(id, above_the_table(img, [d for d, _ in table_coloured] + clusters, everyone)))
    out = []
    for d in dice:
        judged = next((b for a, b in table_coloured if a is d), None)
        if judged is None or id(d) in kept:
            out.append(d)
            continue
        back = [b for b in judged if not any(b is o for o in dice + out)]
        out += back or [Die(None, d.center, 0.0, d.side_px, "pips no stronger than the table's own spots")]
    return out, [d for d in clusters if id(d) in kept]


#: a blob every look read nothing in is read once more on sharpened copies of its part of the photo
#: (a defocused die whose pips the blur spread into its face: :mod:`.dice_defocus`), a value kept
#: where two strengths read it alike (False: not looked at, the old rule)
DEFOCUSED_DICE_SHARPENED = True
#: ... only a blob where a look reported a face region with no pips in it (a defocused die's face
#: or the halo round it takes the pips in), or that no look reported anything in: where every face
#: region held pips that fit no layout, the blur did not hide them, and sharpening brought out what
#: was no top face's -- a translucent one's far six seen through it (ray 78), a tilted five's side
#: face (ray 1002), read so with every unread blob sharpened. (Only "no pips" everywhere in the
#: blob was tried too: a defocused die's own face region most often holds a stray mark or two -- "2
#: pips off layout" beside the halo's "no pips" -- and 7 of the 9 dice gained were lost.)
PIPS_UNSEEN = "no pips"
SHARPENED_ONLY_WHERE_PIPS_UNSEEN = True  # (False: every blob that read nothing, the first try)


def _read_blob_sharpened(img: np.ndarray, blob: np.ndarray, origin: tuple[int, int], f: float,
                         est: float) -> list[Die]:
    """The first look (:func:`_read_blob`) at ``blob`` on sharpened copies of its window, the dice
    read alike at each strength (:func:`.dice_defocus.read_sharpened`)."""
    bh, bw = blob.shape
    box = (origin[0] / f, origin[1] / f, (origin[0] + bw) / f, (origin[1] + bh) / f)

    def read_window(window: np.ndarray, at: tuple[int, int]) -> list[Die]:
        # (the window's own pixels: the blob's origin moved by the window's corner, at the blob's scale)
        got = _read_blob(window, blob, (origin[0] - at[0] * f, origin[1] - at[1] * f), f, est)
        return [replace(d, center=(d.center[0] + at[0], d.center[1] + at[1]),
                        pips=None if d.pips is None else tuple((px + at[0], py + at[1], r) for px, py, r in d.pips))
                for d in got]

    return read_sharpened(img, box, est / f * 0.9, read_window)


#: a blob the sharpened look read nothing in either is read at the die's own size inside its blur's
#: halo -- the blob's part at least half-way from the table's colour to the die's -- sharpened at
#: the pip's scale (:mod:`.dice_soft_core`; False: not looked at, the old rule)
SOFT_CORES_READ = True


def _read_soft_cores(img: np.ndarray, blob: np.ndarray, origin: tuple[int, int], f: float,
                     est: float) -> list[Die]:
    """The dice read in ``blob``'s die-cores (:func:`.dice_soft_core.read_soft_cores`)."""
    bh, bw = blob.shape
    box = (origin[0] / f, origin[1] / f, (origin[0] + bw) / f, (origin[1] + bh) / f)
    m = blob.astype(np.uint8) * 255

    def blob_mask(wbox: tuple, s: float) -> np.ndarray:
        # (work pixels to the window's, scaled by s)
        x0, y0, x1, y1 = wbox
        M = np.array([[s / f, 0, (origin[0] / f - x0) * s], [0, s / f, (origin[1] / f - y0) * s]], np.float32)
        return cv2.warpAffine(m, M, (max(1, round((x1 - x0) * s)), max(1, round((y1 - y0) * s))),
                              flags=cv2.INTER_NEAREST)

    return read_soft_cores(img, box, blob_mask, est / f, lambda window, core, s: _hole_read(window, core, (0, 0), s))


def _with_read(got: list[Die], read: list[Die]) -> list[Die]:
    """``read`` (dice a later look read) and the readings of ``got`` clear of them (an unread die
    beside the one read stays reported)."""
    return read + [d for d in got if all(math.dist(d.center, r.center) > 0.5 * max(d.side_px, r.side_px)
                                         for r in read)] if read else got


#: a blob in which no look reported anything (no face region, no pips) is read once more with its
#: face taken as its two commonest colours: a marbled die's veins break the region of either colour
#: into patches none of which is shaped like a face (:mod:`.dice_marbled`; False: not looked at)
MARBLED_FACES_LOOKED_AT = True
#: ... and also in a blob whose every reading is a face region with no pips in it (PIPS_UNSEEN,
#: after the sharpened look): a marbled die whose veins are its pips' colour, or a blurred face
#: of two shades, the face region of one colour taking the pips in (development: ray 4244's
#: defocused black four, light 3210's motion-blurred marbled blue six). False: only where no look
#: reported anything, the old rule
MARBLED_WHERE_PIPS_UNSEEN = True
#: ... reading there no two or three (:func:`_two_tone_whole_faces`; False: kept -- light 43's six
#: then reads as a three, a wrong value)
MARBLED_PARTS_REFUSED = True


#: a blob every look read nothing in (no reports, or faces with no pips only) is looked at once
#: more for pips found by the ring round each, without a face region (:mod:`.dice_ringed_pips`:
#: a marbled die's veins break its face region or take its pips in). Development right 3,513 ->
#: 3,521, pools 1,886 -> 1,891, check sets 790 -> 791, nothing wrong, near-wrong or extra added
#: (session 28, s28h2). **Off as merged**: on the lead's fresh held-out dice (ray 59960-60059,
#: light 5300-5349, 558 dice) it read no die more and one wrong value (ray 59995, a marbled blue
#: four on red felt read as a two 0.33 sides off, where main reports the blob unread); the other
#: held-out sets were not read with it. Session 29 (s29h1): that kind of wrong value -- a two read on
#: two neighbouring pips of a four -- is refused by dice_ringed_pips.PARTS_OF_LARGER_FACES_REFUSED
#: (own marbled renders: untouched half +7 right, nothing wrong or extra added). The lead's
#: held-out read with the guard (session 29, all 1,050 held-out scenes, 4,080 dice): +10 right, but
#: ray 59995 still read as a two (not refused by the guard): off. Session 32 (the lead): that two's
#: larger face had one pip touching a light vein, measured long, and the guard looked for round
#: marks only; with dice_ringed_pips.LARGER_FACE_PIPS_ANY_SHAPE it is refused (unread), and the look
#: is **on**: see docs/dice-camera.md, thirty-first round, for the reads. False: the old reader
MARBLED_PIPS_BY_RINGS = True


#: ... its reading kept only when of the photo's dice size: its side within RINGED_SIZE of the
#: typical blob's. A blob holds its die and the die's shadow and side faces, so a die is a half to
#: the whole of a blob's side (read right here: 0.52-0.85); a part of a die's blob (a tilted die's
#: side face) shows the side face's row of pips, two of them a two's diagonal: pool ray 20243, a
#: two read at 0.23 of the typical blob (59 px among dice of 143 px). False: kept whatever its size
RINGED_PIPS_SIZED = True
RINGED_SIZE = (0.5, 1.4)  # (the upper bound: DIE_SIZE_RANGE's)


def _of_the_dice_size(d: Die, f: float, typical: float | None) -> bool:
    return not RINGED_PIPS_SIZED or typical is None or \
        RINGED_SIZE[0] <= d.side_px * f / typical <= RINGED_SIZE[1]


#: ... and also in a blob whose every reading is a face with no pips or pips seen that fit no
#: layout ("2 pips off layout", "3 pips off layout": OFF_LAYOUT): the face region of one colour
#: took a marbled die's pips in only in part (a vein across a pip, a vein's curl counted), or cut
#: its face short so the pips seen are no face's diagonal; the ringed look needs no region. The
#: biggest group of the marbled dice left unread on the development scenes with an unread die
#: (9 of 40; session 33, s33h1). It comes with a guard against a part of a larger face
#: (dice_ringed_pips.TWO_FACES_OF_ONE_VALUE_REFUSED). False: the ringed look only where no pips
#: were seen, the old rule
RINGED_PIPS_WHERE_OFF_LAYOUT = True
OFF_LAYOUT = "pips off layout"


#: ... but not where the pips seen were refused for their size ("pip size": the marks the face
#: region left are too large or small for its face, so that region is no top face with some of its
#: pips -- the check set's rayphone 6200: a tilted marbled purple three, its region's two marks
#: 0.62 of the face, where the ringed look read the side face's two beside the three, a near-wrong
#: value and an extra; set after that case, so the check set is no longer blind to it). No
#: development die read by RINGED_PIPS_WHERE_OFF_LAYOUT had that reason. False: asked there too
OFF_LAYOUT_PIPS_SIZED = True
PIP_SIZE_REFUSED = "pip size"


def _pips_unseen_or_off_layout(got: list[Die]) -> bool:
    """Every reading of a blob is a face with no pips or pips that fit no layout, some of them
    the latter (RINGED_PIPS_WHERE_OFF_LAYOUT), none refused for the pips' size (OFF_LAYOUT_PIPS_SIZED)."""
    return RINGED_PIPS_WHERE_OFF_LAYOUT and any(OFF_LAYOUT in d.reason for d in got) and \
        all(d.value is None and (d.reason == PIPS_UNSEEN or _off_layout(d.reason)) for d in got)


def _off_layout(reason: str) -> bool:
    return OFF_LAYOUT in reason and not (OFF_LAYOUT_PIPS_SIZED and PIP_SIZE_REFUSED in reason)


def _pips_unseen_only(got: list[Die]) -> bool:
    """Every reading of a blob is a face region with no pips in it."""
    return bool(got) and all(d.value is None and d.reason == PIPS_UNSEEN for d in got)


def _two_tone_whole_faces(img: np.ndarray, blob: np.ndarray, origin: tuple[int, int], f: float,
                          est: float) -> list[Die]:
    """The two-colour look's readings of a blob whose face regions took their pips in, but no
    two or three (the look reads no ones already): a face seen whole with its pips hidden may be
    a larger face of which the two colours show a part -- light 43's marbled six, its dark pips on
    dark veins, read as a three from one column (a wrong value on development with them kept)."""
    got = _read_blob_at(img, blob, origin, f, est / f * 0.9, read_two_tone)
    return [d for d in got if not (MARBLED_PARTS_REFUSED and d.value in PART_VALUES)]


#: a light die's reading whose face is clearly darker than the table or top face round it is a
#: side face in shade: unreadable (:mod:`.dice_shaded_face`; False: kept, the old rule)
SHADED_FACES_DOUBTED = True


#: of two readings less than a die apart, a clearly darker one of the same colour is the other's
#: side face and is dropped (:mod:`.dice_side_shade`), when the other's reading is clean of it (its
#: pips all on the top face's colour, none of the top face's left to the side face's reading, its
#: margin toward the side face on the top face: ``dice_side_shade.CHECK_TOP_FACE``) and is no part
#: of a larger face (a one at its face's middle and alone on it, a four with no line of pips like
#: its own just beyond it: :mod:`.dice_top_clean`). Session 11's rule without those checks read 3
#: more held-out dice wrong, session 12's with the first check 2 more (a two's pip by the edge read
#: as a one; a six's two rows as a four), the kinds the last checks look for. On (session 13): no wrong
#: value more than the rule off on any development set (docs/dice-camera.md).
#: False: both readings left to the overlap doubt (unreadable when they overlap).
SIDE_FACES_BY_SHADE = True


#: a die-sized, solid blob in which no look read anything is reported as an unreadable die (False:
#: the old rule, such a die silently missed, kept to measure against)
UNSEEN_FACES_ARE_REPORTED = True
# A blob is taken for one die whose face no look could read when it fills at least this share of
# its convex hull (a die with its side faces and shadow is convex; an outline, a crescent of shaded
# sides, is hollow: HOLLOW) ...
DIE_SOLIDITY = 0.85
# ... its rotated box is at most this elongated (a die seen at a slant with its shadow: 1.4-1.7 at
# the missed dice of development) ...
DIE_ELONGATION = 1.8
# ... and its side is within this range of the photo's typical die's (a shadow or a part of a die
# is smaller, two touching dice larger), when the photo has a typical die: with none (every die in
# it tilted or shadowed), the blob's size is only held to the reader's smallest and largest die.
# (Set beforehand, the elongation then raised from 1.6 to reach the missed dice: on the development
# sets the rule reported 16 dice, 10 of them scored unread where they were missed, 6 at a die but
# over half a side off its face, their shadow in the blob; nothing where there is no die.)
DIE_SIZE_RANGE = (0.7, 1.4)


def _die_unread(blob: np.ndarray, origin: tuple[int, int], f: float, est: float, typical: float | None,
                refused: list | None = None) -> list[Die]:
    """A blob that every look read nothing in, reported as an unreadable die when it is shaped
    like one die: a strongly tilted die, its top face squeezed past any layout fit, or a blurred
    one is still a die on the table, and saying so (throw again) beats leaving it out of the count.
    A die-shaped blob refused only for its size against ``typical`` is added to ``refused`` (when
    given) as (side, centre), photo pixels: judged later by the dice read (BLOBS_SIZED_BY_READ_DICE)."""
    cnts, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if len(cnts) != 1:
        return []
    area = float(blob.sum())
    hull = cv2.contourArea(cv2.convexHull(cnts[0]))
    (cx, cy), (rw, rh), _ = cv2.minAreaRect(cnts[0])
    if hull <= 0 or area < DIE_SOLIDITY * hull or max(rw, rh) > DIE_ELONGATION * max(1.0, min(rw, rh)):
        return []
    side = math.sqrt(area)
    centre = ((origin[0] + cx) / f, (origin[1] + cy) / f)
    if typical is not None and not DIE_SIZE_RANGE[0] <= side / typical <= DIE_SIZE_RANGE[1]:
        if refused is not None:
            refused.append((side / f, centre))
        return []
    return [Die(None, centre, 0.0, est / f * 0.9, "a die-shaped blob, no face read in it")]


#: a die-shaped blob that every look read nothing in and that the typical die's size (the photo's
#: blobs, each a die with its shadow or blur on a blurred photo) refused is reported unreadable when
#: its side is within DIE_SIZE_RANGE of the dice *read* in the photo, placed where the read dice lie
#: in their blobs (:mod:`.dice_read_size`; development: ray 4304, 2122, light 3103 and ray 4361,
#: dice missed there). False: such a blob is left out, the old rule
BLOBS_SIZED_BY_READ_DICE = True
#: a die-shaped blob's unreadable report is moved from the blob's centre by the read dice's median
#: offset from their blobs' centres (the die's shadow lies to the same side of every die: see
#: :mod:`.dice_read_size`). False: at the blob's centre, the old rule
SHAPED_BLOBS_PLACED_BY_READ_DICE = True


#: the part of a blob no die read in it covers, when it could hold a die, is read as a blob of its
#: own (False: the old rule, kept to measure against)
REMAINDERS_ARE_LOOKED_AT = True
# A read die clears the blob within this many of its sides of its centre (a square's corner lies
# 0.71 sides from it; its side faces and shadow reach a little farther).
READ_DIE_CLEARS = 0.8
# What is left must hold a disc this many sides of the read dice across (an opening: a side face,
# a shadow, a corner left beside a read die are narrower) ...
REMAINDER_WIDTH = 0.7
# ... and be at least this many of their squares in area.
REMAINDER_AREA = 0.6
# A die read in the remainder lies at least this many read sides from every die read in the blob
# before: a tilted die's side face, left beside its top face, is read less than a side away (ray
# 64: 0.92); dice beside a die read lay 1.56-2.1 away on development. (Read sides are up to 1.25
# times the die's: two dice touching face to face, 1.0 apart, are not looked for this way.)
REMAINDER_APART = 1.2


#: a part of a blob left beside a die read there, shaped like one die (the die-shaped blob's own
#: tests: DIE_SOLIDITY, DIE_ELONGATION, DIE_SIZE_RANGE against the read die's side) and read as
#: nothing by every look, is reported as an unreadable die at its centre
#: (:mod:`.dice_remainder_unread`), unless it is the read die's shadow or lies inward of it (its
#: side face). Development: ray 4911's marbled six, missed, now unread. False: such a part is
#: dropped, the old rule. OFF (the lead, session 36): on the held-out scenes it found two missed
#: dice but added two unread reports where no die is unread (one on no die, one a second report
#: for a die already reported): as many dice counts made wrong as made right
REMAINDERS_UNREAD_REPORTED = False


def _read_remainder(img: np.ndarray, blob: np.ndarray, origin: tuple[int, int], f: float,
                    got: list[Die], side_faces: list[Die] | None = None,
                    photo: tuple[tuple[float, float], float] | None = None) -> list[Die]:
    """The dice read in what is left of ``blob`` once the dice ``got`` are taken out: two touching
    dice in one blob, one read and the other's face too unlike it to be read in the same look.
    Dice of ``got`` found to be a tilted die's side face are added to ``side_faces`` (when given):
    the caller drops them (:func:`_read_lighter_face_beside`)."""
    read = [d for d in got if d.value is not None]
    side = float(np.median([d.side_px * f for d in read]))
    n, labels, stats, centres = _parts_left(blob, origin, f, got, side, READ_DIE_CLEARS)
    out = []
    for j in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[j])
        cx, cy = centres[j]
        if area < REMAINDER_AREA * side * side:
            continue
        if any(math.dist(((origin[0] + cx) / f, (origin[1] + cy) / f), o.center) < REMAINDER_APART * o.side_px
               for o in read):
            # (what is left has its centre too near a die read: a side face and shadow, not worth
            # a look; ray 13, a whole blob round a die read small, took 2.7 s of a 3.5 s read)
            continue
        part = labels[y:y + bh, x:x + bw] == j
        got_part = [d for d in _read_blob(img, part, (origin[0] + x, origin[1] + y), f, side) if d.value is not None
                    and all(math.dist(d.center, o.center) >= REMAINDER_APART * max(d.side_px, o.side_px) for o in read)]
        if REMAINDERS_UNREAD_REPORTED and not got_part:
            # (a die-shaped part no look read: a die beside the one read, reported unreadable)
            shaped = die_shaped_part(part, side, DIE_SOLIDITY, DIE_ELONGATION, DIE_SIZE_RANGE)
            if shaped is not None:
                c = ((origin[0] + x + shaped[0]) / f, (origin[1] + y + shaped[1]) / f)
                work = (round(img.shape[0] * f), round(img.shape[1] * f))
                # (not the read die's own side face, inward of it, nor its shadow: see the module)
                if not (photo is not None and inward_of_a_read_die(c, read, *photo)) and shadow_share(
                        img, f, blob, origin, part, (origin[0] + x, origin[1] + y), side, work) < SHADOW_SHARE:
                    got_part = [Die(None, c, 0.0, min(shaped[2], side) / f, REMAINDER_REASON)]
        out += got_part
    if SIDE_FACES_BY_SHADE and TOP_FACES_BESIDE_ARE_LOOKED_AT:
        out += _read_lighter_face_beside(img, blob, origin, f, read, side, side_faces)
    return out


def _parts_left(blob: np.ndarray, origin: tuple[int, int], f: float, dice: list[Die], side: float,
                clears: float):
    """The parts of ``blob`` left once a disc of ``clears`` sides round each of ``dice`` is taken
    out, opened at ``REMAINDER_WIDTH`` of a side (slivers round the discs are no face):
    ``components_with_stats`` of what is left."""
    rest = blob.astype(np.uint8).copy()
    for d in dice:
        cv2.circle(rest, (round(d.center[0] * f - origin[0]), round(d.center[1] * f - origin[1])),
                   round(clears * max(d.side_px * f, side)), 0, -1)
    k = max(3, round(REMAINDER_WIDTH * side)) | 1
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return components_with_stats(rest)


#: a die read in a blob may be a tilted die's side face, its top face left unread beside it: the
#: rest of the blob just beside a read die is read too when it is clearly lighter, of the die's
#: colour (:mod:`.dice_side_shade` then keeps the top face; False: not looked at, the old rule).
#: Only with ``SIDE_FACES_BY_SHADE`` on, since the shade rule chooses between the two.
TOP_FACES_BESIDE_ARE_LOOKED_AT = True
# A read die clears the blob within this many of its sides of its centre for that look: its top face
# lies 0.65-0.8 of the die's side from a side face read (development), 0.8 sides cleared it away.
SIDE_FACE_CLEARS = 0.45


def _read_lighter_face_beside(img: np.ndarray, blob: np.ndarray, origin: tuple[int, int], f: float,
                              read: list[Die], side: float, side_faces: list[Die] | None = None) -> list[Die]:
    """The dice read in the parts of ``blob`` within a die of a die ``read`` there whose face is
    clearly lighter than that die's and of its colour: its top face, when the die read is its side
    face (ray 1076: a one's top face beside its side face read as a three). Only lighter parts are
    read (a shadow, the darker side faces, are never the top face), which keeps the look cheap.
    The parts are what a disc round each die read leaves of the blob and, beside a die, the blob's
    clearly lighter pixels (:func:`_lighter_parts`, ``LIGHTER_PARTS_BY_SHADE``) away from such parts
    (``LIGHTER_PARTS_PAST_CLEARED_PARTS``; without it, only where the disc left none beside it).

    Where such a part reads nothing, the die read beside it is still a side face (light comes from
    above: the top face is the lightest face of a die), and the die's value is not the one its
    side face shows (nor is a one, two or three read smaller than it in a part found by shade: a
    part of the top face, ``PART_OF_TOP``): with ``UNREAD_TOP_FACE_TAKES_ITS_SIDE_FACE`` that reading is put in
    ``side_faces`` and an unreadable die is reported at the part, the top face (a die reported
    unreadable asks for a throw again; the side face's value was a wrong one for the die)."""
    n, labels, stats, centres = _parts_left(blob, origin, f, read, side, SIDE_FACE_CLEARS)
    parts = []  # (part's mask, its origin in the blob, its centre in the photo)
    for j in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[j])
        if area < REMAINDER_AREA * side * side:
            continue
        centre = ((origin[0] + centres[j][0]) / f, (origin[1] + centres[j][1]) / f)
        parts.append((labels[y:y + bh, x:x + bw] == j, (x, y), centre, False))
    if LIGHTER_PARTS_BY_SHADE:
        cleared = list(parts)
        for o in read:
            near = [p for p in cleared if math.dist(p[2], o.center) < REMAINDER_APART * o.side_px]
            if near and not LIGHTER_PARTS_PAST_CLEARED_PARTS:
                continue
            # (a lighter part at another die read is that die's face: a touching neighbour's; one
            # where a cleared part lies already is that part)
            parts += [p for p in _lighter_parts(img, blob, origin, f, o, side)
                      if all(math.dist(p[2], r.center) >= FACES_APART * r.side_px for r in read if r is not o)
                      and all(math.dist(p[2], q[2]) >= FACES_APART * o.side_px for q in near)]
    out = []
    for part, (x, y), centre, by_shade in parts:
        near = [o for o in read if math.dist(centre, o.center) < REMAINDER_APART * o.side_px]
        if not near:
            continue  # (read by the remainder look above)
        here = Die(None, centre, 0.0, side / f)
        darker = [o for o in near if side_face_of(o, here, img)]
        if not darker:
            continue
        got = [d for d in _read_blob(img, part, (origin[0] + x, origin[1] + y), f, side) if d.value is not None]
        if by_shade:
            # (a one, two or three read smaller than the side face beside it is a part of the top face)
            got = [d for d in got if d.value not in PART_VALUES or d.side_px >= PART_OF_TOP * max(o.side_px for o in darker)]
        out += [d for d in got if all(math.dist(d.center, o.center) >= FACES_APART * max(d.side_px, o.side_px)
                                      for o in read)]
        coloured = [o for o in darker if _of_a_colour(img, o, here) or _both_light(img, o, here)]
        if not got and coloured and side_faces is not None and UNREAD_TOP_FACE_TAKES_ITS_SIDE_FACE and _hue_told(img):
            side_faces += coloured
            out.append(Die(None, centre, 0.0, max(o.side_px for o in coloured),
                           "a side face read; its top face, lighter, beside it reads nothing"))
    return out


#: the lighter part beside a die read is also looked for by its shade when clearing a disc round the
#: die left none there (:func:`_lighter_parts`; False: only the cleared blob's parts, the old rule)
LIGHTER_PARTS_BY_SHADE = True
#: the lighter part is looked for by its shade also where clearing a disc round the die left a
#: part beside it elsewhere (the die's shadow, the table within the blob's hull): a pastel die's
#: side face read as the die, its top face unread beside it, the shadow's part below it (light
#: 3157 re-encoded at JPEG quality 60: its side face's six kept, a near-wrong; the invariance audit
#: of session 23; on development, ray 4230's and light 3148's side faces read as dice 0.8 sides off
#: their top faces went too). False: only where no cleared part lies within REMAINDER_APART of the
#: die, the old rule
LIGHTER_PARTS_PAST_CLEARED_PARTS = True
#: ... the blob's pixels this many read sides from the die's centre at most (a top face's centre lies
#: 0.56-0.9 of a side from its side face's, its far corners about 1.2) ...
LIGHTER_REACH = 1.2
#: ... at least SHADE_GAP (Lab L) lighter than the die's face, in a part this many squares of the
#: read side at least (a top face seen at 45 degrees covers 0.7 of a square; past the bevel 0.5)
LIGHTER_AREA = 0.35
#: a one, two or three read in such a part under this share of the side face's read side is a part of
#: the top face, and the part counts as reading nothing (ray 4482: a five's two pips read as a two at
#: 0.76 of its side face's side; the dice_sizes rule's 0.62-0.68 compare with whole faces' sizes, and a
#: side face read at its longer extent is no smaller than its top face read whole)
PART_OF_TOP = 0.85


def _lighter_parts(img: np.ndarray, blob: np.ndarray, origin: tuple[int, int], f: float, o: Die,
                   side: float) -> list:
    """The parts of ``blob`` within ``LIGHTER_REACH`` of the die ``o`` read there whose lightness is
    clearly above its face's: a tilted die's top face beside its side face read as the die. (Found
    by shade, not by clearing a disc round ``o``: the top face beside a side face is foreshortened,
    narrower than the remainder look's opening, and a disc of 0.45 sides bites into it.)
    As (mask, origin in the blob, centre in the photo, True), like the parts of :func:`_parts_left`."""
    bh, bw = blob.shape
    cx, cy = o.center[0] * f - origin[0], o.center[1] * f - origin[1]
    reach = LIGHTER_REACH * max(o.side_px * f, side)
    x0, y0 = max(0, int(cx - reach)), max(0, int(cy - reach))
    x1, y1 = min(bw, int(cx + reach) + 1), min(bh, int(cy + reach) + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return []
    # (the photo's pixels under the window, at the blob's scale)
    X0, Y0 = int((origin[0] + x0) / f), int((origin[1] + y0) / f)
    X1, Y1 = max(X0 + 1, int(round((origin[0] + x1) / f))), max(Y0 + 1, int(round((origin[1] + y1) / f)))
    window = np.ascontiguousarray(img[Y0:Y1, X0:X1])
    if window.shape[:2] != (y1 - y0, x1 - x0):
        window = cv2.resize(window, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    light = cv2.cvtColor(window, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    lighter = blob[y0:y1, x0:x1] & (light > face_colour(img, o)[0] + SHADE_GAP)
    yy, xx = np.ogrid[y0:y1, x0:x1]
    lighter &= (xx - cx) ** 2 + (yy - cy) ** 2 <= reach * reach
    k = max(3, round(0.15 * side)) | 1
    lighter = cv2.morphologyEx(lighter.astype(np.uint8), cv2.MORPH_OPEN,
                               cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, labels, stats, centres = components_with_stats(lighter)
    parts = []
    for j in range(1, n):
        x, y, pw, ph, area = (int(v) for v in stats[j])
        if area < LIGHTER_AREA * side * side:
            continue
        centre = ((origin[0] + x0 + centres[j][0]) / f, (origin[1] + y0 + centres[j][1]) / f)
        if math.dist(centre, o.center) < FACES_APART * o.side_px:
            continue  # (glare or a lit bevel on the die's own face)
        part = (labels[y:y + ph, x:x + pw] == j).astype(np.uint8)
        # (the face's pips are darker than its face: holes and bites, filled by the part's hull)
        cnts, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.fillPoly(part, [cv2.convexHull(np.vstack(cnts))], 1)
        parts.append((part > 0, (x0 + x, y0 + y), centre, True))
    return parts


#: a die read beside a clearly lighter part of its blob, of its colour, that reads nothing is that
#: part's side face: it is dropped and an unreadable die reported at the part (False: the side
#: face's reading kept, the old rule). Only for a die of a colour (:func:`_of_a_colour`) or a light
#: die (:func:`_both_light`).
UNREAD_TOP_FACE_TAKES_ITS_SIDE_FACE = True
#: ... both faces at least this chroma (Lab a, b): a lighter grey beside a grey or black die is as
#: often its shadow on a white table or the table itself (development, without this: 6 right
#: readings of black dice lost, their faces and the parts beside 0-6 chroma), while a shadow or a white table is never
#: lighter *and* of a coloured die's hue. The coloured side faces the rule rightly dropped on
#: development measured 25-57 (the lighter part 40-67). A light die's faces count too (below).
SIDE_FACE_CHROMA = 20.0


#: ... or both at least this lightness (Lab L, 0-255): a white, cream or clear die's side face in
#: shade beside its lighter top face (development: 131-178, light 3260 155 beside 222), while a black
#: die's face, even lit, is darker (development, black dice read right with a lighter grey part
#: beside them, their shadow or the table: 87 and 94); set between the two
#: (SIDE_FACES_LIGHT; False: coloured dice only, the old rule)
SIDE_FACE_LIGHT = 120.0
SIDE_FACES_LIGHT = True


#: in a grey photo (:func:`.dice_grey.photo_is_grey`) the side face's reading is kept, not taken by an
#: unread lighter part beside it: there every face is hueless, so a coloured die's face and the grey
#: table's shadow beside it pass as one light die's faces (grey development: a blue die's top face
#: read right, dropped for the shadow beside it, ray 2074 and 4362). False: taken, as in colour
GREY_PHOTO_SIDE_FACES_KEPT = True


def _hue_told(img: np.ndarray) -> bool:
    """Do the faces' colours tell a light die from a coloured one (not in a grey photo)?"""
    return not (GREY_PHOTO_SIDE_FACES_KEPT and photo_is_grey(img))


def _both_light(img: np.ndarray, a: Die, b: Die) -> bool:
    """Are the faces round readings ``a`` and ``b`` both light (a white or cream die's faces)?"""
    return (SIDE_FACES_LIGHT and all(face_colour(img, d)[0] >= SIDE_FACE_LIGHT for d in (a, b))
            and not dark_bodied(img, a))  # (a glossy black die's grey top face beside the white table)


def _of_a_colour(img: np.ndarray, a: Die, b: Die) -> bool:
    """Are the faces round readings ``a`` and ``b`` both clearly coloured (no grey)?"""
    return all(math.hypot(c[1], c[2]) >= SIDE_FACE_CHROMA for c in (face_colour(img, a), face_colour(img, b)))


HOLLOW = 0.8  # a blob covering less of its convex hull is an outline: a die's edges and shadow


def _read_hollow(img: np.ndarray, blob: np.ndarray, origin: tuple[int, int], f: float, typical: float | None,
                 max_side: float, specks: np.ndarray | None = None) -> list[Die]:
    """A blob that read nothing and is far from convex (a light die on a light table shows only
    its shaded sides and shadow, a crescent round the face), read again filled to its hull."""
    cnts, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return []
    hull = np.zeros(blob.shape, np.uint8)
    cv2.fillPoly(hull, [cv2.convexHull(np.vstack(cnts))], 1)
    if blob.sum() >= HOLLOW * hull.sum():
        return []
    est = min(math.sqrt(float(hull.sum())), 2.1 * float(cv2.distanceTransform(np.pad(hull, 1), cv2.DIST_L2, 3).max()))
    if typical is not None:
        est = min(est, typical * 1.15)
    got = _read_blob(img, hull > 0, origin, f, min(est, max_side))
    # only four or more pips: a one, two or three read in a filled outline may be the pips the
    # fill left of a larger value (a dark die's face, like the table, loses pips to it); but a one
    # whose pip is a lone speck is no part of a larger face (:func:`_lone_speck_one`), nor is a two
    # or three the photo shows is a whole face (:func:`_whole_in_outline`)
    return [d for d in got if d.value is not None
            and (d.value not in PART_VALUES or _lone_speck_one(d, specks, f) or _whole_in_outline(d, img))]


def _read_loose(img: np.ndarray, blob: np.ndarray, loose: np.ndarray, origin: tuple[int, int], f: float,
               typical: float | None, max_side: float, specks: np.ndarray | None = None) -> list[Die]:
    """A blob that read nothing, read once more as the looser foreground around it, filled out to
    its convex hull: an L of a dark die's lit edges, its face too like the table to pass the
    threshold, becomes the die it outlines. Only dice of the size the region implies are kept (a
    smaller reading is part of a face: two pips of a four read as a two)."""
    x, y = origin
    bh, bw = blob.shape
    grow = int(0.5 * (typical or max(bh, bw)))
    H, W = loose.shape
    x0, y0, x1, y1 = max(0, x - grow), max(0, y - grow), min(W, x + bw + grow), min(H, y + bh + grow)
    near = loose[y0:y1, x0:x1] > 0
    seed = np.zeros_like(near)
    seed[y - y0:y - y0 + bh, x - x0:x - x0 + bw] = blob
    n, labels = cv2.connectedComponents((near | seed).astype(np.uint8), connectivity=8)
    region = np.isin(labels, np.unique(labels[seed]))  # (every seed pixel is in some component)
    cnts, _ = cv2.findContours(region.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return []
    hull = np.zeros(region.shape, np.uint8)
    cv2.fillPoly(hull, [cv2.convexHull(np.vstack(cnts))], 1)
    area = float(blob.sum())
    if hull.sum() < 1.3 * area:
        return []
    est = min(math.sqrt(float(hull.sum())), 2.1 * float(cv2.distanceTransform(np.pad(hull, 1), cv2.DIST_L2, 3).max()))
    if typical is not None:
        est = min(est, typical * 1.15)
    est = min(est, max_side)
    got = _read_blob(img, hull > 0, (x0, y0), f, est)
    # (four or more pips in a square span a whole face: such a reading is no part of a face, only
    # the hull may have taken in the die's shadow too)
    # (a one whose pip is a lone speck is a whole face, as a four is: :func:`_lone_speck_one`)
    return [d for d in got if d.value is not None
            and (LOOSE_PART_SHARE if d.value in PART_VALUES and not _lone_speck_one(d, specks, f)
                 and not _whole_in_outline(d, img) and not _dark_faced_whole_one(d, img, d.side_px * f / (LOOSE_PART_SHARE * est))
                 else WHOLE_FACE_LOWEST) <= d.side_px * f / est <= 1.3]


#: the least share of the hull a one, two or three the loose look reads must have (a smaller reading
#: is part of a face: two pips of a four read as a two)
LOOSE_PART_SHARE = 0.8

#: a one the loose look read under LOOSE_PART_SHARE of the hull it filled out is kept when its pip
#: is light on a darker face and lies at the middle of a whole face, ended on every side, with no
#: other mark like it on that face (:func:`.dice_whole_one.whole_one_face`), the face spanning at
#: least its SPAN_LEAST of LOOSE_PART_SHARE of the hull: the size a whole reading has there (the
#: hull itself was tried first: ray 2130's face spans 0.58 of its hull, short of 0.6; the bound
#: was so set after seeing that case). A dark die's side
#: faces are as dark as its top face: the loose foreground and its hull take them in, and a one read
#: right is refused as a part of the hull (development ray 2130, a black die's one at 0.72 of its
#: hull; session 35). Light pips only: the face's end and its lone pip are told past the lit edge
#: between a dark die's faces (:data:`.dice_top_clean.MARKS_PAST_A_LIT_RIM_SKIPPED`); a light die's
#: one on a table like it is what the size rule's spared ones got wrong (WHOLE_ONES_SPARED).
#: False: refused, the old rule
DARK_FACED_ONES_IN_HULLS = True


def _dark_faced_whole_one(d: Die, img: np.ndarray, share: float) -> bool:
    return DARK_FACED_ONES_IN_HULLS and d.value == 1 and d.pips is not None and len(d.pips) == 1 \
        and light_pip_on_darker_face(d, img) and whole_one_face(d, img, share)


#: a two or three read in a blob's outline filled to its hull (the hollow and loose looks: a light
#: die's shaded sides and shadow round its table-coloured face) is kept when the photo shows it is a
#: whole face (:func:`.dice_small_whole.whole_face_by_its_pips`), not only four or more pips or a
#: reading of the hull's size: light 3238, a white two on grey paper outlined by its side faces, read
#: right by both looks at 0.76 of the hull (which holds its shadow) and refused by both.
#: False: refused, the old rule
WHOLE_FACES_IN_OUTLINES = True


def _whole_in_outline(d: Die, img: np.ndarray) -> bool:
    return WHOLE_FACES_IN_OUTLINES and whole_face_by_its_pips(d, img)


def _speck_centres(stats: np.ndarray, min_side: float) -> np.ndarray:
    """The centres (work pixels) of the foreground's small, roughly round blobs: pips and crumbs."""
    x, y, w, h, area = (stats[1:, k].astype(np.float64) for k in range(5))
    small = (area >= 4) & (area < min_side * min_side) & (np.maximum(w, h) <= 2.2 * np.maximum(1, np.minimum(w, h)))
    return np.stack([x + w / 2, y + h / 2], 1)[small]


def _lone_speck_one(d: Die, specks: np.ndarray | None, f: float) -> bool:
    """Is ``d`` a one whose pip is a speck of the foreground, alone within a side of it
    (:func:`.dice_pip_squares.lone_speck`: a light die's face open to the table)?"""
    return d.value == 1 and lone_speck(complex(d.center[0] * f, d.center[1] * f), d.side_px * f, specks)


def _read_around(img: np.ndarray, blob: np.ndarray, origin: tuple[int, int], f: float, typical: float | None,
                 max_side: float, unfit: bool = False, specks: np.ndarray | None = None) -> list[Die]:
    """A blob that read nothing, looked at once more with the table round it, its pips first
    (:mod:`.dice_pip_squares`): a light die on a light table shows as its shadow and shaded sides,
    its face beside or inside them the table's own colour. With ``unfit``, groups of pips that fit
    no layout are returned too (unreadable), to check other readings by."""
    x, y = origin
    bh, bw = blob.shape
    cnts, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return []
    hull = np.zeros(blob.shape, np.uint8)
    cv2.fillPoly(hull, [cv2.convexHull(np.vstack(cnts))], 1)
    est = min(math.sqrt(float(hull.sum())), 2.1 * float(cv2.distanceTransform(np.pad(hull, 1), cv2.DIST_L2, 3).max()))
    if typical is not None:
        est = min(est, typical * 1.15)
    est = min(est, max_side)
    got = _read_around_at(img, blob.shape, origin, f, est, unfit, specks)
    if typical is not None and not any(d.value is not None for d in got) and est < AROUND_SHORT * typical:
        # the blob may be a part of the die's outline (two lit edges of a clear die, a shaded side
        # alone), its hull far smaller than the die: the pips of a face are then too far apart
        # for the grouping at the blob's scale; looked at once more at the dice's typical size
        got = _read_around_at(img, blob.shape, origin, f, min(typical, max_side), unfit, specks)
    return got


# A blob whose hull gives a die side under this share of the typical die's is looked at around
# once more at the typical size (light 49: a clear two outlined by two edges, hull 0.55 of it).
AROUND_SHORT = 0.8
# How far, in the die's guessed sides, the pips-first look reads faces past the blob: a light die's
# top face, the table's colour, lies beside its blob (shaded side faces, shadow), its centre up to
# about 0.7 sides past the blob's box (the old window's whole reach, kept as the faces' reach) ...
AROUND_FACE_REACH = 1.0
# ... and how far its crop reaches, so such a face lies in it with the margin the look needs, about
# a side round its centre (dice_pip_squares.MARGIN: a larger die's pips cut off by the crop's edge).
# At 1.0 (the old window) light 3992's two, beside its side face, lay 0.75 sides from the crop's
# edge and was not read. The wider crop is read only where the old window read no face, and a face
# read there centred beyond AROUND_FACE_REACH is dropped: always read wider, it changed readings the
# old window made (light 3949, a clear two read as a one; 3931, 4003), and parts of neighbours'
# faces were read beyond that reach (light 52, 3987: right dice lost).
AROUND_GROW = 1.5


def _read_around_at(img: np.ndarray, shape: tuple[int, int], origin: tuple[int, int], f: float, est: float,
                    unfit: bool, specks: np.ndarray | None = None) -> list[Die]:
    """The pips-first look round a blob of ``shape`` at ``origin``, for a die ``est`` work pixels."""
    x, y = origin
    bh, bw = shape
    H, W = img.shape[0] * f, img.shape[1] * f
    # the face may lie beside its shadow or side face: the region reaches past the blob far enough
    # for a face just beyond it to be read with its margin (AROUND_GROW)
    reader = partial(read_by_pip_squares, unfit=unfit)
    got: list[Die] = []
    for reach_out in (AROUND_FACE_REACH, AROUND_GROW):
        if got and any(d.value is not None for d in got):
            break  # (the wider crop only where the window of the old reach read no face)
        grow = int(reach_out * est)
        x0, y0 = max(0, x - grow), max(0, y - grow)
        x1, y1 = min(int(W), x + bw + grow), min(int(H), y + bh + grow)
        region = np.ones((y1 - y0, x1 - x0), bool)
        got = _read_blob_at(img, region, (x0, y0), f, est / f * 0.9, reader, dilate=False, specks=specks)
        reach = AROUND_FACE_REACH * est
        got = [d for d in got if x - reach <= d.center[0] * f <= x + bw + reach
               and y - reach <= d.center[1] * f <= y + bh + reach]
    return got


def _parts_checked(readings: list[Die], around: list[Die]) -> list[Die]:
    """A one, two or three read from a loose region filled to its hull (which may cover only part
    of a light die's face, the rest like the table) checked against the pips round it: where the
    pips-first look saw a group of pips there (the whole face's), its reading replaces this one."""
    out = []
    for d in readings:
        near = [a for a in around if math.dist(a.center, d.center) < 0.5 * max(d.side_px, a.side_px)]
        if d.value not in PART_VALUES or not near or any(a.value == d.value for a in near):
            out.append(d)
            continue
        out += [a for a in near if a.value is not None] or \
            [replace(d, value=None, confidence=0.0, reason="more pips round it than its value has")]
    return out


WHOLE_FACE_LOWEST = 0.45  # a four, five or six read from a hull of a die and its shadow: its least share


#: a lone speck is never read as a one (False: the old reading, kept to measure against)
LONE_SPECKS_ARE_NOT_DICE = True


def _read_pip_clusters(img, f, fg, labels, stats, found: list[Die], min_side: float,
                       failed: list[int] = (), dice_like: list[int] = ()) -> list[Die]:
    """A second look for dice whose body hardly differs from the table (a black die on black
    felt, a white die on white paper): their pips still stand out as small round specks. Specks
    not on a die already found are grouped by distance, and each group is read as a blob."""
    sh, sw = fg.shape
    covered = np.zeros_like(fg)
    for d in found:
        if d.value is None:
            continue
        r = int(d.side_px * f * 0.75) + 2
        cx, cy = int(d.center[0] * f), int(d.center[1] * f)
        cv2.rectangle(covered, (cx - r, cy - r), (cx + r, cy + r), 255, -1)
    specks = []
    for i in range(1, len(stats)):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if 4 <= area < min_side * min_side and max(bw, bh) <= 2.2 * max(1, min(bw, bh)) and i not in dice_like:
            if not covered[y + bh // 2, x + bw // 2]:
                specks.append(i)
    if not specks:
        return []
    d = float(np.median([math.sqrt(stats[i, cv2.CC_STAT_AREA]) for i in specks]))
    mask = np.isin(labels, specks + list(failed)).astype(np.uint8) * 255
    k = max(3, int(4.2 * d)) | 1  # the two pips of a two are 3.5-4 pip widths apart
    groups = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, glabels, gstats, _ = components_with_stats(groups)
    out: list[Die] = []
    for g in range(1, n):
        x, y, bw, bh, _ = (int(v) for v in gstats[g])
        members = set(np.unique(labels[y:y + bh, x:x + bw][glabels[y:y + bh, x:x + bw] == g]).tolist())
        inside = len(members & set(specks))
        if not 1 <= inside <= 12:
            continue
        if members & set(failed):  # a die's edge or shadow with its pips: about the group's size
            est = max(bw, bh) / 1.15
        elif inside == 1 and LONE_SPECKS_ARE_NOT_DICE:
            # one speck and nothing of a die round it: a crumb, a knot in the wood or a dot of lint
            # reads as a one just as well (21 empty tables with 12 specks each gave 100 false ones)
            continue
        else:
            est = max(max(bw, bh) / 0.75 if inside > 1 else 0.0, 5.0 * d)
        if est < min_side or est > 0.45 * min(sh, sw):
            continue
        pad = int(est * 0.35) + 1
        x0, y0 = max(0, x - pad), max(0, y - pad)
        x1, y1 = min(sw, x + bw + pad), min(sh, y + bh + pad)
        hull = np.zeros((y1 - y0, x1 - x0), np.uint8)
        pts = cv2.findNonZero((glabels[y0:y1, x0:x1] == g).astype(np.uint8))
        cv2.fillConvexPoly(hull, cv2.convexHull(pts), 255)
        grow = max(3, int(est * 0.3)) | 1
        hull = cv2.dilate(hull, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow)))
        got = _read_blob(img, hull > 0, (x0, y0), f, est)
        out += [r for r in got if r.value is not None]
    return out


def _read_blob(img: np.ndarray, blob_small: np.ndarray, origin: tuple[int, int], f: float, est_small: float) -> list[Die]:
    """Read the dice in one foreground blob, at full resolution scaled to FACE_PX per die.

    The die size is a guess from the blob (several touching dice make one blob); when the dice
    read come out at another size, or nothing reads in an elongated blob, the blob is read again
    at the corrected or a smaller guess and the better result kept.
    """
    side_full = est_small / f * 0.9
    best, best_side = _read_blob_at(img, blob_small, origin, f, side_full), side_full
    # (tentative readings, the blob look's, neither set the size nor stop the retries)
    good = [d for d in best if d.value is not None and d.confidence > BLOB_CONFIDENCE]
    tries = []
    if good:
        measured = float(np.median([d.side_px for d in good]))
        if not 0.8 <= measured / side_full <= 1.25:
            tries.append(measured)
    else:
        bh, bw = blob_small.shape
        if blob_small.sum() > 1.6 * (est_small ** 2) or max(bh, bw) > 1.5 * min(bh, bw):
            tries += [side_full / math.sqrt(2), side_full / 2]
        elif blob_small.sum() >= SHADOWED_FILL * bh * bw or (SHADOWED_UNFIT and best):
            # a die with its shadow or a side face in one full blob: the die is smaller than the blob.
            # (A blob whose look saw a face but no layout may be one too, filling less of its box
            # when the die is turned; one that showed nothing may be a light die's shaded sides,
            # whose side face, read smaller, is a one where the die has another value.)
            tries += [side_full * SHADOWED_DIE] if SHADOWED_DIE else []
    done = {_crop_scale(side_full)}
    for side in tries:
        if _crop_scale(side) in done:
            # the crop's scale is capped: a smaller guess gives the same crop, read already
            continue
        done.add(_crop_scale(side))
        again = _read_blob_at(img, blob_small, origin, f, side)
        if RETRY_PARTS_GIVE_WAY and _part_of_a_tentative(again, best):
            continue
        if _counted(again) > _counted(best) or (
                _counted(again) == _counted(best) and _size_miss(again, side) < _size_miss(best, best_side)
                and (not RESCALE_SAME_PLACES or _same_places(again, best))):
            best, best_side = again, side
    return best


#: a retry at a smaller scale whose die lies on a larger value the first look read tentatively (the
#: blob look's faint marks), read smaller than it, read a part of that face and does not replace it
#: (ray 6017: a five read tentatively at 119 px, four of its pips then read as a four at 76 px with
#: a first look's confidence; False: the retry's reading kept, the old rule)
RETRY_PARTS_GIVE_WAY = True
#: ... smaller: under this share of the tentative reading's side (a four of a five's pips fits 0.64
#: of it; a face read whole at another crop scale comes out within 0.8-1.25 of it, as _read_blob's
#: own size check takes it)
RETRY_PART_SIZE = 0.85


def _part_of_a_tentative(again: list[Die], best: list[Die]) -> bool:
    """Does a sure die of ``again`` lie on a tentative reading of ``best`` of a larger value, read
    clearly smaller than it (a part of its face)?"""
    tentative = [d for d in best if d.value is not None and d.confidence <= BLOB_CONFIDENCE]
    return any(a.value is not None and a.confidence > BLOB_CONFIDENCE and a.value < t.value
               and a.side_px < RETRY_PART_SIZE * t.side_px
               and math.dist(a.center, t.center) < 0.5 * t.side_px for a in again for t in tentative)


#: a retry at another scale that reads as many dice replaces the first look only where it read them
#: at the same places (False: the old rule, kept to measure against)
RESCALE_SAME_PLACES = True


def _same_places(again: list[Die], best: list[Die]) -> bool:
    """Does every sure die of ``again`` lie within half a side of a sure die of ``best``? A retry at
    the size the first look measured re-reads the same dice at their own scale; one that reads a
    die elsewhere in the blob read another face (a tilted die's side face, whose squeezed pips fit
    a smaller face: ray 64, a one read right, then a side face's two in its place)."""
    sure = [d for d in best if d.value is not None and d.confidence > BLOB_CONFIDENCE]
    return all(any(math.dist(a.center, b.center) < 0.5 * max(a.side_px, b.side_px) for b in sure)
               for a in again if a.value is not None and a.confidence > BLOB_CONFIDENCE)


SHADOWED_DIE = 0.75  # a blob of one die and its shadow (or side face): the die's share of its side
SHADOWED_FILL = 0.6  # ... when the blob fills at least this share of its box
SHADOWED_UNFIT = True  # ... or whose look at the blob's size saw a face, no layout (False: the old rule)
MAX_CROP_SCALE = 4.0  # a blob is enlarged at most this much (a die under FACE_PX / 4 px reads smaller)


def _crop_scale(side_full: float) -> float:
    """Full-resolution pixels to the normalised crop's, for a die guessed ``side_full`` px."""
    return min(FACE_PX / max(side_full, 1.0), MAX_CROP_SCALE)


#: a blob's crop more than CROP_MOST_DICE guessed dice across is not read: the guess is far under the
#: blob (light 3563, pastel dice on a white table: only the pips are squarish blobs, so the typical die
#: side is a pip's, 19-39 px against dice of 190-293 px; a blob of a die and its shadow 520 px across,
#: scaled by MAX_CROP_SCALE, is a crop of 2,136-2,176 px, 22 guesses across, whose "faces" are the
#: table's and whose "pips" are the die's pips -- 77 of the scene's 87 s of CPU, nothing read but
#: pip-sized unread reports). Session 40 (h6): on every development scene read (light 3100-3267, ray
#: 3000-3199, the check set light 0-59 and ray 4000-4079) the readings are identical; crops refused only
#: in light 3563 (83 -> 33 s), 3267 (110 -> 92 s) and ray 3068 (6.0 -> 3.7 s). Light 3563 reads a five
#: right from a crop 15 guesses across (1,469 px), so the bound stays above that.
#: False: every crop read, the old way
CROPS_BOUNDED = True
#: ... dice across (crop pixels over FACE_PX) on the crop's longer side: over light 3563's 15 of a crop
#: that read a die right, under its 20-22 of crops that read table
CROP_MOST_DICE = 18


def _read_blob_at(img: np.ndarray, blob_small: np.ndarray, origin: tuple[int, int], f: float,
                  side_full: float, reader=None, dilate: bool = True, specks: np.ndarray | None = None) -> list[Die]:
    H, W = img.shape[:2]
    # the crop is the blob's box, not the window it came in (a loose region's window is a die
    # wider than its hull on every side: at a small die's scale its crop was 4-9 times the area)
    bx, by, bw, bh = cv2.boundingRect(blob_small.astype(np.uint8))
    if bw == 0 or bh == 0:
        return []
    blob_small = blob_small[by:by + bh, bx:bx + bw]
    x, y = origin[0] + bx, origin[1] + by
    pad = int(side_full * f * 0.3) + 2
    # blob box in full-resolution pixels
    X0, Y0 = max(0, int((x - pad) / f)), max(0, int((y - pad) / f))
    X1, Y1 = min(W, int(math.ceil((x + bw + pad) / f))), min(H, int(math.ceil((y + bh + pad) / f)))
    s = _crop_scale(side_full)  # full-res -> normalised crop
    crop = img[Y0:Y1, X0:X1]
    cw, ch = max(1, round(crop.shape[1] * s)), max(1, round(crop.shape[0] * s))
    if CROPS_BOUNDED and max(cw, ch) > CROP_MOST_DICE * FACE_PX:
        return []  # (the guess is far under the blob: CROPS_BOUNDED)
    crop = cv2.resize(crop, (cw, ch), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
    # the blob mask, in crop pixels
    m = np.zeros((int(bh + 2 * pad), int(bw + 2 * pad)), np.uint8)
    m[pad:pad + bh, pad:pad + bw] = blob_small.astype(np.uint8) * 255
    # align: small-image box (x - pad, y - pad) maps to full-res X0/Y0 up to clipping
    sx0, sy0 = X0 * f - (x - pad), Y0 * f - (y - pad)
    M = np.array([[1 / f * s, 0, -sx0 / f * s], [0, 1 / f * s, -sy0 / f * s]], np.float32)
    mask = cv2.warpAffine(m, M, (cw, ch), flags=cv2.INTER_NEAREST)
    if dilate:
        mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    if reader is None:
        readings = read_crop(crop, mask)
        if RING_HOLES_READ and any(r.hole is not None for r in readings):
            return _read_ring_holes(img, readings, (X0, Y0, X1, Y1), s)
    else:  # (a pips-first reader checks a face near the photo's edge against that edge, not the crop's)
        # (and the foreground's specks, work pixels, in the crop's)
        extra = {} if specks is None else {"specks": (specks / f - np.array([X0, Y0])) * s}
        readings = reader(crop, mask, image_edges=(X0 == 0, Y0 == 0, X1 == W, Y1 == H), **extra)
    return _as_dice(readings, X0, Y0, s)


#: a region of no pips that is a ring round a die (the table or the die's shadow taken for the
#: crop's face colour: dice_crop.RING_HOLES_KEPT) gives way to the dice read in its hole, the crop
#: made again at the hole's own scale (the blob's size guess held the shadow: the die stood at 0.6
#: of the crop's die, its face too small to be read). Nothing read there: the ring's reading stays.
#: False: the ring's reading kept, the old rule
RING_HOLES_READ = True
#: ... when every value read in the hole is at least this confident (the face reader's confidence:
#: the layout's fit, the pips' roundness and contrast). On development the hole readings that came
#: right measured 0.70-0.99 (the four dice gained: 0.70, 0.80, 0.83, 0.87); the one wrong, 0.53
#: (light 3259: a tilted, defocused blue four read as a five with a side face's pip). Set between.
HOLE_SURE = 0.6


def _read_ring_holes(img: np.ndarray, readings: list, box: tuple[int, int, int, int], s: float) -> list[Die]:
    """``readings`` of a crop of ``img`` (the box ``box`` scaled by ``s``) as dice, each ring's
    reading replaced by what its hole reads at the hole's scale when that reads a value."""
    X0, Y0, X1, Y1 = box
    out: list[Die] = []
    for r in readings:
        again = _hole_read(img, r.hole, (X0, Y0), s) if r.hole is not None else []
        read = [d for d in again if d.value is not None]
        sure = read and all(d.confidence >= HOLE_SURE for d in read)
        out += again if sure else _as_dice([r], X0, Y0, s)
    return out


def _hole_read(img: np.ndarray, hole: np.ndarray, at: tuple[int, int], s: float) -> list[Die]:
    """The dice read in ``hole`` (a mask of a crop at ``at`` scaled by ``s``) from a crop of its own
    that makes it a die across, as :func:`_read_blob_at` makes a blob (the blob's side * 0.9)."""
    H, W = img.shape[:2]
    bx, by, bw, bh = cv2.boundingRect(hole)
    side_full = math.sqrt(float(cv2.countNonZero(hole))) / s * 0.9
    s2 = _crop_scale(side_full)
    pad = side_full * 0.3 + 2
    X0, Y0 = max(0, int(at[0] + bx / s - pad)), max(0, int(at[1] + by / s - pad))
    X1 = min(W, int(math.ceil(at[0] + (bx + bw) / s + pad)))
    Y1 = min(H, int(math.ceil(at[1] + (by + bh) / s + pad)))
    crop = img[Y0:Y1, X0:X1]
    cw, ch = max(1, round(crop.shape[1] * s2)), max(1, round(crop.shape[0] * s2))
    crop = cv2.resize(crop, (cw, ch), interpolation=cv2.INTER_AREA if s2 < 1 else cv2.INTER_CUBIC)
    # (the hole, crop pixels of the first crop, in the new one's)
    k = s2 / s
    M = np.array([[k, 0, (at[0] - X0) * s2], [0, k, (at[1] - Y0) * s2]], np.float32)
    mask = cv2.warpAffine(hole, M, (cw, ch), flags=cv2.INTER_NEAREST)
    mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    return _as_dice(read_crop(crop, mask), X0, Y0, s2)


def _read_square(img: np.ndarray, centre: tuple[float, float], side: float) -> list[Die]:
    """The dice read in a disc :data:`AGAIN_DISC` ``side`` across round ``centre`` (full-resolution
    pixels), cropped as a blob is for a die ``side`` across (its side * 0.9, as blobs' are)."""
    return _read_disc(img, centre, side, AGAIN_DISC)


def _as_dice(readings: list, X0: int, Y0: int, s: float) -> list[Die]:
    """Face readings of a crop at (X0, Y0) of the photo, scaled by ``s``, as dice in the photo."""
    out = []
    for r in readings:
        cx, cy = r.center
        pips = None if r.pips is None or r.value is None else \
            tuple((X0 + p.x / s, Y0 + p.y / s, math.sqrt(p.area / math.pi) / s) for p in r.pips)
        seen = None if r.seen is None or r.value is not None else \
            tuple(((p.x - cx) / s, (p.y - cy) / s, math.sqrt(p.area / math.pi) / s) for p in r.seen)
        out.append(Die(r.value, (X0 + cx / s, Y0 + cy / s), r.confidence, r.side / s, r.reason, pips, seen))
    return out


def _dedupe(dice: list[Die]) -> list[Die]:
    out: list[Die] = []
    for d in sorted(dice, key=lambda d: (d.value is None, -d.confidence)):
        if all(math.hypot(d.center[0] - o.center[0], d.center[1] - o.center[1]) > 0.5 * max(o.side_px, d.side_px, 1)
               for o in out):
            out.append(d)
    return sorted(out, key=lambda d: (d.center[1], d.center[0]))


def read_dice_file(path: str | Path, settings: ReaderSettings | None = None) -> list[Die]:
    return read_dice(load_image(path), settings)
