"""Which sheets lie on the loch: explain one expedition's colour with its equipment shapes.

Greedy: take the biggest unexplained blob of colour, find the shape and pose that explain it best
(sheetsearch.py; poses scored on sheetgrid.py's grid), keep it, mark the colour it explains,
repeat.  Two overlapping sheets of one colour merge into one blob; the penalty for paper shown
keeps a bigger shape from spanning both, and each is found in turn.  Then sheets the others
explain anyway are dropped, and each sheet touching another is searched again against the colour
the others leave.  (sheetgroups.py can explain a merged blob by the best set of sheets instead of
its best single shape; on by default, see ``sheetgroups.GROUPS``.)  A sheet left unsure has its
cluster (it and the sheets its colour meets) explained again as a whole (sheetclusters.py).

Each sheet carries a confidence: how much better its shape explains the colour than the best
other shape does (evidence only, the cost of unseen parts aside).  A sheet whose shape is not
clearly the best, or a small one whose colour is seen running on past its outline, is reported
*unidentified* (``identified`` false), never as a type the fit is unsure of.

Pure numpy/OpenCV on masks; no I/O.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from . import sheetgroups
from .sheetgrid import EXPLAIN_GROW_MM, FitGrid, _fill, _loch_mask, washed_out_halo
from .maskparts import nonzero_yx
from .sheetland import joined
from .placement import cage_overreach_mm, three_own_overlap
from .sheetclusters import explain_again
from .sheetfit_cage_beside import cage_runs_under
from .sheetfit_cage_scrap import cage_scrap, leads_bigger
from .sheetfit_sonar_rest import sonar_unrefuted
from .sheetlayers import _LOG8, layers
from .sheetproducts import read_products
from .sheetgroups import MIN_PURITY, explain_blob, plausible_pose  # noqa: F401  (MIN_PURITY: was defined here)
from .sheetsearch import COARSE_PPM, search
from .sheets import SheetPose, place, polygon_distance, symmetry_deg

FINE_PPM = 2.0  # refinement grid: area-averaged, so a pose is good to a fraction of a pixel
MIN_SHEET_MM2 = 40.0  # less newly explained colour than this is noise or a sliver
MIN_CONFIDENCE = 0.3  # see _confidence
WEAK_CONFIDENCE = MIN_CONFIDENCE  # a sheet less sure than this has its cluster explained again (sheetclusters.py)
MIN_EDGE_SUPPORT = 0.5  # less of the band's seen part plain paper: the sheet's extent is a guess ...
EDGE_CHECK_MM2 = 400.0  # ... for sheets seen over less than this (a big one's shape tells its extent)
# The rulebook's "cages may only occupy ONE HEXAGON" as a prior when the type is not given: a fitted
# cage reaching further than this out of every hex is not named (a scrap of a bigger sheet, the rest
# lost to glare, the veil or a phone's tone curve, fits a cage anywhere; a real cage sits in its hex).
# Chosen in session 17 on the 180 development photos (measured colour): cages named right reach at
# most 0.8 mm out of their hex (pose error, the printed line), named phantom cages 1.0-3.1 mm; through
# both phones (development 500-579 + 600-639, session 19) right cages reach at most 0.83 mm.
CAGE_OVERREACH_MM = 1.5
# One sheet read twice: two sheets of one type whose poses differ by less than this (the refine's own
# spread: a few tenths of a mm, 1.7 mm at most seen) are one sheet.  Two of one expedition's sheets
# lying exactly on one another would show one outline anyway; what makes the fitter place the
# second is its colour read as two layers (sheetlayers.py) over the whole sheet -- through the
# first phone's tone curve (development 526, 608, 620: six sheets found twice, 0-1.7 mm apart;
# none with the second-layer read left out).
SAME_SHEET_MM = 2.0
SAME_SHEET_DEG = 5.0
# A sheet never shows plain paper, so a fit whose seen outline is under PAPER_FIT_SCORE colour shows
# the rest as paper: its shape does not explain the colour well.  If its lead over the next shape is
# also under PAPER_FIT_CONFIDENCE (a lead under one edge band's worth of pixels, see _confidence),
# neither shape is the sheet and it is not named.  Measured (session 23, development 500-579 +
# 600-639, as rendered and through both phones, 3,435 sheets): named fits under a score of 0.72
# are 6, the two at confidence 0.62 and 0.69 right, the four under 0.5 wrong types (566 as rendered
# at 0.689, the first phone's 551 at 0.707 and 606 at 0.717) or a typed extra (625, first phone,
# 0.676); the lowest right sheet under confidence 0.5 scores 0.72 (548 and 567, second phone).
# 0.7 sits below every right sheet measured, at the cost of the two wrong types at 0.707-0.717.
# Only when the type is not given (a lead over other shapes; live placing's known type has none).
# Off: on the lead's held-out photos (69048-69143, 909 sheets a variant) it took no wrong type away
# and left two right sheets of the second phone unidentified (69117, 69120); session 23.
PAPER_FIT_CHECK = False
PAPER_FIT_SCORE = 0.7
PAPER_FIT_CONFIDENCE = 0.5
# A transparency is a coloured filter: where two sheets of one expedition overlap, the light passes
# two filters, so the overlap reads as a second layer (sheetlayers.py) or too dark to read -- never
# plainly one layer.  Two fits whose overlap reads one layer over ONE_LAYER_SHARE of it (more than
# EXPLAIN_GROW_MM, the pose's own blur, inside its edges; at least MIN_SHEET_MM2 of it) cannot both
# be there: the one explaining less colour that no other fit explains is not named (the fits and
# coverage are untouched).  Measured (session 24, development 500-579 + 600-639, the three
# variants, overlaps with 40 mm^2 of one layer inside): two right sheets' overlaps read one layer
# over at most 0.15 of their inside (pose error); ten pairs holding a wrong type or a typed extra
# 0.26-0.66 (the rest under 0.2) -- a quarter sits between; one right sheet fitted 49 mm off its
# truth, on top of its sonar (575, as rendered and second phone), reads 0.33-0.35 and is lost.
# Only when the type is not given (as PAPER_FIT_CHECK).
LAYER_CHECK = True
ONE_LAYER_SHARE = 0.25
# Another expedition's colour darkened by a second filter is not plain paper.  Where one
# expedition's sheet lies under (or over) another's, the overlap shows the two filters' product;
# coverage's colour match codes it as the pair when it can, but a product it cannot read as the
# pair (blue under yellow: green, the Independent look-alike; red under green: brown, partly
# coded green) is coded the other expedition alone, and the fitter counted it as plain paper (at
# UNCOLOURED_COST): a sheet mostly under another colour was fitted, if at all, by the scraps of
# its own colour round the overlap (session 26: of the 46 development sheets missed as rendered,
# 10 lay mostly under other expeditions' sheets, read that way).  On: for each expedition,
# pixels the fit masks give another expedition (and not this one) and darker than that
# expedition's median there by over OTHER_DARKER_LOG are neither colour nor paper to it -- unseen,
# as glare is (they earn nothing and cost UNSEEN_COST).  All of another colour freed (a first
# draft, no darkness test) let sheets span single layers of a neighbour's colour (development
# 515: an Independent eye witness over a British camera, a wrong type).  Measured with
# SMALL_NOT_ON_FREED (development 500-579 + 600-639, 1,145 sheets; right / wrong types / typed
# extras): as rendered 1,086 / 5 / 9 -> 1,091 / 5 / 6, first phone 1,023 / 9 / 13 -> 1,025 / 9 /
# 11, second phone 1,055 / 8 / 10 -> 1,058 / 7 / 7, coverage identical; but photo by photo it
# also names new wrong types (632 as rendered: an eye witness whose edge lies under a British
# sheet fitted as an underwater camera; 559 as rendered and first phone, 601 and 609 first phone,
# 547 second phone) and new typed extras (510, 559, 630 first phone, 530 second phone) while
# taking more away.  Check set 9200-9239 (357 sheets): 337 / 3 / 3 -> 340 / 1 / 1, 318 / 3 / 8
# -> 318 / 3 / 5, 331 / 0 / 0 -> 333 / 0 / 0 (docs/board-vision.md, equipment type, nineteenth
# round, part 2).
OTHER_COLOUR_UNSEEN = True
# every filter takes at least 0.55 log of grey (Japanese yellow, the lightest: mean log of its
# (245, 215, 60)); half of that, so a filter under another shows however its dark channels clip
# (the only value tried)
OTHER_DARKER_LOG = 0.28
# an expedition's fine grid (_fine_of of its colour mask) worked out once a photo and shared by its
# own fit and its darker part (OtherColours.fine), not twice: the same array, so the same fits (a
# speed change, session 29: four of the eight a photo left)
SHARED_FINE = True
# ... but a small sheet (seen over under EDGE_CHECK_MM2: a cage) is not named where it would not
# be a plausible pose (sheetgroups.MIN_PURITY) with those pixels counted as paper again: through
# the second phone a hex of an Independent sheet read partly as the American and Japanese pair
# (its look-alike) and partly as dark green was named a cage of both (development 537, 548).
# Without it the second phone's typed extras went 10 -> 20 on development (630 five, 537 three).
SMALL_NOT_ON_FREED = True
# A sheet partly unseen (off the photo, glare, over land read as neither colour nor land) is
# searched by its gain, which charges UNSEEN_COST for every unseen pixel of an outline: of two
# shapes explaining a patch, the smaller wins unless the bigger explains clearly more.  When the
# bigger explains more colour (less paper) but loses on the unseen charge, the fit is the smaller
# and its confidence, judged on the evidence alone, is 0: unidentified.  Where the smaller lies
# inside the bigger, the bigger is the smaller and more: its evidence lead is colour seen beyond
# the smaller's outline -- a sonar whose middle is unseen (the darker overlap with its
# expedition's other sheet read dim: development 519, 541) or whose far side runs off the photo
# onto land not measured (618), fitted as the eye witness inside its seen part: the sonar's evidence
# leads by 58-83 mm^2.  On: a fit that loses to another refined shape on evidence is reported as
# that shape (its refined pose) when it lies inside it (NESTED_SHARE of its area) and that
# shape's own confidence clears MIN_CONFIDENCE (the usual naming rules then apply to it).  Only
# when the type is not given (as PAPER_FIT_CHECK), and not for a fitted cage: a cage-sized scrap
# lies inside some bigger shape wherever it is, and what that shape's evidence reads is the
# scrap's surroundings (with cages too, development gained 7 sheets right and 3 unidentified
# from missed, but named one typed extra: 612 as rendered, a scrap by glare read as an eye
# witness 74 mm off).
EVIDENCE_LEADER = True
# the fit's area inside the leader's outline: all of it but a band about 1 mm wide round its edge
# (the pose's own blur, EXPLAIN_GROW_MM; an eye witness's 1 mm band is 11 % of its area).  Measured
# (development 500-579 + 600-639, the three variants): the fits this names right lie 0.95-1.00
# inside their leader; the one it would have named a wrong type (612 second phone, an underwater
# camera against an eye witness of nearly its pose, not nested: the camera is the longer) 0.80.
NESTED_SHARE = 0.9
# (session 40) ... and for a fitted cage whose leader's unseen part reads as another film over it
# (two filters: darker than the cage's own colour), see sheetfit_cage_scrap.py
CAGE_SCRAP_LEADER = True
# (session 41) A cage named with no rival on a hex-sized scrap of colour whose band reads darker
# than the scrap and unseen -- the colour runs on under another film (two filters' product) -- does
# not show where it ends: it may be the seen corner of a bigger sheet, so it is not named
# (sheetfit_cage_beside.py).  Only when the type is not given (as PAPER_FIT_CHECK).
CAGE_BESIDE_OVERLAP_UNNAMED = True
# (session 41) ... and a fitted cage whose edge band is not seen at all (sheetgrid.edge_support: nan,
# under EDGE_SEEN_SHARE of it paper or colour -- the land past the shore, glare, another film) is not
# named: _named passes such a small fit ("no band seen: no veto"), but a cage is the shape any
# hex-sized scrap of a bigger sheet fits, and only paper seen round it shows that it ends there
# (development 13, 17 of the second generator: a sheet's corner past another film, a camera's tip on
# the land).  Only when the type is not given.  Off: true cages show no band either -- read on the
# second generator's development 0-40 and the first renderer's 500-549 (three variants) it unnamed 8
# right cages (31; 512 as rendered and both phones, 513 and 537 as rendered, 539 both phones) for 9
# typed extras: a cage's hex rim and printed line are unseen to the fitter, and a neighbouring film
# or glare can hide the rest (session 41).
CAGE_EDGE_UNSEEN_UNNAMED = False
# (session 42) A pointed fit smaller than a sonar (a surface camera, an eye witness, an underwater
# camera) lying inside a sonar whose rest -- the sonar's outline outside the fit -- holds more of
# this colour that no fit explains than plain paper, by a sheet's worth (MIN_SHEET_MM2; another
# film's colour reading darker there than that film alone is no paper: two filters' product), does
# not show that the sheet ends at its outline: it is not named (sheetfit_sonar_rest.py).  Every
# wrong type of the second generator's development 0-40 was a sonar read so, its rest under another
# film or glare (session 41).  Only when the type is not given.  Development (session 42; right /
# wrong types / typed extras): second generator 0-120 758 / 15 / 42 -> 757 / 7 / 34 (118: a right
# camera unnamed); the first renderer 500-549 as rendered unchanged, first phone 446 / 2 / 3 -> 444 /
# 1 / 3 (510, 530: a right camera beside unseen colour unnamed), second phone 449 / 3 / 3 -> 449 / 2
# / 3; coverage unchanged everywhere.
SONAR_REST_UNNAMED = True
# A fit's confidence is its evidence lead over the runner-up (the best other refined shape), and
# the two shapes differ only where their outlines do.  Where the runner-up's own part (its outline
# outside the fit's) shows this expedition's colour that no other fitted sheet explains, the
# photo does not refute the runner-up: each shape explains colour the other leaves, and the lead
# says only which explains more (a merged blob of two sheets, a sheet half under glare or under
# its own kind, fitted by a third shape).  On: a fit is not named when its runner-up's own part
# holds such colour of at least its evidence lead and at least MIN_SHEET_MM2 (the least colour the
# fitter takes for a sheet at all): the colour the fit would leave unexplained where the runner-up
# lies outweighs what it leads by.  No new number.  Only when the type is not given (as
# PAPER_FIT_CHECK).  Chosen after seeing development 500-579 + 600-639 (the three variants, with
# coverage.VEIL_FADE_ONLY_NEAR_GLARE off and on): of the named fits with a runner-up (3,054 right,
# 31 wrong types or typed extras, fade off), it leaves unnamed 11 of the 31 (12 of 32 with the fade
# on: 530's wrong type through the first phone) and 4 right ones (532 second phone, 559, 606 and
# 609 first phone); a variant that also asked for a confidence under 0.5 left one right sheet
# unnamed and 9 harmful ones, not 530's (its confidence 0.50) (docs/board-vision.md, equipment
# type, twenty-fifth round, part 1).  Read once at the end, the rule on (right / wrong types / typed
# extras, the three variants summed; fade off, on the same photos with it on): fresh 820-879 (1,608
# sheets) 1,511 / 5 / 14 -> 1,508 / 4 / 10; check 9200-9239 (1,071) 1,007 / 3 / 4 -> 1,007 / 1 / 3;
# none added anywhere, coverage identical on every photo.
RUNNER_UP_CHECK = True


# A sheet under or over another (of its expedition or another) shows the fitter little but scraps:
# coverage leaves the overlap, two filters' product, unseen when it cannot read it as a colour or a
# known pair (session 34: of the 70 development readings missed with at least half of the sheet
# under or over others and some colour near, the overlap with other expeditions' sheets was 93 %
# unseen to the fitter and 1 % paper; the true poses were plausible already but earned too little
# colour).  On: the pixels the fitter cannot see are read from the photo as the products of two
# expeditions' one-layer colours (sheetproducts.py), and a product holding this expedition counts
# as its colour.  Coverage is untouched: only the fitter's input.  Development (1,145 sheets a
# variant; right / wrong types / typed extras): as rendered 1,093 / 2 / 5 -> 1,097 / 2 / 3, first
# phone 1,050 / 5 / 11 -> 1,051 / 3 / 10, second phone 1,072 / 5 / 5 -> 1,073 / 5 / 4, missed
# 149 -> 137; but on photos never tuned on (fresh 940-999 and check 9200-9239, 913 sheets a
# variant) right +4 and wrong types 3 gone, 4 added (952 and 986 second phone, 9206 and 9210 first
# phone): the helper's advice is to merge it off unless the lead's held-out photos say otherwise
# (docs/board-vision.md, twenty-seventh round, part 1).  Merged off: wrong types are the harmful
# error, and where it was never tuned it added as many as it removed.  Its tests turn it on.
FILTER_PRODUCTS = False
# ... the products may place a sheet, not name it: a fit whose type leads its runner-up only by
# the product pixels (counted unseen again, it does not lead) is reported unidentified
PRODUCTS_DO_NOT_NAME = True
# ... and a fit holding at least MIN_SHEET_MM2 of product pixels is not named when paper shows on
# more than a tenth of its seen outline (its score under this): the product colour lets a bigger
# shape reach over paper.  Chosen after seeing development: without it the second phone's 612 names
# an underwater camera a sonar (score 0.88); with it 8 right sheets scoring 0.83-0.90 (515 and 610
# first phone, 566 as rendered twice, 612 both phones, 615 and 621 second phone) are left
# unidentified; None: no check
PRODUCT_FIT_SCORE = 0.9


@dataclass
class FittedSheet:
    pose: SheetPose
    score: float  # fraction of the visible outline that shows the colour (1 = perfect)
    visible_mm2: float  # area of the outline inside the measured, seen part of the board
    confidence: float = 1.0  # lead of this shape over the best other shape (0 = a tie, 1 = no rival)
    identified: bool = True  # False: a sheet is there, but which equipment is not clear
    edge_seen: float = 1.0  # share of the seen band just outside the outline that is plain paper (nan: unseen)

    def to_json(self) -> dict:
        return {**self.pose.to_json(), "fit": round(self.score, 3), "visible_mm2": round(self.visible_mm2, 1),
                "confidence": round(self.confidence, 3), "edge_seen": None if np.isnan(self.edge_seen) else round(self.edge_seen, 3),
                "identified": self.identified}

@dataclass(frozen=True)
class SeenGrid:
    """What one photo's expeditions share on the fine grid (see :func:`prepare_seen`)."""

    seen: np.ndarray  # share of each fine pixel seen (plain paper or colour), padded to whole coarse pixels
    halo: np.ndarray | None  # sheetgrid.washed_out_halo of it
    k: int  # input pixels per fine pixel
    source_shape: tuple  # the input masks' shape
    land: object = None  # sheetland.LandMeasure of the land round the loch, when measured


def prepare_seen(box, seen: np.ndarray, x0: float, y0: float, ppm: float, land=None) -> SeenGrid:
    """The seen mask on the fitter's fine grid, and the halo round what is unseen: the same for
    every expedition of a photo, so worked out once (``fit_expedition`` takes it for ``seen``).

    ``land``: sheetland.measure's reading of the land round the loch (on the fine grid, from the
    same corner), whose seen part is added; without it the land is unseen."""
    k, kc = _blocks(ppm)
    S = _fine(seen, k, kc)
    if land is not None:
        if abs(ppm / k - land.ppm) > 1e-9:
            raise ValueError(f"the land is measured at {land.ppm} px/mm, the fitter's fine grid is {ppm / k}")
        S = np.maximum(S, _padded(land.seen, S.shape))
    ppm_fine = ppm / k
    key = (tuple(map(tuple, np.round(np.asarray(box.loch.shore_outline, float), 6))), float(x0), float(y0),
           float(ppm_fine), S.shape)
    halo = washed_out_halo(S, _loch_mask(*key, kc), ppm_fine, kc)
    return SeenGrid(S, halo, k, seen.shape, land)


class OtherColours:
    """One photo's expeditions' colour masks (for OTHER_COLOUR_UNSEEN) and, worked out once for each,
    the part of each colour the photo reads darker than that colour's median over the whole photo
    by over OTHER_DARKER_LOG (another filter under or over it).  Every expedition's fit wants the
    other three's: worked out per fit, each mask's part was worked out three times a photo (about a
    sixth of a 12 MP photo's fitting, session 28).  The photo's fits share one, in threads."""

    def __init__(self, masks: dict):
        self.masks = dict(masks)
        self._parts: dict = {}
        self._fines: dict = {}
        self._locks = {e: threading.RLock() for e in self.masks}
        self._products = None
        self._products_lock = threading.Lock()

    def fine(self, e, k: int, kc: int) -> np.ndarray:
        """``_fine_of`` of expedition ``e``'s mask, worked out once (SHARED_FINE): its darker part and
        its own fit both start from it (read-only: a fit changing it takes a copy)."""
        with self._locks[e]:
            if (e, k, kc) not in self._fines:
                self._fines[e, k, kc] = _fine_of(self.masks[e], k, kc)
                self._fines[e, k, kc].flags.writeable = False
            return self._fines[e, k, kc]

    def holds(self, e, colour) -> bool:
        """Is ``colour`` the mask kept for ``e`` (the same array, or a LazyMask of it)?"""
        mine = self.masks.get(e)
        return mine is not None and getattr(mine, "work", mine) is getattr(colour, "work", colour)

    def darker(self, e, photo, k: int, kc: int) -> np.ndarray:
        """Expedition ``e``'s darker part: on the fine grid, each pixel's share of that colour, 0 off it."""
        with self._locks[e]:  # two fits asking at once: worked out once
            if e not in self._parts:
                O = self.fine(e, k, kc) if SHARED_FINE else _fine_of(self.masks[e], k, kc)
                self._parts[e] = _darker_part(photo, O, k, kc)
            return self._parts[e]

    def products(self, photo, seen: np.ndarray, k: int, kc: int, ppm: float) -> tuple[dict, dict]:
        """sheetproducts.read_products of this photo (FILTER_PRODUCTS), worked out once for its fits."""
        with self._products_lock:
            if self._products is None:
                masks = {e: self.fine(e, k, kc) for e in self.masks}
                self._products = read_products(photo, masks, seen, ppm)
            return self._products

    def over(self, photo, k: int, kc: int, cut: tuple, but=None) -> np.ndarray:
        """Over a cut ``r0, r1, c0, c1`` of the fine grid: the share of each pixel that is the darker
        part of any expedition's colour but ``but``'s."""
        r0, r1, c0, c1 = cut
        out = np.zeros((r1 - r0, c1 - c0), np.float32)
        for e in self.masks:
            if e != but:
                part = self.darker(e, photo, k, kc)[r0:r1, c0:c1]
                h, w = part.shape
                np.maximum(out[:h, :w], part, out=out[:h, :w])
        return out


def _darker_part(photo, O: np.ndarray, k: int, kc: int) -> np.ndarray:
    """A colour mask's pixels (whole fine pixels of it, in the photo) darker than the colour's median
    over the whole photo by over OTHER_DARKER_LOG, as their shares of the colour; 0 elsewhere.
    ``O``: the mask's shares on the fine grid (``_fine_of``)."""
    H, W = photo.valid.shape
    whole = (O[:H, :W] >= 0.99) & photo.valid[:O.shape[0], :O.shape[1]]
    out = np.zeros(whole.shape, np.float32)
    ys, xs = nonzero_yx(whole[::3, ::3])  # the colour's median from a ninth of its pixels
    if not len(ys):
        return out
    level = float(np.median(_grey(photo, ys * 3, xs * 3)))
    ys, xs = nonzero_yx(whole)
    dark = _grey(photo, ys, xs) < level - OTHER_DARKER_LOG
    out[ys[dark], xs[dark]] = O[ys[dark], xs[dark]]
    return out


def _small_on_freed(grid: FitGrid, shape, x, y, ang, freed) -> bool:
    """Is a sheet small (under EDGE_CHECK_MM2 of its outline seen) and plausible only because
    another colour's darkened pixels were freed (OTHER_COLOUR_UNSEEN: SMALL_NOT_ON_FREED)?"""
    if freed is None:
        return False
    wgt, win = grid._weights(shape, x, y, ang)
    if wgt is None:
        return False
    colour = float(np.vdot(grid.C[win], wgt)) / 255
    paper = float(np.vdot(grid.B[win], wgt)) / 255
    back = float(np.vdot(freed[win], wgt)) / 255
    if colour + paper >= EDGE_CHECK_MM2 * grid.ppm ** 2 or back <= 0:
        return False
    return colour < MIN_PURITY * (colour + paper + back)


def _grey(photo, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """Mean log colour of the photo's pixels against the drawn board's (sheetlayers' units)."""
    at = ys * photo.warped.shape[1] + xs
    px = np.take(photo.warped.reshape(-1, 3), at, axis=0)
    L = _LOG8[px] - np.take(photo.log_reference.reshape(-1, 3), at, axis=0)
    return (L[:, 0] + L[:, 1] + L[:, 2]) / np.float32(3)


def _padded(mask: np.ndarray, shape) -> np.ndarray:
    """A bool mask as float32 shares on a grid of ``shape`` (cropped or padded with zeros)."""
    out = np.zeros(shape, np.float32)
    h, w = min(shape[0], mask.shape[0]), min(shape[1], mask.shape[1])
    out[:h, :w] = mask[:h, :w]
    return out


def _blocks(ppm: float) -> tuple[int, int]:
    """(input pixels per fine pixel, fine pixels per coarse pixel)."""
    return max(1, int(round(ppm / FINE_PPM))), max(1, int(round(FINE_PPM / COARSE_PPM)))


def _fine(mask: np.ndarray, k: int, kc: int) -> np.ndarray:
    """A bool mask as the share of each fine pixel (whole blocks of ``k`` input pixels) it covers,
    padded with zeros to whole coarse pixels (``kc`` fine pixels a side)."""
    h, w = (mask.shape[0] // k) * k, (mask.shape[1] // k) * k
    m = mask[:h, :w]
    if m.dtype != bool:  # shares already: averaged as floats
        out = cv2.resize(m.astype(np.float32), (w // k, h // k), interpolation=cv2.INTER_AREA)
        return cv2.copyMakeBorder(out, 0, -out.shape[0] % kc, 0, -out.shape[1] % kc, cv2.BORDER_CONSTANT, value=0.0)
    m = m.view(np.uint8)
    # block means in bytes, exact: every input pixel weighs a whole number of steps (a quarter of
    # the float work of resizing the mask as floats)
    step = 255 // (k * k)
    if k > 1:
        m = cv2.resize(m * np.uint8(step * k * k), (w // k, h // k), interpolation=cv2.INTER_AREA)
    out = m.astype(np.float32) * np.float32(1.0 / (step * k * k) if k > 1 else 1.0)
    return cv2.copyMakeBorder(out, 0, -out.shape[0] % kc, 0, -out.shape[1] % kc, cv2.BORDER_CONSTANT, value=0.0)


def _fine_of(colour, k: int, kc: int) -> np.ndarray:
    """:func:`_fine` of a mask, or of a coverage.LazyMask (a 3 px/mm mask standing for its 4 px/mm
    scaling): then straight from the 3 px/mm pixels when the grids allow (see _fine_from_thirds)."""
    work = getattr(colour, "work", None)
    if work is None:
        return _fine(colour, k, kc)
    (h, w), (H, W) = work.shape, colour.shape
    if k == 2 and h % 3 == 0 and w % 3 == 0 and (H, W) == (h // 3 * 4, w // 3 * 4):
        return _fine_from_thirds(work, kc)
    return _fine(colour.full(), k, kc)


def _fine_from_thirds(work: np.ndarray, kc: int) -> np.ndarray:
    """``_fine(up(work), 2, kc)`` for a bool mask ``work`` scaled up by 4/3 (coverage's 3 -> 4 px/mm,
    nearest pixel: 4 px/mm pixel d takes 3 px/mm pixel floor((d + 0.5) 3 / 4)), without the 4 px/mm
    mask: a fine pixel (2 x 2 of those) counts 3 px/mm rows 3t, 3t + 1 (fine row 2t) or 3t + 1, 3t + 2
    (row 2t + 1), columns alike.  The same shares, bit for bit (counts times 63 as uint8, made float
    and scaled as _fine does), for half the time of scaling up and averaging."""
    m = work.view(np.uint8)
    h, w = m.shape
    rows = np.empty((h // 3 * 2, w), np.uint8)
    np.add(m[0::3], m[1::3], out=rows[0::2])
    np.add(m[1::3], m[2::3], out=rows[1::2])
    count = np.empty((h // 3 * 2, w // 3 * 2), np.uint8)
    np.add(rows[:, 0::3], rows[:, 1::3], out=count[:, 0::2])
    np.add(rows[:, 1::3], rows[:, 2::3], out=count[:, 1::2])
    step = 255 // 4  # as _fine: each of the four input pixels weighs a whole number of steps
    count *= np.uint8(step)
    out = count.astype(np.float32) * np.float32(1.0 / (step * 4))
    return cv2.copyMakeBorder(out, 0, -out.shape[0] % kc, 0, -out.shape[1] % kc, cv2.BORDER_CONSTANT, value=0.0)


def fit_expedition(box, expedition: str, colour: np.ndarray, seen, x0: float, y0: float,
                   ppm: float, candidates=None, max_sheets: int = 12,
                   unidentified: bool = False, double: np.ndarray | None = None,
                   others=None, unseen=None) -> list[FittedSheet]:
    """Fit sheets to one expedition's colour mask (bool, on a grid at ``ppm`` from (x0, y0) mm).

    ``seen``: the bool mask of what is seen, or :func:`prepare_seen`'s answer for it (a photo's
    expeditions share it).  Only sheets whose equipment is clear are returned, unless
    ``unidentified`` asks for the others too (``FittedSheet.identified`` false): a caller that
    credits evidence by equipment must not take their type at its word.

    ``others``: the other expeditions' colour masks (as ``colour``), for ``OTHER_COLOUR_UNSEEN``
    (needs the photo: ``seen.land.photo``), or an :class:`OtherColours` of the photo's expeditions
    (this one's own mask in it is passed over) that the photo's fits share.

    ``unseen``: a mask (as ``colour``) of what is neither this expedition's colour nor paper to it
    though seen (coverage's ``fit_unseen``: colourmasks.DOUBT_UNSEEN_TO_PAIR), or None.
    """
    types = list(candidates or box.equipment)
    shapes = {t: tuple(map(tuple, box.equipment[t].shape)) for t in types}
    k, kc = _blocks(ppm)
    if not isinstance(seen, SeenGrid):
        seen = SeenGrid(_fine(seen, k, kc), False, k, seen.shape)
    if seen.k != k or seen.source_shape != colour.shape:
        raise ValueError(f"the seen grid ({seen.source_shape}, {seen.k}) does not match the colour mask "
                         f"({colour.shape}, {k})")
    if SHARED_FINE and isinstance(others, OtherColours) and others.holds(expedition, colour):
        C = others.fine(expedition, k, kc).copy()  # (changed in place below)
    else:
        C = _fine_of(colour, k, kc)
    S = seen.seen
    if seen.land is not None and seen.land.colour[expedition].any():
        # colour on the land counts where it joins this colour in the loch; the rest of it is
        # neither colour nor plain land to this expedition
        land = seen.land.colour[expedition]
        on = joined(land, C)
        h, w = min(C.shape[0], on.shape[0]), min(C.shape[1], on.shape[1])
        np.maximum(C[:h, :w], on[:h, :w], out=C[:h, :w])  # in place: C is this call's own (memory)
        off = land & ~on
        if off.any():
            S = S.copy()  # shared by the photo's expeditions: changed for this one only
            S[:h, :w] -= off[:h, :w]
    rows = np.flatnonzero(C.any(1))
    if not len(rows):
        return []  # no colour at all: no grid to build (an expedition with no sheet out yet)
    # only the part of the grid a sheet touching this colour can reach: every whole-grid step
    # (the paper's cost, block means, blob labels) costs in proportion
    r0, r1, c0, c1 = _reach_of(rows, np.flatnonzero(C.any(0)), shapes.values(), ppm / k, 2 * kc, C.shape)
    halo = seen.halo if seen.halo is None or seen.halo is False else seen.halo[r0:r1, c0:c1]
    C, S = C[r0:r1, c0:c1], S[r0:r1, c0:c1]
    D = single = None
    if double is not None and double.any():
        D = np.minimum(_fine(double, k, kc)[r0:r1, c0:c1], C)
    elif seen.land is not None and getattr(seen.land, "photo", None) is not None:
        # two of this expedition's sheets overlapping, read from the photo's darker overlap (and,
        # for LAYER_CHECK, where it reads plainly one layer)
        D, single = layers(seen.land.photo, expedition, C, r0, c0, ppm / k, single=LAYER_CHECK)
    B = np.maximum(S - C, 0.0)
    photo = getattr(seen.land, "photo", None) if seen.land is not None else None
    freed = products = None
    if OTHER_COLOUR_UNSEEN and others and photo is not None:
        if not isinstance(others, OtherColours):
            others = OtherColours(dict(enumerate(others)))
        freed = np.minimum(others.over(photo, k, kc, (r0, r1, c0, c1), but=expedition), B)
        B = B - freed
    if unseen is not None:  # a look-alike part doubtful to coverage: maybe this colour, maybe not
        B = B - np.minimum(_fine_of(unseen, k, kc)[r0:r1, c0:c1], B)
    if FILTER_PRODUCTS and others and photo is not None:  # overlaps coverage left unread
        C, B, D, products = _with_products(others, photo, seen, expedition, (k, kc, ppm / k), (r0, r1, c0, c1), C, B, D)
    grid = FitGrid(C, B, x0 + c0 * k / ppm, y0 + r0 * k / ppm, ppm / k, kc, D)
    grid.land_seen = seen.land is not None
    grid.set_shore(np.asarray(box.loch.shore_outline, float), {shapes[t] for t in types if box.equipment[t].pointed},
                   halo, (r0, c0, seen.seen.shape))
    min_px = MIN_SHEET_MM2 * grid.ppm ** 2
    placed = _greedy(grid, shapes, min_px, max_sheets)
    placed = _prune(grid, shapes, placed, min_px)
    placed = explain_again(grid, shapes, placed, lambda i: _weak(grid, shapes, placed, i), min_px,
                           lambda sheets: not three_own_overlap(box, [SheetPose(expedition, *s[:4]) for s in sheets]))
    placed = _one_of_each_twin(shapes, placed)
    out: list[FittedSheet] = []
    refit: set = set()
    cut_others = others  # (the loop below names its own ``others``)
    for i, (eq, x, y, ang, refined) in enumerate(placed):
        others = [p for j, p in enumerate(placed) if j != i]
        grid.reset(others, shapes)
        # touching or overlapping a sheet found after it (or one fitted again since): fit it again
        # against the colour the others leave (the greedy order may have let a big shape straddle
        # two sheets before the second was known; sheets known before it were explained already).
        # Not a sheet whose own gain the others left as it was: they took none of its colour, and
        # no rival gained any (the colour left only shrinks, unless a sheet fitted again moved off
        # some), so the search would find what it found (on 120 dev photos: the same sheets, ~3 %
        # fewer template matches and pose scores)
        if any(_near(shapes[eq], (x, y, ang), shapes[q[0]], q[1:4])
               for j, q in enumerate(placed) if j > i or j in refit) and not _unchanged(grid, shapes[eq], refined[eq]):
            refit.add(i)
            found = search(grid, shapes, grid.bbox(shapes[eq], x, y, ang))
            if found is None:
                continue
            refined, eq = found
            x, y, ang = refined[eq][1]
            placed[i] = (eq, x, y, ang, refined)
        gain = refined[eq][0]
        good, visible = grid.coverage(shapes[eq], x, y, ang)
        if gain < min_px:
            continue
        confidence = _confidence(grid, shapes, refined, eq, visible)
        if EVIDENCE_LEADER and len(types) > 1 and confidence < MIN_CONFIDENCE and eq != "cage":
            eq, x, y, ang, confidence, good, visible = _evidence_leader(grid, shapes, refined, (eq, x, y, ang),
                                                                        confidence, good, visible)
        elif EVIDENCE_LEADER and CAGE_SCRAP_LEADER and len(types) > 1 and confidence < MIN_CONFIDENCE:
            # a cage-sized scrap of a sheet whose rest lies under another film (sheetfit_cage_scrap.py)
            fit = _evidence_leader(grid, shapes, refined, (eq, x, y, ang), confidence, good, visible)
            if (fit[0] != eq and leads_bigger(grid, shapes, refined, fit[0], eq, min_px)
                    and cage_scrap(grid, shapes[eq], (x, y, ang), shapes[fit[0]], fit[1:4], photo, r0, c0,
                                   _other_colour(cut_others, expedition, k, kc, (r0, r1, c0, c1)))):
                eq, x, y, ang, confidence, good, visible = fit
        edge = grid.edge_support(shapes[eq], x, y, ang)
        pose = SheetPose(expedition, eq, round(x, 2), round(y, 2), round(ang % 360.0, 2))
        if any(_twins(shapes, (eq, x, y, ang), (f.pose.equipment, f.pose.x, f.pose.y, f.pose.angle_deg)) for f in out):
            continue  # refitted onto a sheet already reported
        score = float(good / max(visible, 1e-9))
        named = (_named(confidence, edge, visible / grid.ppm ** 2) and not (len(types) > 1 and _cage_astray(box, pose))
                 and not (len(types) > 1 and _paper_shown(score, confidence))
                 and not (RUNNER_UP_CHECK and len(types) > 1 and _runner_up_unrefuted(grid, shapes, refined, eq))
                 and not (SMALL_NOT_ON_FREED and _small_on_freed(grid, shapes[eq], x, y, ang, freed))
                 and not (CAGE_EDGE_UNSEEN_UNNAMED and len(types) > 1 and eq == "cage" and math.isnan(edge))
                 and not (CAGE_BESIDE_OVERLAP_UNNAMED and len(types) > 1 and eq == "cage"
                          and cage_runs_under(grid, shapes[eq], (x, y, ang), photo, r0, c0))
                 and not (PRODUCTS_DO_NOT_NAME and len(types) > 1 and _named_by_products(grid, shapes, refined, eq, products))
                 and not (len(types) > 1 and _paper_on_products(grid, shapes[eq], (x, y, ang), score, products)))
        if (named and SONAR_REST_UNNAMED and len(types) > 1
                and sonar_unrefuted(grid, shapes, refined, eq, (x, y, ang), photo, r0, c0,
                                    lambda: _other_colour(cut_others, expedition, k, kc, (r0, r1, c0, c1)),
                                    NESTED_SHARE, min_px, [q[1:4] for q in others if q[0] == "sonar"])):
            named = False
        out.append(FittedSheet(pose, score, visible / grid.ppm ** 2, float(confidence), named, edge))
    if LAYER_CHECK and single is not None and len(types) > 1:
        for i in _one_layer_overlaps(grid, shapes, out, single):
            out[i].identified = False
    return out if unidentified else [f for f in out if f.identified]


def _with_products(others, photo, seen, expedition, grids: tuple, cut: tuple, C, B, D):
    """FILTER_PRODUCTS: (C, B, D) with the pixels read as a product holding ``expedition`` counted
    as its colour (and, read as two layers of it, as a second layer).  ``grids``: (k, kc, fine
    px/mm); ``cut``: the fit's rows and columns of the fine grid."""
    if not isinstance(others, OtherColours):
        others = OtherColours(dict(enumerate(others)))
    colour, double = others.products(photo, seen.seen, *grids)
    if expedition not in colour:
        return C, B, D, None
    r0, r1, c0, c1 = cut
    part = _padded(colour[expedition][r0:r1, c0:c1], C.shape)
    two = _padded(double[expedition][r0:r1, c0:c1], C.shape)
    B = np.maximum(B - part, 0.0)
    C = np.maximum(C, part)
    D = two if D is None else np.maximum(D, two)
    return C, B, D, part


def _paper_on_products(grid: FitGrid, shape, pose: tuple, score: float, products) -> bool:
    """PRODUCT_FIT_SCORE: does a fit holding at least MIN_SHEET_MM2 of product pixels show paper on
    more than the allowed share of its seen outline?"""
    if products is None or PRODUCT_FIT_SCORE is None or score >= PRODUCT_FIT_SCORE:
        return False
    wgt, win = grid._weights(shape, *pose)
    held = 0.0 if wgt is None else float(np.vdot(products[win], wgt)) / 255
    return held >= MIN_SHEET_MM2 * grid.ppm ** 2


def _named_by_products(grid: FitGrid, shapes, refined, eq, products) -> bool:
    """PRODUCTS_DO_NOT_NAME: would the fit's type lose its lead were the product pixels unseen
    again?  Poses as _confidence weighs them."""
    if products is None:
        return False

    def without(t):
        wgt, win = grid._weights(shapes[t], *refined[t][1])
        lost = 0.0 if wgt is None else float(np.vdot(grid.U[win] * products[win], wgt)) / 255
        return grid.evidence(shapes[t], *refined[t][1]) - lost
    rivals = [without(t) for t in refined if t != eq]
    return bool(rivals) and without(eq) - max(max(rivals), 0.0) <= 0


def _evidence_leader(grid: FitGrid, shapes, refined, fit: tuple, confidence: float, good: float, visible: float):
    """EVIDENCE_LEADER: the refined shape leading on evidence, when the fit ((type, x, y, angle))
    lies inside it and it leads clearly; else the fit as it was.  Returns (type, x, y, angle,
    confidence, coloured and visible pixels)."""
    eq, x, y, ang = fit
    lead = max(refined, key=lambda t: grid.evidence(shapes[t], *refined[t][1]))
    if lead == eq:
        return eq, x, y, ang, confidence, good, visible
    lx, ly, la = refined[lead][1]
    mine = place(shapes[eq], x, y, ang).astype(np.float32)
    inside = cv2.intersectConvexConvex(mine, place(shapes[lead], lx, ly, la).astype(np.float32))[0]
    if inside < NESTED_SHARE * cv2.contourArea(mine):
        return eq, x, y, ang, confidence, good, visible
    lgood, lvisible = grid.coverage(shapes[lead], lx, ly, la)
    lconf = _confidence(grid, shapes, refined, lead, lvisible)
    if lconf < MIN_CONFIDENCE:
        return eq, x, y, ang, confidence, good, visible
    return lead, lx, ly, la, lconf, lgood, lvisible


def _other_colour(others, expedition, k: int, kc: int, cut: tuple):
    """The other expeditions' colour (shares, the most of any) over a cut of the fine grid, or None
    (CAGE_SCRAP_LEADER: a cage's leader hidden beside another film)."""
    if not isinstance(others, OtherColours):
        return None
    r0, r1, c0, c1 = cut
    out = np.zeros((r1 - r0, c1 - c0), np.float32)
    for e in others.masks:
        if e != expedition:
            part = others.fine(e, k, kc)[r0:r1, c0:c1]
            h, w = part.shape
            np.maximum(out[:h, :w], part, out=out[:h, :w])
    return out


def _one_layer_overlaps(grid: FitGrid, shapes, fits: list, single: np.ndarray) -> set:
    """Indices of the fits refused a name by LAYER_CHECK: of any two fits whose overlap, more than
    EXPLAIN_GROW_MM inside its edges, reads plainly one layer over at least MIN_SHEET_MM2 and
    ONE_LAYER_SHARE of it, the one explaining less colour that no other fit explains."""
    h, w = grid.C.shape
    masks = [_fill(grid._poly(shapes[f.pose.equipment], f.pose.x, f.pose.y, f.pose.angle_deg), (h, w)) > 0
             for f in fits]
    if len(masks) < 2:
        return set()
    count = np.sum(masks, axis=0)
    # the colour each fit alone explains: the set without it loses that much
    alone = [float(grid.C[m & (count == 1)].sum()) for m in masks]
    k = int(round(EXPLAIN_GROW_MM * grid.ppm)) * 2 + 1
    kernel = np.ones((k, k), np.uint8)
    min_px = MIN_SHEET_MM2 * grid.ppm ** 2
    refused = set()
    for i in range(len(masks)):
        for j in range(i + 1, len(masks)):
            both = masks[i] & masks[j]
            if not both.any():
                continue
            inner = cv2.erode(both.view(np.uint8), kernel) > 0
            one = float(np.count_nonzero(single & inner))
            if one >= min_px and one >= ONE_LAYER_SHARE * np.count_nonzero(inner):
                refused.add(i if alone[i] < alone[j] else j)
    return refused


UNCHANGED = 0.005  # see _unchanged
REACH_SPARE_MM = 4.0  # past a sheet's outline the fitter looks at its edge band (2 mm) and blurred edge (1 mm)


def _reach_of(rows, cols, shapes, ppm: float, block: int, shape) -> tuple[int, int, int, int]:
    """(r0, r1, c0, c1) of the grid any sheet touching the colour (its rows and columns) can
    reach: a sheet overlapping a coloured pixel lies within its longest chord of it.  Cut at
    multiples of ``block`` (the block means of the coarse searches stay the same blocks)."""
    chord = max(_chord(tuple(map(tuple, sh))) for sh in shapes)
    m = int(math.ceil((chord + REACH_SPARE_MM) * ppm))
    r0, c0 = max(int(rows[0]) - m, 0) // block * block, max(int(cols[0]) - m, 0) // block * block
    r1, c1 = min(int(rows[-1]) + 1 + m, shape[0]), min(int(cols[-1]) + 1 + m, shape[1])
    # the end rounded up to whole blocks too, unless that runs off the grid
    r1 = min(-(-r1 // block) * block, shape[0])
    c1 = min(-(-c1 // block) * block, shape[1])
    return r0, r1, c0, c1


@lru_cache(maxsize=64)
def _chord(shape: tuple) -> float:
    pts = np.asarray(shape, float)
    return float(np.linalg.norm(pts[:, None] - pts[None], axis=-1).max())


def _unchanged(grid: FitGrid, shape, fit) -> bool:
    """Is a fitted sheet's gain what it was when it was found (to ``UNCHANGED`` of it)?"""
    gain, pose = fit
    return abs(grid.gain(shape, *pose) - gain) <= UNCHANGED * max(gain, 1.0)


def _named(confidence: float, edge_seen: float, visible_mm2: float) -> bool:
    """Is the type clear enough to report?  A small patch must also show where it ends: a scrap of
    a bigger sheet (the rest lost to glare or to the colour measurement) looks like a cage."""
    if confidence < MIN_CONFIDENCE:
        return False
    # colour seen running on past the outline: the sheet does not end there (no band seen: no veto)
    return visible_mm2 > EDGE_CHECK_MM2 or not edge_seen < MIN_EDGE_SUPPORT


def _runner_up_unrefuted(grid: FitGrid, shapes, refined, eq) -> bool:
    """Does a fit's runner-up explain, in its own part, colour no fitted sheet explains of at least
    the fit's evidence lead and MIN_SHEET_MM2 (RUNNER_UP_CHECK)?  Poses as _confidence weighs
    them (``refined``)."""
    rivals = [(grid.evidence(shapes[t], *pose), t) for t, (_g, pose) in refined.items() if t != eq]
    if not rivals:
        return False  # no other shape refined: no runner-up to tell it from
    rival_evidence, rival = max(rivals)
    lead = grid.evidence(shapes[eq], *refined[eq][1]) - rival_evidence
    own = grid.colour_outside(shapes[rival], refined[rival][1], shapes[eq], refined[eq][1])
    return own >= max(lead, MIN_SHEET_MM2 * grid.ppm ** 2)


def _paper_shown(score: float, confidence: float) -> bool:
    """Does a fit show too much plain paper for a sheet, with no clear lead either (PAPER_FIT_CHECK)?"""
    return PAPER_FIT_CHECK and score < PAPER_FIT_SCORE and confidence < PAPER_FIT_CONFIDENCE


def _twins(shapes, a: tuple, b: tuple) -> bool:
    """Are two placed sheets ((type, x, y, angle, ...)) one sheet read twice (see SAME_SHEET_MM)?"""
    if a[0] != b[0] or math.hypot(a[1] - b[1], a[2] - b[2]) >= SAME_SHEET_MM:
        return False
    period = symmetry_deg(shapes[a[0]])
    turn = (a[3] - b[3]) % period
    return min(turn, period - turn) < SAME_SHEET_DEG


def _one_of_each_twin(shapes, placed: list[tuple]) -> list[tuple]:
    """``placed`` without the later of any two sheets that are one sheet read twice."""
    kept: list[tuple] = []
    for p in placed:
        if not any(_twins(shapes, p, q) for q in kept):
            kept.append(p)
    return kept


def _cage_astray(box, pose: SheetPose) -> bool:
    """A cage the rules would not allow where it is fitted ("cages may only occupy ONE HEXAGON"):
    more likely a scrap of another sheet than a cage, so not named.  Only when the type is not
    given: live placing names the cage it expects and must see one laid over two hexes to report
    the broken rule."""
    return pose.equipment == "cage" and cage_overreach_mm(box, pose) > CAGE_OVERREACH_MM


def _near(shape_a, pose_a, shape_b, pose_b) -> bool:
    """Do two placed outlines come close enough for their explained colour to meet?"""
    a, b = place(shape_a, *pose_a), place(shape_b, *pose_b)
    return polygon_distance(a, b) <= 2 * EXPLAIN_GROW_MM + 1.0


def _greedy(grid: FitGrid, shapes, min_px: float, max_sheets: int) -> list[tuple]:
    """Sheets as (type, x, y, angle, refined rivals), biggest unexplained blob first, each blob
    explained by its best plausible shape (or, with sheetgroups.GROUPS on, a blob that shape
    explains poorly by the set of sheets that explains it best)."""
    placed: list[tuple] = []
    for _ in range(max_sheets * 3):
        if len(placed) >= max_sheets:
            break
        blob = grid.largest_blob()
        if blob is None or blob[1] < min_px:
            break
        spare: dict = {}
        found = search(grid, shapes, blob[0], spare)
        # the best shape showing too much paper (say, one spanning two sheets) leaves the blob
        # to the next best that does not, before the blob is given up
        def plausible(t, fit):
            return plausible_pose(grid, shapes[t], *fit, min_px)
        group = [] if found is None else explain_blob(grid, shapes, blob, found, min_px, plausible, spare)
        if not group and sheetgroups.STRICT_RETRY:  # searched once more before it is given up
            found = sheetgroups.strict_search(grid, shapes, blob)
            group = [] if found is None else explain_blob(grid, shapes, blob, found, min_px, plausible)
        if not group:
            grid.drop(blob[0])
            continue
        placed += group[:max_sheets - len(placed)]
    return placed


def _weak(grid: FitGrid, shapes, placed: list[tuple], i: int) -> bool:
    """Is a sheet unsure of its type against the colour the others leave (as it would be reported)?"""
    eq, x, y, ang, refined = placed[i]
    grid.reset([p for j, p in enumerate(placed) if j != i], shapes)
    _good, visible = grid.coverage(shapes[eq], x, y, ang)
    return _confidence(grid, shapes, refined, eq, visible) < WEAK_CONFIDENCE


def _prune(grid: FitGrid, shapes, placed: list[tuple], min_px: float) -> list[tuple]:
    """Drop sheets whose colour the others explain anyway (fewest sheets that explain the colour)."""
    placed = list(placed)
    while len(placed) > 1:
        unique = []
        for i, p in enumerate(placed):
            grid.reset([q for j, q in enumerate(placed) if j != i], shapes)
            unique.append(grid.sums(shapes[p[0]], *p[1:4])[0])
        i = int(np.argmin(unique))
        if unique[i] >= min_px:
            break
        del placed[i]
    return placed


def _confidence(grid: FitGrid, shapes, refined, eq, visible_px) -> float:
    """How clearly the chosen shape beats the runner-up: 0 (a tie) .. 1 (no rival at all).

    Judged on the evidence alone (colour explained, paper shown), not on the preference for small
    unseen parts: a patch of colour next to the dark fits a small shape and a large one running
    into the dark equally well.  The lead is weighed against what a one-pixel band round the sheet
    could account for (blur, a slightly wrong pose), about ``4 sqrt(visible)`` pixels: a lead of
    that size gives 0.5.
    """
    mine = grid.evidence(shapes[eq], *refined[eq][1])
    rival = max((grid.evidence(shapes[t], *p) for t, (_g, p) in refined.items() if t != eq), default=0.0)
    lead = max(mine - max(rival, 0.0), 0.0)
    band = 4.0 * np.sqrt(max(visible_px, 1.0))
    return float(lead / (lead + band))


