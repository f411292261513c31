"""Adjudication: from one overhead photo to who takes evidence (``nessie-companion adjudicate``).

Steps: decode and sanity-check the photo (corrupt, truncated, too dark, blurred), register it to
the board from its markers, check that the printed hex lines are where this box profile has them
(otherwise: not this board), measure coverage per expedition (coverage.py), fit the equipment
shapes (sheetfit.py), then apply stage three of the rulebook to the monsters given.

Evidence rule (rulebook, stage three, step one): a sheet sees a monster when any part of it covers
the monster's hex or its border lines; eye witnesses and surface cameras see only the surface
(head-and-neck) monster, all other equipment sees surface and submerged monsters.  The cage
obtains evidence only in the one hex it occupies (stage six, note).  Cards per sheet: the
rulebook says "the evidence card or cards to which you are entitled" and "take ... cards for any
of their equipment transparencies even touching the monster hexes"; we read it as ONE card from the
sheet's pack for EACH monster the sheet sees (a sonar touching the surface monster and one
submerged monster earns two sonar cards).  ``CARDS_RULE`` states this in the JSON.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field

import cv2
import numpy as np

from . import coverage as cov
from . import coverage_fit_reach
from . import gridfit
from .blur import BLURRED_MM, markers_blur_mm
from .decoding import Photo, decode  # noqa: F401  (decode: part of this module's interface)
from .registration import MAP_STEP, Registration, VisionRefusal, board_maps, detect_board_markers, grid_maps, register
from .coverage_glare_rim import cages_on_rim
from .sheetfit import OtherColours, fit_expedition, prepare_seen
from .sheetland import measure as measure_land, with_tone_gain
from .sheets import LINE_MM, outline, polygon_distance

SCHEMA = "nessie-vision-adjudication/1"
CARDS_RULE = ("one card from the sheet's evidence pack for each monster the sheet sees; a sheet "
              "touching several monster hexes earns one card per monster (our reading of stage three)")
#: Fitted poses are good to about a millimetre: a fitted sheet is credited with a monster hex when
#: the measured colour covers the hex and the fitted outline comes this close to it.
CREDIT_MM = 2.5


def _sharpness(gray: np.ndarray) -> float:
    small = cv2.resize(gray, None, fx=1000 / max(gray.shape), fy=1000 / max(gray.shape), interpolation=cv2.INTER_AREA)
    return float(cv2.Laplacian(small, cv2.CV_32F).var())


def _percentile(hist: np.ndarray, q: float) -> float:
    """``np.percentile`` (linear) of the grey levels counted in ``hist``, without sorting them."""
    cum = np.cumsum(hist)
    at = q / 100 * (cum[-1] - 1)
    lo = int(np.floor(at))
    a = int(np.searchsorted(cum, lo, side="right"))  # the grey level of the lo-th smallest sample
    b = int(np.searchsorted(cum, min(lo + 1, cum[-1] - 1), side="right"))
    return a + (b - a) * (at - lo)


def check_exposure(photo: Photo) -> None:
    g = photo.gray
    step = max(4, int(max(g.shape) / 500))  # about 500 x 375 samples: plenty for a percentile
    small = np.ascontiguousarray(g[::step, ::step])
    hist = cv2.calcHist([small], [0], None, [256], [0, 256]).ravel().astype(np.int64)
    mean = float(hist @ np.arange(256)) / small.size
    if _percentile(hist, 99) < 40 or mean < 12:
        raise VisionRefusal("too dark", "the photo is too dark to see the board (turn on a light)")
    if _percentile(hist, 50) > 250:
        raise VisionRefusal("too bright", "the photo is washed out")


def registered(photo: Photo, box) -> Registration:
    """Register or refuse with the most helpful reason."""
    check_exposure(photo)
    try:
        return register(photo.gray, box)
    except VisionRefusal as exc:
        if exc.reason in ("no markers", "too few markers") and _sharpness(photo.gray) < 15:
            raise VisionRefusal("blurred", "the photo is blurred: no markers can be read (hold the camera still, "
                                "focus on the board)") from None
        if exc.reason == "too few markers":  # the one marker read may show why the others were not
            blur = markers_blur_mm(photo.gray, box, detect_board_markers(photo.gray, box))
            if blur is not None and blur > BLURRED_MM:
                raise _blurred(blur, "too few markers can be read") from None
        raise


def _blurred(blur: float, what: str) -> VisionRefusal:
    return VisionRefusal("blurred", f"the photo is blurred (about {blur:.1f} mm at the markers): {what} "
                         f"(hold the camera still, focus on the board)")


def _blur_at_markers(photo: Photo, reg: Registration, box) -> float | None:
    by_id = {m.id: m for m in box.markers}
    return markers_blur_mm(photo.gray, box, {i: reg.to_photo(np.asarray(by_id[i].corners, float))
                                             for i in reg.markers_seen})


#: check_board samples the board plane in column blocks this wide (px at the layout's ppm), one in
#: ``_BLOCK_EVERY``: the line contrast is a median over the loch, and a fifth of it (still tens of
#: thousands of line pixels) gives the same median for a fifth of the warping.  Not one in 3 or 6:
#: those repeat with the hex columns (60 px) and always see the same part of each hex, which
#: reads the contrast 0.005 low; one in 5 (200 px) steps through the hexes in thirds (measured on 14
#: photos: 0.0015 low, sd 0.0025).  ``_BG_PX``: the window that finds the paper beside a line.
_BLOCK_PX, _BLOCK_EVERY, _BG_PX = 40, 5, 9
_BOARD_SAMPLES: dict = {}


def _board_samples(lay):
    """Sampled columns of the layout, and its line and paper masks there (away from block seams)."""
    key = id(lay)
    if key not in _BOARD_SAMPLES:
        w = lay.paper.shape[1]
        cols = np.arange(w)
        cols = cols[(cols // _BLOCK_PX) % _BLOCK_EVERY == 0]
        # the background window must not reach across a seam into another block
        inner = np.abs((cols % _BLOCK_PX) - (_BLOCK_PX - 1) / 2) <= (_BLOCK_PX - _BG_PX) / 2
        line = (lay.reference[:, cols].mean(-1) < 0.5) & inner
        paper = lay.paper[:, cols] & inner
        _BOARD_SAMPLES[key] = (cols, line, paper, inner.mean() * len(cols) / w)
    return _BOARD_SAMPLES[key]


def _sampled_maps(reg: Registration, lay, cols: np.ndarray):
    """:func:`board_maps` at the sampled columns only: one block at a time (a fifth of the work of
    mapping the whole plane and picking the columns out; the same sample points).

    Every block's exact samples are mapped in one call and interpolated in one resize, the blocks'
    samples side by side: a linear resize by ``MAP_STEP`` gives each kept pixel from its own
    block's samples alone, so the maps are those of board_maps block by block, bit for bit, for
    a third of the time (16 blocks' calls each cost more in Python than in arithmetic)."""
    plan = _block_plan(lay, cols)
    if plan is None:  # a block too narrow for board_maps' interpolation: block by block
        starts = cols[(cols % _BLOCK_PX) == 0]
        w = lay.paper.shape[1]
        maps = [board_maps(reg, lay.x0 + s / lay.ppm, lay.y0, lay.x0 + min(s + _BLOCK_PX, w) / lay.ppm, lay.y1,
                           lay.ppm) for s in starts]
        return np.hstack([m[0] for m in maps]), np.hstack([m[1] for m in maps])
    xs, ys, h, keep = plan
    u, v = grid_maps(reg, xs, ys)
    size = (u.shape[1] * MAP_STEP, u.shape[0] * MAP_STEP)
    rows = np.s_[MAP_STEP:MAP_STEP + h]
    return (cv2.resize(u, size, interpolation=cv2.INTER_LINEAR)[rows].take(keep, axis=1),
            cv2.resize(v, size, interpolation=cv2.INTER_LINEAR)[rows].take(keep, axis=1))


_BLOCK_PLANS: dict = {}


def _block_plan(lay, cols: np.ndarray):
    """(the blocks' sample columns in mm side by side, the sample rows in mm, the rows kept, the
    columns of the resized maps kept), as board_maps samples each block; None when a block is too
    small for its interpolation.  Per layout."""
    key = id(lay)
    if key not in _BLOCK_PLANS:
        w, st = lay.paper.shape[1], MAP_STEP
        xs, keep, n = [], [], 0
        plan = None
        h = int(round((lay.y1 - lay.y0) * lay.ppm))
        for s in cols[(cols % _BLOCK_PX) == 0]:
            x0, x1 = lay.x0 + s / lay.ppm, lay.x0 + min(s + _BLOCK_PX, w) / lay.ppm
            bw = int(round((x1 - x0) * lay.ppm))
            if min(bw, h) < 4 * st:
                break
            kx = np.arange(-1, -(-bw // st) + 1)
            xs.append(x0 + (kx * st + (st - 1) / 2 + 0.5) / lay.ppm)  # board_maps' samples of this block
            keep.append(n * st + st + np.arange(bw))
            n += len(kx)
        else:
            ky = np.arange(-1, -(-h // st) + 1)
            plan = (np.concatenate(xs), lay.y0 + (ky * st + (st - 1) / 2 + 0.5) / lay.ppm, h, np.concatenate(keep))
        _BLOCK_PLANS[key] = plan
    return _BLOCK_PLANS[key]


def _median_ratio(bg: np.ndarray, g: np.ndarray, at_most: int = 40000) -> float:
    """Median of (bg - g) / bg, on an even subsample when there are many pixels (the same median,
    well within the thresholds' margins, for a fraction of the sorting)."""
    step = max(1, len(g) // at_most)
    bg, g = bg[::step], g[::step]
    return float(np.median((bg - g) / np.maximum(bg, 1)))


#: Line contrast (the median darkening of the printed hex lines against the paper beside them;
#: sharp photos 0.25-0.6).  Another board or box profile reads about 0.00 (measured: -0.004 to
#: 0.004 on a profile with 18.5 mm hexes).  Coverage stays right on photos far softer than the
#: gate below: on 8 scenes blurred 0.6-2.5 px it made 0-3 errors in ~1,000 decisions at every level
#: and only left more hexes unknown -- about 5-20 % of the visible loch at contrast 0.15, 15-30 %
#: at 0.10, 30-60 % under 0.07 -- so the gate refuses where most of the loch would be left
#: undecided, not where coverage goes wrong.  (It was 0.2, which refused photos adjudicated
#: without an error, among them one in 600 of the generator's ordinary ones.)
NOT_THIS_BOARD_CONTRAST, SOFT_CONTRAST = 0.05, 0.10
#: two markers whose registration the hex grid did not confirm: the lines must show this clearly
#: that they are where the markers put them
TRUSTED_CONTRAST = 0.2


def check_board(photo: Photo, reg: Registration, box) -> dict:
    """The printed hex lines must be where the profile draws them, and sharp enough to judge."""
    lay = cov.layout(box)
    cols, line_px, paper_px, share = _board_samples(lay)
    mx, my = _sampled_maps(reg, lay, cols)
    g = cv2.remap(photo.gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    h, w = photo.gray.shape
    # (cv2's inclusive range tests: the same mask as four numpy comparisons, in a third of the time)
    inside = cv2.bitwise_and(cv2.inRange(mx, 0, w - 1), cv2.inRange(my, 0, h - 1))  # 0 / 255
    valid = np.bitwise_and(inside, 1, out=inside).view(bool)
    line = line_px & valid
    paper = paper_px & valid
    if line.sum() < 500 * share or paper.sum() < 500 * share:
        raise VisionRefusal("not enough board", "too little of the loch is in the photo")
    # local contrast of lines against nearby paper, robust to sheets and light; the local maximum
    # taken and the pixels picked in 8 bits, then made float: the same values (a maximum commutes
    # with the exact conversion) for a quarter of the dilation's and the picking's work
    bg = cv2.dilate(g, np.ones((_BG_PX, _BG_PX), np.uint8))
    f32 = np.float32
    contrast = _median_ratio(bg[line].astype(f32), g[line].astype(f32))
    off = _median_ratio(bg[paper].astype(f32), g[paper].astype(f32))
    score = contrast - off
    quality = {"line_contrast": round(score, 3)}
    soft = score < SOFT_CONTRAST
    unconfirmed = score < TRUSTED_CONTRAST and len(reg.markers_seen) < 3 and reg.grid_points == 0
    if soft or unconfirmed:
        # lines too faint or not there: out of focus, if the markers' own edges say so
        blur = _blur_at_markers(photo, reg, box)
        if blur is not None and blur > BLURRED_MM:
            raise _blurred(blur, f"the hex borders are too soft to judge (line contrast {score:.2f})")
    if unconfirmed:
        raise VisionRefusal("too few markers", f"only markers {reg.markers_seen} seen and the hex lines do not "
                            f"line up with them (line contrast {score:.2f}): bring a third marker into view")
    if score < NOT_THIS_BOARD_CONTRAST:
        if _sharpness(photo.gray) < 15:
            raise VisionRefusal("blurred", f"the photo is too blurred to judge the hex borders "
                                f"(line contrast {score:.2f})")
        raise VisionRefusal("not this board", f"the hex lines are not where this box profile has them "
                            f"(line contrast {score:.2f}): not this board, or another box profile")
    if soft:
        raise VisionRefusal("blurred", f"the hex borders are too soft to judge (line contrast {score:.2f})")
    return quality


@dataclass
class Adjudication:
    registration: Registration
    coverage: cov.CoverageResult
    sheets: dict[str, list] = field(default_factory=dict)
    board_quality: dict = field(default_factory=dict)
    reference: str = "profile"
    seconds: float = 0.0  # wall time, start to end
    stage_seconds: dict[str, float] = field(default_factory=dict)  # wall time per step (side by side: overlapping)
    stage_cpu_seconds: dict[str, float] = field(default_factory=dict)  # CPU time of the step's own threads


#: Steps that do not need each other run side by side: the board check beside coverage, and the
#: four expeditions' sheet fits together.  OpenCV and numpy's array operations release the GIL and
#: the Pi has four cores.  ``adjudicate(workers=1)`` runs every step in the caller's thread.
WORKERS = min(4, os.cpu_count() or 1)
_POOLS: dict[tuple[int, int], ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _one_malloc_arena() -> None:
    """Have glibc's malloc serve every thread from one arena.  By default each thread that allocates
    gets an arena of its own, and each keeps the large arrays freed in it for reuse: four fitting
    threads held some 90 MB more at the peak of a 12 MP adjudication (327 vs 238 MB, the same CPU
    time).  Elsewhere than glibc: nothing to do."""
    try:
        ctypes.CDLL(None).mallopt(-8, 1)  # M_ARENA_MAX (malloc.h)
    except (OSError, AttributeError):
        pass


_one_malloc_arena()  # before any worker thread (ours or OpenCV's) has allocated an arena of its own


def _pool(workers: int) -> ThreadPoolExecutor:
    key = (os.getpid(), workers)  # a forked child has none of its parent's threads: a pool of its own
    with _POOLS_LOCK:
        if key not in _POOLS:
            _POOLS[key] = ThreadPoolExecutor(workers, thread_name_prefix="adjudicate")
        return _POOLS[key]


class _Stages:
    """Wall and thread CPU seconds per step, from whichever thread runs it."""

    def __init__(self):
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def run(self, name: str, fn, *args, **kwargs):
        t, c = time.perf_counter(), time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            self.wall[name] = self.wall.get(name, 0.0) + time.perf_counter() - t
            self.cpu[name] = self.cpu.get(name, 0.0) + time.thread_time() - c


def adjudicate(photo: Photo, box, reference: np.ndarray | None = None, colours: dict | None = None,
               fit_sheets: bool = True, refine_grid: bool = True, workers: int | None = None) -> Adjudication:
    t0 = time.perf_counter()
    pool = _pool(workers or WORKERS) if (workers or WORKERS) > 1 else None
    st = _Stages()
    reg = st.run("register", registered, photo, box)
    if refine_grid:
        reg = st.run("grid", gridfit.refine, reg, photo.gray, box)
    lay = cov.layout(box)  # loaded here, not raced for by the steps below
    measure = (cov.measure, photo.bgr, reg, box)
    options = {"reference": reference, "colours": colours, "bgr": True}
    if pool is not None:  # coverage's per-pixel steps in row bands on the pool (coverage.ROW_BANDS)
        options.update(pool=pool, workers=workers or WORKERS)
    # the land round the loch, for the fitter (sheetland.py): it needs the registration only
    land_args = ("sheets land", measure_land, photo.bgr, reg, box, lay, colours)
    land = None
    if pool is None:
        quality = st.run("check_board", check_board, photo, reg, box)
        result = st.run("coverage", *measure, **options)
        if fit_sheets:
            land = st.run(*land_args)
    else:
        pending = pool.submit(st.run, "coverage", *measure, **options)
        land_pending = pool.submit(st.run, *land_args) if fit_sheets else None
        try:
            quality = st.run("check_board", check_board, photo, reg, box)
        except BaseException:
            # refused: coverage's result is not wanted, but its memory must be freed first
            wait([pending] + ([land_pending] if land_pending else []))
            raise
        result = pending.result()
        land = land_pending.result() if land_pending else None
    if result.dark_fraction > 0.5:
        raise VisionRefusal("too dark", "most of the loch is too dark to see")
    sheets = {}
    if fit_sheets:
        t = time.perf_counter()
        # the land read again at the loch's tone gain (sheetland.LAND_TONE_GAIN)
        land = st.run("sheets land", with_tone_gain, land, result.tone_gain)
        # what is seen is the same for the four expeditions: put on the fitter's grid once
        seen = st.run("sheets seen", prepare_seen, box, result.seen_for_fitting, lay.x0, lay.y0, lay.ppm, land)

        # another expedition's colour is not plain paper to this one (sheetfit.OTHER_COLOUR_UNSEEN,
        # which fit_expedition reads): each colour's darker part worked out once for the four fits
        others = OtherColours({e: result.fit_masks.lazy(e) for e in cov.EXPEDITIONS})

        def fit(e: str):
            # unsure sheets are kept, marked unidentified: the evidence they touch is left undecided
            # (lazy: the fitter reads its grid straight from coverage's 3 px/mm mask)
            unseen = result.fit_unseen.lazy(e) if result.fit_unseen and e in result.fit_unseen else None
            return st.run(f"sheets {e}", fit_expedition, box, e, result.fit_masks.lazy(e), seen,
                          lay.x0, lay.y0, lay.ppm, unidentified=True, others=others, unseen=unseen)

        done = list(map(fit, cov.EXPEDITIONS) if pool is None else pool.map(fit, cov.EXPEDITIONS))
        sheets = dict(zip(cov.EXPEDITIONS, done))
        if result.glare_rim is not None:  # a cage on the fade of glare alone: unnamed (coverage_glare_rim.py)
            sheets = cages_on_rim(box, sheets, result.glare_rim, result.fit_masks, lay.x0, lay.y0, lay.ppm)
        # a hex a named sheet's outline reaches across with no colour of it seen: undecided, not
        # uncovered (coverage_fit_reach.FIT_REACH_UNDECIDED; coverage's covered hexes untouched)
        result = coverage_fit_reach.undecided_under_fits(box, result, sheets)
        st.wall["sheets"] = time.perf_counter() - t
        st.cpu["sheets"] = sum(st.cpu.pop(f"sheets {e}") for e in (*cov.EXPEDITIONS, "seen", "land"))
        for e in (*cov.EXPEDITIONS, "seen"):
            del st.wall[f"sheets {e}"]
        st.wall["sheets land"] = st.wall.pop("sheets land")  # beside coverage: its wall time overlaps
    return Adjudication(reg, result, sheets, quality, "calibration" if reference is not None else "profile",
                        time.perf_counter() - t0, st.wall, st.cpu)


def _sheet_hexes(box, pose, covered: set[str], margin: float) -> list[str]:
    poly = outline(box, pose)
    if pose.equipment == "cage":
        inside = [h.address for h in box.loch.hexes if _contains(h.polygon, (pose.x, pose.y))]
        return inside
    lo, hi = poly.min(0) - margin, poly.max(0) + margin
    out = []
    for h in box.loch.hexes:
        hp = np.asarray(h.polygon, float)
        if hp[:, 0].max() < lo[0] or hp[:, 0].min() > hi[0] or hp[:, 1].max() < lo[1] or hp[:, 1].min() > hi[1]:
            continue
        if h.address in covered and polygon_distance(poly, hp) <= margin:
            out.append(h.address)
    return out


def _contains(poly, pt) -> bool:
    from .sheets import point_in_polygon

    return bool(point_in_polygon(np.array([pt]), np.asarray(poly, float))[0])


def monsters_from(box, monsters: list[str] | None, surface: str | None) -> dict | None:
    """``{"surface": addr, "submerged": [addr...]}`` from --monsters (first = surface) or --surface."""
    if surface:
        h = box.loch.parse(surface)
        return {"surface": h.address, "submerged": sorted(box.loch.submerged(h.address).placed().values())}
    if monsters:
        parsed = [box.loch.parse(m).address for m in monsters]
        return {"surface": parsed[0], "submerged": parsed[1:]}
    return None


def evidence(box, adj: Adjudication, monsters: dict) -> tuple[list[dict], list[dict]]:
    """Who takes which cards: (awards, undecided)."""
    awards, undecided = [], []
    packs = {p.equipment: p.label for p in box.evidence_packs}
    targets = [(monsters["surface"], "surface")] + [(m, "submerged") for m in monsters["submerged"]]
    for e in cov.EXPEDITIONS:
        covered = set(adj.coverage.covered[e])
        unknown = set(adj.coverage.unknown[e])
        fitted = adj.sheets.get(e, [])
        for addr, sight in targets:
            if addr in unknown:
                undecided.append({"expedition": e, "monster": addr, "sight": sight,
                                  "reason": "the hex is not clearly visible (glare, shadow, hand or out of view)"})
                continue
            if addr not in covered:
                continue
            credited = unsure = False
            for f in fitted:
                if addr not in _sheet_hexes(box, f.pose, covered, CREDIT_MM):
                    continue
                if not f.identified:
                    unsure = True  # a sheet is there, but which equipment it is was not clear
                    continue
                eq = box.equipment[f.pose.equipment]
                credited = True
                if sight == "submerged" and not eq.sees_submerged:
                    continue
                awards.append({"expedition": e, "monster": addr, "sight": sight, "equipment": eq.id,
                               "pack": packs.get(eq.id, eq.label), "cards": 1,
                               "sheet": {"at_mm": f.pose.to_json()["at_mm"], "angle_deg": f.pose.to_json()["angle_deg"]}})
            if unsure or not credited:
                undecided.append({"expedition": e, "monster": addr, "sight": sight,
                                  "reason": "covered by this expedition's colour, but the sheet's equipment "
                                            "could not be identified"})
    return awards, undecided


def to_json(box, adj: Adjudication, photo: Photo, monsters: dict | None) -> dict:
    lay = cov.layout(box)
    doc = {
        "schema": SCHEMA,
        "photo": {"source": photo.source, "width": photo.original_size[0], "height": photo.original_size[1],
                  "decoded_width": int(photo.bgr.shape[1]), "decoded_height": int(photo.bgr.shape[0])},
        "board": {"name": box.name, "digest": box.digest},
        "registration": {**adj.registration.to_json(), **adj.board_quality},
        "reference": adj.reference,
        "line_mm": LINE_MM,
        "expeditions": {},
        "unknown_regions": adj.coverage.unknown_regions,
        "cards_rule": CARDS_RULE,
        "seconds": round(adj.seconds, 3),
        "stage_seconds": {k: round(v, 3) for k, v in adj.stage_seconds.items()},
    }
    for e in cov.EXPEDITIONS:
        covered = set(adj.coverage.covered[e])
        doc["expeditions"][e] = {
            "covered": adj.coverage.covered[e],
            "unknown": adj.coverage.unknown[e],
            "sheets": [{**f.to_json(), "hexes": _sheet_hexes(box, f.pose, covered, CREDIT_MM)}
                       for f in adj.sheets.get(e, [])],
        }
    if monsters is not None:
        awards, undecided = evidence(box, adj, monsters)
        doc["monsters"] = monsters
        doc["evidence"] = awards
        doc["undecided"] = undecided
    del lay
    return doc


def refusal_json(exc: VisionRefusal, source: str = "") -> dict:
    return {"schema": SCHEMA, "refused": True, "reason": exc.reason, "message": str(exc), "photo": {"source": source}}
