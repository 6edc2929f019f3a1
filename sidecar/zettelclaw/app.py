"""The one place that builds the application: every object a method or the CLI acts on.

``build_app`` is used by ``zettelclaw serve`` (``serving=True``: the extraction loop and the
vectorizer exist, semantic search may load its model), by the CLI when no sidecar answers
(``serving=False``: the same objects on the same files, nothing in the background), and by the
tests. Method handlers (``methods/``) receive the App; nothing else constructs these objects.
Opening it is blocking (the index is opened, a cut-short rename is cleaned up): call it from a
worker thread in trio.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from zettelclaw import lock
from zettelclaw.agent_ids import MAIN
from zettelclaw.briefing.service import Briefing
from zettelclaw.config import Config
from zettelclaw.extraction.service import Extraction
from zettelclaw.extraction.worker import Worker
from zettelclaw.files import atomic_write_json
from zettelclaw.forget import service as forget_service
from zettelclaw.home import Home
from zettelclaw.index.database import Index
from zettelclaw.index.file_chunks import WorkspaceIndexer
from zettelclaw.index.freshness import Freshness
from zettelclaw.index.ingest import Ingester
from zettelclaw.index.syncer import Syncer
from zettelclaw.index.terms import TermIndex
from zettelclaw.llm.host import HostModels
from zettelclaw.llm.route import Router
from zettelclaw.log.schema import now_timestamp
from zettelclaw.log.store import LogStore
from zettelclaw.recall.handoff import Handoff
from zettelclaw.recall.receipts import Receipts
from zettelclaw.recall.trace import Trace
from zettelclaw.search.searcher import Searcher
from zettelclaw.search.vectorizer import Vectorizer
from zettelclaw.state import State, load_state, update_state_locked
from zettelclaw.subjects.registry import SubjectRegistry
from zettelclaw.subjects.rename import leftover as rewrite_leftover
from zettelclaw.subjects.rename import recover_locked as recover_rewrite

logger = logging.getLogger(__name__)

FILES_MODE_SEMANTIC = "semantic search runs in the sidecar; this answer came from the files"


@dataclass(kw_only=True)
class App:
    """One memory's objects, by job."""

    # whose memory, where it lives, with what settings
    memory: str  # the agent whose memory this is (agents/: one App per memory)
    home: Home
    workspace: Path
    settings: Config
    started: float = field(default_factory=time.monotonic)
    # the stores beside the log, and the index kept up with it
    subjects: SubjectRegistry
    index: Index
    freshness: Freshness
    syncer: Syncer
    # reading it back: search, the handoff before a turn, what was said and injected
    searcher: Searcher
    handoff: Handoff
    receipts: Receipts | None = None  # the write receipts' line (recall/receipts.py)
    trace: Trace | None = None  # what the hook injected, turn by turn (recall/trace.py)
    # writing to it with a model: extraction from conversations, the briefing in MEMORY.md
    router: Router
    extraction: Extraction
    briefing: Briefing
    # serving only: the background work
    worker: Worker | None  # the extraction loop
    vectorizer: Vectorizer | None  # embeds in the background

    def wake(self) -> None:
        """New or due extraction work: wake the loop (none runs in the CLI's files mode)."""
        if self.worker is not None:
            self.worker.notify()

    def close(self) -> None:
        if self.trace is not None:
            self.trace.close()
        self.searcher.semantic.close()
        self.searcher.files.close()
        self.index.close()


def build_app(home: Home, workspace: Path, settings: Config, *, serving: bool, router: Router,
              transcript_roots: Sequence[Path] = (), memory: str = MAIN) -> App:
    """One agent's memory. ``router`` (the model routes) is shared by all of them: the host's
    offer serves every memory's extraction (agents/pool.py wires the offer to their loops)."""
    home.ensure()
    _mend_home(home)
    subjects = SubjectRegistry(home)
    index = Index(home.index)
    ingester = Ingester(index, home.log, subjects.names)
    files = WorkspaceIndexer(index, workspace)
    terms = TermIndex(home.terms)
    freshness = Freshness(home, index, terms, ingester, files=files, subjects=subjects)
    handoff = Handoff()
    freshness.on_change.append(handoff.refresh)
    receipts = Receipts(home, enabled=settings.extraction.receipts)
    freshness.on_change.append(receipts.refresh)
    searcher = Searcher(index, terms, files, settings.search, router.hosts)
    vectorizer = Vectorizer(searcher.semantic, refresh=files.sync) if serving else None
    if not serving and searcher.semantic.wanted:  # the embedding model (seconds, hundreds of
        searcher.semantic.reason = FILES_MODE_SEMANTIC  # MB) is loaded by the sidecar only
    syncer = Syncer(freshness, on_change=vectorizer.notify if vectorizer else None)
    extraction = Extraction(home, freshness, settings.extraction, router, transcript_roots,
                            admission=settings.admission, retention=settings.retention)
    worker = Worker(extraction, preload_after=syncer.first_catch_up) if serving else None
    briefing = Briefing(home, workspace, settings, syncer, router)
    app = App(memory=memory, home=home, workspace=workspace, settings=settings,
              subjects=subjects, index=index, freshness=freshness, syncer=syncer,
              searcher=searcher, handoff=handoff, receipts=receipts, trace=Trace(home),
              router=router, extraction=extraction, briefing=briefing,
              worker=worker, vectorizer=vectorizer)
    forget_service.resume(app)  # a purge a crash cut short is finished before anything reads
    return app


def build_router(settings: Config, root: Home | None = None) -> Router:
    """The model routes, one per process: every memory's extraction and briefing use it.
    ``root``: the data directory whose ``usage.json`` counts the day's tokens (llm/usage.py)."""
    return Router(settings.extraction, HostModels(), budget=settings.budget,
                  usage_path=None if root is None else root.root / "usage.json")


def _mend_home(home: Home) -> None:
    """Create subjects.json and state.json when missing, and record the memory's start
    (``since``) once; finish what a cut-short rewrite of the log left."""
    if rewrite_leftover(home):  # a rewrite of the log (a rename, a purge) cut short by a crash
        with lock.exclusive(home.lock):
            if recover_rewrite(home):
                logger.info("finished or removed a rewrite of the log that a crash cut short")
    if home.subjects.exists() and home.state.exists() and load_state(home).since is not None:
        return
    with lock.exclusive(home.lock):
        if not home.subjects.exists():
            atomic_write_json(home.subjects, {})
        if not home.state.exists() or load_state(home).since is None:
            first = next(LogStore(home).entries(), None)
            since = first.timestamp if first is not None else now_timestamp()
            update_state_locked(home, lambda state: _record_since(state, since))


def _record_since(state: State, since: str) -> None:
    """The memory's start, before which the gateway's sweep extracts no session it has never
    seen (docs/13-import.md): now, for a new memory; for one an earlier version kept (its log
    has entries, its state.json no ``since``), its first entry's time, so that no session
    that version would have swept is left out."""
    if state.since is None:
        state.since = since


