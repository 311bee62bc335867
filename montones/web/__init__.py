"""The web: blueprints by audience (``lobby``; for a player's phone ``seats`` to take a seat,
``play`` for the table's screen and taps, ``records`` for its hands and standings; ``tv``,
``watch`` for a guest without a seat, ``host``, and the live ``stream``), their drawing
helpers (``common``), the app's own error pages (``errors``), the party's faces, moments and
leaderboard (``party``), and the web's add-ons: ``security`` (sessions, CSRF, headers),
``limits`` (allowances per client address), ``assets`` (compression, static files kept by the
browser), ``chart`` and ``i18n``.

May import every layer below: ``montones.rules``, ``montones.data``, ``montones.service`` and
``montones.live``. A view parses, asks the service, and renders; it names no game.
"""

from montones import service
from montones.rules.games import GAMES, game
from montones.web import (
    assets,
    chart,
    common,
    errors,
    host,
    lobby,
    party,
    play,
    records,
    seats,
    stream,
    tv,
    watch,
)


def init_app(app):
    assets.init_app(app)
    app.add_template_filter(common.percent)
    app.add_template_filter(common.number)
    app.add_template_filter(common.refusal)
    app.add_template_filter(common.hour)
    app.add_template_filter(common.grouped_payments)
    # A game's own templates (templates/games/<name>/) ask its engine: game(table.game).
    app.jinja_env.globals.update(game=game, games=GAMES)
    app.jinja_env.globals["drawn_once"] = common.drawn_once
    app.jinja_env.globals["chart_size"] = chart.size
    app.jinja_env.globals["chart_lines"] = chart.MOST_LINES
    app.jinja_env.globals["version_age"] = service.age
    errors.init_app(app)
    party.init_app(app)
    for module in (lobby, seats, play, records, tv, watch, stream, host):
        app.register_blueprint(module.bp)
