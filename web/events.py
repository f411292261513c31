"""Server push: every connected page gets the new table view as a server-sent event.

Each page holds one server thread while connected (waitress ``threads`` bounds how many pages
can watch at once). A page that falls behind skips straight to the newest view.
"""

from __future__ import annotations

import json

from flask import Blueprint, Response, abort, current_app

bp = Blueprint("events", __name__, url_prefix="/api")


@bp.get("/events")
def nessie_stream():
    return stream("nessie-hunt")


@bp.get("/games/<gid>/events")
def stream(gid):
    service = current_app.extensions["companion"]
    table = service.tables.get(gid)
    if table is None:
        abort(404, f"no game {gid!r}")
    broadcast = table.broadcast
    keepalive = float(current_app.config["SSE_KEEPALIVE_S"])

    def generate():
        seen, first = broadcast.version, table.view()
        yield "retry: 1000\n\n"
        yield f"event: view\ndata: {json.dumps(first, separators=(',', ':'))}\n\n"
        while not broadcast.closed:
            newer = broadcast.wait_newer(seen, keepalive)
            if newer is None:
                yield ": keep-alive\n\n"  # also how a dead connection is noticed
                continue
            seen, view = newer
            yield f"event: view\ndata: {json.dumps(view, separators=(',', ':'))}\n\n"

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(generate(), mimetype="text/event-stream", headers=headers)
