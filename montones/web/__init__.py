"""The web: blueprints by audience (``lobby``, ``play`` for the phones, ``tv``, ``watch`` for a
guest without a seat, ``host``, and the live ``stream``), their drawing helpers (``common``),
and the web's add-ons: ``security`` (sessions, CSRF, headers), ``limits`` (allowances per client
address), ``assets`` (compression, static files kept by the browser), ``chart`` and ``i18n``.

May import every layer below: ``montones.rules``, ``montones.data``, ``montones.service`` and
``montones.live``. A view parses, asks the service, and renders; it names no game.
"""

from montones import service
from montones.rules.games import GAMES, game
from montones.web import assets, chart, common, host, lobby, play, stream, tv, watch


def init_app(app):
    assets.init_app(app)
    app.add_template_filter(common.percent)
    app.add_template_filter(common.number)
    app.add_template_filter(common.refusal)
    app.add_template_filter(common.hour)
    # A game's own templates (templates/games/<name>/) ask its engine: game(table.game).
    app.jinja_env.globals.update(game=game, games=GAMES)
    app.jinja_env.globals["drawn_once"] = common.drawn_once
    app.jinja_env.globals["chart_size"] = chart.size
    app.jinja_env.globals["version_age"] = service.age
    for module in (lobby, play, tv, watch, stream, host):
        app.register_blueprint(module.bp)
