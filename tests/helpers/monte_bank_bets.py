"""Hypothesis strategies for Monte Bank's rules tests: a bet's spot (round, cross, double, Monte
Carlo), and a deal (a shuffled deck, a bank, bets of the four players on it, the levy or not)."""

from hypothesis import strategies as st

from montones.rules import monte_bank
from montones.rules.cards import FRENCH

PLAYERS = ["ana", "ben", "eva", "dan"]

spots = st.one_of(
    st.builds(lambda p: {"kind": "round", "on": p}, st.sampled_from(monte_bank.POSITIONS)),
    st.builds(
        lambda pq: {"kind": "cross", "on": pq[0], "against": pq[1]},
        st.permutations(monte_bank.POSITIONS).map(lambda ps: ps[:2]),
    ),
    st.builds(lambda s: {"kind": "double", "side": s}, st.sampled_from(sorted(monte_bank.SIDES))),
    st.builds(
        lambda side, on, against: {
            "kind": "monte_carlo",
            "on": on,
            "against": against,
            "side": side,
        },
        st.sampled_from(sorted(monte_bank.SIDES)),
        st.sampled_from(monte_bank.POSITIONS),
        st.sampled_from(monte_bank.POSITIONS),
    ).filter(lambda b: b["on"] in monte_bank.SIDES[b["side"]] and b["on"] != b["against"]),
)


@st.composite
def deals(draw):
    deck = draw(st.permutations(FRENCH.codes))
    bank = draw(st.integers(1, 100))
    bets = [
        {"player": draw(st.sampled_from(PLAYERS)), **spot, "amount": draw(st.integers(1, bank))}
        for spot in draw(st.lists(spots, max_size=12))
    ]
    return deck, bank, bets, draw(st.booleans())


def side_spots(count):
    """A bet's spot at a table dealing ``count`` side cards: any of :data:`spots`, or a round
    or a cross on a side card (none for 0)."""
    if not count:
        return spots
    names = monte_bank.POSITIONS + monte_bank.SIDE_CARDS[:count]
    on_side = st.sampled_from(monte_bank.SIDE_CARDS[:count])
    return st.one_of(
        spots,
        st.builds(lambda s: {"kind": "round", "on": s}, on_side),
        st.builds(
            lambda s, p: {"kind": "cross", "on": s, "against": p}, on_side, st.sampled_from(names)
        ).filter(lambda b: b["on"] != b["against"]),
        st.builds(
            lambda s, p: {"kind": "cross", "on": p, "against": s}, on_side, st.sampled_from(names)
        ).filter(lambda b: b["on"] != b["against"]),
    )
