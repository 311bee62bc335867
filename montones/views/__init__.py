"""Blueprints by audience: lobby, play (phones), tv, live, host."""

from montones.views import host, live, lobby, play, tv


def init_app(app):
    for module in (lobby, play, tv, live, host):
        app.register_blueprint(module.bp)
