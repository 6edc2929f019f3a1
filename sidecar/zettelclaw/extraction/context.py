"""The entries the extraction prompt shows as memory already holds: the model sets ``replaces``
only on an entry it is shown, so a correction whose entry is missing here stays unlinked and
both versions stay current.

Shown, in this order, up to ``extraction.relevantEntries`` (the first two always):

1. what this conversation wrote itself (``memory.remember``), so it is not written again;
2. what it names or read: entry ids in its words, and those the memory tools read
   (``memory_get``'s path, the ids in ``memory_search`` and ``memory_get`` results: the
   messages' ``refs``), each in its current version;
3. what each of the person's messages is about, newest first: a correction ("my cat is Toby,
   not Tobi") shares its few words with the entry it corrects, which a search over the whole
   conversation's longest words misses once the conversation is long;
4. what the whole conversation is about (its most distinctive words).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence

from zettelclaw.extraction.transcript import Message
from zettelclaw.index import entries, keyword
from zettelclaw.index.terms import TermIndex
from zettelclaw.log.schema import EntryRecord

# an entry id in prose: 12 characters of the id alphabet, not all lowercase letters (an English
# word of 12 letters is not taken for one; an id is all lowercase once in about 50,000)
_ID_IN_TEXT = re.compile(r"(?<![A-Za-z0-9_-])(?=[a-z]*[A-Z0-9_-])[A-Za-z0-9_-]{12}"
                         r"(?![A-Za-z0-9_-])")
NAMED_AT_MOST = 50
PER_MESSAGE = 3  # entries per message of the person's
MESSAGES_SEARCHED = 20  # the person's latest messages, each searched on its own


def named_ids(messages: Sequence[Message]) -> list[str]:
    """Entry ids the conversation names or read, first seen first."""
    found: dict[str, None] = {}
    for message in messages:
        found.update(dict.fromkeys(message.refs))
        found.update(dict.fromkeys(_ID_IN_TEXT.findall(message.text)))
    return list(found)


def shown_entries(conn: sqlite3.Connection, terms: TermIndex, messages: Sequence[Message],
                  own: Iterable[EntryRecord], limit: int) -> list[EntryRecord]:
    """The entries the prompt shows, each once, in the order of the module's docstring."""
    shown: dict[str, EntryRecord] = {}

    def add(found: Iterable[EntryRecord], cap: int | None = None) -> None:
        for entry in found:
            if cap is not None and len(shown) >= cap:
                return
            shown.setdefault(entry["id"], entry)

    add(own)
    named = []
    for entry_id in named_ids(messages)[:NAMED_AT_MOST * 4]:
        chain = entries.get_entry(conn, entry_id)
        if chain is not None:
            named.append(chain.newest)  # a correction replaces the current version
    add(named[:NAMED_AT_MOST])
    cap = max(limit, len(shown))
    people = [m for m in reversed(messages) if m.role == "user"][:MESSAGES_SEARCHED]
    for message in people:
        add(keyword.related(conn, terms, message.text, PER_MESSAGE), cap)
    add(keyword.related(conn, terms, " ".join(m.text for m in messages), limit), cap)
    return list(shown.values())
