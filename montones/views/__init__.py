"""Blueprints by audience: lobby, play (phones), tv, the live stream, host."""

from montones import chart
from montones.views import common, host, lobby, play, stream, tv


def init_app(app):
    app.add_template_filter(common.percent)
    app.jinja_env.globals["between_banks"] = chart.between_banks
    app.jinja_env.globals["chart_size"] = chart.size
    for module in (lobby, play, tv, stream, host):
        app.register_blueprint(module.bp)
