"""copy_state: every action runs on a copy, so a copy must be equal and share no container."""

from collections import OrderedDict

from hypothesis import given
from hypothesis import strategies as st

from montones.rules.plain import copy_state

ATOMS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
PLAIN = st.recursive(
    ATOMS,
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner) | st.tuples(inner, inner),
    max_leaves=40,
)


def containers(value, found=None):
    found = [] if found is None else found
    if isinstance(value, dict | list | tuple):
        found.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            containers(item, found)
    return found


@given(PLAIN)
def test_a_copy_is_equal_and_shares_no_dict_or_list(value):
    copied = copy_state(value)
    assert copied == value
    originals = {id(c) for c in containers(value) if not isinstance(c, tuple)}
    assert not originals & {id(c) for c in containers(copied)}


def test_a_dict_subclass_is_deep_copied_too():
    value = {"bets": OrderedDict(a=[1, 2])}
    copied = copy_state(value)
    assert copied == value
    assert copied["bets"] is not value["bets"] and copied["bets"]["a"] is not value["bets"]["a"]
