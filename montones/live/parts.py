"""A region's parts: the elements of its HTML that carry an id, each swapped on its own.

A screen's regions are sent whole once (when its stream opens), and after that only the parts
that differ from what the screen last received, as htmx out-of-band swaps by id. A part is any
element with an id (the templates give one to what changes on its own: a heap, a pile, a
player's row); its *skeleton* is its HTML with each part inside it replaced by a mark that names
it. Two renders of a part whose skeletons are equal differ only inside the parts they hold, so
those are compared in turn; a part whose skeleton differs is sent whole.

A screen that the server keeps no record of (a phone fetching its own regions) says what it
holds by *marks*: a short hash of each part's skeleton (:func:`mark`). Holding a part's mark
is holding its skeleton, and so, part by part down from the region, the whole of it
(:func:`missing`).

Our templates write well-formed HTML; a region whose tags do not nest (or whose ids repeat) is
taken as one part, sent whole whenever it changes.
"""

from __future__ import annotations

import base64
import hashlib
import re

# A tag, its attributes quoted or not (a quoted value may hold a ">").
_TAG = re.compile(r"<(/?)([a-zA-Z][\w:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
_ID = re.compile(r"""\sid=["']([^"']+)["']""")
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_OOB = re.compile(r"^<([a-zA-Z][\w:-]*)")


class Part:
    __slots__ = ("html", "skeleton", "inside")

    def __init__(self, html: str, skeleton: str, inside: tuple[str, ...]):
        self.html = html  # the element, whole
        self.skeleton = skeleton  # the element with each part it holds as a mark
        self.inside = inside  # the ids of the parts it holds (not theirs)


def split(html: str) -> dict[str, Part]:
    """Every part of ``html`` by its id (the region's own element among them)."""
    spans: dict[str, tuple[int, int, list[str]]] = {}
    stack: list[tuple[str, str | None, int, list[str]]] = []  # tag, id, start, parts inside
    top: list[str] = []

    def close(ident: str, start: int, end: int, inside: list[str]) -> None:
        if ident in spans:
            raise ValueError(f"two elements with the id {ident!r}")
        spans[ident] = (start, end, inside)
        holder = next((frame[3] for frame in reversed(stack) if frame[1] is not None), top)
        holder.append(ident)

    for tag in _TAG.finditer(html):
        closing, name, attrs = tag.group(1), tag.group(2).lower(), tag.group(3)
        if closing:
            if not stack or stack[-1][0] != name:
                raise ValueError(f"</{name}> closes nothing open")
            _name, ident, start, inside = stack.pop()
            if ident is not None:
                close(ident, start, tag.end(), inside)
            continue
        found = _ID.search(attrs)
        ident = found.group(1) if found else None
        if name in _VOID or attrs.rstrip().endswith("/"):
            if ident is not None:
                close(ident, tag.start(), tag.end(), [])
        else:
            stack.append((name, ident, tag.start(), []))
    if stack:
        raise ValueError(f"<{stack[-1][0]}> is never closed")
    parts = {}
    for ident, (start, end, inside) in spans.items():
        pieces, at = [], start
        for child in inside:
            child_start, child_end, _inside = spans[child]
            pieces += [html[at:child_start], f"\0{child}\0"]
            at = child_end
        pieces.append(html[at:end])
        parts[ident] = Part(html[start:end], "".join(pieces), tuple(inside))
    return parts


def region_parts(html: str, region: str) -> dict[str, Part]:
    """The parts of a region's HTML, whose element has the id ``region``; the region as one
    part if its tags do not nest."""
    try:
        parts = split(html)
    except ValueError:
        parts = {}
    if region not in parts:
        return {region: Part(html.strip(), html.strip(), ())}
    return parts


def changed(old: dict[str, Part] | None, new: dict[str, Part], root: str) -> list[str]:
    """What brings a screen that holds the region ``root`` as ``old`` (None: not at all) to
    ``new``: out-of-band elements for htmx, none if it holds it as it is.

    A part whose skeleton is the same is left, and the parts it holds are compared; one whose
    parts came and went (a pile added to a heap, a bet taken back) and is otherwise the same
    has those inserted and deleted; any other is sent whole."""
    sent: list[str] = []
    old = old or {}

    def walk(ident: str) -> None:
        was, now = old.get(ident), new[ident]
        if was is not None and was.html == now.html:
            return
        if was is not None and was.skeleton == now.skeleton:
            kept = now.inside
        elif was is None or (kept := _edit(ident, was, now, old, new, sent)) is None:
            sent.append(out_of_band(now.html))
            return
        for inside in kept:
            walk(inside)

    walk(root)
    return sent


_MARK = re.compile("\0([^\0]*)\0")


def _edit(ident, was: Part, now: Part, old, new, sent: list[str]) -> list[str] | None:
    """The parts ``now`` keeps of ``was``, having added to ``sent`` the deletions of those it
    dropped and the insertions of those it gained; None unless the two differ only in that
    (their parts stand side by side, with nothing but white space between them, and those
    kept keep their order)."""
    before, after = _MARK.split(was.skeleton), _MARK.split(now.skeleton)
    if before[0] != after[0] or before[-1] != after[-1] or len(after) < 3:
        return None
    if any(text.strip() for text in before[2:-1:2] + after[2:-1:2]):
        return None
    start = _TAG.match(after[0])
    if start is None or after[0][start.end() :].strip():
        return None  # something before the first part: "afterbegin" would go above it
    had, has = before[1::2], after[1::2]
    kept = [i for i in has if i in set(had)]
    if kept != [i for i in had if i in set(has)]:
        return None
    for gone in had:
        if gone not in set(has):
            tag = _tag(old[gone].html)
            sent.append(f'<{tag} hx-swap-oob="delete" id="{gone}"></{tag}>')
    wrapper = _tag(now.html)
    for at, came in enumerate(has):
        if came not in set(had):
            where = f"afterend:#{has[at - 1]}" if at else f"afterbegin:#{ident}"
            sent.append(f'<{wrapper} hx-swap-oob="{where}">{new[came].html}</{wrapper}>')
    return kept


def mark(part: Part) -> str:
    """A part's mark: 36 bits of a hash of its skeleton, six URL-safe characters. A screen
    holds a few dozen parts: a new part's mark that one of them has too, by chance, is about
    one in a billion."""
    digest = hashlib.blake2b(part.skeleton.encode(), digest_size=6).digest()
    return base64.urlsafe_b64encode(digest).decode()[:6]


def missing(held: set[str], new: dict[str, Part], root: str) -> list[str]:
    """What brings a screen that holds the parts marked ``held`` to the region ``root`` as
    ``new``: out-of-band elements for htmx, none if it holds it as it is.

    A part whose mark is held is held as it is but for the parts inside it, which are looked
    at in turn (the mark names them, where they stand); any other part is sent whole. (Unlike
    :func:`changed`, a part whose parts came and went is sent whole: its marks alone do not
    say that the rest of it is the same.)"""
    sent: list[str] = []

    def walk(ident: str) -> None:
        now = new[ident]
        if mark(now) not in held:
            sent.append(out_of_band(now.html))
            return
        for inside in now.inside:
            walk(inside)

    walk(root)
    return sent


def _tag(html: str) -> str:
    return _OOB.match(html).group(1)


def out_of_band(html: str) -> str:
    """An element as htmx swaps it in place of the element with its id."""
    return _OOB.sub(r'<\1 hx-swap-oob="true"', html, count=1)
