"""Blueprints by audience: lobby, play (phones), tv, live, host."""

from montones.views import common, host, live, lobby, play, tv


def init_app(app):
    app.add_template_filter(common.percent)
    for module in (lobby, play, tv, live, host):
        app.register_blueprint(module.bp)
