"""The JSON API described as an OpenAPI 3 document, served at ``GET /api/openapi.json``.

    app.register_blueprint(openapi.bp)      # in create_app

The whole document is the one dict :data:`DOCUMENT` below. A new route under /api must be added
here too: tests/test_security.py checks that every route the app registers under /api is in it,
and tests/test_api_fuzz.py fuzzes every operation with schemathesis.
"""

from __future__ import annotations

import copy

from flask import Blueprint, jsonify

from companion import __version__

bp = Blueprint("openapi", __name__, url_prefix="/api")

_EXPEDITION = {"type": "string", "enum": ["independent", "japanese", "british", "american"]}
_VERSION = {"type": "integer", "nullable": True, "description": "Refuse (409) unless the table is still at this version "
                                              "(the view's `version`): a request made against an older view."}


def _action(kind: str, description: str, properties: dict | None = None, required: tuple = ()) -> dict:
    return {"type": "object", "title": kind, "description": description,
            "required": ["type", *required], "additionalProperties": False,
            "properties": {"type": {"type": "string", "enum": [kind]}, **(properties or {}), "expect_version": _VERSION}}


def _error(description: str) -> dict:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _ok(description: str, schema: dict | None = None) -> dict:
    return {"description": description,
            "content": {"application/json": {"schema": schema or {"$ref": "#/components/schemas/View"}}}}


_GID = {"name": "gid", "in": "path", "required": True, "description": "a game id from GET /api/games",
        "schema": {"type": "string", "example": "nessie-hunt"}}
_READ_ERRORS = {"404": {"$ref": "#/components/responses/NotFound"}}
_CHANGE_ERRORS = {
    "400": {"$ref": "#/components/responses/BadRequest"},
    "401": {"$ref": "#/components/responses/NeedsPin"},
    "403": {"$ref": "#/components/responses/Forbidden"},
    "404": {"$ref": "#/components/responses/NotFound"},
    "409": {"$ref": "#/components/responses/Conflict"},
    "413": {"$ref": "#/components/responses/TooLarge"},
    "415": {"$ref": "#/components/responses/NotJson"},
}
# api.py ignores any other field in these bodies (it only reads expect_version), so the document allows them.
_OPTIONAL_BODY = {"required": False, "content": {"application/json": {"schema": {
    "type": "object", "properties": {"expect_version": _VERSION}}}}}

DOCUMENT: dict = {
    "openapi": "3.0.3",
    "info": {
        "title": "Nessie Hunt Companion",
        "version": __version__,
        "description": "The table companion's JSON API. Every refusal is a 4xx with {\"error\": message} and "
                       "changes nothing. Every change (POST) must be JSON and come from this host (CSRF); in LAN "
                       "mode it also needs a PIN session (POST /api/login), and setup (new-game, import) the "
                       "admin PIN. See docs/security.md.",
    },
    "servers": [{"url": "/"}],
    "components": {
        "securitySchemes": {
            "pinSession": {"type": "apiKey", "in": "cookie", "name": "nessie_session",
                           "description": "LAN mode only: the session cookie set by POST /api/login."},
        },
        "schemas": {
            "Error": {"type": "object", "required": ["error"],
                      "properties": {"error": {"type": "string"}, "status": {"type": "integer"},
                                     "rule": {"type": "string", "nullable": True, "description": "the rulebook passage (409)"},
                                     "login": {"type": "string", "description": "where to enter a PIN (401/403)"},
                                     "retry_after": {"type": "integer"}, "tries_left": {"type": "integer"}}},
            "View": {"type": "object", "description": "The table view: the game's own view plus version, game_id, "
                                                      "actions, can_undo; `legal` lists what may be done now.",
                     "properties": {"version": {"type": "integer"}, "game_id": {"nullable": True},
                                    "actions": {"type": "integer"}, "can_undo": {"type": "boolean"},
                                    "prompt": {"type": "string"}, "legal": {"type": "array"}}},
            "Session": {"type": "object", "required": ["lan", "role"],
                        "properties": {"lan": {"type": "boolean"},
                                       "role": {"type": "string", "enum": ["admin", "table"], "nullable": True}}},
            "GameExport": {"type": "object", "required": ["format", "game", "box", "actions"],
                           "properties": {"format": {"type": "string", "enum": ["nessie-companion-game/1"]},
                                          "game": {"type": "string"},
                                          "box": {"type": "object", "properties": {"name": {"type": "string"},
                                                                                   "digest": {"type": "string"}}},
                                          "actions": {"type": "array", "items": {"type": "object"}}}},
            "NessieAction": {"oneOf": [
                _action("new-game", "The first action: who plays and how (admin PIN in LAN mode).", {
                    "players": {"type": "integer", "minimum": 1, "maximum": 5},
                    "expeditions": {"type": "array", "items": _EXPEDITION},
                    "sponsor": {"type": "string", "default": "companion"},
                    "variant": {"type": "string", "enum": ["basic", "introductory", "junior"]},
                    "target": {"type": "integer", "minimum": 0, "maximum": 100000},
                    "rounds": {"type": "integer", "minimum": 0, "maximum": 1000},
                    "win_rule": {"type": "string", "enum": ["reach", "exceed"]},
                    "cards_per_piece": {"type": "string", "enum": ["per-monster", "per-piece"]},
                }, ("players", "expeditions")),
                _action("throw", "The die, for whoever must throw now.", {
                    "value": {"type": "integer", "minimum": 1, "maximum": 6},
                    "source": {"type": "string", "enum": ["screen", "keyboard", "virtual-die", "autoplay", "camera",
                                                          "gpio", "serial", "import", "simulator"]},
                }, ("value",)),
                _action("logistics-dealt", "Stage one, on a star: the LOGISTICS card's id in the box's deck, or null.",
                        {"card": {"type": "string", "nullable": True, "maxLength": 64}}),
                _action("coverage", "Stage three: [[piece id, monster], ...] covered by this expedition's pieces.",
                        {"covers": {"type": "array", "items": {
                            "type": "array", "minItems": 2, "maxItems": 2,
                            "items": {"oneOf": [{"type": "integer"},
                                                {"type": "string", "enum": ["surface", "left", "right", "up", "down"]}]}}}}),
                _action("evidence-card", "Stage three: the points on the evidence card drawn.",
                        {"points": {"type": "integer", "minimum": 0, "maximum": 10000}}, ("points",)),
                _action("buy", "Stage six: buy a piece of equipment (hex: the cage's).",
                        {"equipment": {"type": "string"}, "hex": {"type": "string", "nullable": True}}, ("equipment",)),
                _action("return", "Stage six: hand a piece back.", {"piece": {"type": "integer"}}, ("piece",)),
                _action("repay-loan", "Stage six: repay (part of) the loan.",
                        {"amount": {"type": "integer", "minimum": 1}}, ("amount",)),
                _action("end-turn", "Stage six: this expedition has finished buying and returning."),
                _action("claim-trump", "Stage nine: a trump holder wants to play it.", {"expedition": _EXPEDITION},
                        ("expedition",)),
                _action("play-trump", "Stage nine: the part of next round's monster address named.",
                        {"symbol": {"type": "string", "minLength": 1, "maxLength": 2}}, ("symbol",)),
                _action("advance", "Go on to the next step (Next)."),
            ]},
            "AnyGameAction": {"type": "object", "required": ["type"],
                              "description": "An action of the game `gid` (see that game's actions.py); "
                                             "Nessie Hunt's are NessieAction.",
                              "properties": {"type": {"type": "string"}, "expect_version": _VERSION}},
        },
        "responses": {
            "BadRequest": _error("Malformed: not JSON, not an object, an unknown type or field, a value out of range."),
            "NeedsPin": _error("LAN mode: this browser has not entered a PIN (see `login`)."),
            "Forbidden": _error("A cross-site request, a change addressed to a non-loopback host without LAN mode, "
                                "or (LAN mode) setup with the table PIN only."),
            "NotFound": _error("No such game, or no such path."),
            "Conflict": _error("Not legal now (with the rule), nothing to undo, or the view is stale (expect_version)."),
            "TooLarge": _error("The body is over 1 MB."),
            "NotJson": _error("Not sent as Content-Type: application/json."),
            "TooMany": _error("Too many wrong PINs from this address; see Retry-After."),
        },
    },
    "security": [{}, {"pinSession": []}],
    "paths": {
        "/api/openapi.json": {"get": {"summary": "This document", "operationId": "openapi",
                                      "responses": {"200": _ok("The OpenAPI document", {"type": "object"})}}},
        "/api/games": {"get": {"summary": "The games the companion runs", "operationId": "games", "responses": {
            "200": _ok("One entry per game", {"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "string"}, "name": {"type": "string"}, "rulebook": {"type": "string"},
                "started": {"type": "boolean"}}}})}}},
        "/api/state": {"get": {"summary": "Nessie Hunt's table view", "operationId": "state",
                               "responses": {"200": _ok("The view")}}},
        "/api/games/{gid}/state": {"get": {"summary": "A game's table view", "operationId": "gameState",
                                           "parameters": [_GID], "responses": {"200": _ok("The view"), **_READ_ERRORS}}},
        "/api/actions": {"post": {
            "summary": "Do an action in Nessie Hunt (see README, Actions)", "operationId": "action",
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/NessieAction"}}}},
            "responses": {"200": _ok("The view after the action"), **_CHANGE_ERRORS}}},
        "/api/games/{gid}/actions": {"post": {
            "summary": "Do an action in a game", "operationId": "gameAction", "parameters": [_GID],
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/AnyGameAction"}}}},
            "responses": {"200": _ok("The view after the action"), **_CHANGE_ERRORS}}},
        "/api/undo": {"post": {"summary": "Undo Nessie Hunt's last action", "operationId": "undo",
                               "requestBody": _OPTIONAL_BODY,
                               "responses": {"200": _ok("The view after the undo"), **_CHANGE_ERRORS}}},
        "/api/games/{gid}/undo": {"post": {"summary": "Undo a game's last action", "operationId": "gameUndo",
                                           "parameters": [_GID], "requestBody": _OPTIONAL_BODY,
                                           "responses": {"200": _ok("The view after the undo"), **_CHANGE_ERRORS}}},
        "/api/roll": {"post": {"summary": "Throw the virtual die for whoever must throw", "operationId": "roll",
                               "requestBody": _OPTIONAL_BODY,
                               "responses": {"200": _ok("The view after the throw"), **_CHANGE_ERRORS}}},
        "/api/export": {"get": {"summary": "Nessie Hunt's game as an export", "operationId": "export",
                                "responses": {"200": _ok("The export", {"$ref": "#/components/schemas/GameExport"}),
                                              "409": {"$ref": "#/components/responses/Conflict"}}}},
        "/api/games/{gid}/export": {"get": {"summary": "A game as an export", "operationId": "gameExport",
                                            "parameters": [_GID],
                                            "responses": {"200": _ok("The export", {"$ref": "#/components/schemas/GameExport"}),
                                                          "409": {"$ref": "#/components/responses/Conflict"}, **_READ_ERRORS}}},
        "/api/import": {"post": {"summary": "Start a new Nessie Hunt game from an export (admin PIN in LAN mode)",
                                 "operationId": "import",
                                 "requestBody": {"required": True, "content": {"application/json": {
                                     "schema": {"$ref": "#/components/schemas/GameExport"}}}},
                                 "responses": {"200": _ok("The view of the imported game"), **_CHANGE_ERRORS}}},
        "/api/games/{gid}/import": {"post": {"summary": "Start a new game from an export (admin PIN in LAN mode)",
                                             "operationId": "gameImport", "parameters": [_GID],
                                             "requestBody": {"required": True, "content": {"application/json": {
                                                 "schema": {"$ref": "#/components/schemas/GameExport"}}}},
                                             "responses": {"200": _ok("The view of the imported game"), **_CHANGE_ERRORS}}},
        "/api/events": {"get": {"summary": "Server-sent events: Nessie Hunt's view now and after every change",
                                "operationId": "events", "x-streaming": True, "responses": {
                                    "200": {"description": "event: view / data: the view (JSON)",
                                            "content": {"text/event-stream": {"schema": {"type": "string"}}}}}}},
        "/api/games/{gid}/events": {"get": {"summary": "Server-sent events for one game", "operationId": "gameEvents",
                                            "parameters": [_GID], "x-streaming": True, "responses": {
                                                "200": {"description": "event: view / data: the view (JSON)",
                                                        "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                                                **_READ_ERRORS}}},
        "/api/tally": {"get": {"summary": "Nessie Hunt's tally sheet round by round, and the history of actions",
                               "operationId": "tally", "responses": {"200": _ok("The tally sheet", {"type": "object"})}}},
        "/api/tally.csv": {"get": {"summary": "The tally sheet as CSV", "operationId": "tallyCsv", "responses": {
            "200": {"description": "CSV, one row per expedition and round",
                    "content": {"text/csv": {"schema": {"type": "string"}}}}}}},
        "/api/join.svg": {"get": {"summary": "LAN mode: a QR code of the address phones open to join",
                                  "operationId": "joinQr", "responses": {
                                      "200": {"description": "An SVG image",
                                              "content": {"image/svg+xml": {"schema": {"type": "string"}}}},
                                      **_READ_ERRORS}}},
        "/api/highscores": {"get": {"summary": "The solitaire high-score table", "operationId": "highscores",
                                    "responses": {"200": _ok("Fewest rounds first", {"type": "array", "items": {
                                        "type": "object", "properties": {"expedition": {"type": "string"},
                                                                         "rounds": {"type": "integer"},
                                                                         "points": {"type": "integer"}}}})}}},
        "/api/board": {"get": {"summary": "The box profile's board: hexes, shore, markers, tracks", "operationId": "board",
                               "responses": {"200": _ok("The board", {"type": "object"})}}},
        "/api/locate/{address}": {"get": {
            "summary": "Where the monsters go for a surface hex", "operationId": "locate",
            "parameters": [{"name": "address", "in": "path", "required": True,
                            "schema": {"type": "string", "example": "D3b"}}],
            "responses": {"200": _ok("Surface and submerged addresses", {"type": "object", "properties": {
                "surface": {"type": "string"}, "submerged": {"type": "object"}}}),
                "400": {"$ref": "#/components/responses/BadRequest"}, **_READ_ERRORS}}},
        "/api/health": {"get": {"summary": "Every input device's health, the game id, box and database",
                                "operationId": "health", "responses": {"200": _ok("Health", {"type": "object"})}}},
        "/api/inputs/game": {"post": {
            "summary": "Choose the game the button boards and the dice camera play (admin PIN in LAN mode)",
            "operationId": "inputsGame",
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["game"],
                "properties": {"game": {"type": "string", "description": "a game id from /api/games"}}}}}},
            "responses": {"200": _ok("The game the inputs now play", {"type": "object"}), **_CHANGE_ERRORS}}},
        "/api/photo": {"post": {
            "summary": "Adjudicate a photo of the board: who covers the monster hexes (changes nothing in the game)",
            "operationId": "photo",
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["image"],
                "properties": {"image": {"type": "string", "description": "base64 of a JPEG or PNG (a data: URL is fine)"},
                               "name": {"type": "string"}}}}}},
            "responses": {"200": _ok("The adjudication, with an overlay to draw", {"type": "object"}),
                          "422": _error("The photo cannot be read (with the refusal)"), **_CHANGE_ERRORS}}},
        "/api/board-camera/snapshot.jpg": {"get": {
            "summary": "The board camera's latest frame (the calibration wizard's live preview)",
            "operationId": "boardCameraSnapshot",
            "responses": {"200": {"description": "A JPEG", "content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}}},
                          "404": _error("No board camera is configured, or it gives no picture")}}},
        "/api/board-camera/status": {"get": {
            "summary": "The markers the board camera sees now, and the registration error",
            "operationId": "boardCameraStatus",
            "responses": {"200": _ok("ok with the registration, or the reason it fails", {"type": "object"}),
                          "404": _error("No board camera is configured, or it gives no picture")}}},
        "/api/board-camera/live": {"get": {
            "summary": "Live mode: whether the view is still, the sheets followed since they were bought (type, "
                       "pose, status), the placement rules they break and the sheets moved since they were placed",
            "description": "Starts live mode on first use when the service has not. state: starting, moving, still, "
                           "obstructed, no camera, bad frame. See docs/board-vision-live.md.",
            "operationId": "boardCameraLive",
            "responses": {"200": _ok("the live status", {"type": "object", "properties": {
                "state": {"type": "string"}, "message": {"type": "string"},
                "sheets": {"type": "array", "items": {"type": "object"}},
                "violations": {"type": "array", "items": {"type": "object"}},
                "moved": {"type": "array", "items": {"type": "object"}},
                "waiting_for": {"type": "array", "items": {"type": "object"}},
                "unexpected": {"type": "array", "items": {"type": "object"}}}}),
                          "404": _error("No board camera is configured")}}},
        "/api/board-camera/live/accept": {"post": {
            "summary": "Take the board as it is now: moved sheets placed where they lie, unexpected changes forgotten",
            "operationId": "boardCameraLiveAccept",
            "responses": {"200": _ok("the live status", {"type": "object"}),
                          "409": _error("Live mode is not running")}}},
        "/api/board-camera/adjudicate": {"post": {
            "summary": "Adjudicate the board camera's last clear, still view (as /api/photo does a photo)",
            "description": "Only a view live mode found still and unobstructed is used; the table shows what it saw.",
            "operationId": "boardCameraAdjudicate",
            "responses": {"200": _ok("the adjudication (nessie-vision-adjudication/1) with overlay, view_age_s and "
                                     "image (the view read, a JPEG data URL)",
                                     {"type": "object"}),
                          "404": _error("No board camera is configured"),
                          "409": _error("No clear, still view yet"),
                          "422": _error("The view was refused (reason in refusal)")}}},
        "/api/calibration": {"post": {
            "summary": "Calibrate the board vision: the empty board, and optionally one sheet of each colour",
            "operationId": "calibration",
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object",
                "properties": {"empty": {"type": "string", "description": "base64 photo of the empty board"},
                               "from_camera": {"type": "boolean", "description": "take the empty board from the board camera"},
                               "colours": {"type": "object", "additionalProperties": {"type": "string"},
                                           "description": "expedition -> base64 photo with one of its sheets"}}}}}},
            "responses": {"200": _ok("Saved: the registration and the colours measured", {"type": "object"}),
                          "422": _error("A photo cannot be read (with the refusal)"), **_CHANGE_ERRORS}}},
        "/api/session": {"get": {"summary": "What this browser may do", "operationId": "session",
                                 "responses": {"200": _ok("LAN mode and the role entered",
                                                          {"$ref": "#/components/schemas/Session"})}}},
        "/api/login": {"post": {
            "summary": "Enter the table or admin PIN (LAN mode); 5 wrong PINs per address per 5 minutes",
            "operationId": "login",
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["pin"], "additionalProperties": False,
                "properties": {"pin": {"type": "string", "minLength": 1, "maxLength": 64}}}}}},
            "responses": {"200": _ok("Logged in; sets the session cookie", {"$ref": "#/components/schemas/Session"}),
                          "400": {"$ref": "#/components/responses/BadRequest"},
                          "401": _error("Wrong PIN (tries_left)"),
                          "403": {"$ref": "#/components/responses/Forbidden"},
                          "409": _error("Not in LAN mode: no PIN is needed"),
                          "413": {"$ref": "#/components/responses/TooLarge"},
                          "415": {"$ref": "#/components/responses/NotJson"},
                          "429": {"$ref": "#/components/responses/TooMany"}}}},
        "/api/logout": {"post": {"summary": "Forget this browser's PIN", "operationId": "logout",
                                 "requestBody": {"required": False, "content": {"application/json": {
                                     "schema": {"description": "ignored"}}}},
                                 "responses": {"200": _ok("Logged out", {"$ref": "#/components/schemas/Session"}),
                                               "403": {"$ref": "#/components/responses/Forbidden"},
                                               "413": {"$ref": "#/components/responses/TooLarge"},
                                               "415": {"$ref": "#/components/responses/NotJson"}}}},
    },
}


def document() -> dict:
    """A copy of :data:`DOCUMENT` (callers may change it freely)."""
    return copy.deepcopy(DOCUMENT)


@bp.get("/openapi.json")
def openapi_json():
    return jsonify(DOCUMENT)
