"""Each expedition's colour on the board plane, cleaned of what no sheet would show.

From the colour match's codes (transmission.py): specks, colour by a hand or glare, "ghosts" (a
colour seen only inside others' overlaps), slivers (fringes of another sheet's edge), one sheet
passing for two others' overlap (look-alikes), blotches and colour explained only in light unlike
its surroundings.  What is dropped is reported, so the hexes it touches are left undecided rather
than called uncovered.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from .maskparts import _drop_mostly_in, _drop_small, _grown, _joined_parts, _part_boxes, _roi_apply, _bbox
from .transmission import LUT_HI, LUT_LO, LUT_N, unpack

EXPEDITIONS = ("independent", "japanese", "british", "american")
MIN_BLOB_MM2 = 2.0
GHOST_INSIDE = 0.95  # a colour this much inside other expeditions' colours ...
GHOST_ALONE = 0.05  # ... and this rarely alone is taken for their mix (unknown)
SLIVER_CORE_MM = 3.0  # every real sheet shows a patch this wide somewhere; colour only ever
# narrower than that is the fringe of another sheet's edge (blur, JPEG's half-resolution colour)
# A sliver within SLIVER_CORE_MM of unseen pixels the sliver test does not count as hiding a sheet
# (glare, colour no combination explains, dim overlaps) may be the one strip of a sheet those
# hide: a sheet's colour pales or turns murky well inside it, the unseen region stopping short of
# its edge.  Such colour is still dropped, but as untrustworthy (its hexes undecided), not as
# absent: through the first phone, dev seed 46009's blue sheet showed a strip 1-2 mm wide between
# the paper and a misfit region, four hexes it reaches 2.8-3.5 mm into called uncovered (likewise
# 52035, second phone 43026).  It only ever leaves hexes undecided, never covered.
SLIVER_BY_UNSEEN_UNDECIDED = True
# A speck of colour a few mm^2 kept only because the unseen round it might hide the rest of its
# sheet: through a phone, the colour match finds one sheet's colour in a few pixels of a dark
# overlap or at the blurred junction of two sheets, with deep shade (a dark overlap) all round
# (dev seeds 52013, 46016 yellow and 54016 green: one hex called covered each).  Colour that small
# is kept only when it is a sheet's width across on its own: under HIDDEN_SPECK_MM2 (below the
# SLIVER_CORE_MM disc's 7 mm^2, so a part with its own core is never touched) it goes.
HIDDEN_SPECK = True
HIDDEN_SPECK_MM2 = 6.0
LOOKALIKE_HUE = 0.6  # log-hue distance under which one sheet passes for two others overlapping
LOOKALIKE_RING_MM = 2.0  # ... and is taken for them when ringed by their colours, this wide
LOOKALIKE_RINGED = 0.6  # ... over this share of the ring
STACKED_DOUBT = True  # ... and seen with a or b on top, so ringed: doubtful (see _mix_lookalikes)
MIX_HUE_SLACK = 0.15  # ... unless its hue is this much nearer its own sheet's than the overlap's (log)
# ... or unless it is lit like the sheets round it when read as its own sheet: a and b's overlap
# passes less light than e's sheet (log 0.37 in grey with the house colours), so read as e it needs
# that much less light than its ring of a and b, and read as a and b over e's sheet that much more;
# shade changes smoothly.  A green sheet in shade between a yellow and blue one passed for their
# overlap through the first phone (hue 0.08 nearer its own, under the slack): dev seed 52018, 32
# hexes called yellow and blue.  Such a part is claimed for none of the three.
MIX_LIGHT = True
# A doubtful part (above: ringed like a's and b's overlap, yet read as e's sheet) is claimed for
# none of the three by coverage, but the fitter kept it as e's colour only: to a's and b's fits it
# was plain paper (unless darker than e's colour by sheetfit.OTHER_DARKER_LOG).  Where it really
# is their overlap (a blue sheet over a yellow one read as green over yellow), the sheet on top
# had its overlap counted against it as paper and was missed (development, session 30: 567 #7 as
# rendered, 521 #0 and 567 #3 through the first phone, about 5,300 px of each sheet doubtful).
# On: the doubtful part is unseen to a's and b's fits (neither colour nor paper: it earns them
# nothing, so it makes no sheet of theirs on its own); coverage's masks as before.  Given to them
# as colour instead (tried first) it named 39 typed extras more on development.  It adds a typed
# extra on development (525 first phone: a Japanese sheet ringed by Independent and British colour,
# doubtful, unseen to the Independent fit, which named a biological unit over it) and a wrong type on
# the check set through the first phone, against +3 / +2 / +2 right sheets on development / fresh
# pool / check; so the helper left it off.  On: the lead's held-out photos (240 scenes, 2,160 sheets
# a variant, never tuned on) right +1 / +3 / +5 as rendered / first / second phone, wrong types
# 4 / 12 / 7 -> 2 / 10 / 5, typed extras 5 / 29 / 18 -> 4 / 27 / 15, coverage identical
# (docs/board-vision.md, twenty-third round, part 1 and the lead's read).  False: the old rule
DOUBT_UNSEEN_TO_PAIR = True
MIX_LIGHT_MIN = 0.1  # half the light apart under which the two readings can't be told by it (log)
LONE_SHARE = 0.05  # two sheets' overlap with either alone on less than this share of its ring: one sheet
# Where one of a look-alike's pair (a or b) is dropped as untrustworthy (a ghost: only ever inside
# others' colour), the other's colour that came with it (their overlap, e's look-alike) goes too:
# two green sheets overlapping read as green over yellow and blue beside green alone (a phone's tone
# curve: second phone, seed 31013); the blue was a ghost, the yellow stayed, 7 hexes called yellow
PAIR_GOES_TOO = True
# A phone's saturation boost and tone curve deepen a sheet's dim channels past the profile's: a red
# sheet's blue sinks so far (log -2.5 against the profile's -1.3) that it reads as red with a whole
# yellow sheet over it (yellow mostly darkens blue), over the red sheet's whole extent; the colour
# map cannot take it back (a hue change of 0.47 log RMS, past colour_adapt.MAX_SHIFT).  First
# phone, dev seeds 54044 and 46033: 20 and 6 hexes called yellow under red sheets.  Two real
# sheets overlapping show one of them alone somewhere round the overlap, unless one lies wholly
# within the other -- then the other's colour rings it.  So where another expedition's colour x
# lies over all of a sheet-sized part of e's colour (no patch of e alone inside it) and x alone
# rings under SOAK_RING of it, x's colour there is taken out: undecided for x.
SOAKED = True
SOAK_SHARE = 0.90  # x over this share of the part's inside, counting e alone only in patches SOAK_BARE_MM wide
# (soaked red sheets: 54044's 1.00, 46033's 0.91; a yellow sheet with a red one over 82 % of it: 0.82;
# at 0.97 46033's six hexes stayed called yellow, at 0.90 the dev sets lost 0.00-0.03 points more to undecided)
SOAK_BARE_MM = 3.0  # ... narrower patches of e alone are noise in x's reading (dark pixels by the lines)
SOAK_INSET_MM = 2.0  # the part's inside: this far in from its edge (the edge's blur reads as e alone or part x)
SOAK_RING = 0.5  # x alone on under this share of the seen ring round the part (LOOKALIKE_RING_MM wide):
# 54044's soaked sheets 0.08 and 0.40 (a yellow sheet really lies beside one); a sheet wholly on x's: ~1
SOAK_MIN_MM2 = 800.0  # a part's inside smaller than this is a piece of a sheet, most of it hidden under or
# over others, where x over all of it is ordinary (true overlaps of 80-580 mm^2 were dropped at 50 mm^2
# on dev seeds 52006, 52029, 54022, 54034, 54038, second phone 43017); a whole sheet but the cage
# (116 mm^2) has an inside over ~1,000 mm^2
SOAK_RAW = 0.5  # x on under this share of a part's inside (noise included): not looked at further (speed)
SOAK_PPM = 1.0  # the coarse grid it is judged on (px per mm): parts are sheets tens of millimetres across
SOAK_BRIDGE_MM = 3.5  # colour joined across the printed lines (the other rules' parts: 3.5 mm too)
# A phone's saturation boost (it works on values, not on their logs) sinks a sheet's dim channels
# the more the brighter the light and the sheet: a red sheet reads as red alone where the light is
# dimmer and as red with part of a yellow sheet over it where it is brighter, the border between
# the two a gradual drift across the sheet, not an edge (first phone, dev seed 34018: 7 hexes called
# yellow; 54029 and 54044 one each, where the soaked part is not all of the sheet).  A real sheet of
# x over e's makes a step at its edge: e alone just outside and e and x just inside differ by x's
# whole colour.  So where x's colour over e's (pixels of exactly those two) meets e alone, the step
# in hue (the median log colours of e alone within DRIFT_RING_MM outside and of x over e as far
# inside) is measured in units of x's own hue; under DRIFT_STEP that part of x over e is taken out
# (undecided for x).  The colour taken out still counts as colour the photo shows for the printed
# lines' rules (the other colours' hue near a line) and as no whole sheet of x on a hex
# (coverage.WHOLE_SHARE), so the rule adds no covered call: glare and shade cannot pass by it.
DRIFT = True
DRIFT_STEP = 0.45  # (share of x's hue) over the phones' and renders' dev sets (34000-34023, 54000-54047,
# 46000-46047, 52000-52047, second phone 43000-43047, 54000-54047, harsh 44000-44023, 45000-45023,
# broad 6000-6047), 1,328 parts of x over e lying on a real sheet of x measured a median of about
# 0.75 (196 under 0.5, left undecided: their "e alone" ring is often the overlap itself misread),
# the 14 parts off any sheet of x 0.02-0.9 (10 under 0.5, 34018's 0.40); at 0.5 unknown where
# visible rose 0.21-0.29 points on five of the ten dev sets, at 0.45 at most 0.19
DRIFT_RING_MM = 2.0  # the bands either side of the border where the step is measured
# The four expeditions' own cleaning in _colour_masks (the small parts, by a hand or glare, ghosts and
# slivers: each reads the shared inputs, writes its own masks) side by side on the adjudication's
# pool when coverage gives it one (coverage.ROW_BANDS); the rules after it, which mix expeditions,
# run after all four, as before: the same masks.  Session 39 (s39h5).
EXPEDITIONS_SIDE_BY_SIDE = True
BLOTCH_FILL = 0.8  # colour filling less of the seen plain paper it spans is not one sheet's (true parts: 0.9+ bar a few)
UNLIT_RING_MM = 2.0  # colour needing this much less light (log) than the seen pixels in a ring
UNLIT_JUMP = 0.3  # ... this wide round it is explained wrongly (shade changes smoothly)
# With hardly any seen pixels in that ring (glare, murk, a dark overlap all round), the shade can't be
# confirmed: the light is then taken as the paper's (the lighting field is fitted to the paper, log 0).
# A colour needing shade nobody sees is as likely a dark overlap of other sheets, lifted by glare or
# bent by a phone's tone curve (red over green reads as yellow in deep shade: fresh phone seed 40031)
UNSEEN_SHADE = True
# How far (octagonal distance) a colour seen on paper is followed into a printed line: far enough to
# cross the paper's margin and pass the middle of the line (0.9 mm; 1.05 mm at a corner), no
# further, since colour bled along a line (blur, JPEG) would carry the sheet past its edge.
LINE_GROW_MM = 1.5


def _colour_masks(code, seen_flat, unknown, suspect_near, ppm, cols, hand_near=None, hidden=None, shade=None,
                  drifted=None, late_rules=None, fit_view=None, side_by_side=None):
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
    for the sliver test of the coverage masks (default ``unknown``).  ``shade``: (packed bins,
    colour table), to drop colour no sheet would show (_drop_unlike_sheets).  ``drifted``: a dict
    given to be filled with the colour taken out by DRIFT (still a colour the photo shows: the
    printed lines' rules take it into account for the other expeditions' hue near it; left out, a
    red sheet's colour under a blue one taken out was no longer carried onto a line: seed 54007
    through the first phone, two hexes the red sheet reaches 1.4-1.9 mm into called uncovered).
    ``late_rules``: in place of _late_rules (same arguments), e.g. judged on a coarser grid.
    ``fit_view``: (seen, unknown) the fitter's own, when it sees more than coverage (the veil of
    added light aside: coverage.VEIL_SEEN_BY_FITTER); ``fit`` is then read on it; a third item,
    when given, is the fitter's own code (names it reads differently: coverage.RED_FILM_SEEN_BY_FITTER).
    ``side_by_side``: ``f(fn, items)`` -> ``[fn(*item) for item in items]``, run side by side
    (coverage_bands.Bands.each): the expeditions' own cleaning so (EXPEDITIONS_SIDE_BY_SIDE).
    """
    masks, dropped, fit, gone_of = {}, {}, {}, {}
    bridge = int(round(3.5 * ppm))
    # the expeditions' bits where seen (0 elsewhere): every per-expedition mask is one step from it
    seen_bits = cv2.bitwise_and(code, 15, mask=seen_flat.view(np.uint8))
    fit_bits, fit_unknown = seen_bits, unknown
    if fit_view is not None:
        fit_code = fit_view[2] if len(fit_view) > 2 and fit_view[2] is not None else code
        fit_bits, fit_unknown = cv2.bitwise_and(fit_code, 15, mask=fit_view[0].view(np.uint8)), fit_view[1]

    def own(i: int, e: str) -> tuple:
        """Expedition ``e``'s (bit ``i``) cleaning: (masks[e], fit[e], dropped[e], gone_of[e]); it reads
        the shared inputs only, so the four can run side by side (EXPEDITIONS_SIDE_BY_SIDE)."""
        has = np.bitwise_and(np.right_shift(seen_bits, i), 1).view(bool)  # 0 / 1 bytes: a true bool view
        raw = _drop_small(has, MIN_BLOB_MM2 * ppm * ppm)
        kept = raw
        if suspect_near is not None:
            kept = _roi_apply(_drop_mostly_in, kept, (suspect_near,), 2, 0.25)
        # a colour seen only ever mixed into other expeditions' overlaps is more likely their mix
        core = int(round(SLIVER_CORE_MM * ppm))
        before = kept
        kept, unghosted, labelled = _ghosts_then_slivers(kept, seen_bits, 1 << i, unknown if hidden is None else hidden,
                                                         core, bridge)
        gone = raw & ~unghosted
        doubtful = (_slivers_by_unseen(unghosted, kept, unknown, core, labelled)
                    if SLIVER_BY_UNSEEN_UNDECIDED and labelled is not None else None)
        # for fitting: ghosts kept, and colour by glare kept (glare pales a sheet's colour but
        # doesn't make it up: a wrong hex ruling is costly, an unexplained patch beside a sheet is
        # not); colour by a hand still dropped (skin passes for a sheet), slivers too (edge fringes)
        raw_fit = raw
        if fit_view is not None:
            raw_fit = _drop_small(np.bitwise_and(np.right_shift(fit_bits, i), 1).view(bool), MIN_BLOB_MM2 * ppm * ppm)
        fit_in = raw_fit if hand_near is None else _roi_apply(_drop_mostly_in, raw_fit, (hand_near,), 2, 0.25)
        if fit_view is None and labelled is not None and (fit_in is before or np.array_equal(fit_in, before)):
            # the same mask as coverage's (nothing by a hand or glare): its parts are labelled already
            sl, parts = labelled
            fit_e = np.zeros(raw.shape, bool)
            fit_e[sl] = _drop_slivers(fit_in[sl], unknown[sl], core, bridge, parts)
        else:
            fit_e = _roi_apply(lambda m, n: _drop_slivers(m, n, core, bridge), fit_in, (fit_unknown,),
                               max(bridge, core) + 2)
        dropped_e = gone_e = None
        if gone.any():
            gone_e = gone
        if gone.any() or doubtful is not None:
            kd = int(LINE_GROW_MM * ppm) * 2 + 1
            dropped_e = _grown(gone if doubtful is None else gone | doubtful, np.ones((kd, kd), np.uint8))
        return kept, fit_e, dropped_e, gone_e

    each = list(enumerate(EXPEDITIONS))
    done = side_by_side(own, each) if side_by_side is not None and EXPEDITIONS_SIDE_BY_SIDE else [own(*x) for x in each]
    for (i, e), got in zip(each, done):
        masks[e], fit[e], dropped[e], gone_of[e] = got
    for i, a, b in _lookalikes(cols):
        e = EXPEDITIONS[i]
        seen_a, seen_b = (seen_bits & (1 << a)) > 0, (seen_bits & (1 << b)) > 0
        extra = (seen_a, seen_b, seen_flat) + ((shade[0],) if shade is not None else ())
        light = (_tints(cols, i, a, b),) + ((shade[1],) if MIX_LIGHT else ()) if shade is not None else (None,)
        found = _mix_parts(masks[e], extra, bridge + int(LOOKALIKE_RING_MM * ppm) + 2, bridge,
                           int(LOOKALIKE_RING_MM * ppm), *light)
        mix, doubt = found == 1, found == 2
        if mix.any():
            for m in (masks, fit):
                m[e] = m[e] & ~mix
                m[EXPEDITIONS[a]] = m[EXPEDITIONS[a]] | mix
                m[EXPEDITIONS[b]] = m[EXPEDITIONS[b]] | mix
        if doubt.any():  # ringed like a and b's overlap, coloured like e's sheet: claimed for none
            masks[e] = masks[e] & ~doubt
            if DOUBT_UNSEEN_TO_PAIR:  # ... and neither paper nor colour to a's and b's fits
                for x in (EXPEDITIONS[a], EXPEDITIONS[b]):
                    fit[UNSEEN_KEY, x] = fit[UNSEEN_KEY, x] | doubt if (UNSEEN_KEY, x) in fit else doubt
        if mix.any() or doubt.any():
            kd = int(LINE_GROW_MM * ppm) * 2 + 1
            _mark_dropped(dropped, (e,), _grown(mix | doubt, np.ones((kd, kd), np.uint8)))
            if doubt.any():
                _mark_dropped(dropped, (EXPEDITIONS[a], EXPEDITIONS[b]), _grown(doubt, np.ones((kd, kd), np.uint8)))
        # the other way round: a and b seen together but never each without the other round it is
        # more likely e's one sheet (two overlapping sheets show each alone somewhere beside their
        # overlap, unless one lies wholly within the other); which it is can't be told, so all
        # three are left undecided there
        ea, eb = EXPEDITIONS[a], EXPEDITIONS[b]
        ring = int(LOOKALIKE_RING_MM * ppm)
        lone = _roi_apply(_lone_pairs, masks[ea] & masks[eb], (masks[ea] & ~masks[eb], masks[eb] & ~masks[ea],
                                                                seen_flat), bridge + ring + 2, bridge, ring)
        if lone.any():
            masks[ea] = masks[ea] & ~lone
            masks[eb] = masks[eb] & ~lone
            kd = int(LINE_GROW_MM * ppm) * 2 + 1
            _mark_dropped(dropped, (e, ea, eb), _grown(lone, np.ones((kd, kd), np.uint8)))
    if SOAKED:  # another expedition's colour over the whole of one sheet: a phone's deeper dim channels
        kd = int(LINE_GROW_MM * ppm) * 2 + 1
        gone = _soaked(masks, seen_flat, ppm)
        for x, g in gone.items():
            _take_out(masks, dropped, x, g, kd)
    if shade is not None:  # judged by the caller's own means when it gives them (coverage_coarse.py)
        (late_rules or _late_rules)(masks, dropped, shade, seen_flat, cols, ppm, drifted)
    if PAIR_GOES_TOO:  # last: the rules above judge the parts as the match found them
        kd = int(LINE_GROW_MM * ppm) * 2 + 1
        for i, a, b in _lookalikes(cols):
            for x, y in ((a, b), (b, a)):
                ex, ey = EXPEDITIONS[x], EXPEDITIONS[y]
                if gone_of[ey] is None:
                    continue
                bb = _bbox(gone_of[ey].view(np.uint8), 0)  # worked in the box round what went
                sl = np.s_[bb[0]:bb[1], bb[2]:bb[3]]
                both_sl = gone_of[ey][sl] & masks[ex][sl]
                if both_sl.any():
                    both = np.zeros(masks[ex].shape, bool)
                    both[sl] = both_sl
                    masks[ex] = masks[ex] & ~both
                    _mark_dropped(dropped, (ex, EXPEDITIONS[i]), _grown(both, np.ones((kd, kd), np.uint8)))
    return masks, dropped, fit


#: _colour_masks' ``fit`` keys (UNSEEN_KEY, expedition): what that expedition's fit takes as unseen
UNSEEN_KEY = "unseen to"


def fit_unseen_apart(fit: dict) -> tuple[dict, dict]:
    """_colour_masks' ``fit`` split: (expedition -> colour, expedition -> unseen to its fit)."""
    colour = {k: m for k, m in fit.items() if not isinstance(k, tuple)}
    return colour, {k[1]: m for k, m in fit.items() if isinstance(k, tuple)}


def _late_rules(masks: dict, dropped: dict, shade, seen_flat, cols, ppm: float, drifted: dict | None,
                drift: bool = True, unlike: bool = True) -> None:
    """The rules judged last on the cleaned masks (in place): colour over another's drifting from it
    alone (DRIFT; with ``drift``) and colour no sheet would show (_drop_unlike_sheets; with
    ``unlike``); ``shade``: (packed bins, colour table).  What goes is added to ``dropped`` (grown),
    DRIFT's to ``drifted`` too."""
    bridge = int(round(3.5 * ppm))
    if DRIFT and drift:  # x over e drifting from e alone: a phone's saturation boost
        kd = int(LINE_GROW_MM * ppm) * 2 + 1
        gone = _drifted(masks, shade[0], cols, ppm)
        if drifted is not None:
            drifted.update(gone)
        for x, g in gone.items():
            _take_out(masks, dropped, x, g, kd)
    if not unlike:
        return
    # colour no sheet would show: after the look-alikes (a wrong explanation may be their overlap)
    ring = int(round(UNLIT_RING_MM * ppm))
    kd = int(LINE_GROW_MM * ppm) * 2 + 1
    for e in EXPEDITIONS:
        kept = _roi_apply(_drop_unlike_sheets, masks[e], (shade[0], seen_flat), ring + 2, shade[1], bridge, ring)
        gone = masks[e] & ~kept
        if gone.any():
            masks[e] = kept
            _mark_dropped(dropped, (e,), _grown(gone, np.ones((kd, kd), np.uint8)))


def _take_out(masks: dict, dropped: dict, x: str, gone: np.ndarray, kd: int) -> None:
    """``gone`` taken out of x's colour and, grown by a kd-wide square, counted as dropped."""
    masks[x] = masks[x] & ~gone
    _mark_dropped(dropped, (x,), _grown(gone, np.ones((kd, kd), np.uint8)))


def _mark_dropped(dropped: dict, keys, grown: np.ndarray) -> None:
    """``grown`` added to what was dropped of each expedition in ``keys``."""
    for x in keys:
        dropped[x] = grown if dropped[x] is None else dropped[x] | grown


def _soaked(masks: dict, seen_flat: np.ndarray, ppm: float) -> dict:
    """Per expedition x, its colour over parts of another expedition's colour that x covers whole
    yet hardly rings (see SOAKED).  Judged on a grid of SOAK_PPM (at the work grid's 3 px/mm it
    cost 20-46 ms a photo, 5-10 % of coverage; here 0.1-3 ms, nothing where no part is overlapped)."""
    out: dict = {}
    st = max(1, int(round(ppm / SOAK_PPM)))
    present = [e for e in EXPEDITIONS if masks[e].any()]
    if len(present) < 2:
        return out
    small = {e: np.ascontiguousarray(masks[e][::st, ::st]).view(np.uint8) for e in present}
    f = ppm / st  # px per mm of the coarse grid
    min_px = SOAK_MIN_MM2 * f * f
    ring_px = max(1, int(round(LOOKALIKE_RING_MM * f)))
    inset = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * int(round(SOAK_INSET_MM * f)) + 1,) * 2)
    bare_k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(1, int(round(SOAK_BARE_MM * f))) | 1,) * 2)
    bridge = np.ones((2 * int(np.ceil(SOAK_BRIDGE_MM * f / 2)) + 1,) * 2, np.uint8)
    seen = None
    for e in present:
        m = small[e]
        # a part x could soak has x over much of at least min_px of e: most colours have none
        with_x = [x for x in present if x != e and np.count_nonzero(m & small[x]) >= SOAK_RAW * min_px]
        if not with_x:
            continue
        joined = cv2.morphologyEx(m, cv2.MORPH_CLOSE, bridge)
        n, labels = cv2.connectedComponents(joined, connectivity=8)
        inside = cv2.erode(joined, inset) & m
        n_in = np.bincount(labels[inside > 0], minlength=n)
        big = n_in >= min_px
        big[0] = False
        if not big.any():
            continue
        near = None
        for x in with_x:
            mx = small[x]
            raw = np.bincount(labels[(inside & mx) > 0], minlength=n)
            if not (big & (raw >= SOAK_RAW * n_in)).any():
                continue
            # e alone over a patch SOAK_BARE_MM wide: a sheet of e beside x's, not noise in x's reading
            bare = cv2.morphologyEx(inside & ~mx, cv2.MORPH_OPEN, bare_k)
            share = 1 - np.bincount(labels[bare > 0], minlength=n) / np.maximum(n_in, 1)
            maybe = big & (share >= SOAK_SHARE)
            if not maybe.any():
                continue
            if near is None:
                if seen is None:
                    seen = np.ascontiguousarray(seen_flat[::st, ::st])
                near = _grown_labels(labels, joined.view(bool), n, np.ones((2 * ring_px + 1,) * 2, np.uint8))
                ring = (near > 0) & (joined == 0) & seen
                ring_n = np.bincount(near[ring], minlength=n)
            alone = np.bincount(near[ring & (mx > 0) & (m == 0)], minlength=n) / np.maximum(ring_n, 1)
            hit = maybe & (ring_n >= ring_px * ring_px) & (alone < SOAK_RING)
            if not hit.any():
                continue
            # back to the full grid: the parts, grown past the coarse grid's step and the part's edge
            part = np.take(hit, labels).view(np.uint8)
            part = cv2.resize(part, masks[x].shape[::-1], interpolation=cv2.INTER_NEAREST)
            g = _grown(part.view(bool), np.ones((2 * st + 1,) * 2, np.uint8)) & masks[x]
            # ... no further than x's colour on e's own and its blurred edge (not a sheet of x beside it)
            g &= _grown(g & masks[e], np.ones((2 * st + 1,) * 2, np.uint8))
            out[x] = g if x not in out else out[x] | g
    return out


def _drifted(masks: dict, packed: np.ndarray, cols, ppm: float) -> dict:
    """Per expedition x, its colour over another's (e) whose step in hue from e alone beside it is
    far less than x's own sheet would make (see DRIFT): pixels of exactly those two colours."""
    out: dict = {}
    present = [i for i, e in enumerate(EXPEDITIONS) if masks[EXPEDITIONS[i]].any()]
    if len(present) < 2:
        return out
    t = np.log(np.clip(np.asarray([cols[e] for e in EXPEDITIONS], float) / 255.0, 1e-3, 1.0))
    hue = t - t.mean(1, keepdims=True)
    r = int(round(DRIFT_RING_MM * ppm))
    bridge = int(round(3.5 * ppm))
    bits = np.zeros(masks[EXPEDITIONS[present[0]]].shape, np.uint8)
    for i in present:
        _set_bits(bits, masks[EXPEDITIONS[i]], 1 << i)
    pairs = cv2.LUT(bits, _TWO_BITS)  # 255 where exactly two expeditions' colours lie
    box = _bbox(pairs, 2 * r + bridge + 2)
    if box is None:
        return out
    sl = np.s_[box[0]:box[1], box[2]:box[3]]
    b_sl, pk = bits[sl], packed[sl]
    k = np.ones((2 * r + 1,) * 2, np.uint8)
    h, w = b_sl.shape
    for xi in present:
        for ei in present:
            if xi == ei:
                continue
            over = b_sl == ((1 << xi) | (1 << ei))
            if np.count_nonzero(over) < r * r:
                continue
            n, labels = _joined_parts(over, bridge)
            boxes = _part_boxes(labels, n)
            for c in range(1, n):
                y0, y1, x0, x1 = boxes[c]
                ps = np.s_[max(0, y0 - r - 1):min(h, y1 + r + 1), max(0, x0 - r - 1):min(w, x1 + r + 1)]
                part = (labels[ps] == c) & over[ps]
                if np.count_nonzero(part) < r * r:
                    continue
                ring = (cv2.dilate(part.view(np.uint8), k) > 0) & (b_sl[ps] == (1 << ei))
                if np.count_nonzero(ring) < r * r:
                    continue
                band = part & (cv2.dilate(ring.view(np.uint8), k) > 0)
                step = _median_log(pk[ps][band]) - _median_log(pk[ps][ring])
                step -= step.mean()
                share = float(step @ hue[xi] / (hue[xi] @ hue[xi]))
                if share < DRIFT_STEP:
                    x = EXPEDITIONS[xi]
                    if x not in out:
                        out[x] = np.zeros(bits.shape, bool)
                    out[x][sl][ps] |= part
    return out


_TWO_BITS = np.array([255 if bin(c & 15).count("1") == 2 else 0 for c in range(256)], np.uint8)


def _set_bits(bits: np.ndarray, mask: np.ndarray, bit: int) -> None:
    """``bits |= bit`` where ``mask`` (bool), in cv2 (numpy's masked or is several times slower)."""
    cv2.bitwise_or(bits, bit, dst=bits, mask=mask.view(np.uint8))


def _median_log(packed: np.ndarray) -> np.ndarray:
    """The median log colour (per channel) of pixels given by their packed table bins (at most
    about 2,000 of them read)."""
    q = np.ascontiguousarray(packed[::max(1, len(packed) // 2000)], np.uint32).view(np.uint8).reshape(-1, 4)[:, :3]
    return (np.median(q, axis=0) + 0.5) * ((LUT_HI - LUT_LO) / LUT_N) + LUT_LO


def _lone_pairs(both, only_a, only_b, seen_flat, bridge_px: int, ring_px: int) -> np.ndarray:
    """Parts of ``both`` (two expeditions' colour together) with hardly any of one of them alone
    (``only_a``, ``only_b``) in a ring round them, among the ring's seen pixels."""
    out = np.zeros(both.shape, bool)
    n, labels = _joined_parts(both, bridge_px)
    if n <= 1:
        return out
    k = np.ones((2 * ring_px + 1,) * 2, np.uint8)
    near = _grown_labels(labels, both, n, k)
    ring = (near > 0) & ~both & seen_flat
    ring_n = np.bincount(near[ring], minlength=n)
    one = np.minimum(np.bincount(near[ring & only_a], minlength=n), np.bincount(near[ring & only_b], minlength=n))
    lone = (ring_n >= ring_px * ring_px) & (one < LONE_SHARE * ring_n)
    lone[0] = False
    if not lone.any():
        return out
    return both & np.take(lone, labels)


def _drop_unlike_sheets(mask, packed, seen_flat, tab, bridge_px: int, ring_px: int) -> np.ndarray:
    """Remove the parts of ``mask`` (joined across printed lines) that no sheet would show.

    - Blotches: a sheet is one piece of film, its colour fills the area it spans; colour filling
      less than BLOTCH_FILL of it (of the seen plain paper there) is a colour cast or noise
      (typically the rim of glare, whose light is whiter than the lamp's).
    - Unlit: the colour match explains a pixel as sheets times a grey term, the light (shade).
      Sheets never darken the light, and shade changes smoothly, so a part needing UNLIT_JUMP less
      light (log) than the seen pixels in a ring round it is a wrong explanation: typically a dark
      overlap of other sheets, its dim channels lifted by glare, passing for one sheet in shade.
    """
    parts = _joined_parts(mask, bridge_px)
    n, labels = parts
    if n <= 1:
        return mask
    # np.compress, not boolean indexing: the same pixels, several times faster on ragged masks
    spans = np.bincount(_where(labels, seen_flat), minlength=n)
    in_mask = _where(labels, mask)  # each label list read once
    inside_n = np.bincount(in_mask, minlength=n)
    blotchy = inside_n < BLOTCH_FILL * spans
    # the grey term only where it is asked for (unpacking every pixel of the box costs more)
    inside = np.bincount(in_mask, weights=tab.grey[unpack(_where(packed, mask))], minlength=n) / np.maximum(inside_n, 1)
    k = np.ones((2 * ring_px + 1,) * 2, np.uint8)
    near = _grown_labels(labels, mask, n, k)
    ring = (near > 0) & ~mask & seen_flat
    in_ring = _where(near, ring)
    ring_n = np.bincount(in_ring, minlength=n)
    around = np.bincount(in_ring, weights=tab.grey[unpack(_where(packed, ring))], minlength=n) / np.maximum(ring_n, 1)
    if UNSEEN_SHADE:  # too little seen round it to confirm its shade: the paper's light (log 0)
        around = np.where(ring_n >= ring_px * ring_px, around, 0.0)
        drop = blotchy | (inside < around - UNLIT_JUMP)
    else:
        drop = blotchy | (ring_n >= ring_px * ring_px) & (inside < around - UNLIT_JUMP)
    drop[0] = False
    if not drop.any():
        return mask
    return mask & ~np.take(drop, labels)


def _where(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``values[mask]`` (1-d) for same-shaped 2-d arrays."""
    return np.compress(mask.ravel(), values.ravel())


def _grown_labels(labels: np.ndarray, mask: np.ndarray, n: int, kernel: np.ndarray) -> np.ndarray:
    """The labels on ``mask`` (0 elsewhere) grown by ``kernel``: each pixel takes the largest label
    within reach.  In 16 bits when the labels fit (a third of the float path's time)."""
    if n < 1 << 16:
        lab = labels.astype(np.uint16)
        np.multiply(lab, mask, out=lab)
        return cv2.dilate(lab, kernel)
    return cv2.dilate(np.where(mask, labels, 0).astype(np.float32), kernel).astype(np.int32)


def _lookalikes(cols) -> list[tuple[int, int, int]]:
    """(e, a, b): expedition e's sheet has nearly the hue of a's and b's sheets overlapping
    (with the house colours: independent green ~ japanese yellow over american blue)."""
    return list(_lookalikes_of(tuple(tuple(float(v) for v in cols[e]) for e in EXPEDITIONS)))


@lru_cache(maxsize=16)
def _lookalikes_of(key: tuple) -> tuple:
    """_lookalikes for the expeditions' colours in order (cached: asked twice per photo)."""
    t = np.log(np.clip(np.asarray(key, float) / 255.0, 1e-3, 1.0))
    out = []
    for i in range(len(EXPEDITIONS)):
        rest = [k for k in range(len(EXPEDITIONS)) if k != i]
        for ai, a in enumerate(rest):
            for b in rest[ai + 1:]:
                d = t[a] + t[b] - t[i]
                if np.linalg.norm(d - d.mean()) < LOOKALIKE_HUE:
                    out.append((i, a, b))
    return tuple(out)


def _tints(cols, e: int, a: int, b: int) -> tuple[np.ndarray, np.ndarray, float]:
    """The hue (log colour less its mean) of e's sheet and of a's and b's overlap, and how much
    more light (log, grey) the overlap needs than e's sheet to show the same colour."""
    t = np.log(np.clip(np.asarray([cols[x] for x in EXPEDITIONS], float) / 255.0, 1e-3, 1.0))
    hues = t[e], t[a] + t[b]
    return (*(h - h.mean() for h in hues), float(hues[0].mean() - hues[1].mean()))


def _mix_lookalikes(mask, mask_a, mask_b, seen_flat, *rest) -> np.ndarray:
    """Parts of ``mask`` that are more likely the overlap of a and b (1): seen without a or b, yet
    ringed by a's and b's colour (two sheets' overlap is bordered by each sheet alone; a sheet of
    its own by paper, or by its own overlaps with others).

    ``rest``: [packed bins,] bridge_px, ring_px, hues[, tab].  With the packed bins and ``hues``
    (_tints: e's and the overlap's), a part so ringed whose median hue lies clearly nearer e's own
    than the overlap's (by MIX_HUE_SLACK) is doubtful (2), claimed for none of the three: a yellow
    sheet between a green and a red one is no green-and-red overlap (their mix is 0.38 from yellow
    in hue, the look-alike test lets it pass; seen after a phone's tone curve was undone, seed
    37006: 32 wrong hexes), but a phone's saturation boost can also push a true overlap's hue
    towards e's (kept as e, the first phone's seeds 33000-33047 had 14 more errors).

    A part seen with a or b on top and so ringed is doubtful too (with STACKED_DOUBT): a green
    sheet over a blue one, or a yellow sheet over two blue ones (the first phone, seed 34007: read
    as green over blue over six hexes).  A real sheet over another rarely has both a's and b's
    colour round it.

    With the colour table ``tab`` (MIX_LIGHT), a part so ringed that is lit like the a and b round
    it when read as e's sheet is doubtful too (see MIX_LIGHT): the overlap would need more light."""
    tab = rest[4] if len(rest) == 5 else None
    packed, (bridge_px, ring_px, hues) = (rest[0], rest[1:4]) if len(rest) >= 4 else (None, rest)
    k = bridge_px | 1
    joined = cv2.morphologyEx(mask.view(np.uint8), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    n, labels = cv2.connectedComponents(joined, connectivity=8)
    out = np.zeros(mask.shape, np.uint8)
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
        # seen with a or b on top: a sheet over their overlap, or the overlap of a and b with a
        # second sheet of one of them (which reads as e with it: a phone's tone curve and flare
        # move the dim channels of deep overlaps most)
        on_top = np.count_nonzero(inside & (ma | mb)) >= 0.5 * np.count_nonzero(inside)
        if on_top and not STACKED_DOUBT:
            continue
        ring = (cv2.dilate(part.view(np.uint8), kernel) > 0) & ~part & seen_flat[sl]
        total = np.count_nonzero(ring)
        if total < ring_px * ring_px:
            continue
        ra, rb = np.count_nonzero(ring & ma), np.count_nonzero(ring & mb)
        if np.count_nonzero(ring & (ma | mb)) >= LOOKALIKE_RINGED * total and min(ra, rb) >= 0.15 * total:
            if on_top:  # ringed like a and b's overlap with one more sheet of theirs: which can't be told
                out[sl][inside] = 2
                continue
            own = packed is not None and hues is not None and _own_hue(packed[sl][inside], hues)
            if not own and tab is not None:
                own = _lit_as_own(packed[sl], inside, ring & (ma | mb), tab, hues[2])
            out[sl][inside] = 2 if own else 1
    return out


def _mix_parts(mask, extra: tuple, pad: int, *args) -> np.ndarray:
    """_mix_lookalikes on the box round the mask's pixels (uint8: 0, 1 their mix, 2 doubtful)."""
    out = np.zeros(mask.shape, np.uint8)
    b = _bbox(mask.view(np.uint8), pad)
    if b is not None:
        sl = np.s_[b[0]:b[1], b[2]:b[3]]
        out[sl] = _mix_lookalikes(mask[sl], *[x[sl] for x in extra], *args)
    return out


def _own_hue(packed: np.ndarray, hues) -> bool:
    """Whether the median log colour of these pixels (packed table bins) has a hue clearly nearer
    ``hues[0]`` (a sheet's) than ``hues[1]`` (an overlap's)."""
    if len(packed) == 0:
        return False
    q = np.ascontiguousarray(packed[::max(1, len(packed) // 2000)], np.uint32).view(np.uint8).reshape(-1, 4)[:, :3]
    v = (np.median(q, axis=0) + 0.5) * ((LUT_HI - LUT_LO) / LUT_N) + LUT_LO
    h = v - v.mean()
    return bool(np.linalg.norm(h - hues[1]) > np.linalg.norm(h - hues[0]) + MIX_HUE_SLACK)


def _lit_as_own(packed: np.ndarray, inside: np.ndarray, ring: np.ndarray, tab, lift: float) -> bool:
    """Whether a part read as one sheet (``inside``) needs light nearer its ``ring``'s (the grey
    term of the colour match's explanations, medians) than the ``lift`` less its overlap look-alike
    would: then it is lit like its own sheet, not like the overlap."""
    if lift < 2 * MIX_LIGHT_MIN or not ring.any() or not inside.any():
        return False
    g_in = np.median(tab.grey[unpack(_where(packed, inside)[::7])])
    g_ring = np.median(tab.grey[unpack(_where(packed, ring)[::7])])
    return bool(g_in > g_ring - lift / 2)


def _slivers_by_unseen(unghosted: np.ndarray, kept: np.ndarray, unknown: np.ndarray, core_px: int, labelled):
    """The colour dropped as slivers (``unghosted`` less ``kept``) within ``core_px`` of ``unknown``
    pixels, or None (see SLIVER_BY_UNSEEN_UNDECIDED).  ``labelled``: _ghosts_then_slivers' box
    round the colour (grown by more than ``core_px``) and its parts: only that box is looked at."""
    sl = labelled[0]
    slivers = unghosted[sl] & ~kept[sl]
    if not slivers.any():
        return None
    k = 2 * core_px + 1
    near = slivers & _grown(unknown[sl], np.ones((k, k), np.uint8))
    if not near.any():
        return None
    out = np.zeros(unghosted.shape, bool)
    out[sl] = near
    return out


def _ghosts_then_slivers(mask, seen_bits, bit: int, neutral, core_px: int, bridge_px: int):
    """(_drop_slivers(_drop_ghosts(mask)), _drop_ghosts(mask), (box, the mask's parts) or None),
    in the box round the mask, the parts (joined across printed lines) labelled once when no ghost
    is dropped.  ``seen_bits``: the expeditions' colour bits where seen; ``bit``: this
    expedition's."""
    b = _bbox(mask.view(np.uint8), max(bridge_px, core_px) + 2)
    if b is None:
        return np.zeros(mask.shape, bool), np.zeros(mask.shape, bool), None
    sl = np.s_[b[0]:b[1], b[2]:b[3]]
    m = mask[sl]
    parts = _joined_parts(m, bridge_px)
    bits = seen_bits[sl]
    m2 = _drop_ghosts(m, (bits & (15 & ~bit)) > 0, bits == bit, bridge_px, parts)
    speck = int(HIDDEN_SPECK_MM2 * core_px * core_px / (SLIVER_CORE_MM * SLIVER_CORE_MM)) if HIDDEN_SPECK else 0
    m3 = _drop_slivers(m2, neutral[sl], core_px, bridge_px, parts if m2 is m else None, speck)
    unghosted, out = np.zeros(mask.shape, bool), np.zeros(mask.shape, bool)
    unghosted[sl] = m2
    out[sl] = m3
    return out, unghosted, (sl, parts)


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


@lru_cache(maxsize=8)
def _disc_rectangles(k: int) -> tuple:
    """OpenCV's k x k ellipse (the sliver test's disc) as the union of centred rectangles, one per
    width of its rows (each as tall as the rows at least that wide), or () when it is not such a
    union (then the disc itself is used)."""
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    widths = [int(np.count_nonzero(row)) for row in disc]
    rects = tuple((w, sum(x >= w for x in widths)) for w in sorted(set(widths)) if w)
    union = np.zeros_like(disc)
    for w, h in rects:
        if w % 2 == 0 or h % 2 == 0:
            return ()
        union[(k - h) // 2:(k + h) // 2, (k - w) // 2:(k + w) // 2] = 1
    return rects if np.array_equal(union, disc) else ()


def _eroded_by_disc(img: np.ndarray, k: int) -> np.ndarray:
    """``cv2.erode(img, k x k ellipse)``, the same pixels: an erosion by a union of shapes is the
    minimum of the erosions by each (the border, never the minimum, alike), and a rectangle's
    erosion is separable -- a 9 px disc in a third less time than OpenCV's general kernel."""
    rects = _disc_rectangles(k)
    if not rects:
        return cv2.erode(img, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    out = None
    for w, h in rects:
        e = cv2.erode(img, np.ones((h, w), np.uint8))
        out = e if out is None else cv2.min(out, e, dst=out)
    return out


def _drop_slivers(mask: np.ndarray, neutral: np.ndarray, core_px: int, bridge_px: int,
                  parts=None, min_px: int = 0) -> np.ndarray:
    """Remove parts of ``mask`` (joined across printed lines) nowhere ``core_px`` wide.

    ``neutral`` (unseen pixels) counts as inside, so a sheet mostly hidden by glare keeps its
    visible strip -- unless the part has under ``min_px`` pixels (see HIDDEN_SPECK; a part that
    size is nowhere ``core_px`` wide on its own).  ``parts``: the mask's joined parts when
    already labelled.
    """
    n, labels = parts if parts is not None else _joined_parts(mask, bridge_px)
    if n <= 1:
        return mask
    core = _eroded_by_disc((mask | neutral).astype(np.uint8), core_px | 1) > 0
    has_core = np.bincount(labels[core & mask], minlength=n) > 0
    if min_px:
        has_core &= np.bincount(_where(labels, mask), minlength=n) >= min_px
    has_core[0] = False
    if has_core[1:].all():
        return mask
    return mask & np.take(has_core, labels)
