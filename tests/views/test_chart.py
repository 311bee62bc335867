"""The standings chart: each player's chips in hand over the night, drawn from the ledger as an
SVG with no script and nothing fetched from elsewhere, shown by the standings page and, between
banks, by the TV."""

from __future__ import annotations

import re
from xml.etree import ElementTree

from montones import service
from montones.web import chart
from tests.helpers.nights import MonteNight, Night

SVG = "{http://www.w3.org/2000/svg}"
SPANISH = {"Accept-Language": "es-ES,es;q=0.9"}


def broken_then_closed(app, *names) -> Night:
    """Ana banks 30; Ben bets all of it on heap 1 and wins; Ana closes the broken bank:
    Ana 70, Ben 130, Eva 100, and the next auction is open."""
    night = Night(app, "Ana", "Ben", "Eva", *names)
    night.to_betting("Ana", 30, 3)
    night.ok("Ben", "bet", heap=1, amount=30)
    night.ok("Eva", "choose", heap=3)
    night.arrange({3: "4o", 1: "6c"})
    night.ok("Ana", "close")
    night.ok("Ana", "close_bank")
    assert night.state()["phase"] == "auction"
    return night


def chart_of(client, code: str, **query):
    response = client.get(f"/t/{code}/standings.svg", query_string=query)
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    return response


def legend(svg: str) -> list[str]:
    root = ElementTree.fromstring(svg)
    return [
        text.text.strip()
        for group in root.iter(f"{SVG}g")
        if "legend" in group.get("class", "").split()
        for text in group.iter(f"{SVG}text")
    ]


def lines(svg: str) -> int:
    root = ElementTree.fromstring(svg)
    return sum(
        1
        for group in root.iter(f"{SVG}g")
        if "series" in group.get("class", "").split() and list(group)
    )


# --- what the chart says -----------------------------------------------------------------


def test_each_player_has_a_line_named_with_their_chips_now(app):
    night = broken_then_closed(app)
    svg = chart_of(night.host, night.code).get_data(as_text=True)
    assert legend(svg) == ["Ana · 70", "Ben · 130", "Eva · 100"]
    assert lines(svg) == 3


def test_the_line_of_a_player_is_their_chips_in_hand_after_each_settled_move(app):
    night = broken_then_closed(app)
    with app.app_context():
        over = service.chips_over_night(night.table())
    # Three joins, the bank put up, the hand settled; Ben's 30 on the table is no point.
    assert over == {
        "p1": [100, 100, 100, 70, 70],
        "p2": [None, 100, 100, 100, 130],
        "p3": [None, None, 100, 100, 100],
    }


def test_a_hand_the_bank_wins_drops_the_punters_line_when_it_is_settled(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", 30, 3)
    night.ok("Ben", "bet", heap=1, amount=5)
    night.ok("Eva", "choose", heap=3)
    night.arrange({3: "6c", 1: "4o"})
    night.ok("Ana", "close")
    with app.app_context():
        over = service.chips_over_night(night.table())
    # The settlement moves only the stakes to the bank: Ben's line still steps down there.
    assert over["p2"][-2:] == [100, 95]
    assert len(over["p2"]) == len(over["p1"]) == 5


def test_the_last_point_is_the_chips_the_phones_show_even_with_bets_on_the_table(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", 30, 3)
    night.ok("Ben", "bet", heap=1, amount=5)
    with app.app_context():
        over = service.chips_over_night(night.table())
    assert [line[-1] for line in over.values()] == [70, 95, 100]
    assert [line[-2] for line in over.values()] == [70, 100, 100]
    svg = chart_of(night.clients["Eva"], night.code).get_data(as_text=True)
    assert legend(svg) == ["Ana · 70", "Ben · 95", "Eva · 100"]


def test_the_standings_page_shows_the_chart_of_its_table(app):
    night = broken_then_closed(app)
    assert night.host_do("end").status_code == 303
    html = night.clients["Ben"].get(f"/t/{night.code}/standings").get_data(as_text=True)
    src = re.search(r'<img class="chart__img" src="([^"]+)"', html).group(1)
    assert src.startswith(f"/t/{night.code}/standings.svg?")
    assert 'alt="Chips over the night: Ben 130, Eva 100, Ana 70"' in html
    assert legend(night.clients["Ben"].get(src).get_data(as_text=True))[1] == "Ben · 130"


def test_a_monte_night_has_its_chart_too(app):
    night = MonteNight(app, "Ana", "Ben")
    night.betting()
    night.tap(night.punters[0], "top", 5)
    assert night.host_do("end").status_code == 303
    svg = chart_of(night.host, night.code).get_data(as_text=True)
    assert legend(svg) == ["Ana · 100", "Ben · 100"] and lines(svg) == 2


# --- safe to show ------------------------------------------------------------------------


def test_the_chart_runs_no_script_and_fetches_nothing(app):
    night = broken_then_closed(app)
    response = chart_of(night.host, night.code, screen="tv")
    svg = response.get_data(as_text=True)
    assert "<script" not in svg and "javascript" not in svg.lower()
    # The only addresses are the SVG namespace's, which nothing fetches.
    assert set(re.findall(r"(?:https?:)?//[\w.-]+[^\s\"'<>)]*", svg)) == {
        "http://www.w3.org/2000/svg"
    }
    assert "href" not in svg and "url(" not in svg and "@import" not in svg
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src" not in csp


def test_a_name_that_looks_like_markup_is_only_text_in_the_chart(app):
    night = broken_then_closed(app, "<script>")
    svg = chart_of(night.host, night.code, screen="tv").get_data(as_text=True)
    assert "<script" not in svg and "&lt;script&gt; · 100" in svg
    assert legend(svg)[-1] == "<script> · 100"


# --- who sees it -------------------------------------------------------------------------


def test_the_chart_is_open_to_whoever_may_see_the_standings(app):
    night = broken_then_closed(app)
    outsider = app.test_client()
    for client in (outsider, night.host, night.clients["Ben"]):
        page = client.get(f"/t/{night.code}/standings").status_code
        assert client.get(f"/t/{night.code}/standings.svg").status_code == page
    assert outsider.get("/t/QQQQ/standings").status_code == 404
    assert outsider.get("/t/QQQQ/standings.svg").status_code == 404


# --- the TV, between banks ---------------------------------------------------------------


def tv(night) -> str:
    return night.host.get(f"/t/{night.code}/tv").get_data(as_text=True)


def test_the_tv_shows_the_chart_between_banks_and_not_while_a_bank_runs(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.ok("Ana", "offer", amount=30)
    assert "chart__img" not in tv(night)  # nothing has happened yet
    night = broken_then_closed(app)
    assert f'src="/t/{night.code}/standings.svg?screen=tv' in tv(night)
    night.open_bank("Ben", 40)
    assert "chart__img" not in tv(night)


def test_the_monte_tv_shows_the_chart_when_the_bank_passes(app):
    night = MonteNight(app, "Ana", "Ben", short_bank=1)
    night.betting()
    assert "chart__img" not in tv(night)
    night.do(night.banker, "gate", stage=night.stage())
    assert night.state()["phase"] == "bank"
    assert f'src="/t/{night.code}/standings.svg?screen=tv' in tv(night)


# --- Spanish -----------------------------------------------------------------------------


def test_the_chart_speaks_spanish_to_a_spanish_browser(app):
    night = broken_then_closed(app)
    html = night.host.get(f"/t/{night.code}/standings", headers=SPANISH).get_data(as_text=True)
    assert "Las fichas a lo largo de la noche" in html and "Fichas en mano" in html
    svg = night.host.get(f"/t/{night.code}/standings.svg", headers=SPANISH)
    title = ElementTree.fromstring(svg.get_data(as_text=True)).find(f"{SVG}title")
    assert title.text == "Las fichas a lo largo de la noche"


def test_a_long_name_is_cut_on_the_phone_but_never_the_chips(app):
    night = broken_then_closed(app, "Bartolomé Esteban")
    svg = chart_of(night.host, night.code).get_data(as_text=True)
    (label,) = [x for x in legend(svg) if x.startswith("Bart")]
    assert label.endswith("… · 100") and len(label) < len("Bartolomé Esteban · 100")


def test_a_table_of_more_than_twelve_charts_the_twelve_with_the_most_chips(app):
    """Eighty lines took 85 ms to draw, once a version, and eight colours cannot tell them
    apart: a chart draws the players with the most chips now, the earlier seat first among
    equals, in seat order; the note under it says so, and the standings list everyone."""
    ends = [90, 90, 90, 40, 300, 7, 90, 12, 90, 1, 90, 90, 3, 90, 0, 90, 90, 90, 2, 90]
    lines_of = {f"p{n}": [100, end] for n, end in enumerate(ends, start=1)}
    svg = chart.standings_svg(lines_of, {}, "phone", "t")
    # 300, then eleven of the twelve at 90: all but the last seat's (p20).
    kept = ["p1", "p2", "p3", "p5", "p7", "p9", "p11", "p12", "p14", "p16", "p17", "p18"]
    assert lines(svg) == chart.MOST_LINES
    assert [label.split(" · ")[0] for label in legend(svg)] == kept
    assert chart.size("tv", 80) == chart.size("tv", chart.MOST_LINES)

    names = [f"P{n:02d}" for n in range(chart.MOST_LINES + 1)]
    night = Night(app, *names)
    page = night.host.get(f"/t/{night.code}/standings").get_data(as_text=True)
    assert f"The {chart.MOST_LINES} players with the most chips now." in page
    assert f'height="{chart.size("phone", chart.MOST_LINES)[1]}"' in page
    assert lines(chart_of(night.host, night.code).get_data(as_text=True)) == chart.MOST_LINES
    small = Night(app, *names[:-1])
    page = small.host.get(f"/t/{small.code}/standings").get_data(as_text=True)
    assert "with the most chips now" not in page


# --- a guest who asks for it again and again ------------------------------------------------


def test_a_chart_is_drawn_once_per_version_screen_and_language_and_held(app, monkeypatch):
    night = broken_then_closed(app)
    drawn = []
    draw = chart.standings_svg
    monkeypatch.setattr(chart, "standings_svg", lambda *a, **k: drawn.append(a[2]) or draw(*a, **k))
    first = chart_of(night.host, night.code).get_data(as_text=True)
    for name in ("Ana", "Ben", "Eva", "Ana"):
        assert chart_of(night.clients[name], night.code).get_data(as_text=True) == first
    assert drawn == ["phone"]
    chart_of(night.host, night.code, screen="tv")
    chart_of(night.host, night.code, screen="tv")
    night.host.get(f"/t/{night.code}/standings.svg", headers=SPANISH)
    assert drawn == ["phone", "tv", "phone"]
    night.ok("Ben", "offer", amount=40)  # a new version: drawn anew
    chart_of(night.host, night.code)
    assert drawn == ["phone", "tv", "phone", "phone"]


def test_a_long_night_is_drawn_through_at_most_so_many_points_ending_where_it_ends():
    count = 1000
    lines_of = {
        "p1": list(range(count)),
        "p2": [None] * 500 + [7] * 499 + [3],
        "p3": [None] * 998 + [5, 6],  # came at the very end: between two points drawn
    }
    svg = chart.standings_svg(lines_of, {"p1": "Ana", "p2": "Ben", "p3": "Eva"}, "phone", "t")
    root = ElementTree.fromstring(svg)
    paths = [
        path.get("d") for path in root.iter(f"{SVG}path") if "line" in path.get("class", "").split()
    ]
    points = [len(re.findall(r"[-0-9.]+ [-0-9.]+", d)) for d in paths]
    assert paths and max(points) <= chart.MOST_POINTS, points
    # Every line ends at its last point, and the legend says each player's chips now.
    assert legend(svg) == ["Ana · 999", "Ben · 3", "Eva · 6"]
    assert max(points) == chart.MOST_POINTS  # the line of every version, thinned to the most


def test_each_line_is_the_colour_its_player_chose_sitting_down_labelled_with_their_face(app):
    """Ben sits at seat 2 choosing the frog in colour 5: his line and his face in the legend
    are colour 5's, and seat 2's own colour draws no line (Ana and Eva chose none: their
    seats' own faces and colours)."""
    night = Night(app, "Ana")
    night.join("Ben", face="frog", colour="5")
    night.join("Eva")
    assert night.seats["Ben"] == "p2"
    night.to_betting("Ana", 30, 3)
    night.ok("Ben", "bet", heap=1, amount=10)
    svg = chart_of(night.host, night.code).get_data(as_text=True)
    assert chart.SEAT_COLOURS[5] in svg and chart.SEAT_COLOURS[2] not in svg
    root = ElementTree.fromstring(svg)
    faces = [
        (face.get("class"), face.get("style"), len(list(face.iter())) > 3)
        for group in root.iter(f"{SVG}g")
        if "legend" in group.get("class", "").split()
        for face in group.iter(f"{SVG}svg")
    ]
    # Drawn inside it: the chart is an image, which may fetch or link nothing.
    assert faces == [
        ("face face-cat", f"color:{chart.SEAT_COLOURS[1]}", True),
        ("face face-frog", f"color:{chart.SEAT_COLOURS[5]}", True),
        ("face face-owl", f"color:{chart.SEAT_COLOURS[3]}", True),
    ]
