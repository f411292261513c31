"""The kiosk's web app: one screen and a few narrow JSON endpoints, nothing else.

``create_kiosk_app`` builds a Flask app that registers only this blueprint. There is no static
folder (the three files the screen needs are served by name), no dashboard, no game API, no setup
or admin page: every other URL is a 404, so a visitor who gets at the browser still reaches nothing.

    GET  /                 the kiosk screen (1920x1080)
    GET  /kiosk/state      what the screen shows now (JSON)
    GET  /kiosk/events     the same, pushed on every change (server-sent events)
    GET  /kiosk/board      the board's geometry, to draw the map
    POST /kiosk/press      {"button": "go" | "next" | "undo"}: a USB arcade encoder's key, via the page
    GET  /kiosk/static/kiosk.js, kiosk.css, favicon.svg

    app = create_kiosk_app(controller)     # a companion.kiosk.KioskController
"""

from __future__ import annotations

import json

from flask import Blueprint, Flask, Response, abort, current_app, jsonify, render_template, request, send_from_directory
from werkzeug.exceptions import HTTPException

bp = Blueprint("kiosk", __name__)

STATIC_FILES = ("kiosk.js", "kiosk.css", "favicon.svg")


def _controller():
    return current_app.extensions["kiosk"]


@bp.get("/")
def screen():
    return render_template("kiosk.html", box_name=_controller().service.box.name)


@bp.get("/kiosk/state")
def state():
    return jsonify(_controller().screen())


@bp.get("/kiosk/board")
def board():
    box = _controller().service.box.to_json()
    keep = ("name", "board_mm", "hexes", "shore_outline_mm", "tracks", "evidence_packs")
    return jsonify({k: box[k] for k in keep})


@bp.post("/kiosk/press")
def press():
    data = request.get_json(silent=True)
    button = data.get("button") if isinstance(data, dict) else None
    if button not in ("go", "next", "undo"):
        return jsonify(error='send {"button": "go" | "next" | "undo"}', status=400), 400
    return jsonify(_controller().press(button))


@bp.get("/kiosk/events")
def events():
    controller = _controller()
    broadcast = controller.broadcast
    keepalive = float(current_app.config["SSE_KEEPALIVE_S"])

    def generate():
        seen, first = broadcast.version, controller.screen()
        yield "retry: 1000\n\n"
        yield f"event: screen\ndata: {json.dumps(first, separators=(',', ':'))}\n\n"
        while not broadcast.closed:
            newer = broadcast.wait_newer(seen, keepalive)
            if newer is None:
                yield ": keep-alive\n\n"
                continue
            seen, payload = newer
            yield f"event: screen\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n"

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(generate(), mimetype="text/event-stream", headers=headers)


@bp.get("/kiosk/static/<name>")
def static_file(name: str):
    if name not in STATIC_FILES:
        abort(404)
    return send_from_directory(current_app.config["KIOSK_STATIC"], name, max_age=300)


def serve_options() -> dict:
    """waitress settings for the kiosk's live stream: flush each small screen event at once.

    waitress 3 holds output below ``send_bytes`` (18,000 bytes) while a response is still running,
    so a 5 kB screen event could wait for the next one; ``send_bytes=1`` sends it now. The option
    is deprecated: when a waitress without it arrives, it is simply not passed.
    """
    import warnings

    from waitress.adjustments import Adjustments

    if "send_bytes" not in getattr(Adjustments, "_param_map", {}):
        return {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        Adjustments(send_bytes=1)  # still accepted?
    return {"send_bytes": 1}


def create_server(app, host: str, port: int, threads: int = 8, **kwargs):
    """A waitress server for the kiosk app (``serve_options`` applied, its warning silenced)."""
    import warnings

    import waitress

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return waitress.create_server(app, host=host, port=port, threads=threads, **serve_options(), **kwargs)


def create_kiosk_app(controller, config: dict | None = None) -> Flask:
    """The kiosk app for a :class:`companion.kiosk.KioskController`; ``config`` as in ``create_app``."""
    import os

    here = os.path.dirname(__file__)
    app = Flask(__name__, static_folder=None, template_folder=os.path.join(here, "templates"))
    app.config.update(MAX_CONTENT_LENGTH=4 * 1024, SSE_KEEPALIVE_S=15.0, JSON_SORT_KEYS=False,
                      KIOSK_STATIC=os.path.join(here, "static"))
    if config:
        app.config.update(config)
    app.extensions["kiosk"] = controller
    app.register_blueprint(bp)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        # Short, the same for every unknown URL: nothing here names another page.
        if request.path.startswith("/kiosk/"):
            return jsonify(error=exc.name, status=exc.code), exc.code
        return Response(f"{exc.code} {exc.name}\n", status=exc.code, mimetype="text/plain")

    @app.after_request
    def headers(response):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("Content-Security-Policy",
                                    "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:")
        return response

    return app
