"""The lobby: the home page everyone lands on from the QR code."""

from flask import Blueprint, render_template

bp = Blueprint("lobby", __name__)


@bp.get("/")
def index():
    return render_template("lobby/index.html")
