"""Blueprints by audience: lobby, play (phones), tv, stream (live updates), host."""

from montones import chart
from montones.rules.games import GAMES, game
from montones.views import common, host, lobby, play, stream, tv


def init_app(app):
    app.add_template_filter(common.percent)
    app.add_template_filter(common.number)
    app.add_template_filter(common.hour)
    # A game's own templates (templates/games/<name>/) ask its engine: game(table.game).
    app.jinja_env.globals.update(game=game, games=GAMES)
    app.jinja_env.globals["chart_size"] = chart.size
    for module in (lobby, play, tv, stream, host):
        app.register_blueprint(module.bp)
