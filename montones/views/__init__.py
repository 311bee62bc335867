"""Blueprints by audience: lobby, then play (phones), tv, live, host."""

from montones.views import lobby


def init_app(app):
    app.register_blueprint(lobby.bp)
