"""The dashboard: a Flask application factory with one blueprint per feature.

This folder is installed as ``companion.web`` (see pyproject.toml), templates and static files
included, so the dashboard works from any working directory.

    app = create_app(service)          # a companion.service.Service
    app = create_app(service, {"TESTING": True})
"""

from __future__ import annotations

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException


def create_app(service, config: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.update(
        MAX_CONTENT_LENGTH=1 * 1024 * 1024,  # a game export is a few hundred kB at most
        SSE_KEEPALIVE_S=15.0,
        JSON_SORT_KEYS=False,
    )
    if config:
        app.config.update(config)
    app.extensions["companion"] = service

    from . import api, events, games, openapi, pages, photo
    from .security import init_security

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(events.bp)
    app.register_blueprint(openapi.bp)
    app.register_blueprint(games.bp)  # the other Loch-monster games: /games and /games/<id>
    app.register_blueprint(photo.bp)  # the photo referee: /photo and /api/photo
    init_security(app)  # CSRF on every change; PINs in LAN mode (web/security.py)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        # The JSON API answers in JSON; pages keep Flask's HTML error pages.
        if request.path.startswith("/api/"):
            message = exc.description or exc.name
            if exc.code == 413:
                message = f"the request is too large (at most {app.config['MAX_CONTENT_LENGTH'] // 1024} kB)"
            return jsonify(error=message, status=exc.code), exc.code
        return exc

    return app
