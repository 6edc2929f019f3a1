"""index/term_documents.py: what the term index holds of an entry.

Covers: an entry's document (its words, content and subject name twice and detail once; its
line, type, session, time; status and subject only when it has them; whether it was replaced;
its kind and second in ``stamp``); a stamp gives back the kind and the second, clamped outside
±2**33 s; a marker holds the epoch and how far its shard was fed.
"""

from __future__ import annotations

import orjson
import pytest

from zettelclaw.index import term_documents
from zettelclaw.index.term_documents import KINDS, document, marker, spelled, stamp, unstamp


def test_a_document_holds_the_words_and_what_filters_test() -> None:
    row = (7, "task", "open", "pension", "s-1", 1_771_596_000.0, "raise the rate",
           "from 6 to 8 percent", "Pension", True)
    fields = orjson.loads(document(row))
    assert fields["text"].split("\n") == ["raise the rate", "raise the rate", "Pension",
                                          "Pension", "from 6 to 8 percent"]
    assert (fields["line"], fields["type"], fields["status"], fields["subject"],
            fields["session"], fields["ts"], fields["replaced"]) == (
        7, "task", "open", "pension", "s-1", 1_771_596_000.0, True)
    assert unstamp(fields["stamp"]) == ("task", "open", 1_771_596_000.0)


def test_what_an_entry_lacks_is_left_out() -> None:
    row = (3, "fact", None, None, "s-2", 1_771_596_000.5, "the sky is blue", None, None, False)
    fields = orjson.loads(document(row))
    assert "status" not in fields
    assert "subject" not in fields
    assert fields["text"] == "the sky is blue\nthe sky is blue"
    assert fields["replaced"] is False
    assert unstamp(fields["stamp"]) == ("fact", None, 1_771_596_000.0)  # to the second


@pytest.mark.parametrize("ts", [0.0, 1_771_596_000.0, -86_400.0 * 365 * 100, 1e12, -1e12])
def test_a_stamp_holds_the_kind_and_the_second(ts: float) -> None:
    for number, (kind, status) in enumerate(KINDS):
        got_kind, got_status, got_ts = unstamp(stamp(ts, number))
        assert (got_kind, got_status) == (kind, status)
        assert got_ts == max(min(ts, 2.0**33 - 1), -(2.0**33))  # seconds in ±2**33, clamped


def test_a_marker_says_the_epoch_and_how_far() -> None:
    assert orjson.loads(marker("e-42", 1234)) == {"line": 0, "epoch": "e-42", "fed": 1234}


def test_symbols_are_spelled_as_words_of_their_own() -> None:
    """tantivy's simple tokenizer drops symbols: each is spelled as a word first, in the
    documents and in the query's words alike ("🍮" finds 🍮, not 🚀)."""
    assert spelled("Flan🍮, C++ ok") == "Flan zcsym1f36e , C zcsym2b  zcsym2b  ok"
    assert spelled("no symbol here: just words, 42!") == "no symbol here: just words, 42!"
    words = term_documents.analyzer().analyze(spelled("🍮 🚀 C++ café"))
    assert words[0] != words[1]
    assert words[2:] == ["c", "zcsym2b", "zcsym2b", "cafe"]
