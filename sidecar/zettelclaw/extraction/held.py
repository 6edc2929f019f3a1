"""Whether memory holds an entry already, so that the reply's reader writes it once
(extraction/output.py's ``held``), and a job finishing after another that wrote the same
entries meanwhile writes none of them (``Extraction.finish``).

The same type and content, spacing and case aside, among the current entries of the entry's
subject or of a person its content names: a small model files "Maria is here for John" under
``maria`` in one session and under ``john`` in the next, and "Nate will tell Joanna about the
movie" under ``joanna``, then ``nate`` (LoCoMo conv-41, conv-42): the log held them twice.
Each look-up uses the subject index. A handoff is compared with the newest handoff only: an
older one said again after another is news (where things stand went back to it).
"""

from __future__ import annotations

import re
import sqlite3

from zettelclaw.extraction.output import same
from zettelclaw.index import entries
from zettelclaw.log.schema import Entry
from zettelclaw.subjects.registry import to_slug

_NAMES = re.compile(r"\b[A-Z][\w-]*")  # "Maria", "Joanna's" (the subject slug: "joanna")


def holds(conn: sqlite3.Connection, entry: Entry, content: str) -> bool:
    """``content``: the entry's content as it will be written (its relative dates resolved)."""
    if entry.type == "handoff":
        last = entries.last_handoff(conn)
        found = [] if last is None else [last["content"]]
    else:
        found = [c for subject in subjects(entry, content)
                 for c in entries.current_contents(conn, entry.type, subject, content)]
    kept = {same(entry.type, c) for c in found}
    return same(entry.type, content) in kept or same(entry.type, entry.content) in kept


def subjects(entry: Entry, content: str) -> list[str | None]:
    """The subjects a copy of the entry may be filed under: its own, and those of the names
    its content gives (a few words: a look-up each)."""
    named = [to_slug(word) for word in _NAMES.findall(content)]
    return list(dict.fromkeys([entry.subject, *(slug for slug in named if slug)]))
