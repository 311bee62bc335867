"""The ``montones`` command: ``serve`` runs the table, ``replay`` settles a scenario file,
``verify`` checks a table's export, ``simulate`` plays an all-computer night.

Only ``serve`` imports the web stack (lazily): ``replay`` must work with the rules engine alone.
"""

import ipaddress
import json
import os
import socket
import sys
import unicodedata

import click

from montones.rules.games import GAMES


def main(argv: list[str] | None = None) -> int:
    """Run the command ``argv`` (the command line's by default) and return its exit status: 0,
    1 for problems found, 2 for what cannot be done. ``--help`` and a usage error exit at once
    (``SystemExit``: 0, and 2 with Click's message), as Click's own commands do."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        with cli.make_context(__package__, args) as ctx:  # the program is named as its package
            return cli.invoke(ctx)
    except click.exceptions.Exit as done:
        raise SystemExit(done.exit_code) from None
    except click.ClickException as error:
        error.show()
        raise SystemExit(error.exit_code) from None


@click.group(
    help="A local night of "
    + " and ".join(str(rules.TITLE) for rules in GAMES.values())
    + ", for chips only.",
    context_settings={"max_content_width": 100},
)
def cli():
    pass


# The largest file replay and verify read: a night of thousands of hands is a few megabytes.
# Reading stops there, so an endless input (a device, a pipe) is refused as soon as it passes it.
MOST_BYTES = 64 * 1024 * 1024


def _load(path):
    """The JSON in ``path``, or a one-line reason why not (as a ValueError)."""
    try:
        with open(path, "rb") as f:
            first = f.read(min(1024, MOST_BYTES + 1))
            if first.lstrip()[:1] != b"{":
                raise ValueError(f"{path} is not a JSON object: it does not begin with {{")
            raw = first + f.read(MOST_BYTES + 1 - len(first))
        if len(raw) > MOST_BYTES:
            raise ValueError(f"{path} is larger than {MOST_BYTES // 2**20} MB: not read")
        return json.loads(raw.decode("utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(
            f"{path} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})"
        ) from None
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is not UTF-8 text ({e.reason} at byte {e.start})") from None
    except RecursionError:
        raise ValueError(f"{path} nests its JSON too deeply to read") from None


@cli.command(help="Settle a scenario file (docs/scenarios.md) and print the result.")
@click.argument("file", metavar="FILE")
@click.option(
    "--hand", type=int, metavar="N", help="in a table's export: replay its N-th hand (from 1)"
)
def replay(file, hand):
    from montones.rules import scenario

    try:
        data = _load(file)
        if hand is not None:
            hands = data.get("hands") if isinstance(data, dict) else None
            if not isinstance(hands, list):
                raise ValueError(f'{file} is not a table\'s export: it has no "hands"')
            if not 1 <= hand <= len(hands):
                raise ValueError(f"the export has hands 1 to {len(hands)}, not {hand}")
            data = hands[hand - 1]
        elif isinstance(data, dict) and "hands" in data:
            raise ValueError(f"{file} is a table's export: choose a hand with --hand N")
        result = scenario.replay(data)
    except ValueError as e:
        return _fail("replay", str(e).splitlines()[0] if str(e) else type(e).__name__)
    print(json.dumps(result, indent=2))
    return 0


@cli.command(
    short_help="Check a table's export.",
    help="Re-settle every hand of a table's export and open every deck commitment.",
)
@click.argument("file", metavar="EXPORT")
def verify(file):
    """One line per problem on stdout, exit 1 if there is any; a file that cannot be read, 2."""
    from montones.rules import audit
    from montones.rules.hand_records import own_deck

    try:
        data = _load(file)
    except ValueError as e:
        return _fail("verify", str(e))
    problems = audit.verify(data)
    for problem in problems:
        print(shown(problem))
    if problems:
        return 1
    hands = len(data["hands"])
    own = sum(1 for hand in data["hands"] if own_deck(hand))
    decks = len({hand["shuffle"]["commitment"] for hand in data["hands"] if not own_deck(hand)})
    print(
        f"{hands} hands from {decks} decks: every result, every commitment, the hands' numbers "
        "and the standings check out"
        + (
            f"; {own} played with the table's own cards: re-settled from the cards entered, "
            "no shuffle sealed to open"
            if own
            else ""
        )
        + (
            ""
            if data["table"].get("ended_at") and not data["held_back"]
            else " (the chips as the table stood mid-night are not re-derived from the hands)"
        )
    )
    return 0


SIMULATED_CHIPS = 200


@cli.command(help="Play an all-computer night and write its export (as the host's).")
@click.option("--game", "name", required=True, type=click.Choice(sorted(GAMES)), help="the game")
@click.option("--players", type=int, default=4, metavar="N", help="computer players (2 to 12)")
@click.option("--hands", type=int, required=True, metavar="N", help="hands to play (1 or more)")
@click.option("--seed", help="seed the players' choices (the cards always come from the system)")
@click.option("--export", required=True, metavar="FILE", help="where to write it")
@click.option(
    "--side-cards",
    type=click.IntRange(0, 2),
    default=None,
    metavar="N",
    help="side cards, where the game's tables deal them (0, 1 or 2; 0 by default)",
)
def simulate(name, players, hands, seed, export, side_cards):
    """An all-computer night on the app's own engines, service and store, in a temporary
    SQLite database, on a clock that jumps to each computer's turn: hands are played until
    ``--hands`` are settled (the host then ends the night) or the night ends by itself. Its
    export is checked as ``verify`` checks one, and the chips counted; exit 1 if either fails."""
    import tempfile
    import time

    from sqlalchemy import func, select

    from montones import create_app, service
    from montones.data import history
    from montones.data.clock import ManualClock
    from montones.data.models import Hand
    from montones.extensions import db
    from montones.rules import audit
    from montones.rules.computer import NAMES
    from montones.rules.games import game

    if not 2 <= players <= len(NAMES) or hands < 1:
        return _fail("simulate", f"--players is 2 to {len(NAMES)}, and --hands at least 1")
    rules = game(name)
    started, cpu = time.perf_counter(), time.process_time()
    clock = ManualClock(time.time())
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(
            {
                "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/night.sqlite",
                "SECRET_KEY": "simulation",
                "CLOCK": clock,
                "COMPUTER_SEED": seed or "",
            }
        )
        with app.app_context():
            host = service.Actor(is_host=True)
            # A night long enough for every hand asked for, where the game ends one by itself.
            settings = rules.settings_for_rounds(hands)
            if side_cards is not None:
                if "side_cards" not in rules.new_table()["settings"]:
                    return _fail("simulate", f"--side-cards: a table of {name} deals no side card")
                settings["side_cards"] = side_cards
            table, _secret = service.create_table(name, "Simulation", SIMULATED_CHIPS, settings)
            for _ in range(players):
                service.add_computer(table.code, host)
            if "draw" in rules.ACTIONS:
                service.act(table.code, host, "draw", {})
            count = select(func.count()).select_from(Hand).where(Hand.table_id == table.id)
            played = 0
            while played < hands:
                # The clock jumps a second past a banker's patience (the times a version is
                # stored with are whole microseconds): the turn due is the one a table of people
                # would see first (a computer who acts at its pace before a banker who waits);
                # a table where nothing is due even then is over, or stuck: the night ends.
                clock.advance(app.config["COMPUTER_PATIENCE"] + 1.0)
                if not service.tick(table.code):
                    break
                played = db.session.scalar(count)
            table = service.get_table(table.code)
            if not table.ended_at:
                table = service.host_action(table.code, host, "end")
            exported = history.export(table)
            ledger = service.ledger_totals(table)
            balances = rules.balances(table.state)
            db.session.remove()
            db.engine.dispose()  # the temporary folder goes next, its database with it
    with open(export, "w", encoding="utf-8") as f:
        json.dump(exported, f, indent=1, ensure_ascii=False)
    problems = audit.verify(exported)
    issued = SIMULATED_CHIPS * players
    chips = sum(balances.values())
    # The ledger holds what the state holds, account by account; its "house" also issued
    # every player's starting chips.
    conserved = chips == issued and all(
        ledger.get(account, 0) == amount - (issued if account == "house" else 0)
        for account, amount in {**balances, "house": balances.get("house", 0)}.items()
    )
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(
        f"{len(exported['hands'])} hands of {rules.TITLE}, {players} computer players, "
        f"{table.version} actions in {seconds:.1f} s ({cpu:.1f} s of CPU); chips "
        + (f"conserved ({issued})" if conserved else f"NOT conserved ({chips} of {issued})")
        + "; export "
        + ("verified" if not problems else f"has {len(problems)} problems")
        + f": {export}"
    )
    for problem in problems:
        print(shown(problem))
    return 0 if conserved and not problems else 1


def shown(text: str) -> str:
    """``text`` safe for a terminal: control and format characters (escape sequences, bidi
    overrides, zero-width marks) from a hostile file are written as escapes, not sent."""
    return "".join(
        ch.encode("unicode_escape").decode("ascii")
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")
        else ch
        for ch in text
    )


def _fail(command, message):
    print(f"montones {command}: {shown(message)}", file=sys.stderr)
    return 2


@cli.command(help="Run the table on this machine's network.")
@click.option(
    "--host", default="0.0.0.0", metavar="HOST", help="address to bind (default: 0.0.0.0)"
)
@click.option("--port", type=int, default=8000, metavar="PORT", help="port to bind (default: 8000)")
@click.option(
    "--public-url", metavar="URL", help="join URL to show, instead of the detected LAN address"
)
@click.option(
    "--instance",
    metavar="DIR",
    help="folder of the night's database and secret key, to keep nights apart "
    "(default: $MONTONES_INSTANCE, else the app's instance folder)",
)
@click.option(
    "--workers",
    type=int,
    default=1,
    metavar="N",
    help="worker processes (gunicorn); more than one needs PostgreSQL (DATABASE_URL)",
)
@click.option(
    "--server",
    type=click.Choice(["gunicorn", "portable"]),
    help="gunicorn (its gevent worker) where it runs, else gevent's portable pywsgi (Windows)",
)
def serve(host, port, public_url, instance, workers, server):
    from montones import serving

    serving.patch()  # before anything of the web stack is imported (see montones.serving)
    database = os.environ.get("DATABASE_URL", "")
    if workers > 1 and not database.startswith(("postgres://", "postgresql")):
        print(
            "montones serve: --workers above 1 needs DATABASE_URL=postgresql://...", file=sys.stderr
        )
        return 2
    server = server or ("gunicorn" if _gunicorn_runs() else "portable")
    if server == "portable" and workers > 1:
        print("montones serve: --workers above 1 needs --server gunicorn", file=sys.stderr)
        return 2
    address = host if host not in ("0.0.0.0", "::") else _lan_ip()
    url = public_url or f"http://{address}:{port}/"
    # The TV shows this address in its QR code, whatever address the TV itself was opened on.
    os.environ["MONTONES_PUBLIC_URL"] = url
    if instance:  # read by the app's factory, in this process and gunicorn's workers
        os.environ["MONTONES_INSTANCE"] = os.path.abspath(instance)
    _print_join(url)
    warning = _unreachable(host, address, public_url)
    if warning:
        print(f"Warning: {warning}\n", file=sys.stderr, flush=True)
    connections, limit = serving.raise_descriptor_limit()
    print(f"Serving with {server}; Ctrl-C stops it.")
    if limit is not None:
        print(
            f"Open files allowed: {limit}, so up to {connections} connections at once "
            f"(about {connections // serving.SCREEN_CONNECTIONS} screens) per worker.",
            flush=True,
        )

    if server == "portable":
        serving.run_pywsgi(host, port, connections)
    else:
        serving.run_gunicorn(host, port, workers, connections)
    return 0


def _gunicorn_runs() -> bool:
    """Whether gunicorn can run here: it needs POSIX-only modules (fcntl), so it is not
    installed on Windows (pyproject.toml), and would not import there if it were."""
    try:
        import gunicorn.app.base  # noqa: F401
    except ImportError:
        return False
    return True


def _lan_ip():
    """The address other devices on the LAN reach this machine at.

    connect() on a UDP socket only picks the route and the source address; no packet is sent.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def _unreachable(host: str, address: str, public_url: str | None) -> str | None:
    """Why no phone could reach the join address and QR code just printed, if so: the server
    listens on this computer alone, or no network address was found for it."""
    if _loopback(host):
        return (
            f"--host {host} listens on this computer alone: no phone can reach it, whatever "
            "address is shown. Leave --host out (it listens on every network then)."
        )
    if public_url is None and _loopback(address):
        return (
            "this computer has no network address: is it on the Wi-Fi? No phone can reach "
            f"{address}. Connect to the network the phones are on and start again, or give "
            "--public-url with the address they reach this computer at."
        )
    return None


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name: whatever it stands for, the network may reach it
        return False


def _print_join(url):
    import segno

    print(f"\nJoin from a phone on the same network: {url}\n")
    segno.make(url).terminal(compact=True)
    print(flush=True)
