"""Replacement resolution (``log/resolve.py``, and its oracle in tests/oracles.py).

Examples (A replaced by B replaced by C resolves to C; docs/03-log.md#corrections-replaces) and
the edge cases, then properties over arbitrary sequences of (id, replaces) where replaces may
name an earlier, a later, an unknown or the entry's own id and ids may repeat: checked against
the rule itself ("an entry is current iff no later entry replaces it"), not against a copy of
the implementation.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import entry
from tests.oracles import Resolver, resolve
from zettelclaw.log.resolve import effective_target
from zettelclaw.log.schema import validate_entry

Event = tuple[str, str | None]


def build(events: list[Event]) -> Resolver:
    resolver = Resolver()
    for entry_id, replaces in events:
        resolver.add(entry_id, replaces)
    return resolver


# -- examples --------------------------------------------------------------------------------


def test_spec_chain_a_replaced_by_b_replaced_by_c_resolves_to_c() -> None:
    r = build([("A", None), ("B", "A"), ("C", "B")])
    assert r.current() == ["C"]
    assert r.newest("A") == r.newest("B") == r.newest("C") == "C"
    assert r.history("C") == ["B", "A"]
    assert r.history("A") == []
    assert [r.is_current(i) for i in "ABC"] == [False, False, True]


def test_spec_correction_examples_with_entries() -> None:
    decision = validate_entry(entry("decision", id="a3k9x_BmQ2yT"))
    fact = validate_entry(entry("fact", id="r7Wp3nKx_mZe"))
    corrected = validate_entry(entry("decision", id="Cx6tM_1pWn8Y", replaces="a3k9x_BmQ2yT"))
    fixed_fact = validate_entry(entry("fact", id="Dw9sN_2qXk7Z", replaces="r7Wp3nKx_mZe"))
    r = resolve([decision, fact, corrected, fixed_fact])
    assert r.current() == ["Cx6tM_1pWn8Y", "Dw9sN_2qXk7Z"]
    assert r.replaced_by == {"a3k9x_BmQ2yT": "Cx6tM_1pWn8Y", "r7Wp3nKx_mZe": "Dw9sN_2qXk7Z"}


def test_two_replacements_of_one_entry_the_later_wins_and_the_other_follows_it() -> None:
    r = build([("A", None), ("B", "A"), ("C", "A")])
    assert r.newest("A") == r.newest("B") == "C"
    assert r.current() == ["C"]
    assert r.history("B") == ["A"]
    assert r.history("C") == ["A"]


def test_a_fork_is_decided_by_time_then_id_not_by_log_order() -> None:
    """Two machines corrected A while apart; each log has the corrections in its own order:
    both pick the same one."""
    for order in ([("B", 2.0), ("C", 1.0)], [("C", 1.0), ("B", 2.0)]):
        r = Resolver()
        r.add("A", None, 0.0)
        for entry_id, ts in order:
            r.add(entry_id, "A", ts)
        assert r.current() == ["B"]
        assert r.newest("A") == r.newest("C") == "B"
    # C wins over B; an entry that then replaces B on purpose continues B's branch
    r = build([("A", None), ("C", "A"), ("B", "A"), ("D", "B")])
    assert r.current() == ["C", "D"]


def test_replaces_naming_a_later_entry_hides_nothing() -> None:
    r = build([("A", "B"), ("B", None)])
    assert r.current() == ["A", "B"]
    assert r.newest("B") == "B"


def test_replaces_naming_itself_or_an_unknown_id_hides_nothing() -> None:
    r = build([("A", "A"), ("B", "nowhere")])
    assert r.current() == ["A", "B"]
    assert r.history("A") == r.history("B") == []


def test_two_entries_naming_each_other_cannot_make_a_cycle() -> None:
    r = build([("A", "B"), ("B", "A")])
    assert r.current() == ["B"]
    assert r.newest("A") == "B"
    assert r.history("B") == ["A"]
    assert r.history("A") == []


def test_duplicate_id_is_ignored_the_first_wins() -> None:
    r = Resolver()
    assert r.add("A", None) is None
    assert r.add("B", None) is None
    assert r.add("A", "B") is None  # a second A that would replace B: not an entry
    assert r.current() == ["A", "B"]
    assert r.is_current("B")
    assert r.add("C", "A") == "A"
    assert r.current() == ["B", "C"]


def test_add_returns_the_effectively_replaced_id() -> None:
    r = Resolver()
    assert r.add("A", None) is None
    assert r.add("B", "A") == "A"
    assert r.add("C", "D") is None
    assert r.add("D", "D") is None


def test_unknown_id_is_not_current_and_is_its_own_newest() -> None:
    r = build([("A", None)])
    assert not r.is_current("Z")
    assert r.newest("Z") == "Z"
    assert r.history("Z") == []


def test_effective_target_rule() -> None:
    seen = {"A"}.__contains__
    assert effective_target("B", "A", seen) == "A"
    assert effective_target("B", None, seen) is None
    assert effective_target("A", "A", seen) is None
    assert effective_target("B", "C", seen) is None


# -- properties ------------------------------------------------------------------------------

POOL = ["A", "B", "C", "D", "E", "F"]  # small, so repeats and references are common
events = st.lists(st.tuples(st.sampled_from(POOL), st.none() | st.sampled_from([*POOL, "X"])),
                  max_size=25)
no_deadline = settings(deadline=None)  # no timing checks: a slow machine is not a failure


def first_occurrences(seq: list[Event]) -> list[Event]:
    """The entries of the log: a repeated id is not an entry (the first one wins)."""
    seen: set[str] = set()
    out = []
    for entry_id, replaces in seq:
        if entry_id not in seen:
            seen.add(entry_id)
            out.append((entry_id, replaces))
    return out


def siblings(log: list[Event], entry_id: str) -> list[str]:
    """The other entries that effectively replace what ``entry_id`` replaces."""
    ids = [i for i, _ in log]
    target = dict(log)[entry_id]
    if target not in ids[: ids.index(entry_id)]:
        return []
    return [i for n, (i, rep) in enumerate(log)
            if rep == target and i != entry_id and target in ids[:n]]


def step(log: list[Event], node: str) -> str | None:
    """Where ``newest`` goes from ``node`` (ids compare as (timestamp, id) with equal
    timestamps): its latest replacement, else a sibling later than it (a fork's winner)."""
    replacers = later_replacers(log, node)
    if replacers:
        return max(replacers)
    winner = max([node, *siblings(log, node)])
    return None if winner == node else winner


def later_replacers(log: list[Event], entry_id: str) -> list[str]:
    """Entries after ``entry_id`` whose replaces names it, in log order."""
    ids = [i for i, _ in log]
    at = ids.index(entry_id)
    return [i for i, rep in log[at + 1:] if rep == entry_id]


@no_deadline
@given(events)
def test_current_is_exactly_the_entries_no_later_entry_replaces(seq: list[Event]) -> None:
    r = build(seq)  # never raises, whatever the sequence
    log = first_occurrences(seq)
    expected = [i for i, _ in log if step(log, i) is None]
    assert r.current() == expected
    for entry_id in POOL:
        in_log = any(i == entry_id for i, _ in log)
        assert r.is_current(entry_id) == (in_log and entry_id in expected)


@no_deadline
@given(events)
def test_replaces_naming_a_later_unknown_or_own_id_hides_nothing(seq: list[Event]) -> None:
    r = build(seq)
    log = first_occurrences(seq)
    ids = [i for i, _ in log]
    # Only a replaces naming an earlier entry hides anything.
    effective = {rep for n, (i, rep) in enumerate(log) if rep in ids[:n]}
    losers = {i for i, _ in log if any(s > i for s in siblings(log, i))}
    assert set(r.replaced_by) == effective | losers
    assert set(r.current()) == set(ids) - effective - losers


@no_deadline
@given(events)
def test_newest_follows_the_chain_to_its_end(seq: list[Event]) -> None:
    r = build(seq)
    log = first_occurrences(seq)
    for entry_id, _ in log:
        node = entry_id
        path = [node]
        while (following := step(log, node)) is not None:
            node = following
            path.append(node)
        assert r.newest(entry_id) == node
        assert r.is_current(node)


@no_deadline
@given(events)
def test_history_steps_back_through_earlier_entries_that_were_replaced(seq: list[Event]) -> None:
    r = build(seq)
    log = first_occurrences(seq)
    ids = [i for i, _ in log]
    replaces = dict(log)
    for entry_id in ids:
        chain = [entry_id, *r.history(entry_id)]
        for newer, older in itertools.pairwise(chain):
            assert replaces[newer] == older  # each step is what the entry says it replaces
            assert ids.index(older) < ids.index(newer)  # ... and goes back in the log
            assert not r.is_current(older)
        # The chain ends where an entry replaces nothing that came before it.
        last_replaces = replaces[chain[-1]]
        assert last_replaces not in ids[: ids.index(chain[-1])]


@no_deadline
@given(events)
def test_duplicates_change_nothing(seq: list[Event]) -> None:
    r = build(seq)
    deduped = build(first_occurrences(seq))
    assert r.current() == deduped.current()
    assert r.order == deduped.order
    assert r.replaced_by == deduped.replaced_by
    assert r.replaces == deduped.replaces


@no_deadline
@given(events)
def test_resolution_is_incremental(seq: list[Event]) -> None:
    # Adding entries one at a time gives after each step what a fresh pass over the prefix gives.
    r = Resolver()
    for n, (entry_id, replaces) in enumerate(seq, start=1):
        r.add(entry_id, replaces)
        assert r.current() == build(seq[:n]).current()
