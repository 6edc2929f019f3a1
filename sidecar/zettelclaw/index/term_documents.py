"""What the term index holds of an entry: its schema, how words are cut, and one document.

One document per entry: its words (content, detail and subject display name, stemmed, folded to
ASCII; each symbol, such as an emoji, a word), its line, and the fields that filters test (type,
status, subject, session, time, and whether a later entry replaced it). A marker document (line
0) in each shard holds the ``terms_epoch`` of the SQLite index the shard was built from and how
far it was fed.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata

import orjson
import tantivy

from zettelclaw.index.ingest import Row

ANALYZER = "zettelclaw"
FIELDS = ("line, type, status, subject, session, ts, content, detail, subject_name,"
          " replaced_by IS NOT NULL")  # of the entries table, in document()'s order
KINDS: tuple[tuple[str, str | None], ...] = (  # (type, status), by the number a document holds
    ("task", "open"), ("task", "done"), ("fact", None), ("decision", None), ("question", None),
    ("handoff", None))
_KIND_NUMBER = {kind: number for number, kind in enumerate(KINDS)}
# An entry's kind and time to the second in one fast field, ``stamp``: a search reads two fast
# fields of its hits (line and stamp) instead of three, and a call costs about the same whatever
# the number of documents asked for. Seconds from 1698 to 2242 (±2**33 around 1970); a time outside
# is clamped, which only the ranking's recency weight sees.
_EPOCH_OFFSET = 1 << 33
_LAST_SECOND = (1 << 34) - 1
_KIND_BITS = 3


def stamp(ts: float, kind: int) -> int:
    seconds = int(ts) + _EPOCH_OFFSET
    if not 0 <= seconds <= _LAST_SECOND:  # (a comparison, not min/max: a million a build)
        seconds = 0 if seconds < 0 else _LAST_SECOND
    return seconds << _KIND_BITS | kind


def unstamp(value: int) -> tuple[str, str | None, float]:
    """(type, status, time in seconds) of a ``stamp``."""
    kind, status = KINDS[value & ((1 << _KIND_BITS) - 1)]
    return kind, status, float((value >> _KIND_BITS) - _EPOCH_OFFSET)


# Symbols (an emoji, "+", "$") are words too: "🍮" finds the entry with 🍮, not every entry
# (index/fts.py cuts the query the same way). tantivy's simple tokenizer keeps runs of letters and
# numbers only, and its regex tokenizer is 2-4x slower per text (a million texts in a cold
# build), so each symbol is spelled as a word of its own before tokenizing (``spelled``).
SYMBOL_WORD = "zcsym"  # + the code point in hex: "🍮" -> "zcsym1f36e"
# What may be a symbol: neither a word character, a space, nor common punctuation (a call for
# each of these would cost every text; the rest are asked unicodedata).
_MAYBE_SYMBOL = re.compile(r"[^\w\s.,;:!?'\"()\[\]{}\-/@#%&*]")
_ASCII_SYMBOLS = "$+<=>^`|~"  # (category S)


def _spell(match: re.Match[str]) -> str:
    char = match.group()
    return f" {SYMBOL_WORD}{ord(char):x} " if unicodedata.category(char)[0] == "S" else char


def spelled(text: str) -> str:
    """``text`` with each symbol as a word (SYMBOL_WORD and its code point) between spaces."""
    if text.isascii() and not any(char in text for char in _ASCII_SYMBOLS):  # most texts: ~0.5 us
        return text
    return _MAYBE_SYMBOL.sub(_spell, text)


def analyzer() -> tantivy.TextAnalyzer:
    # Words as FTS5's unicode61 tokenizer cut them, without diacritics, Porter-stemmed
    # (English): "deployments" finds "deploy", "café" finds "cafe"; symbols as ``spelled``.
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.ascii_fold())
            .filter(tantivy.Filter.stemmer("english"))
            .build())


def schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("text", tokenizer_name=ANALYZER, index_option="freq")
    for name in ("type", "status", "subject", "session"):
        builder.add_text_field(name, tokenizer_name="raw")
    builder.add_text_field("epoch", stored=True, tokenizer_name="raw")
    builder.add_unsigned_field("fed", stored=True)  # the marker's: terms_update.Update
    builder.add_unsigned_field("line", indexed=True, fast=True)
    builder.add_float_field("ts", indexed=True, fast=True)
    builder.add_boolean_field("replaced", indexed=True, fast=True)
    builder.add_unsigned_field("stamp", fast=True)  # stamp()
    return builder.build()


def document(row: Row | sqlite3.Row) -> str:
    """The document of an entry (a row of ``FIELDS``), as JSON: one call into tantivy instead
    of one per field (a cold build makes one per entry: bench/README.md)."""
    (line, kind, status, subject, session, ts, content, detail, subject_name, replaced) = row
    # content and subject name twice, detail once: BM25 weighs a word of the content about 1.4
    # times one of the detail (FTS5 weighed the columns 1 : 0.5). One field, not three: a query
    # of common words over three fields is slower (bench/README.md#search-at-a-million-entries).
    fields: dict[str, object] = {
        "line": line, "type": kind, "session": session, "ts": float(ts),
        "replaced": bool(replaced), "stamp": stamp(ts, _KIND_NUMBER[kind, status]),
        "text": spelled("\n".join(t for t in (content, content, subject_name, subject_name,
                                               detail) if t))}
    if status is not None:
        fields["status"] = status
    if subject is not None:
        fields["subject"] = subject
    return orjson.dumps(fields).decode()


def marker(epoch: str, fed: int) -> str:
    """The document that says which SQLite index a shard's documents came from, and up to
    which line it was given every entry that is its."""
    return orjson.dumps({"line": 0, "epoch": epoch, "fed": fed}).decode()
