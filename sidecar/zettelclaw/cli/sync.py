"""``zettelclaw sync``: init, one sync, status (docs/14-sync.md), asked of the running sidecar
or, without one, run on the files; the text people read."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from zettelclaw.cli.backend import Backend
from zettelclaw.cli.exits import EXIT_OK, print_json, show
from zettelclaw.client import ask
from zettelclaw.errors import InvalidParamsError
from zettelclaw.protocol import contract as rpc
from zettelclaw.protocol import sync_models as s


def command(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    action = args.action or "run"
    if action == "init":
        if not args.remote:
            raise InvalidParamsError("sync init needs the remote: zettelclaw sync init REMOTE "
                                     "(a bare repository's path, ssh://..., git@host:repo.git)")
        key = None
        if args.key_file:
            try:
                key = Path(args.key_file).expanduser().read_text()
            except OSError as exc:
                raise InvalidParamsError(f"cannot read the key file {args.key_file}: "
                                         f"{exc.strerror}") from None
        with _long(backend) as caller:
            made = ask(caller, rpc.SYNC_INIT,
                       s.SyncInitParams(remote=args.remote, newKey=args.new_key, key=key))
            ran = ask(caller, rpc.SYNC_RUN, s.SyncRunParams())
        if as_json:
            print_json({**made.wire(), "sync": ran.wire()})
        else:
            print(f"sync set up: this machine is {made.machine}, remote {made.remote}")
            if made.encrypted:
                print(f"encrypted: the key is {made.key_file}; copy it to each other "
                      "machine (never into the repository) and give it to `zettelclaw sync "
                      "init REMOTE --key-file FILE` there")
            print(ran_text(ran))
        return EXIT_OK
    if args.remote or args.new_key or args.key_file:
        raise InvalidParamsError("REMOTE, --new-key and --key-file go with `sync init`")
    if action == "status":
        found = ask(backend, rpc.SYNC_STATUS, s.SyncStatusParams())
        show(found, as_json, lambda: status_text(found))
        return EXIT_OK
    with _long(backend) as caller:
        synced = ask(caller, rpc.SYNC_RUN, s.SyncRunParams())
    show(synced, as_json, lambda: ran_text(synced))
    return EXIT_OK


SYNC_TIMEOUT = 3600.0  # a first sync of a large memory pushes or pulls all of it


@contextmanager
def _long(backend: Backend) -> Iterator[Backend]:
    """Where calls go with time to finish: a sidecar's answer can take longer than a read's."""
    from zettelclaw.cli.backend import AgentBackend, SidecarBackend
    from zettelclaw.client import Client

    inner = backend.inner if isinstance(backend, AgentBackend) else backend
    if not isinstance(inner, SidecarBackend):
        yield backend
        return
    patient = SidecarBackend(Client(inner.client.socket_path, timeout=SYNC_TIMEOUT).connect())
    try:
        yield AgentBackend(patient, backend.agent) if isinstance(backend, AgentBackend) \
            else patient
    finally:
        patient.close()


def ran_text(ran: s.SyncRan) -> str:
    parts = [f"pulled {_lines(ran.pulled)}, pushed {_lines(ran.pushed)}"]
    if ran.purges_applied:
        parts.append(f"applied {ran.purges_applied} purges from other machines")
    if ran.purges_published:
        parts.append(f"published {ran.purges_published} purges (history rewritten)")
    return "synced: " + "; ".join(parts) + f" in {ran.seconds:.1f} s"


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def status_text(found: s.SyncStatus) -> str:
    if not found.configured:
        return (f"sync is not set up for this memory (machine {found.machine}); "
                "run `zettelclaw sync init REMOTE`")
    lines = [f"remote:      {found.remote}" + ("  (encrypted)" if found.encrypted else ""),
             f"machine:     {found.machine}",
             f"machines:    {', '.join(found.machines)}",
             f"unpublished: {_lines(found.unpublished)}"]
    last = found.last
    if last:
        lines.append(f"last sync:   {last.at} " + (
            "ok" if last.ok else f"FAILED: {last.error}"))
    for purge in found.purges:
        if purge.unconfirmed:
            lines.append(f"purge {purge.id} ({purge.ids} entries, {purge.at}): not yet "
                         f"confirmed by {', '.join(purge.unconfirmed)}")
    return "\n".join(lines)
