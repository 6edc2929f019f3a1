"""subjects.json: the known subject slugs, each with a display name and a type (docs/03-log.md).

``{"auth-migration": {"display": "Auth Migration", "type": "project"}, ...}``

Reads are lock-free (the file is only ever replaced atomically); every change happens under the
data lock and is written atomically. A slug from an entry that the registry does not know yet is
added with a Title Case display and type ``project``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from typing import Annotated

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError

from zettelclaw import lock
from zettelclaw.errors import SubjectExistsError
from zettelclaw.files import atomic_write_json, read_json_object
from zettelclaw.home import Home
from zettelclaw.log.schema import SLUG_RE

logger = logging.getLogger(__name__)

DEFAULT_TYPE = "project"
SUBJECT_TYPE_PATTERN = r"^[a-z][a-z0-9-]{0,39}$"
SubjectType = Annotated[str, StringConstraints(pattern=SUBJECT_TYPE_PATTERN)]
Display = Annotated[str, StringConstraints(min_length=1, max_length=120, strip_whitespace=True)]


class Subject(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)  # keep fields a newer version adds

    display: Display
    type: SubjectType = DEFAULT_TYPE


def title_case(slug: str) -> str:
    """``auth-migration`` -> ``Auth Migration``: the display of an auto-created subject."""
    return " ".join(part[:1].upper() + part[1:] for part in slug.split("-"))


def to_slug(text: str) -> str:
    """Best-effort kebab-case of free text, used to suggest a slug in error messages."""
    return "-".join(re.findall(r"[a-z0-9]+", text.lower()))


class SubjectRegistry:
    def __init__(self, home: Home) -> None:
        self.home = home
        self._cache: tuple[tuple[int, int], dict[str, Subject]] | None = None

    def stamp(self) -> tuple[int, int]:
        """Changes whenever subjects.json does (mtime and size)."""
        try:
            st = self.home.subjects.stat()
        except FileNotFoundError:
            return (0, 0)
        return (st.st_mtime_ns, st.st_size)

    def cached(self) -> dict[str, Subject]:
        """``load()``, read again only when the file changed (for per-entry lookups)."""
        stamp = self.stamp()
        if self._cache is None or self._cache[0] != stamp:
            self._cache = (stamp, self.load())
        return self._cache[1]

    def display(self, slug: str) -> str:
        """The display name of ``slug``: registered, else its Title Case."""
        return self.names()(slug)

    def names(self) -> Callable[[str], str]:
        """``display`` as the registry is now, for many lookups (one stat of subjects.json)."""
        subjects = self.cached()

        def display(slug: str) -> str:
            subject = subjects.get(slug)
            return subject.display if subject else title_case(slug)

        return display

    def load(self) -> dict[str, Subject]:
        """The registry; entries with a bad slug or shape are skipped with a warning."""
        raw = read_json_object(self.home.subjects) or {}
        subjects: dict[str, Subject] = {}
        for slug, value in raw.items():
            if not SLUG_RE.fullmatch(slug):  # match() lets "slug\n" through ($)
                logger.warning("subjects.json: %r is not a kebab-case slug; ignored", slug)
                continue
            try:
                subjects[slug] = Subject.model_validate(value)
            except ValidationError as exc:
                logger.warning("subjects.json: %s: %s; ignored", slug, exc.errors()[0]["msg"])
        return subjects

    def save_locked(self, subjects: dict[str, Subject]) -> None:
        ordered = {slug: subjects[slug].model_dump() for slug in sorted(subjects)}
        atomic_write_json(self.home.subjects, ordered)

    def add(self, slug: str, type: str = DEFAULT_TYPE, display: str | None = None) -> Subject:
        """Register ``slug``; SubjectExistsError when it is already there."""
        subject = Subject(display=display or title_case(slug), type=type)
        with lock.exclusive(self.home.lock):
            subjects = self.load()
            if slug in subjects:
                existing = subjects[slug]
                raise SubjectExistsError(
                    f"subject {slug!r} already exists ({existing.display}, {existing.type})",
                    {"slug": slug, **existing.model_dump()},
                )
            subjects[slug] = subject
            self.save_locked(subjects)
        return subject

    def ensure_locked(self, slugs: Iterable[str]) -> list[str]:
        """Add the slugs the registry lacks (Title Case, ``project``); returns the new ones."""
        subjects = self.load()
        new = sorted({s for s in slugs if s not in subjects})
        if new:
            for slug in new:
                subjects[slug] = Subject(display=title_case(slug), type=DEFAULT_TYPE)
            self.save_locked(subjects)
        return new
