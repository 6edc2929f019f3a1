"""Named crash points, for the tests that prove exactly-once extraction under kill -9.

With ``ZETTELCLAW_FAILPOINT=<name>`` in its environment, the process SIGKILLs itself when it
reaches that point: the same as an operator's ``kill -9`` landing there, but deterministic.
Unset (always, outside those tests), ``reach`` is one dictionary lookup.
"""

from __future__ import annotations

import os
import signal

from zettelclaw.files import write_all

ENV = "ZETTELCLAW_FAILPOINT"

#: every crash point, in the order a job meets them
POINTS = (
    "upgrade-after-transcript",  # at start: a job's transcript moved to its agent, the job not yet
    "after-spool",  # the job file is durable, its messages not yet in the provenance transcript
    "after-provenance",  # the hook's work is durable; the hook has not answered yet
    "before-model",  # the worker took the job; the model has not been called
    "after-result",  # the model's entries are saved in the job file, not yet in the log
    "torn-append",  # half of the batch's bytes are written to the log
    "after-append",  # the batch is in the log; the job is not yet marked done
)
#: points where the process sends itself SIGTERM (an operator's stop landing there)
TERM_POINTS = (
    "model-loading",  # the embedding model's load has begun, in a worker thread
)

#: a purge's crash points (forget/purge.py), in the order it meets them
PURGE_POINTS = (
    "purge-after-intent",  # purge.json is durable; nothing removed yet
    "purge-before-replace",  # the new log is written and checked, not yet renamed in
    "purge-after-log",  # the log is rewritten; transcripts, spool and index not yet
    "purge-after-transcripts",  # the transcript copies' text is gone (keys kept)
    "purge-after-spool",  # the spool is scrubbed; the index still holds the entries
    "purge-after-vault",  # the vault's pages and state are scrubbed; the index not yet
    "purge-after-index",  # the index is rebuilt and wiped; purge.json not yet removed
)

#: an import's crash points (importing/importer.py, notes.py), in the order an item meets them
IMPORT_POINTS = (
    "import-after-manifest",  # the items are recorded as being written; nothing written yet
    "import-after-spool",  # a conversation is spooled; the manifest does not say so yet
    "import-after-append",  # notes' entries are in the log; the manifest does not say so yet
)

#: replication's crash points (replicate/) that a git sync meets, in its order
REPLICATE_POINTS = (
    "take-after-received",  # foreign ids are in HOME/replicate/received, not yet in the log
    "take-after-append",  # foreign lines are in the log; the engine's read cursor not yet saved
    "sync-after-commit",  # this machine's new lines are committed in the clone, not pushed
    "sync-after-push",  # they are pushed; the cursor saying so is not saved yet
)
#: a team round's (replicate/team.py), beside the two ``take-*`` points it shares
TEAM_POINTS = (
    "team-after-push",  # a team round's lines are committed in the database, its cursor not saved
)


def reach(name: str) -> None:
    if os.environ.get(ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


def term(name: str) -> None:
    """At a ``TERM_POINTS`` point: SIGTERM to this process, and go on (the shutdown runs)."""
    if os.environ.get(ENV) == name:
        os.kill(os.getpid(), signal.SIGTERM)


def torn_write(fd: int, data: bytes) -> None:
    """At the ``torn-append`` point: write half of ``data``, durably, then die."""
    if os.environ.get(ENV) == "torn-append" and len(data) > 1:
        write_all(fd, data[: len(data) // 2])
        os.fsync(fd)
        os.kill(os.getpid(), signal.SIGKILL)
