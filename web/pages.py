"""The pages people look at: the table screen, the tally sheet, the setup wizard, the devices page."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

bp = Blueprint("pages", __name__)


@bp.get("/")
def table():
    service = current_app.extensions["companion"]
    return render_template("table.html", box_name=service.box.name, lan=bool(current_app.config.get("LAN_MODE")),
                           board_camera=service.board_camera is not None)


@bp.get("/tally")
def tally():
    return render_template("tally.html")


@bp.get("/setup")
def setup():
    service = current_app.extensions["companion"]
    return render_template("setup.html", box_name=service.box.name, box_source=service.box.source)


@bp.get("/devices")
def devices():
    return render_template("devices.html")
