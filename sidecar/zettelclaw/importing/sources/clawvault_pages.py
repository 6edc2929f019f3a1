"""What each page of a ClawVault vault becomes: notes, a conversation, observations (finding
the pages and reading their frontmatter: ``clawvault.py``). The category is the page's first
folder:

================================  =====================================================
``decisions/``                    a ``decision``
``tasks/``, ``backlog/``          a ``task``: ``status`` done/completed/closed -> done,
                                  anything else (open, in-progress, blocked) -> open
``commitments/``                  a ``task``, likewise
``handoffs/``                     a ``handoff`` (what was being worked on, next steps,
                                  blockers), and a ``decision`` for each of its
                                  ``decisions`` and a ``question`` for each of its
                                  ``openQuestions``
``people/``, ``projects/``        a ``fact`` whose subject is the page's slug
``transcripts/``                  a ``Conversation`` when the page is a dialogue (lines
                                  opening with ``User:``/``Assistant:``, bold or as
                                  headings: two turns or more), else a ``fact`` (a summary)
``ledger/observations/``          one note per observation line (``- [type|c=..|i=..] text``
                                  or ``- 🔴 HH:MM text``) under its ``## YYYY-MM-DD``:
                                  decision -> decision; task, todo, commitment,
                                  commitment-unresolved -> open task; the rest -> fact
anything else (facts, preferences,  a ``fact``; or by ``memoryType`` for a folder not
patterns, lessons, goals, inbox,  listed here (decision -> decision, commitment -> task)
feelings, ...)
================================  =====================================================

A page note's ``content`` is the page's title (frontmatter ``title``, else its first ``#``
heading) and its ``detail`` the page's body; but a fact's page (a person, a project, a
preference...) says ``Title: first line of the body``, and a page with no title but its file
name (or a quick capture's ``note-<ms>``) has its body's first line; the rest of the body is
then the ``detail``.
``subject``: the page's slug for people and projects, else the slug of frontmatter ``project``
when there is one (made a slug the log takes: ``José_García`` -> ``jose-garcia``; none for a
name without Latin letters). ``at``: frontmatter ``created``, ``date`` or ``updated`` (a date
alone is that day at 00:00 UTC; a time without an offset is taken as UTC), else a date or epoch
in the file name (``handoff-2026-02-13-1830``, ``note-1707849600000``), else None. A
transcript's messages all carry the page's time.

``source_id``: ``clawvault:<path in the vault>#<n>:<hash>``, where ``n`` numbers the items of
one page (0 for the page itself) and the hash is the page's (an edited page is new); for an
observation line, ``n`` counts the identical lines before it and the hash is its date and text,
so that adding a line to a day's file leaves the others' ids as they were.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from zettelclaw.importing.items import Conversation, Item, Message, Note, NoteKind, Role
from zettelclaw.log.schema import SLUG_RE
from zettelclaw.subjects.registry import to_slug

SOURCE = "clawvault"
# ClawVault's category folders (a page's first folder)
KNOWN = {"preferences", "decisions", "patterns", "people", "projects", "goals", "transcripts",
         "inbox", "facts", "feelings", "lessons", "commitments", "handoffs", "tasks", "backlog"}
SLUG_MAX = 80  # log.schema's Slug
_DONE = {"done", "completed", "complete", "closed", "fulfilled", "resolved"}
_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_CAPTURE = re.compile(r"note-(\d{13})")
_NAME_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[T_-](\d{2})[:-]?(\d{2}))?")
_DATE_HEADING = re.compile(r"##\s+(\d{4}-\d{2}-\d{2})\s*$")
_SCORED = re.compile(r"(?:-\s*)?\[([a-z-]+)\|c=[\d.]+\|i=[\d.]+\]\s+(.+)$", re.IGNORECASE)
_EMOJI = re.compile(r"(?:-\s*)?(?:\U0001f534|\U0001f7e1|\U0001f7e2)\s+(?:(\d{2}):(\d{2})\s+)?(.+)$")
_TURN = re.compile(r"(?:#{1,4}\s*)?(?:\*\*)?(user|human|me|assistant|ai|agent|claude|chatgpt|bot)"
                   r"(?:\*\*)?\s*(?::(?:\*\*)?\s*(.*)|$)", re.IGNORECASE)
_ASSISTANT_NAMES = {"assistant", "ai", "agent", "claude", "chatgpt", "bot"}


@dataclass(frozen=True)
class Page:
    rel: str  # the path in the vault, with '/'
    meta: Mapping[str, object]  # the frontmatter's fields
    body: str
    digest: str
    first_line: int  # the body's first line in the file

    @property
    def category(self) -> str:
        return self.rel.split("/", 1)[0].lower() if "/" in self.rel else ""

    @property
    def stem(self) -> str:
        return self.rel.rsplit("/", 1)[-1].removesuffix(".md")


def items(page: Page) -> Iterator[Item]:
    if page.rel.startswith("ledger/"):
        yield from _observations(page)
        return
    if page.category == "transcripts":
        turns = _turns(page)
        if turns is not None:
            yield turns
            return
    kind, status = _kind(page)
    at = _time(page)
    title = _title(page)
    content, detail = title, _without_title(page.body, title) or None
    if kind == "handoff":
        content, detail = _handoff(page, title)
    elif detail and (kind == "fact" or title == page.stem or _CAPTURE.fullmatch(title)):
        # a fact page's title is a name or a topic, what is known of it is in the body; a page
        # titled only by its file name (or a capture's generated one) says it in its body
        first, _, rest = detail.partition("\n")
        first = first.strip().lstrip("#").strip()
        named = kind == "fact" and title != page.stem and not _CAPTURE.fullmatch(title)
        content = f"{title}: {first}" if named and first else first or title
        detail = rest.strip() or None
    yield Note(source_id=_id(page, 0), kind=kind, content=content, at=at, origin=page.rel,
               subject=_subject(page), detail=detail, status=status)
    if kind == "handoff":
        n = 1
        for field, extra in (("decisions", "decision"), ("openQuestions", "question")):
            for index, text in enumerate(_strings(page.meta.get(field))):
                extra_kind: NoteKind = "decision" if extra == "decision" else "question"
                yield Note(source_id=_id(page, n), kind=extra_kind, content=text, at=at,
                           origin=f"{page.rel}, {field}[{index}]")
                n += 1


def _kind(page: Page) -> tuple[NoteKind, Literal["open", "done"] | None]:
    category = page.category
    declared = page.meta.get("type")
    memory_type = page.meta.get("memoryType")
    if category == "handoffs" or declared == "handoff":
        return "handoff", None
    if category == "decisions" or (category not in KNOWN and memory_type == "decision"):
        return "decision", None
    if category in ("tasks", "backlog", "commitments") or (
            category not in KNOWN and memory_type == "commitment"):
        status = page.meta.get("status")
        done = isinstance(status, str) and status.strip().lower() in _DONE
        return "task", "done" if done else "open"
    return "fact", None


def _title(page: Page) -> str:
    title = page.meta.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    heading = _HEADING.search(page.body)
    return heading.group(1).strip() if heading else page.stem


def _without_title(body: str, title: str) -> str:
    lines = body.splitlines()
    if lines and lines[0].lstrip("#").strip() == title and lines[0].startswith("#"):
        lines = lines[1:]
    return "\n".join(lines).strip()


def _handoff(page: Page, title: str) -> tuple[str, str | None]:
    working = _strings(page.meta.get("workingOn"))
    steps = _strings(page.meta.get("nextSteps"))
    said = []
    if working:
        said.append("Working on: " + "; ".join(working) + ".")
    if steps:
        said.append("Next: " + "; ".join(steps) + ".")
    body = _without_title(page.body, title)
    content = " ".join(said) or (body.splitlines()[0] if body else title)
    details = [f"{label}: " + "; ".join(values) for label, values in
               (("Blocked", _strings(page.meta.get("blocked"))),) if values]
    feeling = page.meta.get("feeling")
    if isinstance(feeling, str) and feeling:
        details.append(f"Feeling: {feeling}")
    if body and body != content:
        details.append(body)
    return content, "\n".join(details) or None


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list):
        return [item.strip() for item in value if isinstance(item, str) and item.strip()]
    return []


def _subject(page: Page) -> str | None:
    if page.category in ("people", "projects"):
        return _slug(page.stem)
    project = _strings(page.meta.get("project"))
    return _slug(project[0]) if project else None


def _slug(text: str) -> str | None:
    """A subject slug the log takes (``log.schema.SLUG_PATTERN``) from a page's name or a
    ``project`` link: accents dropped, anything but letters and digits a hyphen; None when
    nothing is left (a name in a script without Latin letters)."""
    text = text.strip().removeprefix("[[").removesuffix("]]").split("|", 1)[0]
    text = text.rsplit("/", 1)[-1]
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = to_slug(ascii_text)[:SLUG_MAX].rstrip("-")
    return slug if SLUG_RE.fullmatch(slug) else None


def _time(page: Page) -> datetime | None:
    for key in ("created", "date", "updated"):
        at = _when(page.meta.get(key))
        if at is not None:
            return at
    capture = _CAPTURE.fullmatch(page.stem)
    if capture:
        return datetime.fromtimestamp(int(capture.group(1)) / 1000, UTC)
    named = _NAME_TIME.search(page.stem)
    if named:
        at = _when(named.group(1))
        if at is not None and named.group(2):
            hour, minute = int(named.group(2)), int(named.group(3))
            if hour < 24 and minute < 60:
                return at.replace(hour=hour, minute=minute)
        return at
    return None


def _when(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        at = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def _id(page: Page, n: int) -> str:
    return f"{SOURCE}:{page.rel}#{n}:{page.digest}"


def _turns(page: Page) -> Conversation | None:
    messages: list[tuple[Role, list[str]]] = []
    for line in page.body.splitlines():
        turn = _TURN.fullmatch(line.strip())
        if turn is not None:
            role: Role = "assistant" if turn.group(1).lower() in _ASSISTANT_NAMES else "user"
            messages.append((role, [turn.group(2) or ""]))
        elif messages:
            messages[-1][1].append(line)
    said = [(role, "\n".join(lines).strip()) for role, lines in messages]
    said = [(role, text) for role, text in said if text]
    if len(said) < 2 or all(role == "assistant" for role, _ in said):
        return None
    at = _time(page)
    return Conversation(source_id=_id(page, 0), title=_title(page),
                        messages=tuple(Message(role, text, at) for role, text in said),
                        origin=page.rel)


def _observations(page: Page) -> Iterator[Note]:
    parts = page.rel.removesuffix(".md").split("/")
    day = _when("-".join(parts[-3:])) if len(parts) >= 5 else None
    seen: dict[str, int] = {}
    for number, raw in enumerate(page.body.splitlines(), start=1):
        line = raw.strip()
        heading = _DATE_HEADING.fullmatch(line)
        if heading:
            day = _when(heading.group(1))
            continue
        note = _observation(line)
        if note is None:
            continue
        kind, status, text, clock = note
        at = day
        if at is not None and clock is not None:
            at = at.replace(hour=clock[0], minute=clock[1])
        key = f"{at.date().isoformat() if at else ''}\n{line}"
        n = seen.get(key, 0)
        seen[key] = n + 1
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
        yield Note(source_id=f"{SOURCE}:{page.rel}#{n}:{digest}", kind=kind, content=text,
                   at=at, origin=f"{page.rel}, line {page.first_line + number - 1}",
                   status=status)


def _observation(
        line: str) -> tuple[NoteKind, Literal["open"] | None, str, tuple[int, int] | None] | None:
    scored = _SCORED.fullmatch(line)
    if scored:
        kind = scored.group(1).lower()
        text = scored.group(2).strip()
        clock = re.match(r"(\d{2}):(\d{2})\s+", text)
        hm = (int(clock.group(1)), int(clock.group(2))) if clock else None
        text = text[clock.end():] if clock else text
        if kind == "decision":
            return "decision", None, text, _valid(hm)
        if kind in ("task", "todo", "commitment", "commitment-unresolved"):
            return "task", "open", text, _valid(hm)
        return "fact", None, text, _valid(hm)
    emoji = _EMOJI.fullmatch(line)
    if emoji:
        hm = (int(emoji.group(1)), int(emoji.group(2))) if emoji.group(1) else None
        return "fact", None, emoji.group(3).strip(), _valid(hm)
    return None


def _valid(clock: tuple[int, int] | None) -> tuple[int, int] | None:
    return clock if clock is not None and clock[0] < 24 and clock[1] < 60 else None
