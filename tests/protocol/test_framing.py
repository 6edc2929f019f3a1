"""LineFramer: newline-delimited messages with a size bound, whatever the chunking. Pure, no I/O."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from zettelclaw.protocol.framing import Event, LineFramer, Message, Oversized

LIMIT = 16

# A message as it travels: no newline inside, no white space at its ends (the framer strips it).
messages = st.binary(min_size=1, max_size=3 * LIMIT).map(
    lambda b: b.replace(b"\n", b"x").strip()).filter(bool)


def feed_in_chunks(framer: LineFramer, stream: bytes, cuts: list[int]) -> list[Event]:
    """Feed ``stream`` cut at the given offsets, then end it."""
    events: list[Event] = []
    bounds = [0, *sorted(set(cuts)), len(stream)]
    for start, stop in pairwise(bounds):
        events += framer.feed(stream[start:stop])
    return events + framer.finish()


def cut_points(stream_size: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, stream_size), max_size=stream_size + 1)


@given(data=st.data(), items=st.lists(messages, max_size=12),
       separator=st.sampled_from([b"\n", b"\n\n", b"\n \t\n"]), final_newline=st.booleans())
def test_any_chunking_gives_the_same_events(data: st.DataObject, items: list[bytes],
                                           separator: bytes, final_newline: bool) -> None:
    stream = separator.join(items) + (b"\n" if final_newline else b"")
    cuts = data.draw(cut_points(len(stream)))
    expected = [Message(m) if len(m) <= LIMIT else Oversized(LIMIT) for m in items]
    assert feed_in_chunks(LineFramer(LIMIT), stream, cuts) == expected


@given(data=st.data(), items=st.lists(messages.filter(lambda m: len(m) <= LIMIT), max_size=12))
def test_messages_under_the_default_bound_are_split_at_newlines(
        data: st.DataObject, items: list[bytes]) -> None:
    stream = b"".join(m + b"\n" for m in items)
    cuts = data.draw(cut_points(len(stream)))
    assert feed_in_chunks(LineFramer(), stream, cuts) == [Message(m) for m in items]


def test_one_chunk_with_several_messages() -> None:
    framer = LineFramer()
    assert framer.feed(b'{"a":1}\n{"b":2}\n{"c"') == [Message(b'{"a":1}'), Message(b'{"b":2}')]
    assert framer.pending == 4
    assert framer.feed(b":3}\n") == [Message(b'{"c":3}')]
    assert framer.pending == 0


def test_one_message_byte_by_byte() -> None:
    framer = LineFramer()
    events: list[Event] = []
    for byte in b'{"jsonrpc":"2.0"}\n':
        events += framer.feed(bytes([byte]))
    assert events == [Message(b'{"jsonrpc":"2.0"}')]


def test_blank_and_white_space_lines_are_ignored() -> None:
    framer = LineFramer()
    assert framer.feed(b"\n\n   \n\t\r\n{}\n\n") == [Message(b"{}")]
    assert framer.finish() == []


def test_crlf_line_ends_are_accepted() -> None:
    assert LineFramer().feed(b"{}\r\n[]\r\n") == [Message(b"{}"), Message(b"[]")]


def test_message_of_exactly_the_limit_is_kept() -> None:
    framer = LineFramer(LIMIT)
    assert framer.feed(b"a" * LIMIT + b"\n") == [Message(b"a" * LIMIT)]
    assert framer.feed(b"b" * (LIMIT + 1) + b"\n") == [Oversized(LIMIT)]


def test_oversized_line_in_one_chunk_is_reported_once_and_the_next_message_is_intact() -> None:
    framer = LineFramer(LIMIT)
    events = framer.feed(b"x" * (10 * LIMIT) + b"\n" + b'{"next":1}\n')
    assert events == [Oversized(LIMIT), Message(b'{"next":1}')]


def test_oversized_line_over_many_chunks_is_reported_once_and_dropped() -> None:
    framer = LineFramer(LIMIT)
    events = framer.feed(b"y" * (LIMIT + 1))
    assert events == [Oversized(LIMIT)]
    assert framer.pending == 0  # nothing of it is buffered
    for _ in range(50):  # the rest of the oversized line: no event, nothing kept
        assert framer.feed(b"z" * LIMIT) == []
        assert framer.pending == 0
    assert framer.feed(b'zzz\n{"ok":true}\n') == [Message(b'{"ok":true}')]


def test_oversized_line_ending_in_the_chunk_that_overflows() -> None:
    framer = LineFramer(LIMIT)
    assert framer.feed(b"p" * LIMIT) == []
    assert framer.feed(b"pp\n{}") == [Oversized(LIMIT)]
    assert framer.feed(b"\n") == [Message(b"{}")]


def test_finish_returns_a_last_message_without_newline() -> None:
    framer = LineFramer()
    assert framer.feed(b'{"a":1}\n{"b":2}') == [Message(b'{"a":1}')]
    assert framer.finish() == [Message(b'{"b":2}')]
    assert framer.finish() == []


def test_finish_after_only_white_space_gives_nothing() -> None:
    framer = LineFramer()
    assert framer.feed(b"  \t") == []
    assert framer.finish() == []


def test_finish_inside_an_oversized_line_gives_nothing_more() -> None:
    framer = LineFramer(LIMIT)
    assert framer.feed(b"q" * (LIMIT + 5)) == [Oversized(LIMIT)]
    assert framer.feed(b"tail") == []
    assert framer.finish() == []
