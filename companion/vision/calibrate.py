"""Calibration (``nessie-companion calibrate``): the empty board as reference, and each colour.

From a photo of the empty board the loch and its margin are resampled onto the board plane
(coverage.py's grid) and kept as the reference: then the real print, paper and light replace the
drawing from the box profile.  From a photo with one sheet of an expedition lying on the loch the
sheet's colour (what white paper looks like through it) replaces the profile's default.

The calibration file is JSON: the board's digest (a calibration fits one box profile only), the
grid, the reference image as a base64 PNG, and the sheet colours measured.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError

from . import coverage as cov
from . import gridfit
from .adjudicate import Photo, check_board, registered
from .registration import VisionRefusal, warp_to_board

SCHEMA = "nessie-vision-calibration/1"
# The calibration photos registered as a game photo is (adjudicate: the markers, then the hex grid):
# the reference is divided out of the game photo pixel by pixel, so the two must lie on the board's
# grid alike.  Registered on the markers alone, the empty board's printed lines sat up to ~1 mm off
# the game photo's (second generator, tests/board_raycast.py: the marker fit errs 0.8 mm median
# there, the grid fit 0.1 mm): paper beside each line was divided by the reference's line and read
# as light added (added light 0.10 against 0.01, seed 0), so whole sheets were left unknown as glare.
REFINE_CALIBRATION_GRID = True


class CalibrationError(CompanionError, ValueError):
    """A calibration file that cannot be used with this board."""


def _registration(photo: Photo, box):
    """The calibration photo's registration, refined on the hex grid (REFINE_CALIBRATION_GRID)."""
    reg = registered(photo, box)
    return gridfit.refine(reg, photo.gray, box) if REFINE_CALIBRATION_GRID else reg


def reference_from(photo: Photo, box) -> tuple[np.ndarray, dict]:
    reg = _registration(photo, box)
    quality = check_board(photo, reg, box)
    lay = cov.layout(box)
    warped, valid = warp_to_board(photo.bgr, reg, lay.x0, lay.y0, lay.x1, lay.y1, lay.ppm)
    warped = np.ascontiguousarray(warped[..., ::-1])  # RGB
    if valid[lay.paper].mean() < 0.98:
        raise VisionRefusal("not enough board", "the empty board's photo must show the whole loch")
    return warped, {**reg.to_json(), **quality}


def measure_colour(photo: Photo, box, reference: np.ndarray) -> tuple[list[int], float]:
    """The colour of the one sheet lying on the loch, from a photo and the empty reference."""
    reg = _registration(photo, box)
    lay = cov.layout(box)
    warped, valid = warp_to_board(photo.bgr, reg, lay.x0, lay.y0, lay.x1, lay.y1, lay.ppm)
    warped = np.ascontiguousarray(warped[..., ::-1])  # RGB
    img = warped.astype(np.float32) / 255
    ref = reference.astype(np.float32) / 255
    D = cv2.log(np.maximum(img, 1 / 512)) - cv2.log(np.maximum(ref, 1 / 64))
    paper = lay.paper & valid
    D = D - cov._lighting(D, paper, lay.ppm)
    tinted = paper & (D.min(-1) < -0.2) & (D.max(-1) < 0.15)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(tinted.astype(np.uint8), connectivity=8)
    if n <= 1:
        raise VisionRefusal("no sheet", "no coloured sheet found on the loch")
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    area_mm2 = stats[k, cv2.CC_STAT_AREA] / lay.ppm ** 2
    if area_mm2 < 150:
        raise VisionRefusal("no sheet", f"the coloured area is too small ({area_mm2:.0f} mm^2) to measure")
    m = labels == k
    m = cv2.erode(m.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0  # keep clear of the edges
    med = np.median(D[m], axis=0)
    colour = [int(np.clip(round(255 * float(np.exp(v))), 1, 255)) for v in med]
    return colour, float(area_mm2)


def calibrate(box, empty: Photo, colours: dict[str, Photo] | None = None) -> dict:
    reference, quality = reference_from(empty, box)
    lay = cov.layout(box)
    ok, png = cv2.imencode(".png", cv2.cvtColor(reference, cv2.COLOR_RGB2BGR))
    if not ok:
        raise CalibrationError("could not encode the reference image")
    measured = {}
    for expedition, photo in (colours or {}).items():
        if expedition not in cov.EXPEDITIONS:
            raise CalibrationError(f"unknown expedition {expedition!r}; one of {', '.join(cov.EXPEDITIONS)}")
        colour, area = measure_colour(photo, box, reference)
        measured[expedition] = {"rgb": colour, "area_mm2": round(area, 1), "photo": photo.source}
    return {
        "schema": SCHEMA,
        "board_digest": box.digest,
        "grid": {"x0_mm": lay.x0, "y0_mm": lay.y0, "x1_mm": lay.x1, "y1_mm": lay.y1, "ppm": lay.ppm},
        "empty": {"photo": empty.source, "registration": quality},
        "sheet_colours": {e: v["rgb"] for e, v in measured.items()},
        "measured": measured,
        "reference_png_base64": base64.b64encode(png.tobytes()).decode("ascii"),
    }


def load_calibration(path: str | Path, box) -> tuple[np.ndarray, dict]:
    """(reference RGB uint8 on coverage.py's grid, sheet colours with defaults filled in)."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CalibrationError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CalibrationError(f"{path}: not a calibration file ({exc})") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise CalibrationError(f"{path}: not a calibration file (schema {SCHEMA!r} expected)")
    if doc.get("board_digest") != box.digest:
        raise CalibrationError(f"{path}: made for another box profile; calibrate again for this board")
    lay = cov.layout(box)
    g = doc.get("grid", {})
    if [g.get("x0_mm"), g.get("y0_mm"), g.get("x1_mm"), g.get("y1_mm"), g.get("ppm")] != \
            [lay.x0, lay.y0, lay.x1, lay.y1, lay.ppm]:
        raise CalibrationError(f"{path}: made by another version of the companion; calibrate again")
    try:
        png = base64.b64decode(doc["reference_png_base64"])
        bgr = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    except (KeyError, ValueError, TypeError):
        bgr = None
    if bgr is None or bgr.shape[:2] != lay.shape:
        raise CalibrationError(f"{path}: the reference image is missing or damaged")
    colours = dict(box.sheet_colours)
    for e, rgb in (doc.get("sheet_colours") or {}).items():
        if e in colours and isinstance(rgb, list) and len(rgb) == 3:
            colours[e] = tuple(int(v) for v in rgb)
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), colours
