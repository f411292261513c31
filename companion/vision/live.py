"""Live mode: watch the board through the camera and follow each sheet from purchase to placement.

Feed :meth:`LiveBoard.feed` every camera frame with the time it was taken (the logic keeps no
clock of its own).  Only a clear, still view is looked at: still (stillness.py: no motion for a
few frames), registrable (the markers), and not obstructed (no large change that no sheet
explains: a hand, a shadow, a coin).  The last such view is the *reference*: the board as the
companion believes it to be.

* A purchase (:meth:`purchased`: expedition and equipment) opens a *waiting* sheet.  At the next
  clear, still view, the colour that arrived since the reference (boarddiff.py, in the board
  plane) is fitted with the bought equipment's outline only (livefit.py) -- the sheet is found
  and its pose kept, and the placement rules (placement.py) are checked at once.  The sheet stays
  *placing* while its expedition's turn lasts: the player can fix it, and every still view
  re-fits it and checks the rules again.  :meth:`settle` (end of the turn, or the next purchase)
  makes it *placed*, and its pose then is the one it must keep.
* A sheet whose colour has left part of its outline is fitted again (what is left of it plus what
  arrived nearby).  A placed sheet is **moved** when a corner of its outline lies more than
  ``MOVED_MM`` from the nearest corner where it was placed, or it is gone; putting it back clears
  the flag.
* Whatever changed and is no sheet we know of is reported as unexpected; in the reference those
  pixels keep their old values, so it stays reported until it is undone or :meth:`accept`-ed.

Bad input never changes what is tracked: a garbage frame, a stopped camera, a moving or
obstructed view only change the reported state.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from . import boarddiff
from .boarddiff import BoardView, Grid, board_view, compare, grow, loch_grid
from .placement import Violation, check_placement
from .registration import VisionRefusal
from .livefit import Fit, fit_known, polish
from .sheets import SheetPose, outline, place
from .stillness import StillnessDetector

#: A placed sheet has moved when a corner of its outline lies this far from the nearest corner where
#: it was placed.
MOVED_MM = 2.0
#: This much of a sheet's colour must have left its outline before it is looked for again.
LOST_MM2 = 20.0
#: At least this much of a colour must arrive before a bought sheet is looked for.
ARRIVED_MM2 = 60.0

WAITING, PLACING, PLACED, RETURNED = "waiting", "placing", "placed", "returned"


@dataclass
class TrackedSheet:
    """One bought sheet: where it is now, where it was placed, and what the rules say about it."""

    expedition: str
    equipment: str
    piece: int | None = None  # the game's piece number, when the table told us
    hex: str | None = None  # a cage's hexagon, noted when it was bought
    status: str = WAITING
    pose: SheetPose | None = None  # now (None: not seen, or gone)
    placed_pose: SheetPose | None = None  # when it was settled
    fit: float = 0.0
    bought_at: float = 0.0
    seen_at: float | None = None
    violations: list[Violation] = field(default_factory=list)
    shape: tuple = field(default=(), repr=False)  # the equipment's outline (for how far it moved)

    @property
    def on_board(self) -> bool:
        return self.pose is not None and self.status in (PLACING, PLACED, RETURNED)

    @property
    def moved_by_mm(self) -> float | None:
        if self.status != PLACED or self.placed_pose is None or self.pose is None:
            return None
        return float(outline_deviation_mm(self.pose, self.placed_pose, self.shape))

    @property
    def moved(self) -> bool:
        if self.status != PLACED:
            return False
        if self.pose is None:
            return True  # gone
        return bool((self.moved_by_mm or 0.0) > MOVED_MM)

    def to_json(self) -> dict:
        d = {"piece": self.piece, "expedition": self.expedition, "equipment": self.equipment,
             "status": self.status, "pose": self.pose.to_json() if self.pose else None,
             "placed_pose": self.placed_pose.to_json() if self.placed_pose else None,
             "fit": round(self.fit, 3), "moved": self.moved, "gone": self.status == PLACED and self.pose is None,
             "violations": [v.to_json() for v in self.violations]}
        if self.pose is not None and self.shape:  # for the table screen to draw it where it lies
            d["outline_mm"] = np.round(place(self.shape, self.pose.x, self.pose.y, self.pose.angle_deg), 1).tolist()
        by = self.moved_by_mm
        if by is not None:
            d["moved_by_mm"] = round(by, 2)
        return d


def outline_deviation_mm(a: SheetPose, b: SheetPose, shape) -> float:
    """How far two placements of one outline are apart: the largest distance from a corner of either
    to the nearest corner of the other.  A slide moves every corner; a turn swings the far corners
    most; a symmetric shape turned onto itself (a cage by 180 degrees) has not moved at all."""
    pa = place(shape, a.x, a.y, a.angle_deg)
    pb = place(shape, b.x, b.y, b.angle_deg)
    d = np.linalg.norm(pa[:, None, :] - pb[None, :, :], axis=-1)
    return float(max(d.min(1).max(), d.min(0).max()))


class LiveBoard:
    """Frames in, tracked sheets and placement-rule violations out.  Thread-safe."""

    def __init__(self, box, colours: dict | None = None, still_frames: int = 4, grid: Grid | None = None):
        self.box = box
        self.colours = dict(colours or box.sheet_colours)
        self.grid = grid or loch_grid(box)
        self.stillness = StillnessDetector(still_frames)
        self.sheets: list[TrackedSheet] = []
        self.reference: BoardView | None = None
        self.state = "starting"  # starting | moving | still | obstructed | no camera | bad frame
        self.message = "waiting for the first frame"
        self.unexpected: list[dict] = []
        self.views = 0  # still views looked at
        self.games = 0  # new games started while watching
        self.view_seconds: float | None = None
        self.last_frame_at: float | None = None
        self.last_view_at: float | None = None
        self.clear_view: tuple | None = None  # (frame, time) of the last view found clear and still
        self._looked = False  # the current still period has been looked at
        self._dirty = False  # something happened (a purchase) that the current still view must answer
        self._looked_at = None  # the last view looked at, small (stillness.py)
        self._claimed: dict = {}  # expedition -> where sheets found in the current look lie
        self._found: list[TrackedSheet] = []
        self._accepted = 0  # times the board was taken as it is (the memory is written again)
        self._lock = threading.RLock()
        self._published = self._status()

    # -- events from the game ------------------------------------------------------------------

    def purchased(self, expedition: str, equipment: str, piece: int | None = None, now: float = 0.0,
                  hex: str | None = None) -> TrackedSheet:
        """A sheet was bought: the next clear, still view looks for it.  Earlier placements are settled."""
        if equipment not in self.box.equipment:
            raise ValueError(f"unknown equipment {equipment!r}")
        with self._lock:
            self.settle(now)
            sheet = TrackedSheet(expedition, equipment, piece, hex, WAITING, bought_at=now,
                                 shape=self.box.equipment[equipment].shape)
            self.sheets.append(sheet)
            self._dirty = True
            self._published = self._status()
            return sheet

    def settle(self, now: float = 0.0) -> None:
        """The turn is over: every sheet being placed is placed where it lies now."""
        with self._lock:
            for s in self.sheets:
                if s.status == PLACING and s.pose is not None:
                    s.status, s.placed_pose = PLACED, s.pose
            self._published = self._status()

    def returned(self, piece: int, now: float = 0.0) -> None:
        """A piece went back to the Sponsor (or its purchase was undone): it should leave the board."""
        with self._lock:
            for s in list(self.sheets):
                if s.piece == piece:
                    if s.pose is None:
                        self.sheets.remove(s)
                    else:
                        s.status, s.violations = RETURNED, []
            self._published = self._status()

    def accept(self, now: float = 0.0) -> None:
        """Take the board as it is now: the next still view becomes the reference, moved sheets placed
        where they lie, gone ones dropped."""
        with self._lock:
            self.reference = None
            self.unexpected = []
            self._looked = False
            self._accepted += 1
            for s in list(self.sheets):
                if s.status == PLACED:
                    if s.pose is None:
                        self.sheets.remove(s)
                    else:
                        s.placed_pose = s.pose
            self._published = self._status()

    def new_game(self, now: float = 0.0) -> None:
        """A new game: nothing is followed any more, and the next still view is the reference."""
        with self._lock:
            self.games += 1
            self.sheets, self.unexpected = [], []
            self.reference, self.clear_view = None, None
            self._looked = False
            self._published = self._status()

    # -- remembering across a restart (companion/live_memory.py stores it) ---------------------

    def memory_key(self) -> tuple:
        """Changes whenever what :meth:`remember` gives changes in a way worth writing down: a sheet
        found, placed, moved, gone, returned; the board accepted; a new game (not a re-fit's jitter)."""
        with self._lock:
            return (self.games, self.reference is not None, self._accepted,
                    tuple((s.piece, s.expedition, s.equipment, s.status, s.pose is None, s.moved,
                           None if s.placed_pose is None else tuple(round(v, 1) for v in s.placed_pose.to_json()["at_mm"]))
                          for s in self.sheets))

    def remember(self) -> dict | None:
        """The sheets followed (with where they were placed) and the reference view they are checked
        against; None before the first clear, still view."""
        with self._lock:
            if self.reference is None:
                return None
            sheets = [{"piece": s.piece, "expedition": s.expedition, "equipment": s.equipment, "hex": s.hex,
                       "status": s.status, "fit": round(s.fit, 3),
                       "pose": s.pose.to_json() if s.pose else None,
                       "placed_pose": s.placed_pose.to_json() if s.placed_pose else None} for s in self.sheets]
            return {"sheets": sheets, "plane": self.reference.plane.copy(), "valid": self.reference.valid.copy()}

    def recall(self, memory: dict, now: float = 0.0, pieces: set | None = None) -> int:
        """Follow again what :meth:`remember` gave before a restart: the next still view is compared
        with the remembered reference, so a sheet moved while the companion was off is flagged.
        Sheets of pieces the game no longer has (``pieces``: the ids it has) are dropped.  A memory
        made on another grid is refused (ValueError); returns how many sheets are followed."""
        plane, valid = memory["plane"], memory["valid"]
        if plane.shape[:2] != self.grid.shape or valid.shape != self.grid.shape:
            raise ValueError(f"the remembered board view is {plane.shape[1]}x{plane.shape[0]}, "
                             f"this board's grid {self.grid.shape[1]}x{self.grid.shape[0]}")
        sheets = []
        for i, d in enumerate(memory["sheets"]):
            if d["equipment"] not in self.box.equipment or (pieces is not None and d["piece"] not in pieces):
                continue
            pose = SheetPose.from_json({**d["pose"], "expedition": d["expedition"], "equipment": d["equipment"]}) \
                if d.get("pose") else None
            placed = SheetPose.from_json({**d["placed_pose"], "expedition": d["expedition"],
                                          "equipment": d["equipment"]}) if d.get("placed_pose") else None
            sheets.append(TrackedSheet(d["expedition"], d["equipment"], d["piece"], d.get("hex"), d["status"], pose,
                                       placed, float(d.get("fit", 0.0)), bought_at=now - 1e-3 * (len(memory["sheets"]) - i),
                                       shape=self.box.equipment[d["equipment"]].shape))
        with self._lock:
            self.sheets = sheets
            self.reference = BoardView(plane, valid, None, now)
            self.unexpected, self._looked = [], False
            self.message = f"following {len(sheets)} sheet(s) remembered from before the restart"
            self._published = self._status()
        return len(sheets)

    # -- frames --------------------------------------------------------------------------------

    def camera_failed(self, message: str, now: float) -> None:
        """The camera gave no frame: say so; what is tracked stays as it was."""
        with self._lock:
            self.state, self.message = "no camera", message
            self.stillness.reset()
            self._looked = False
            self._published = self._status()

    def feed(self, frame, now: float) -> str:
        """Look at one frame taken at ``now``; returns the state."""
        with self._lock:
            self._feed(frame, now)
            self._published = self._status()
            return self.state

    def _feed(self, frame, now: float) -> None:
        self.last_frame_at = now
        why = _bad_frame(frame)
        if why:
            self.state, self.message = "bad frame", why
            self.stillness.reset()
            self._looked = False
            return
        self.stillness.update(frame)
        if not self.stillness.still:
            self.state, self.message = "moving", "the view is moving: waiting for it to settle"
            self._looked = False
            return
        if self._looked and not self._dirty and not self.stillness.differs_from(self._looked_at):
            return
        self._looked, self._dirty = True, False
        self._looked_at = self.stillness.snapshot()
        self._look(frame, now)

    def _look(self, frame, now: float) -> None:
        t0 = time.perf_counter()
        try:
            view = board_view(frame, self.box, self.grid, now)
        except VisionRefusal as exc:
            self.state, self.message = "obstructed", f"the board cannot be read ({exc.reason}): {exc}"
            return
        self.views += 1
        self.last_view_at = now
        if self.reference is None:
            self.reference = view
            self.state, self.message = "still", "the board as it is now is the reference"
        else:
            self._compare(view, now)
        if self.state == "still":
            self.clear_view = (frame, now)  # what an adjudication from the camera may use
        self.view_seconds = time.perf_counter() - t0

    def _compare(self, view: BoardView, now: float) -> None:
        grid = self.grid
        change = compare(self.reference, view, self.colours, grid)
        blocked = _largest_mm2(change.unexplained, grid)
        if blocked >= boarddiff.OBSTRUCTION_MM2:
            self.state = "obstructed"
            self.message = (f"something that is not a sheet covers {blocked:.0f} mm² of the loch "
                            f"(a hand, a shadow?): no call until it is gone")
            return
        arrived = {e: m.copy() for e, m in change.arrived.items()}
        left = {e: m.copy() for e, m in change.left.items()}
        # where a sheet found in this look lies: another of its colour may lie under it too, so
        # there the next fit may neither gain nor lose
        self._claimed = {e: np.zeros(grid.shape, bool) for e in arrived}
        self._found: list[TrackedSheet] = []  # sheets found (not re-fitted) in this look
        # the newest first: a sheet being placed that slid off an older one of its colour has taken
        # that colour with it, and the older one must not be blamed for it
        for s in sorted(self.sheets, key=lambda s: (s.status != PLACING, -s.bought_at)):
            if s.on_board and s.expedition in left:
                self._refit_if_moved(s, change, arrived, left, now)
        for s in sorted((s for s in self.sheets if s.pose is None), key=lambda s: (s.status != WAITING, s.bought_at)):
            if s.expedition in arrived:
                self._find(s, change, arrived, now)
        self._polish_overlapping(change)
        self._check_rules()
        self.unexpected = self._unexpected(arrived, left, change.unexplained)
        # the reference follows the board, except where something changed that nothing explains
        keep_old = grow(change.unexplained | _any(arrived) | _any(left), 1.0, grid.ppm)
        ref = self.reference
        ref.plane = np.where(keep_old[..., None], ref.plane, view.plane)
        ref.valid = np.where(keep_old, ref.valid, view.valid)
        ref.registration, ref.at = view.registration, now
        self.state = "still"
        self.message = "the view is clear and still" + (f"; {len(self.unexpected)} unexpected change(s)"
                                                        if self.unexpected else "")

    def _refit_if_moved(self, s: TrackedSheet, change, arrived, left, now) -> None:
        """Fit a sheet again when its colour has left part of its outline; what it explains is taken
        out of ``arrived`` and ``left``."""
        grid, e = self.grid, s.expedition
        inside = grid.sheet(self.box, s.pose)
        lost = left[e] & inside
        if grid.mm2(lost) < LOST_MM2:
            return
        reach = grid.near(outline(self.box, s.pose), _extent_mm(self.box, s.equipment))
        keep = inside & ~grow(left[e], 0.5, grid.ppm)
        fitted = fit_one(self.box, s, keep | (arrived[e] & reach), change.seen, grid)
        old = inside
        if fitted is None:
            s.pose, s.fit = None, 0.0
            if s.status in (PLACING, RETURNED):  # taken off while placing, or returned as it should be
                if s.status == RETURNED:
                    self.sheets.remove(s)
                else:
                    s.status, s.violations = WAITING, []
            new = np.zeros(grid.shape, bool)
        else:
            s.pose, s.fit, s.seen_at = fitted.pose, fitted.score, now
            new = grid.sheet(self.box, s.pose)
            self._claimed[e] |= new
        left[e] &= ~grow(old, 1.0, grid.ppm)
        arrived[e] &= ~grow(new, 1.0, grid.ppm)

    def _find(self, s: TrackedSheet, change, arrived, now) -> None:
        """A bought sheet not seen yet (or a placed one gone): fit its outline to what arrived."""
        grid, e = self.grid, s.expedition
        mask = arrived[e]
        if s.status == PLACED and s.placed_pose is not None:  # gone: look only near where it was
            mask = mask & grid.near(outline(self.box, s.placed_pose), _extent_mm(self.box, s.equipment))
        if grid.mm2(mask) < ARRIVED_MM2:
            return
        fitted = fit_one(self.box, s, mask, change.seen & ~self._claimed[e], grid)
        if fitted is None:
            return
        s.pose, s.fit, s.seen_at = fitted.pose, fitted.score, now
        if s.status == WAITING:
            s.status = PLACING
        new = grid.sheet(self.box, s.pose)
        self._claimed[e] |= new
        self._found.append(s)
        arrived[e] &= ~grow(new, 1.0, grid.ppm)

    def _polish_overlapping(self, change) -> None:
        """Sheets of one colour put down overlapping at once were fitted one after the other, the first
        against both; polish each again with the others' outlines taken out of the reckoning."""
        grid = self.grid
        for s in self._found:
            others = [o for o in self._found if o is not s and o.expedition == s.expedition]
            if not others:
                continue
            hidden = np.logical_or.reduce([grid.sheet(self.box, o.pose) for o in others])
            s.pose = polish(self.box, s.pose, change.arrived[s.expedition], change.seen & ~hidden, grid)

    def _check_rules(self) -> None:
        for s in self.sheets:
            if s.status != PLACING or s.pose is None:
                if s.status != PLACED:
                    s.violations = []
                continue
            others = [o for o in self.sheets if o is not s and o.on_board and o.status != RETURNED]
            found = check_placement(self.box, s.pose, [o.pose for o in others], s.hex)
            # check_placement numbers the expedition's own sheets, the new one last: name them by piece
            own = [o for o in others if o.expedition == s.expedition] + [s]
            s.violations = [Violation(v.rule, v.message, tuple(own[i].piece for i in v.sheets), v.at_mm)
                            for v in found]

    def _unexpected(self, arrived, left, unexplained) -> list[dict]:
        grid, out = self.grid, []
        for kind, masks in (("sheet arrived", arrived), ("sheet left", left)):
            for e, m in masks.items():
                for comp in _components(m, boarddiff.MIN_CHANGE_MM2 * grid.ppm ** 2):
                    out.append({"kind": kind, "expedition": e, "bbox_mm": grid.bbox_mm(comp),
                                "area_mm2": round(grid.mm2(comp), 1)})
        for comp in _components(unexplained, boarddiff.MIN_CHANGE_MM2 * grid.ppm ** 2):
            out.append({"kind": "not a sheet", "bbox_mm": grid.bbox_mm(comp), "area_mm2": round(grid.mm2(comp), 1)})
        return out

    # -- reading -------------------------------------------------------------------------------

    @property
    def violations(self) -> list[tuple[TrackedSheet, Violation]]:
        with self._lock:
            return [(s, v) for s in self.sheets for v in s.violations]  # v.sheets: the pieces involved

    def status(self) -> dict:
        """The status now (waits while a view is being looked at)."""
        with self._lock:
            return self._status()

    def snapshot(self) -> dict:
        """The status as of the last frame or event, without waiting (for the web pages)."""
        return self._published

    def _status(self) -> dict:
        sheets = [s.to_json() for s in self.sheets]
        return {
            "state": self.state, "message": self.message,
            "motion": round(self.stillness.motion, 4),
            "still_views": self.views, "last_frame_at": self.last_frame_at, "last_view_at": self.last_view_at,
            "view_seconds": None if self.view_seconds is None else round(self.view_seconds, 3),
            "has_reference": self.reference is not None,
            "waiting_for": [{"piece": s.piece, "expedition": s.expedition, "equipment": s.equipment}
                            for s in self.sheets if s.status == WAITING],
            "sheets": sheets,
            "violations": [{"piece": s.piece, "expedition": s.expedition, "equipment": s.equipment,
                            **v.to_json()} for s in self.sheets for v in s.violations],
            "moved": [{"piece": s.piece, "expedition": s.expedition, "equipment": s.equipment,
                       "gone": s.pose is None, "moved_by_mm": None if s.pose is None else round(s.moved_by_mm, 2)}
                      for s in self.sheets if s.moved],
            "unexpected": list(self.unexpected),
            "moved_tolerance_mm": MOVED_MM,
        }


def fit_one(box, sheet: TrackedSheet, mask: np.ndarray, seen: np.ndarray, grid: Grid) -> Fit | None:
    return fit_known(box, sheet.expedition, sheet.equipment, mask, seen, grid)


def _extent_mm(box, equipment: str) -> float:
    shape = np.asarray(box.equipment[equipment].shape, float)
    return float(np.linalg.norm(shape - shape.mean(0), axis=1).max() * 2)


def _any(masks: dict) -> np.ndarray:
    return np.logical_or.reduce(list(masks.values()))


def _largest_mm2(mask: np.ndarray, grid: Grid) -> float:
    comps = _components(mask, 1)
    return max((grid.mm2(c) for c in comps), default=0.0)


def _components(mask: np.ndarray, min_px: float) -> list[np.ndarray]:
    import cv2

    if not mask.any():  # most colours change nowhere: skip the labelling of a large empty plane
        return []
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    return [labels == k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= min_px]


def _bad_frame(frame) -> str | None:
    if not isinstance(frame, np.ndarray):
        return f"the camera gave no picture ({type(frame).__name__})"
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        return f"the camera gave a frame that is not a colour picture ({frame.dtype}, shape {frame.shape})"
    if min(frame.shape[:2]) < 200:
        return f"the camera's frame is only {frame.shape[1]}x{frame.shape[0]} pixels"
    return None
