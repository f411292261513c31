"""The other Loch-monster games' pages: one shared page per game, drawn from the game's view.

    app.register_blueprint(games.bp)      # in web/__init__.py's create_app

``/games`` lists every game the companion runs (the setup wizard's choice); ``/games/<id>`` shows a
game's prompt, scores and the buttons its rules allow now (``legal``), posts to
``/api/games/<id>/actions`` and follows ``/api/games/<id>/events``. Nessie Hunt keeps its own
table screen at ``/``.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, redirect, render_template

bp = Blueprint("games", __name__)


def _tables() -> dict:
    return current_app.extensions["companion"].tables


@bp.get("/games")
def index():
    games = [{"id": gid, "name": t.game.name, "rulebook": t.game.rulebook, "started": t.state is not None}
             for gid, t in _tables().items()]
    return render_template("games.html", games=games)


@bp.get("/games/<gid>")
def game(gid: str):
    if gid == "nessie-hunt":
        return redirect("/")
    table = _tables().get(gid)
    if table is None:
        abort(404, f"no game {gid!r}")
    box = getattr(table.game, "box", None)
    return render_template("game.html", gid=gid, name=table.game.name, rulebook=table.game.rulebook,
                           box_name=getattr(box, "name", None))
