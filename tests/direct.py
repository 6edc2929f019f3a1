"""The App's use cases called directly, as the method handlers call them, with no dispatcher.

For tests of the use cases themselves (search, get, subjects, status, the handoff) on real
files: the same functions ``methods/`` runs, with params models in and wire dicts out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from zettelclaw.agents.pool import Agents, open_agents
from zettelclaw.app import App, build_app, build_router
from zettelclaw.config import Config, SearchConfig, load_config
from zettelclaw.home import Home
from zettelclaw.index.ingest import CatchUpReport, Progress
from zettelclaw.methods import admin, subjects
from zettelclaw.methods import memory as memory_methods
from zettelclaw.protocol.params import (
    BeforePromptBuildParams,
    GetParams,
    SearchParams,
    SubjectsAddParams,
    SubjectsRenameParams,
)


def open_app(home: Home, workspace: Path, search: SearchConfig | None = None, *,
             settings: Config | None = None, serving: bool = False) -> App:
    settings = settings or load_config(home, env={})
    if search is not None:
        settings = settings.model_copy(update={"search": search})
    return build_app(home, workspace, settings, serving=serving, router=build_router(settings))


def open_pool(home: Home, workspace: Path, *, settings: Config | None = None,
              serving: bool = False, env: dict[str, str] | None = None) -> Agents:
    """The agents' pool on a data directory, as ``serve`` (serving) or the CLI's files mode
    makes it; ``env`` is where openclaw.json is looked for (none by default)."""
    settings = settings or load_config(home, env={})
    return open_agents(home, workspace, settings, serving=serving, env=env or {})


class Direct:
    def __init__(self, app: App) -> None:
        self.app = app
        self.home = app.home
        self.workspace = app.workspace
        self.index = app.index
        self.subjects = app.subjects
        self.searcher = app.searcher
        self.ingester = app.freshness.ingester

    @classmethod
    def open(cls, home: Home, workspace: Path, search: SearchConfig | None = None) -> Direct:
        return cls(open_app(home, workspace, search))

    def sync(self, progress: Progress | None = None, locked: bool = False) -> CatchUpReport:
        return self.app.freshness.sync(progress, locked)

    def needs_sync(self) -> bool:
        return self.app.freshness.needs_sync()

    def handoff_context(self, params: BeforePromptBuildParams) -> str | None:
        return self.app.handoff.context(params.audience())

    def search(self, params: SearchParams) -> dict[str, Any]:
        return memory_methods.search_in(self.app, params).wire

    def get(self, params: GetParams) -> dict[str, Any]:
        return memory_methods.get_path(self.app, params.path.strip(), params).wire()

    def subjects_add(self, params: SubjectsAddParams) -> dict[str, Any]:
        return subjects.add_subject(self.app, params).wire()

    def subjects_list(self) -> dict[str, Any]:
        return subjects.list_subjects(self.app).wire()

    def subjects_rename(self, params: SubjectsRenameParams) -> dict[str, Any]:
        return subjects.rename_subject(self.app, params.from_, params.to).wire()

    def status(self) -> dict[str, Any]:
        return admin.memory_status(self.app).wire()

    def rebuild(self, progress: Progress | None = None) -> dict[str, Any]:
        return admin.rebuild(self.app, progress).wire()

    def close(self) -> None:
        self.app.close()
