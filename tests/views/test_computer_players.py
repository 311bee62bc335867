"""The host adds computer players from the host page and removes them; every screen that lists
the players marks them."""

import copy
import re

from montones import service
from tests.helpers.nights import Night, csrf_of, flashed, put_state
from tests.helpers.services import run_computers


def host_page(night) -> str:
    return night.host.get(f"/t/{night.code}/host").get_data(as_text=True)


def computers(night) -> dict[str, dict]:
    return {pid: p for pid, p in night.state()["players"].items() if p.get("computer")}


def test_the_host_adds_a_computer_player_from_the_host_page(app):
    night = Night(app, "Ana", "Ben")
    page = host_page(night)
    assert "Add a computer player" in page
    nonce = re.search(r'name="nonce" value="([^"]+-computer)"', page).group(1)
    response = night.host_do("add_computer", nonce=nonce)
    assert response.status_code == 303
    (seat, player) = next(iter(computers(night).items()))
    assert player["name"] == "Lola" and player["chips"] == night.chips
    assert flashed(night.host.get(response.location)) == "Lola, a computer player, has sat down."
    night.host_do("add_computer", nonce=nonce)  # the same form again: nobody more
    assert len(computers(night)) == 1
    page = host_page(night)
    assert re.search(r"<strong>Lola</strong>(</label>)? <span class=\"computer-mark\"", page)
    assert page.count('class="computer-mark"') == 1
    # Its card offers Remove, no question asked; a person's, Send away.
    assert 'kind="remove_computer"' not in page  # (the form's action says it)
    assert page.count("/host/remove_computer") == 1


def test_every_screen_that_lists_the_players_marks_a_computer(app):
    night = Night(app, "Ana", "Ben")
    night.host_do("add_computer")
    tv = night.host.get(f"/t/{night.code}/tv").get_data(as_text=True)
    marked = re.findall(r"(\w+) <span class=\"computer-mark\"[^>]*>.*?bot</span>", tv, re.S)
    assert marked == [
        "Lola",
        "Lola",
    ]  # the lobby's names and the side's list; Ana and Ben are people
    night.host_do("end")
    standings = night.clients["Ana"].get(f"/t/{night.code}/standings").get_data(as_text=True)
    assert standings.count('class="computer-mark"') == 1


def test_the_host_removes_a_computer_player_and_nobody_else_that_way(app):
    night = Night(app, "Ana", "Ben")
    night.host_do("add_computer")
    seat = next(iter(computers(night)))
    before = night.snapshot()
    response = night.host_do("remove_computer", seat=night.seats["Ana"])
    assert "That is not a computer player at this table." in flashed(
        night.host.get(response.location)
    )
    assert night.snapshot() == before
    response = night.host_do("remove_computer", seat=seat)
    assert (
        flashed(night.host.get(response.location)) == "Lola, a computer player, has left the table."
    )
    assert night.state()["players"][seat]["left"]
    assert night.ledger()[f"player:{seat}"] == night.chips  # its chips kept with its seat


def test_only_the_host_adds_or_removes_a_computer_player(app):
    night = Night(app, "Ana", "Ben")
    before = night.snapshot()
    for kind in ("add_computer", "remove_computer"):
        response = night.clients["Ana"].post(
            f"/t/{night.code}/host/{kind}", data={"csrf_token": night.tokens["Ana"], "seat": "p1"}
        )
        assert response.status_code == 403
    assert night.snapshot() == before
    with app.app_context():
        assert service.get_table(night.code).state["players"].keys() == {"p1", "p2"}


def test_a_computer_s_name_is_drawn_in_each_screen_s_language(app, clock):
    """Issue 36: computer players were named in Latin letters on Russian screens, then in the
    language of whoever added them on every screen. The table keeps the rules' name; each
    screen (phones, the TV, the host's page, the standings) writes it in its own language,
    and the export keeps the table's."""
    night = Night(app, "Ana", "Ben")
    night.host.get(f"/t/{night.code}/host?lang=ru")
    night.host_do("add_computer")
    night.host_do("add_computer")
    assert [p["name"] for p in computers(night).values()] == ["Lola", "Paco"]
    night.do("Ana", "pass")
    night.do("Ben", "pass")
    with app.app_context():  # a computer takes the bank: every phone names its banker
        run_computers(clock, night.code, until=lambda state: state["phase"] != "auction")
    ana = night.page("Ana")  # a phone in English first, then in Russian
    night.clients["Ana"].get("/?lang=ru")
    night.clients["Ben"].get("/?lang=de")
    tv = app.test_client()
    tv.get("/?lang=de")
    screens = {
        "ru phone": night.page("Ana"),
        "de phone": night.page("Ben"),
        "de tv": tv.get(f"/t/{night.code}/tv"),
        "ru host": night.host.get(f"/t/{night.code}/host"),
    }
    spelled = {"Lola": "Лола", "Paco": "Пако"}
    banker = night.state()["players"][night.state()["bank"]["banker"]]["name"]
    for screen, response in {"en phone": ana, **screens}.items():
        text = response.get_data(as_text=True)
        russian = screen.startswith("ru")
        # A phone names the banker; the TV and the host's page list everyone.
        for latin in ("Lola", "Paco") if "phone" not in screen else (banker,):
            shown, other = (spelled[latin], latin) if russian else (latin, spelled[latin])
            assert shown in text and other not in text, (screen, shown)
    night.host_do("end")
    ru = night.clients["Ana"].get(f"/t/{night.code}/standings").get_data(as_text=True)
    de = night.clients["Ben"].get(f"/t/{night.code}/standings").get_data(as_text=True)
    assert "Лола" in ru and "Lola" not in ru and "Lola" in de and "Лола" not in de
    export = night.host.get(f"/t/{night.code}/host/export.json").get_json(force=True)
    assert sorted(export["players"].values()) == ["Ana", "Ben", "Lola", "Paco"]


def test_nobody_sits_down_as_a_computer_s_name_in_another_language(app):
    """A Russian screen writes the computer Lola as «Лола»: a person called Лола beside her
    would be two of one name there; nor does a computer take a person's name in any language."""
    night = Night(app, "Пако")
    night.host_do("add_computer")
    assert [p["name"] for p in computers(night).values()] == ["Lola"]  # not Paco: Пако sits
    client = app.test_client()
    page = client.get(f"/t/{night.code}/join")
    response = client.post(
        f"/t/{night.code}/join", data={"csrf_token": csrf_of(page), "name": "Лола"}
    )
    assert response.status_code == 422
    assert "Лола is already at the table" in response.get_data(as_text=True)


def test_a_computer_s_chips_on_the_felt_are_marked_and_nobody_else_s(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    for name in ("Ben", "Eva"):
        night.ok(name, "tap", heap=1, mode="bet", amount="2", custom="")
    with app.app_context():
        table = night.table()
        state = copy.deepcopy(table.state)
        state["players"][night.seats["Ben"]]["computer"] = True  # Ben's seat played by a computer
        put_state(table, state)
    for page in (night.page("Eva"), night.host.get(f"/t/{night.code}/tv")):
        felt = page.get_data(as_text=True)
        chips = re.findall(
            r'<span class="chip__name"[^>]*>(\w+)(.*?)</span> <span class="chip__amount">', felt
        )
        assert dict(chips).keys() == {"Ben", "Eva"}
        assert 'class="computer-mark"' in dict(chips)["Ben"]
        assert "computer-mark" not in dict(chips)["Eva"]
