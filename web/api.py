"""The JSON API: read the table, send actions, undo, roll the virtual die, export and import.

Every refusal is a 4xx with ``{"error": message}`` and changes nothing:
400 malformed request, 409 illegal now (with the rule) or stale, 413 too large, 415 not JSON.
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from companion.errors import GameImportError, IllegalAction, InvalidAddress, MalformedAction, StaleRequest
from companion.games.nessie_hunt import Throw

from .security import admin_only

bp = Blueprint("api", __name__, url_prefix="/api")


def _service():
    return current_app.extensions["companion"]


def _table(gid: str):
    """The table of one game; Nessie Hunt's also answers on the short paths (/api/state ...)."""
    table = _service().tables.get(gid)
    if table is None:
        raise _Refusal(404, f"no game {gid!r}; games: {', '.join(_service().tables)}")
    return table


def game_route(rule: str, method: str):
    """Serve a view on ``/api/games/<gid>RULE`` and, for Nessie Hunt, on the short ``/api/RULE`` too."""
    def register(view):
        bp.add_url_rule(f"/games/<gid>{rule}", view.__name__, view, methods=[method])
        bp.add_url_rule(rule, f"{view.__name__}_nessie", lambda: view("nessie-hunt"), methods=[method])
        return view
    return register


def _body(optional: bool = False) -> dict:
    if not request.data and optional:
        return {}
    if not request.is_json:
        raise _Refusal(415, "send JSON (Content-Type: application/json)")
    data = request.get_json(silent=True)
    if data is None and request.data:
        raise _Refusal(400, "the request body is not valid JSON")
    if not isinstance(data, dict):
        raise _Refusal(400, "the request body must be a JSON object")
    return data


def _expect(data: dict) -> int | None:
    expect = data.pop("expect_version", None)
    if expect is not None and (not isinstance(expect, int) or isinstance(expect, bool)):
        raise _Refusal(400, "expect_version must be a whole number")
    return expect


class _Refusal(Exception):
    def __init__(self, status: int, message: str, **extra):
        self.status, self.message, self.extra = status, message, extra


@bp.errorhandler(_Refusal)
def _refused(exc: _Refusal):
    return jsonify(error=exc.message, status=exc.status, **exc.extra), exc.status


@bp.errorhandler(MalformedAction)
def _malformed(exc):
    return jsonify(error=str(exc), status=400), 400


@bp.errorhandler(IllegalAction)
def _illegal(exc: IllegalAction):
    return jsonify(error=exc.reason, rule=exc.rule, status=409), 409


@bp.errorhandler(StaleRequest)
def _stale(exc):
    return jsonify(error=str(exc), status=409), 409


@bp.errorhandler(GameImportError)
def _bad_import(exc):
    return jsonify(error=str(exc), status=400), 400


@bp.get("/games")
def games():
    return jsonify([
        {"id": gid, "name": t.game.name, "rulebook": t.game.rulebook, "started": t.state is not None}
        for gid, t in _service().tables.items()
    ])


@game_route("/state", "GET")
def state(gid):
    return jsonify(_table(gid).view())


@game_route("/actions", "POST")
def actions(gid):
    table = _table(gid)
    data = _body()
    expect = _expect(data)
    action = table.game.parse_action(data)
    return jsonify(table.submit(action, expect, origin=getattr(action, "source", "screen")))


@game_route("/undo", "POST")
def undo(gid):
    data = _body(optional=True)
    return jsonify(_table(gid).undo(_expect(data)))


@bp.post("/roll")
def roll():
    """Throw the simulated die for whoever must throw now (the demo's stand-in for a real die)."""
    service = _service()
    data = _body(optional=True)
    expect = _expect(data)
    if not any(a["type"] == "throw" for a in service.table.view()["legal"]):
        raise IllegalAction(f"no throw is due now: {service.game.prompt(service.table.state)}", "Stage one")
    return jsonify(service.table.submit(Throw(service.die.roll(), "virtual-die"), expect, origin="virtual-die"))


@bp.get("/tally")
def tally():
    """The tally sheet, round by round, and the history of actions (newest last)."""
    from companion.games.nessie_hunt.tally import tally_sheet

    table = _service().table
    history = table.history()
    sheet = tally_sheet(table.game, [st for _, st in history])
    sheet["history"] = [{"index": i, "action": a, "round": st.round, "stage": st.stage} for i, (a, st) in enumerate(history)]
    return jsonify(sheet)


@bp.get("/tally.csv")
def tally_csv():
    from companion.games.nessie_hunt.tally import tally_csv as to_csv, tally_sheet

    table = _service().table
    body = to_csv(tally_sheet(table.game, [st for _, st in table.history()]))
    return current_app.response_class(body, mimetype="text/csv",
                                      headers={"Content-Disposition": "attachment; filename=nessie-hunt-tally.csv"})


@bp.get("/join.svg")
def join_qr():
    """A QR code of the address phones on the same network open to join (LAN mode only)."""
    import io

    import segno

    from companion.netinfo import join_url

    if not current_app.config.get("LAN_MODE"):
        raise _Refusal(404, "phones can join only in LAN mode (--lan)")
    out = io.BytesIO()
    segno.make(join_url(request.host, current_app.config.get("PORT")), error="m").save(out, kind="svg", scale=6, border=2)
    return current_app.response_class(out.getvalue(), mimetype="image/svg+xml")


@bp.get("/highscores")
def highscores():
    """The solitaire high-score table: fewest rounds to prove the monster's existence."""
    return jsonify(_service().store.highscores("nessie-hunt"))


@bp.get("/board")
def board():
    return jsonify(_service().box.to_json())


@bp.get("/locate/<address>")
def locate(address: str):
    try:
        return jsonify(_service().box.loch.locate(address))
    except InvalidAddress as exc:
        raise _Refusal(400, str(exc)) from None


@game_route("/export", "GET")
def export(gid):
    response = jsonify(_table(gid).export())
    response.headers["Content-Disposition"] = f"attachment; filename={gid}-game.json"
    return response


@game_route("/import", "POST")
def import_game(gid):
    return jsonify(_table(gid).import_game(_body()))


@bp.get("/health")
def health():
    service = _service()
    return jsonify(devices=service.health(), game_id=service.table.view().get("game_id"),
                   box=service.box.name, database=service.store.path,
                   input_game=getattr(service, "input_game", None))


@bp.post("/inputs/game")
@admin_only
def inputs_game():
    """Which game the button boards and the dice camera play (the d12 board for Obert, say)."""
    from companion.config import ConfigError

    data = _body()
    game = data.get("game")
    if not isinstance(game, str) or not game:
        raise _Refusal(400, "send {\"game\": ID}, one of the ids of /api/games")
    try:
        _service().route_inputs(game)
    except ConfigError as exc:
        raise _Refusal(400, str(exc)) from None
    return jsonify(input_game=game)
