"""The pages people look at: the table screen."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

bp = Blueprint("pages", __name__)


@bp.get("/")
def table():
    service = current_app.extensions["companion"]
    return render_template("table.html", box_name=service.box.name)
