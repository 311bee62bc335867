"""Blueprints by audience: lobby, play (phones), tv, live, host."""

from montones import chart
from montones.views import common, host, live, lobby, play, tv


def init_app(app):
    app.add_template_filter(common.percent)
    app.jinja_env.globals["between_banks"] = chart.between_banks
    app.jinja_env.globals["chart_size"] = chart.size
    for module in (lobby, play, tv, live, host):
        app.register_blueprint(module.bp)
