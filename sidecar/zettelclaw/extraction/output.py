"""Turning the model's reply into entries (docs/04-extraction.md). Pure: text in, entries out.

The model is asked for one JSON object per line. What comes back is taken generously (code
fences, commentary, numbered or bulleted lines, a JSON array) and checked strictly: each object
must be a valid entry once the sidecar adds id, timestamp and session. Invalid lines are dropped
and counted. ``replaces`` survives only when it names an entry that exists; there is exactly one
handoff, at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from zettelclaw.llm.json_objects import UNENDED, scan
from zettelclaw.log.schema import (
    ENTRY_TYPES,
    ID_RE,
    SLUG_RE,
    Entry,
    InvalidEntry,
    new_id,
    validate_entry,
)
from zettelclaw.subjects.registry import to_slug

DRAFT_KEYS = ("type", "content", "detail", "subject", "status", "replaces")
MAX_SLUG = 80  # the schema's limit on a subject slug


@dataclass
class OutputReport:
    lines: int = 0  # non-blank lines in the reply
    objects: int = 0  # JSON objects read
    entries: int = 0  # entries kept
    invalid: list[str] = field(default_factory=list)  # why each dropped object was dropped
    commentary: int = 0  # lines that were not JSON objects at all
    dropped_replaces: int = 0  # replaces naming no existing entry
    extra_handoffs: int = 0  # handoffs beyond the last one, dropped
    synthesized_handoff: bool = False  # the model gave none; the sidecar wrote one
    duplicates: int = 0  # entries the reply had already given, dropped
    held: int = 0  # entries memory already holds (current, same subject), dropped
    cut: bool = False  # the reply stopped short (its token limit), even after being continued
    continued: int = 0  # calls that asked the model to go on from where it stopped
    looping: bool = False  # cut while repeating itself
    set_aside: int = 0  # a message's facts extraction/details.py did not keep

    def to_json(self) -> dict[str, Any]:
        return {"lines": self.lines, "objects": self.objects, "entries": self.entries,
                "invalid": len(self.invalid), "invalidReasons": self.invalid[:10],
                "commentary": self.commentary, "droppedReplaces": self.dropped_replaces,
                "extraHandoffs": self.extra_handoffs,
                "synthesizedHandoff": self.synthesized_handoff, "duplicates": self.duplicates,
                "held": self.held, "cut": self.cut, "continued": self.continued,
                "looping": self.looping, "nothingNew": self.nothing_new(),
                "setAside": self.set_aside}

    def unread(self) -> bool:
        """The model said something and no entry could be read from it: a failed parse."""
        return self.objects == 0 and self.lines > 0

    def nothing_new(self) -> bool:
        """Every object read repeats an entry memory holds or one the reply gave already, and
        nothing else was dropped but, at most, one unfinished object (the reply cut at its
        token limit): the model found nothing new, which is an answer, not a failed parse."""
        unfinished = sum(reason == UNENDED for reason in self.invalid)
        return (self.entries == 0 and self.duplicates + self.held > 0
                and len(self.invalid) == unfinished <= 1)


def parse_objects(text: str, report: OutputReport) -> list[dict[str, Any]]:
    """The JSON objects in the reply, in order (``llm/json_objects.py``), counted in ``report``."""
    found = scan(text)
    report.lines += found.lines
    report.objects += len(found.objects)
    report.commentary += found.commentary
    report.invalid += found.invalid
    report.cut = report.cut or found.cut
    return found.objects


def same(kind: str, content: str) -> tuple[str, str]:
    """An entry's type and content, case and spacing aside: a copy of it is the same."""
    return kind, " ".join(content.split()).casefold()


def _draft(obj: dict[str, Any]) -> dict[str, Any]:
    """Keep the keys a draft may have, normalized where the model is predictably loose."""
    draft = {k: obj[k] for k in DRAFT_KEYS if obj.get(k) not in (None, "")}
    kind = draft.get("type")
    if isinstance(kind, str):
        draft["type"] = kind.strip().lower()
    # An unusable subject or detail costs that field, not the whole entry.
    subject = draft.get("subject")
    if subject is not None:
        slug = subject if isinstance(subject, str) and SLUG_RE.fullmatch(subject) else (
            to_slug(subject) if isinstance(subject, str) else "")
        if slug and len(slug) <= MAX_SLUG:
            draft["subject"] = slug
        else:
            del draft["subject"]
    if "detail" in draft and not isinstance(draft["detail"], str):
        del draft["detail"]
    if draft.get("type") == "task":
        status = str(draft.get("status", "open")).strip().lower()
        draft["status"] = status if status in ("open", "done") else "open"
    else:
        draft.pop("status", None)
    return draft


def build_entries(text: str, session: str, timestamp: str, current: Callable[[str], str | None],
                  fallback_handoff: Callable[[Sequence[Entry]], tuple[str, str] | None],
                  *, held: Callable[[Entry], bool] = lambda _: False,
                  report: OutputReport | None = None) -> tuple[list[Entry], OutputReport]:
    """Entries from the model's reply, ready to append (handoff last), and a report.

    ``current(id)`` is the current version of the entry with that id (the id itself, or the
    newest entry of its replacement chain), or None when the log has no such entry: a
    correction of an outdated version replaces the version that is current.
    ``fallback_handoff(entries)`` gives (content, detail) for a handoff when the model wrote none
    (None: no handoff).
    ``held(entry)``: memory holds that entry already (a current one of the same type, subject
    and content; for a handoff, the newest handoff says the same): it is not written again. An
    entry the reply gives twice is written once.
    """
    report = report or OutputReport()
    taken: set[str] = set()
    seen: set[tuple[str, str]] = set()

    def fresh_id() -> str:
        while True:
            candidate = new_id()
            if candidate not in taken and current(candidate) is None:
                taken.add(candidate)
                return candidate

    entries: list[Entry] = []
    handoffs: list[Entry] = []
    for obj in parse_objects(text, report):
        draft = _draft(obj)
        if draft.get("type") not in ENTRY_TYPES:
            report.invalid.append(f"type must be one of {', '.join(ENTRY_TYPES)}: "
                                  f"{draft.get('type')!r}")
            continue
        replaces = draft.get("replaces")
        if replaces is not None:
            target = current(replaces) if isinstance(replaces, str) and ID_RE.match(replaces) \
                else None
            if target is None:
                del draft["replaces"]
                report.dropped_replaces += 1
            else:
                draft["replaces"] = target
        try:
            entry = validate_entry({"id": fresh_id(), "timestamp": timestamp, "session": session,
                                    **draft})
        except InvalidEntry as exc:
            report.invalid.append(exc.reason)
            continue
        if entry.type == "handoff":
            handoffs.append(entry)
            continue
        key = same(entry.type, entry.content)
        if key in seen:
            report.duplicates += 1
            continue
        seen.add(key)
        if entry.replaces is None and held(entry):
            report.held += 1
            continue
        entries.append(entry)
    handoff = _handoff(handoffs, held, report)
    if handoff is None and not handoffs and (made := fallback_handoff(entries)) is not None:
        content, detail = made
        handoff = validate_entry({"id": fresh_id(), "timestamp": timestamp, "session": session,
                                  "type": "handoff", "content": content, "detail": detail})
        report.synthesized_handoff = True
    if handoff is not None:
        entries.append(handoff)
    report.entries = len(entries)
    return entries, report


def _handoff(handoffs: list[Entry], held: Callable[[Entry], bool],
             report: OutputReport) -> Entry | None:
    """The reply's last handoff (the state at the end of the conversation), unless where things
    stand has not moved since the newest one memory holds."""
    if not handoffs:
        return None
    report.extra_handoffs = len(handoffs) - 1
    if held(handoffs[-1]):
        report.held += 1
        return None
    return handoffs[-1]
