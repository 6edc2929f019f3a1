"""What of a memory (``app.App``) the vault uses: a Protocol, so that ``vault/`` sits in the
domain beside ``forget/`` (which calls it during a purge) instead of above ``app.py`` (which
would make ``app -> forget -> vault -> app`` a cycle)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from zettelclaw.home import Home
from zettelclaw.index.database import Index
from zettelclaw.index.freshness import Freshness
from zettelclaw.subjects.registry import SubjectRegistry


class Memory(Protocol):
    @property
    def home(self) -> Home: ...

    @property
    def index(self) -> Index: ...

    @property
    def freshness(self) -> Freshness: ...

    @property
    def subjects(self) -> SubjectRegistry: ...

    @property
    def workspace(self) -> Path: ...
