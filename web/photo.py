"""Photo adjudication on the dashboard: a phone photographs the board, the companion says who covers
the monster hexes and draws it over the photo.

POST /api/photo {"image": base64 JPEG/PNG, "name": "..."} (JSON, like every other request, so the
CSRF rule holds) -> the adjudication (``nessie-companion adjudicate`` JSON) for the monsters on the
board now, plus an ``overlay``: hex outlines in photo pixels for the page to draw. Reading a photo
changes nothing in the game.
"""

from __future__ import annotations

import base64
import binascii

from flask import Blueprint, current_app, jsonify, render_template, request

bp = Blueprint("photo", __name__)

PHOTO_LIMIT = 24 * 1024 * 1024  # a 12-megapixel phone JPEG, base64-encoded


@bp.get("/photo")
def page():
    return render_template("photo.html")


@bp.before_request
def _allow_big_photos():
    if request.endpoint == "photo.adjudicate_photo":
        request.max_content_length = PHOTO_LIMIT


@bp.post("/api/photo")
def adjudicate_photo():
    from companion.vision.adjudicate import adjudicate, decode, refusal_json, to_json
    from companion.vision.registration import VisionRefusal

    service = current_app.extensions["companion"]
    box = service.box
    data = request.get_json(silent=True)
    if not isinstance(data, dict) or not isinstance(data.get("image"), str):
        return jsonify(error='send {"image": "<base64 of a JPEG or PNG>"}', status=400), 400
    try:
        raw = base64.b64decode(data["image"].split(",", 1)[-1], validate=True)
    except (binascii.Error, ValueError):
        return jsonify(error="the image is not valid base64", status=400), 400
    name = str(data.get("name") or "photo")[:200]
    monsters = current_monsters(service)
    try:
        photo = decode(raw, name)
        reference, colours = calibration(service)
        adj = adjudicate(photo, box, reference=reference, colours=colours)
    except VisionRefusal as exc:
        return jsonify(error=f"refused ({exc.reason}): {exc}", refusal=refusal_json(exc, name), status=422), 422
    doc = to_json(box, adj, photo, monsters)
    doc["overlay"] = overlay(box, adj, doc, monsters)
    # The table screen shows what this photo saw (colour and pattern per expedition) until the next one.
    service.table.annotate("vision", {
        "photo": name, "monsters": monsters, "evidence": doc.get("evidence", []),
        "covered": {e: d["covered"] for e, d in doc["expeditions"].items()},
        "unknown": sorted({a for d in doc["expeditions"].values() for a in d["unknown"]}),
    })
    return jsonify(doc)


def calibration_path(service):
    from pathlib import Path

    if service.store.path == ":memory:":
        return None
    return Path(service.store.path).with_name("calibration.json")


def calibration(service):
    """The saved calibration for this board (reference image, sheet colours), or (None, None)."""
    from companion.vision.calibrate import CalibrationError, load_calibration

    path = calibration_path(service)
    if path is None or not path.exists():
        return None, None
    try:
        return load_calibration(path, service.box)
    except CalibrationError:
        return None, None  # made for another board or version: the profile's defaults until recalibrated


@bp.get("/calibrate")
def calibrate_page():
    service = current_app.extensions["companion"]
    return render_template("calibrate.html", camera=service.board_camera is not None)


@bp.before_request
def _allow_big_calibration():
    if request.endpoint == "photo.save_calibration":
        request.max_content_length = 5 * PHOTO_LIMIT


def _camera_frame(service):
    if service.board_camera is None:
        return None, "no board camera is configured ([board_camera] source, or demo --board-camera sim)"
    frame = service.board_camera.frame()
    if frame is None:
        return None, f"the board camera gives no picture: {service.board_camera.last_error}"
    return frame, None


@bp.get("/api/board-camera/snapshot.jpg")
def camera_snapshot():
    """The board camera's latest frame (the calibration wizard's live preview)."""
    import cv2

    frame, why = _camera_frame(current_app.extensions["companion"])
    if frame is None:
        return jsonify(error=why, status=404), 404
    ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return current_app.response_class(jpeg.tobytes(), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/api/board-camera/status")
def camera_status():
    """Which markers the board camera sees now, and how well the board registers."""
    import cv2

    from companion.vision.adjudicate import Photo, registered
    from companion.vision.registration import VisionRefusal

    service = current_app.extensions["companion"]
    frame, why = _camera_frame(service)
    if frame is None:
        return jsonify(error=why, status=404), 404
    photo = Photo(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB), cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), "board camera")
    try:
        reg = registered(photo, service.box)
    except VisionRefusal as exc:
        return jsonify(ok=False, reason=exc.reason, message=str(exc))
    return jsonify(ok=True, registration=reg.to_json(), size=[int(frame.shape[1]), int(frame.shape[0])])


@bp.get("/api/board-camera/live")
def camera_live():
    """Live mode: still, moving or obstructed; the sheets followed since they were bought, their poses,
    the placement rules they break and whether they moved since they were placed."""
    service = current_app.extensions["companion"]
    if service.board_camera is None:
        return jsonify(error="no board camera is configured ([board_camera] source, or demo --board-camera sim)",
                       status=404), 404
    if service.board_camera.live is None:
        # started with the service when it is wired to; otherwise the first look starts it
        _reference, colours = calibration(service)
        service.board_camera.start_live(service.table, colours)
    return jsonify(service.board_camera.live_status())


@bp.post("/api/board-camera/live/accept")
def camera_live_accept():
    """Take the board as it is now: moved sheets are placed where they lie, unexpected changes forgotten."""
    service = current_app.extensions["companion"]
    camera = service.board_camera
    if camera is None or camera.live is None:
        return jsonify(error="live mode is not running", status=409), 409
    camera.live.accept()
    return jsonify(camera.live_status())


@bp.post("/api/board-camera/adjudicate")
def camera_adjudicate():
    """Adjudicate the board camera's last clear, still view (never a moving or obstructed one), as a
    photo sent to /api/photo would be; the table shows what it saw."""
    import cv2

    from companion.vision.adjudicate import Photo, adjudicate, refusal_json, to_json
    from companion.vision.registration import VisionRefusal

    service = current_app.extensions["companion"]
    camera = service.board_camera
    if camera is None:
        return jsonify(error="no board camera is configured ([board_camera] source, or demo --board-camera sim)",
                       status=404), 404
    if camera.live is None:
        camera.start_live(service.table, calibration(service)[1])
    got = camera.clear_frame()
    if got is None:
        return jsonify(error="the board camera has no clear, still view yet: keep hands off the board a moment",
                       status=409), 409
    frame, age_s = got
    name = "board camera"
    photo = Photo(frame, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), name)
    monsters = current_monsters(service)
    try:
        reference, colours = calibration(service)
        adj = adjudicate(photo, service.box, reference=reference, colours=colours)
    except VisionRefusal as exc:
        return jsonify(error=f"refused ({exc.reason}): {exc}", refusal=refusal_json(exc, name), status=422), 422
    doc = to_json(service.box, adj, photo, monsters)
    doc["overlay"] = overlay(service.box, adj, doc, monsters)
    doc["view_age_s"] = round(age_s, 1)
    # the view adjudicated, for the overlay to be drawn on (the camera's newest frame may differ)
    ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
    doc["image"] = "data:image/jpeg;base64," + base64.b64encode(jpeg.tobytes()).decode() if ok else None
    service.table.annotate("vision", {
        "photo": name, "monsters": monsters, "evidence": doc.get("evidence", []),
        "covered": {e: d["covered"] for e, d in doc["expeditions"].items()},
        "unknown": sorted({a for d in doc["expeditions"].values() for a in d["unknown"]}),
    })
    return jsonify(doc)


@bp.post("/api/calibration")
def save_calibration():
    """{"empty": base64 photo of the empty board, "colours": {expedition: base64 photo of one sheet}};
    or {"from_camera": true} to take the empty board from the board camera now."""
    import json

    from companion.vision.adjudicate import decode
    from companion.vision.calibrate import CalibrationError, calibrate
    from companion.vision.registration import VisionRefusal

    service = current_app.extensions["companion"]
    data = request.get_json(silent=True)
    if isinstance(data, dict) and data.get("from_camera") is True:
        import cv2

        frame, why = _camera_frame(service)
        if frame is None:
            return jsonify(error=why, status=409), 409
        ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
        data = {"empty": base64.b64encode(jpeg.tobytes()).decode(), "colours": data.get("colours") or {}}
    if not isinstance(data, dict) or not isinstance(data.get("empty"), str):
        return jsonify(error='send {"empty": "<base64 photo of the empty board>", "colours": {...}}', status=400), 400
    colours = data.get("colours") or {}
    if not isinstance(colours, dict) or not all(isinstance(v, str) for v in colours.values()):
        return jsonify(error="colours must map an expedition to a base64 photo", status=400), 400
    try:
        empty = decode(_b64(data["empty"]), "empty board")
        photos = {e: decode(_b64(v), f"{e} sheet") for e, v in colours.items()}
        doc = calibrate(service.box, empty, photos)
    except ValueError as exc:  # bad base64, and CalibrationError
        return jsonify(error=str(exc), status=400), 400
    except VisionRefusal as exc:
        return jsonify(error=f"refused ({exc.reason}): {exc}", status=422), 422
    path = calibration_path(service)
    if path is not None:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc))
        tmp.replace(path)  # a pulled plug leaves the old calibration or the new one, never half of one
    if service.board_camera is not None and service.board_camera.live is not None:
        from companion.board_camera import calibrated_colours  # live mode sees with the new colours at once

        service.board_camera.live.colours = calibrated_colours(service.box, service.store.path) or dict(service.box.sheet_colours)
    return jsonify(saved=str(path) if path else None, empty=doc["empty"], sheet_colours=doc["sheet_colours"],
                   measured=doc["measured"])


def _b64(text: str) -> bytes:
    try:
        return base64.b64decode(text.split(",", 1)[-1], validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("a photo is not valid base64") from None


def current_monsters(service) -> dict | None:
    """The monsters on the board now (stage two or three), as the adjudicator takes them."""
    state = service.table.state
    m = getattr(state, "monster", None)
    if m is None or m.surface is None:
        return None
    return {"surface": m.surface, "submerged": sorted(m.placed_submerged.values())}


def overlay(box, adj, doc: dict, monsters: dict | None) -> list[dict]:
    """Hex outlines in photo pixels: each expedition's covered hexes, the unseen ones, the monsters."""
    import numpy as np

    def outline(address: str) -> list[list[float]]:
        pts = np.asarray(box.loch.parse(address).polygon, float)
        return [[round(float(x), 1), round(float(y), 1)] for x, y in adj.registration.to_photo(pts)]

    shapes = []
    for expedition, d in doc["expeditions"].items():
        for a in d["covered"]:
            shapes.append({"address": a, "kind": "covered", "expedition": expedition, "points_px": outline(a)})
    unknown = {a for d in doc["expeditions"].values() for a in d["unknown"]}
    for a in sorted(unknown):
        shapes.append({"address": a, "kind": "unknown", "points_px": outline(a)})
    if monsters:
        for a in [monsters["surface"], *monsters["submerged"]]:
            shapes.append({"address": a, "kind": "monster", "surface": a == monsters["surface"], "points_px": outline(a)})
    return shapes
