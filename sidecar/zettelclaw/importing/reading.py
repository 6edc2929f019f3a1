"""What an import takes of a source: its items read (``registry``), those outside the date
range and those an earlier import took left out, a conversation an earlier import sent part of
cut to what came since.

An item's key (``item_key``) is the source's id and a hash of its content: the same item read
again has the same key, an edited one a new key; the keys of every import not rolled back are
skipped by the next (``imported_keys``), so re-importing adds nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

from zettelclaw.errors import InvalidParamsError
from zettelclaw.home import Home
from zettelclaw.importing import cancel, registry
from zettelclaw.importing import manifest as manifests
from zettelclaw.importing.items import Conversation, Item, Message, Note, Problem
from zettelclaw.importing.manifest import Manifest


@dataclass(frozen=True)
class Source:
    kind: str | None  # None: told by what the path is (registry.detect)
    path: Path
    agent: str
    since: date | None = None
    until: date | None = None

    def resolved(self) -> Source:
        path = self.path.expanduser().absolute()
        kind = self.kind or registry.detect(path)
        if kind not in registry.KINDS:
            registry.reader(kind)  # raises, naming the known kinds
        if not path.exists():
            raise InvalidParamsError(f"{path}: no such file or directory",
                                     [{"field": "path", "message": "not found",
                                       "type": "value_error"}])
        return Source(kind, path, self.agent, self.since, self.until)


@dataclass
class Read:
    """The items of a source, split, with what earlier imports already took left out."""

    conversations: list[tuple[str, Conversation]] = field(default_factory=list)
    notes: list[tuple[str, Note]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    total: int = 0  # items in the source (in the date range)
    imported: int = 0  # of them, taken by an import before (or by this one)
    out_of_range: int = 0


def messages_digest(messages: Sequence[Message]) -> str:
    return hashlib.blake2b("\x00".join(
        f"{m.role}\x01{m.at.isoformat() if m.at else ''}\x01{m.text}" for m in messages
    ).encode(), digest_size=10).hexdigest()


def item_key(item: Conversation | Note) -> str:
    """The source's id and a hash of the content: the same item read again has the same key,
    an edited one a new key."""
    if isinstance(item, Conversation):
        return f"{item.source_id}#{messages_digest(item.context + item.messages)}"
    basis = "\x00".join(str(v) for v in (item.kind, item.content, item.detail, item.status,
                                         item.subject, item.at.isoformat() if item.at
                                         else ""))
    digest = hashlib.blake2b(basis.encode(), digest_size=10).hexdigest()
    return f"{item.source_id}#{digest}"


def _when(item: Conversation | Note) -> datetime | None:
    return item.started if isinstance(item, Conversation) else item.at


def _in_range(item: Conversation | Note, source: Source) -> bool:
    """Items without a time are taken whatever the range (nothing says they are outside)."""
    moment = _when(item)
    if moment is None:
        return True
    day = moment.astimezone(UTC).date()
    return not ((source.since and day < source.since) or (source.until and day > source.until))


def _items(source: Source) -> Iterator[Item]:
    assert source.kind is not None
    try:
        yield from registry.read(source.kind, source.path, agent=source.agent)
    except (OSError, EOFError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as exc:
        # a reader that gave up mid-way (a truncated zip, a file gone): what it gave is kept
        yield Problem(str(source.path), f"reading stopped: {type(exc).__name__}: {exc}; what "
                      "was read before is imported")


def read(home: Home, source: Source, *, current: Manifest | None = None) -> Read:
    """``current``: the import going on, whose items (as it holds them now, not as its file
    last said) count as taken. A conversation an earlier import sent part of (an export of
    the same account, made later: the conversation went on) keeps only what came since, the
    rest as its ``context``."""
    taken = imported_keys(home, but=current.id if current is not None else None)
    earlier = sent_before(home, but=current.id if current is not None else None)
    out = Read()
    for item in _items(source):
        cancel.check()
        if isinstance(item, Problem):
            out.problems.append(item)
            continue
        if not _in_range(item, source):
            out.out_of_range += 1
            continue
        out.total += 1
        key = item_key(item)
        if key in taken or (current is not None and key in current.items):
            out.imported += 1
            continue
        taken.add(key)  # the same item twice in one source is one item
        if isinstance(item, Conversation):
            rest = _continued(item, earlier.get(item.source_id, ()))
            if rest.messages:
                out.conversations.append((key, rest))
            else:
                out.imported += 1
        else:
            out.notes.append((key, item))
    if out.problems and not (out.total or out.out_of_range):
        raise _unreadable(source, out.problems)
    return out


def _unreadable(source: Source, problems: list[Problem]) -> InvalidParamsError:
    """A source of which nothing could be read (a broken zip, a JSON file that is not an
    export): bad input, said with the file and what is wrong, not an empty import."""
    said = "; ".join(f"{p.origin}: {p.message}" for p in problems[:3])
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    return InvalidParamsError(f"{source.path}: nothing could be read as a {source.kind} "
                              f"source: {said}{more}",
                              [{"field": "path", "message": "unreadable source",
                                "type": "value_error"}])


def sent_before(home: Home, but: str | None = None) -> dict[str, list[tuple[int, str]]]:
    """Per conversation (source id), what imports not rolled back (``but`` that one) sent of
    it: how many messages from its first, and their digest."""
    found: dict[str, list[tuple[int, str]]] = {}
    for m in manifests.every(home):
        if m.state in ("rollingBack", "rolledBack") or m.id == but:
            continue
        for record in m.items.values():
            if record.what == "conversation" and record.digest and record.state == "done":
                found.setdefault(record.source_id, []).append((record.sent, record.digest))
    return found


def _continued(item: Conversation, before: Sequence[tuple[int, str]]) -> Conversation:
    """``item`` without the messages an earlier import sent (the longest such start of it),
    those as its context (of which the model is shown the last
    ``importer.CONTEXT_MESSAGES``)."""
    for sent, digest in sorted(before, reverse=True):
        if 0 < sent <= len(item.messages) and \
                messages_digest(item.messages[:sent]) == digest:
            return dataclasses.replace(item, messages=item.messages[sent:],
                                       context=item.messages[:sent])
    return item


def imported_keys(home: Home, but: str | None = None) -> set[str]:
    """The keys of the items every import (``but`` that one) took and did not roll back."""
    return {key for m in manifests.every(home)
            if m.state not in ("rollingBack", "rolledBack") and m.id != but for key in m.items}
