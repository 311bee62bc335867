"""The standings chart: each player's chips over the night, drawn by pygal as a plain SVG.

The SVG is served as an image (``records.standings_chart``), so it carries its own colours and
type sizes: one look for a phone held in the hand, one for the TV read from the sofa.

pygal's time grows with the lines (about 0.7 ms of CPU each) and their points, so a chart draws
at most ``MOST_LINES`` of them, the players with the most chips (:func:`leaders`), each through
at most ``MOST_POINTS`` points; it is drawn once per table version, screen and language (the
render cache holds it) and away from the server's event loop (:func:`drawing`).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from functools import cache
from math import ceil
from pathlib import Path
from xml.etree import ElementTree

import pygal
from gevent import monkey
from gevent.threadpool import ThreadPool
from pygal.style import Style

# The seat colours of app.css (.seat-0 … .seat-7): a player's line is the colour they chose
# when sitting down (``service.party.face_of``), the colour of their chips and face.
SEAT_COLOURS = (
    "#c62828",
    "#1565c0",
    "#6a1b9a",
    "#ef6c00",
    "#00838f",
    "#ad1457",
    "#4e342e",
    "#2e7d32",
)
# Points a line is drawn through at most, evenly spread over the night: the phone's chart is
# 360 px wide, and pygal's time grows with the points.
MOST_POINTS = 60
# Lines a chart draws at most: a table of twelve draws every player. Eighty lines took 85 ms
# to draw (12: 16 ms), once for each version a table of computers made, and eight colours
# cannot tell eighty apart; the standings beside it list everyone.
MOST_LINES = 12
FONTS = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'


@dataclass(frozen=True)
class Look:
    """Sizes in the image's own pixels: about what they are on that screen, where it is shown
    close to its width."""

    width: int
    plot_height: int  # the legend's rows come on top of this
    label: int  # the chip counts of the axis
    legend: int  # the names
    stroke: int
    columns: int  # of the legend


LOOKS = {
    "phone": Look(width=360, plot_height=300, label=15, legend=17, stroke=4, columns=2),
    "tv": Look(width=1100, plot_height=480, label=30, legend=34, stroke=8, columns=3),
}


def drawing(draw: Callable[[], str]) -> Future:
    """``draw()`` under way, for its ``result()``. Under ``montones serve`` (gevent's), in a
    thread of a pool of one: a greenlet drawing a chart would hold up every other request
    until it is done, while the pool's thread leaves the event loop its turns (the interpreter
    switches threads every 5 ms); and one drawing at a time, so that charts asked at once
    take turns rather than the event loop's share. Elsewhere (a test's client), drawn at
    once."""
    if monkey.is_module_patched("threading"):
        global _pool
        if _pool is None:  # made in the event loop's thread, as gevent's pools must be
            _pool = ThreadPool(1)
        return _pool.spawn(draw)
    done = Future()
    done.set_result(draw())
    return done


_pool: ThreadPool | None = None


def seat_colour(seat: str) -> str:
    """The colour a seat that chose none shows (its number's, as ``service.party.face_of``)."""
    return SEAT_COLOURS[int(seat[1:]) % len(SEAT_COLOURS)]


def size(screen: str, players: int) -> tuple[int, int]:
    """The image's width and height for a table of ``players``."""
    look = LOOKS[screen]
    return look.width, look.plot_height + _legend_height(look, min(players, MOST_LINES))


def leaders(lines: dict[str, list[int | None]]) -> dict[str, list[int | None]]:
    """At most ``MOST_LINES`` of ``lines``: those that end with the most chips (the earlier
    seat first among equals), in seat order."""
    if len(lines) <= MOST_LINES:
        return lines
    last = {
        seat: next((n for n in reversed(line) if n is not None), 0) for seat, line in lines.items()
    }
    kept = set(sorted(lines, key=lambda seat: -last[seat])[:MOST_LINES])
    return {seat: line for seat, line in lines.items() if seat in kept}


def _legend_height(look: Look, players: int) -> int:
    return round(ceil(max(players, 1) / look.columns) * look.legend * 1.5)


def standings_svg(
    lines: dict[str, list[int | None]],
    names: dict[str, str],
    screen: str,
    title: str,
    number: Callable[[int], str] = str,
    faces: dict[str, tuple[str, int]] | None = None,
) -> str:
    """One line per seat in ``lines`` (its :func:`leaders`), labelled with the player's face
    and name and their chips now; ``title`` names the image (the page around it shows its own
    heading), ``number`` writes a count as the reader's language does (the axis and the
    labels), ``faces`` gives each seat's face and colour as chosen (a seat not in it: its
    number's colour and a plain box)."""
    look = LOOKS[screen]
    lines = leaders(lines)
    seats = list(lines)
    faces = faces or {}
    colours = [
        SEAT_COLOURS[faces[seat][1] % len(SEAT_COLOURS)] if seat in faces else seat_colour(seat)
        for seat in seats
    ]
    width, height = size(screen, len(seats))
    style = Style(
        background="#ffffff",
        plot_background="#ffffff",
        foreground="#14201a",
        foreground_strong="#14201a",
        foreground_subtle="#4d5c54",
        font_family=FONTS,
        label_font_size=look.label,
        major_label_font_size=look.label,
        legend_font_size=look.legend,
        guide_stroke_color="#b9c7bf",
        major_guide_stroke_color="#b9c7bf",
        opacity="1",
        stroke_opacity="1",
        stroke_opacity_hover="1",
        stroke_width=str(look.stroke),
        stroke_width_hover=str(look.stroke),
        transition="0ms",
        colors=tuple(colours),
    )
    margin = look.label // 2
    columns = min(look.columns, max(len(seats), 1))
    # pygal keeps room for len // columns legend rows, one short when the last row is partial.
    short = len(seats) % columns != 0
    chart = pygal.Line(
        style=style,
        width=width,
        height=height,
        # pygal links its tooltip script from a CDN by default, and writes its config in an
        # inline one: neither is wanted (nor allowed by the CSP).
        js=[],
        disable_xml_declaration=True,
        show_dots=False,
        show_x_labels=False,
        show_x_guides=False,
        legend_at_bottom=True,
        legend_at_bottom_columns=columns,
        legend_box_size=look.legend,
        truncate_legend=-1,
        stroke_style={"linejoin": "round", "linecap": "round"},
        margin=margin,
        margin_bottom=margin + (round(look.legend * 1.5) if short else 0),
        spacing=margin,
        min_scale=3,
        max_scale=6,
        no_data_text="",
        value_formatter=number,
    )
    chart.xml_filters.append(lambda root: _plain(root, title))
    drawn_faces = [faces[seat][0] if seat in faces else None for seat in seats]
    chart.xml_filters.append(lambda root: _faced(root, drawn_faces, colours))
    # A legend column: the plot's width (less the axis' labels) shared out, less its colour box;
    # this sans-serif runs about 0.55 em a character, a little narrower than pygal's guess.
    column = (width - 2 * margin - 4 * 0.6 * look.label) / columns - look.legend - 10
    room = int(column / (0.55 * look.legend))
    drawn = _thinned(lines)
    for seat in seats:
        known = [n for n in lines[seat] if n is not None]
        # One point draws no line: a dot shows it.
        chart.add(
            _label(names.get(seat, seat), number(known[-1] if known else 0), room),
            drawn[seat],
            show_dots=sum(n is not None for n in drawn[seat]) < 2,
            dots_size=look.stroke * 1.5,
        )
    return chart.render(is_unicode=True)


def _thinned(lines: dict[str, list[int | None]]) -> dict[str, list[int | None]]:
    """At most ``MOST_POINTS`` of each line's points (every line has one a version), the first
    and the last among them."""
    count = max(map(len, lines.values()), default=0)
    if count <= MOST_POINTS:
        return lines
    step = (count - 1) / (MOST_POINTS - 1)
    kept = [round(i * step) for i in range(MOST_POINTS)]
    return {seat: [values[i] for i in kept] for seat, values in lines.items()}


def _label(name: str, chips: str, room: int) -> str:
    """The name, cut to leave room for the chips, which are never cut. pygal sets the text
    5 px from its colour box whatever the size: a no-break space keeps them apart on the TV."""
    tail = f" · {chips}"
    keep = max(room - len(tail) - 1, 3)
    return "\u00a0" + (name if len(name) <= keep else name[: keep - 1] + "…") + tail


def _plain(root, title: str):
    """The SVG without pygal's scripts and comments (links to its site), under our title."""
    for parent in list(root.iter()):
        for child in list(parent):
            tag = child.tag if isinstance(child.tag, str) else "comment"
            if tag.rsplit("}", 1)[-1] in ("script", "comment"):
                parent.remove(child)
            elif parent is root and tag.rsplit("}", 1)[-1] == "title":
                child.text = title
    return root


SVG_NS = "http://www.w3.org/2000/svg"
FACES_SVG = Path(__file__).resolve().parents[2] / "static" / "img" / "faces.svg"


@cache
def _face_drawings() -> dict[str, ElementTree.Element]:
    """The drawings of ``static/img/faces.svg`` by id (its faces and what they share): the
    chart is served as an image, which may use nothing from another file, so the faces it
    shows are copied in."""
    path = FACES_SVG
    if not path.exists():  # installed: templates/ and static/ are inside the package
        path = Path(__file__).resolve().parents[1] / "static" / "img" / "faces.svg"
    root = ElementTree.parse(path).getroot()
    return {node.get("id"): node for node in root.iter() if node.get("id")}


def _faced(root, faces: list[str | None], colours: list[str]):
    """Each legend's colour box drawn as its player's face, in their colour: the face beside
    the name, as on the TV and the phones. Drawn inline (the chart links nothing, not even
    within itself)."""
    drawings = _face_drawings()
    tag = root.tag.rsplit("}", 1)[0] + "}" if root.tag.startswith("{") else ""
    legends = [
        group for group in root.iter(f"{tag}g") if "legend" in (group.get("class") or "").split()
    ]
    for group, face, colour in zip(legends, faces, colours, strict=False):
        box = group.find(f"{tag}rect")
        if face not in drawings or box is None:
            continue
        drawn = ElementTree.Element(f"{tag}svg")
        for name in ("x", "y", "width", "height"):
            drawn.set(name, box.get(name))
        drawn.set("viewBox", drawings[face].get("viewBox"))
        drawn.set("class", f"face face-{face}")
        drawn.set("style", f"color:{colour}")
        drawn.extend(_copied(child, tag, drawings) for child in drawings[face])
        index = list(group).index(box)
        group.remove(box)
        group.insert(index, drawn)
    return root


def _copied(node: ElementTree.Element, tag: str, drawings: dict) -> ElementTree.Element:
    """``node`` and its children in the chart's namespace, what they use drawn in place."""
    name = node.tag.rsplit("}", 1)[-1]
    attrib = {key: value for key, value in node.attrib.items() if not key.endswith("href")}
    if name == "use":  # the faces use only what faces.svg draws once for all (their eyes)
        used = drawings[node.get("href", "").lstrip("#")]
        copy = ElementTree.Element(f"{tag}g", {"transform": f"translate(0 {node.get('y', '0')})"})
        copy.extend(_copied(child, tag, drawings) for child in used)
        return copy
    copy = ElementTree.Element(tag + name, attrib)
    copy.text = node.text
    copy.extend(_copied(child, tag, drawings) for child in node)
    return copy
