"""A screen kept up to date by its stream's updates (only the parts that changed, swapped by id)
shows what a fresh load of its page shows: a random night of each game, with a host, a TV and three
phones (the banker, a punter who plays, and a punter on a network so slow that its stream misses
versions, who watches). Bets, other bets (against
the banker's card, on a side), withdraws, refused taps, reloads and lost connections come in a
random order; in Monte and Monte Bank the banker also decides the hand and deals the next, and
every screen plays the reveal. After each step every region a stream keeps (the phones' #tap,
#felt and #odds; the TV's status, felt, players and recent hands; a phone's own #status and bar,
fetched in parts) must, within a few seconds, equal the same region of the same page loaded
afresh."""

import random

import pytest
from playwright.sync_api import expect

from tests.helpers import monte_bank_page as casino
from tests.helpers import monte_page as monte
from tests.helpers import montones_page as montones
from tests.helpers.fresh import PHONE_REGIONS, TV_REGIONS, same_as_fresh, slow_network
from tests.helpers.liveserver import SERVERS
from tests.helpers.screens import AFTER_THE_REVEAL, TV, at_rest, join

TIMEOUT = 10_000


def stakes(page) -> list[str]:
    """The stakes a phone's bar offers at one tap."""
    expect(page.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    return page.locator('#intent input[name="amount"]').evaluate_all(
        "(inputs) => inputs.map((input) => input.value).filter(Boolean)"
    )


def refused_in_words(page, tap):
    """A stake over the bank typed in the bar's own field: the tap is refused, in words."""
    expect(page.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    page.get_by_placeholder("other").fill("99999")
    tap()
    expect(page.locator("#bar .notice")).to_be_visible(timeout=TIMEOUT)
    page.get_by_placeholder("other").fill("")


def seated(chromium, base, code):
    """The TV and three phones at the table, by the TV's join link."""
    tv = chromium.new_context(viewport=TV, locale="en-GB").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    join_url = tv.locator(".join-corner__url").inner_text()
    phones = {name: join(chromium, join_url, name) for name in ("Ana", "Ben", "Ivo")}
    expect(tv.locator("#players")).to_contain_text("Ivo", timeout=TIMEOUT)
    return tv, phones


def drawn_banker(host, tv, phones) -> str:
    """Monte and Monte Bank: the host draws for the first banker, who puts up the bank."""
    host.reload()
    host.get_by_role("button", name="Draw for the first banker").click()
    status = tv.locator("#tv_status .tv-status__line")
    expect(status).to_contain_text("puts up the bank", timeout=TIMEOUT)
    banker = status.inner_text().split(" puts up")[0]
    put_up = phones[banker].get_by_role("button", name="Put up the bank")
    expect(put_up).to_be_visible(timeout=TIMEOUT)
    put_up.click()
    return banker


class Montones:
    """Ana banks three heaps; the punters bet on the first two, and on the third, which is
    refused once the first two hold bets (it would leave the banker no heap)."""

    def __init__(self, chromium, base):
        _host, _host_page, code = montones.create_table(chromium, base)
        self.tv, self.phones = seated(chromium, base, code)
        ana = self.phones["Ana"]
        ana.get_by_label("Offer for the bank").fill("60")
        ana.get_by_role("button", name="Offer", exact=True).click()
        for name in ("Ben", "Ivo"):
            no = self.phones[name].get_by_role("button", name="I don't want the bank")
            expect(no).to_be_visible(timeout=TIMEOUT)
            no.click()
        cut = self.phones["Ben"].get_by_role("button", name="Cut", exact=True)
        expect(cut).to_be_visible(timeout=TIMEOUT)
        cut.click()
        three = ana.get_by_role("button", name="3", exact=True)
        expect(three).to_be_visible(timeout=TIMEOUT)
        three.click()
        expect(self.tv.locator("#felt .heap")).to_have_count(3, timeout=TIMEOUT)
        self.banker = "Ana"

    def bet(self, page, rng):
        montones.tap_heap(page, rng.choice([1, 2]), "bet", rng.choice(stakes(page)))

    def other_bet(self, page, rng):
        expect(page.locator("#intent")).to_be_visible(timeout=TIMEOUT)
        if page.locator('#intent input[value="against"]').count():
            montones.tap_heap(page, rng.choice([1, 2]), "against", rng.choice(stakes(page)))

    def refused(self, page):
        expect(page.locator("#intent")).to_be_visible(timeout=TIMEOUT)
        montones.tap_heap(page, 3, "bet", stakes(page)[0])  # refused once heaps 1 and 2 hold bets

    decide = next_hand = None  # a Montones hand ends with the banker's heap chosen: not here


class Monte:
    """The draw's banker puts up the bank; the punters bet on the two layouts."""

    def __init__(self, chromium, base):
        host, code = monte.create_table(chromium, base)
        self.tv, self.phones = seated(chromium, base, code)
        self.banker = drawn_banker(host, self.tv, self.phones)
        self.cut()

    def cut(self):
        expect(self.tv.locator("#tv_status")).to_contain_text("cuts the deck", timeout=TIMEOUT)
        cutter = self.tv.locator("#tv_status .tv-status__line").inner_text().split(" cuts")[0]
        self.phones[cutter].get_by_role("button", name="Cut", exact=True).click()
        expect(self.tv.locator("#tv_status")).to_contain_text("Hagan sus apuestas", timeout=TIMEOUT)

    def bet(self, page, rng):
        monte.bet(page, rng.choice(["top", "bottom"]), rng.choice(stakes(page)))

    other_bet = bet

    def refused(self, page):
        refused_in_words(page, monte.layout(page, "top").locator("button.layout__cards").click)

    def decide(self):
        turn = self.phones[self.banker].get_by_role("button", name="Turn the gate")
        expect(turn).to_be_visible(timeout=TIMEOUT)
        turn.click()
        expect(self.tv.locator("#felt .layout__verdict")).not_to_have_count(0, timeout=TIMEOUT)
        at_rest(self.tv, timeout=3 * TIMEOUT)

    def next_hand(self):
        self.phones[self.banker].get_by_role("button", name="Next coup").click()
        expect(self.tv.locator("#tv_status")).to_contain_text("Hagan sus apuestas", timeout=TIMEOUT)


class MonteBank:
    """The draw's banker puts up the bank; the punters bet rounds, crosses and sides."""

    def __init__(self, chromium, base):
        host, code = casino.create_table(chromium, base)
        self.tv, self.phones = seated(chromium, base, code)
        self.banker = drawn_banker(host, self.tv, self.phones)
        casino.cut_until_dealt(self.tv, self.phones, 0)
        self.deals = 1

    def bet(self, page, rng):
        expect(page.locator("#intent")).to_be_visible(timeout=TIMEOUT)
        casino.choose(page, "amount", rng.choice(stakes(page)[:2]))  # what the bank can cover
        position = rng.choice(["ul", "ur", "ll", "lr"])
        casino.choose_position(page, position)
        casino.tap_position(page, position)

    def other_bet(self, page, rng):
        expect(page.locator("#intent")).to_be_visible(timeout=TIMEOUT)
        if rng.random() < 0.5:
            casino.tap_side(page, rng.choice(["upper", "lower", "left", "right"]))
        else:  # a cross: a card, then another
            first, second = rng.sample(["ul", "ur", "ll", "lr"], 2)
            casino.choose_position(page, first)
            casino.tap_position(page, second)

    def refused(self, page):
        refused_in_words(page, page.locator("#felt .mb__side--upper button.mb__side-btn").click)

    def decide(self):
        close = self.phones[self.banker].get_by_role("button", name="Bets are done: turn the cards")
        expect(close).to_be_visible(timeout=TIMEOUT)
        close.click()
        # The title tells the deal's outcome once the reveal has turned its cards, not before.
        expect(self.tv.locator("#felt.felt--reveal")).to_have_count(1, timeout=TIMEOUT)
        turned = self.tv.locator("#felt .mb__turned li").count()
        at_rest(self.tv, timeout=1000 * min(turned, 40) + AFTER_THE_REVEAL + TIMEOUT)
        expect(self.tv.locator("#tv_status")).to_contain_text("The deal is decided")

    def next_hand(self):
        next_deal = self.phones[self.banker].get_by_role("button", name="Next deal")
        if not next_deal.count():  # the bank broke: nothing more to deal
            return
        next_deal.click()
        self.deals += 1
        casino.cut_until_dealt(self.tv, self.phones, self.deals)


GAMES = {"montones": Montones, "monte": Monte, "monte_bank": MonteBank}


@pytest.mark.parametrize("server", SERVERS, indirect=True)
@pytest.mark.parametrize("game", GAMES)
def test_every_screen_shows_what_a_fresh_load_shows_through_a_random_night(chromium, server, game):
    base, _process, _folder, _port = server
    night = GAMES[game](chromium, base)
    tv, phones = night.tv, night.phones
    # The last punter's phone is on a slow network: it watches (an answer to it takes seconds),
    # and may reload or lose its connection; the others act.
    *punters, slow = [name for name in phones if name != night.banker]
    slow_network(phones[slow])
    screens = {"tv": (tv, TV_REGIONS)} | {
        name: (page, PHONE_REGIONS) for name, page in phones.items()
    }
    rng = random.Random(f"27 {game}")
    # Every kind of step once or twice, in a random order after the first bet; a decided hand
    # and the next where the game has them.
    first = ["other", "withdraw", "refused", "reload", "offline"]
    then = ["bet", "withdraw"]
    rng.shuffle(first)
    rng.shuffle(then)
    steps = ["bet", *first]
    if night.decide:
        steps += ["decide", "next"]
    steps += then
    done, betting = [], 0
    for step, what in enumerate(steps):
        name = rng.choice(punters)
        page = phones[name]
        if what == "bet":
            night.bet(page, rng)
        elif what == "other":
            night.other_bet(page, rng)
        elif what == "withdraw" and page.locator(".chip.is-mine .chip__withdraw").count():
            page.locator(".chip.is-mine .chip__withdraw").first.click()
        elif what == "refused":
            night.refused(page)
        elif what == "decide":
            name = night.banker
            night.decide()
        elif what == "next":
            name = night.banker
            night.next_hand()
        elif what == "reload":
            name, (page, _ids) = rng.choice(list(screens.items()))
            page.reload()
        elif what == "offline":  # the stream drops and the browser connects again
            name, (page, _ids) = rng.choice(list(screens.items()))
            page.context.set_offline(True)
            page.wait_for_timeout(500)
            page.context.set_offline(False)
        else:
            what = "nothing"
        done.append(f"{step}: {what} ({name})")
        page.wait_for_timeout(rng.choice([0, 100, 400]))
        problem = same_as_fresh(screens)
        assert problem is None, "after " + "; ".join(done) + "\n" + problem
        betting = max(betting, tv.locator("#felt .chip__amount").count())
    # The night did something: at one step or another, several bets lay on the TV's felt.
    assert betting >= 2, done
