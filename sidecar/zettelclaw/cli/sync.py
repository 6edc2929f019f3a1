"""``zettelclaw sync``: init, one sync, status (docs/14-sync.md), asked of the running sidecar
or, without one, run on the files; the text people read."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from zettelclaw.cli.backend import Backend
from zettelclaw.cli.exits import EXIT_OK, print_json
from zettelclaw.errors import InvalidParamsError


def command(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    action = args.action or "run"
    if action == "init":
        if not args.remote:
            raise InvalidParamsError("sync init needs the remote: zettelclaw sync init REMOTE "
                                     "(a bare repository's path, ssh://..., git@host:repo.git)")
        params: dict[str, Any] = {"remote": args.remote, "newKey": args.new_key}
        if args.key_file:
            try:
                params["key"] = Path(args.key_file).expanduser().read_text()
            except OSError as exc:
                raise InvalidParamsError(f"cannot read the key file {args.key_file}: "
                                         f"{exc.strerror}") from None
        made = _long(backend, "sync.init", params)
        ran = _long(backend, "sync.run")
        if as_json:
            print_json({**made, "sync": ran})
        else:
            print(f"sync set up: this machine is {made['machine']}, remote {made['remote']}")
            if made["encrypted"]:
                print(f"encrypted: the key is {made['keyFile']}; copy it to each other "
                      "machine (never into the repository) and give it to `zettelclaw sync "
                      "init REMOTE --key-file FILE` there")
            print(ran_text(ran))
        return EXIT_OK
    if args.remote or args.new_key or args.key_file:
        raise InvalidParamsError("REMOTE, --new-key and --key-file go with `sync init`")
    if action == "status":
        found = backend.call("sync.status")
        print_json(found) if as_json else print(status_text(found))
        return EXIT_OK
    ran = _long(backend, "sync.run")
    print_json(ran) if as_json else print(ran_text(ran))
    return EXIT_OK


SYNC_TIMEOUT = 3600.0  # a first sync of a large memory pushes or pulls all of it


def _long(backend: Backend, method: str, params: dict[str, Any] | None = None) -> Any:
    """``method`` with time to finish: a sidecar's answer can take longer than a read's."""
    from zettelclaw.cli.backend import AgentBackend, SidecarBackend
    from zettelclaw.client import Client

    inner = backend.inner if isinstance(backend, AgentBackend) else backend
    if not isinstance(inner, SidecarBackend):
        return backend.call(method, params)
    if isinstance(backend, AgentBackend):
        params = {"agentId": backend.agent, **(params or {})}
    with Client(inner.client.socket_path, timeout=SYNC_TIMEOUT) as client:
        return client.call(method, params)


def ran_text(ran: dict[str, Any]) -> str:
    parts = [f"pulled {_lines(ran['pulled'])}, pushed {_lines(ran['pushed'])}"]
    if ran["purgesApplied"]:
        parts.append(f"applied {ran['purgesApplied']} purges from other machines")
    if ran["purgesPublished"]:
        parts.append(f"published {ran['purgesPublished']} purges (history rewritten)")
    return "synced: " + "; ".join(parts) + f" in {ran['seconds']:.1f} s"


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def status_text(found: dict[str, Any]) -> str:
    if not found["configured"]:
        return (f"sync is not set up for this memory (machine {found['machine']}); "
                "run `zettelclaw sync init REMOTE`")
    lines = [f"remote:      {found['remote']}" + ("  (encrypted)" if found["encrypted"] else ""),
             f"machine:     {found['machine']}",
             f"machines:    {', '.join(found['machines'])}",
             f"unpublished: {_lines(found['unpublished'])}"]
    last = found.get("last")
    if last:
        lines.append(f"last sync:   {last['at']} " + (
            "ok" if last["ok"] else f"FAILED: {last.get('error')}"))
    for purge in found["purges"]:
        if purge["unconfirmed"]:
            lines.append(f"purge {purge['id']} ({purge['ids']} entries, {purge['at']}): not yet "
                         f"confirmed by {', '.join(purge['unconfirmed'])}")
    return "\n".join(lines)
