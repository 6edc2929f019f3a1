"""The commands that change memory or what is made from it: ``reindex``, ``subjects``,
``forget``, ``remember``, ``vault``, ``briefing``. Each calls its method through the contract
(``client.ask``): the params and result models of protocol/, checked by mypy."""

from __future__ import annotations

import argparse
from pathlib import Path

from zettelclaw.cli import render
from zettelclaw.cli.backend import Backend
from zettelclaw.cli.exits import EXIT_OK, print_json, show
from zettelclaw.client import ask
from zettelclaw.errors import InvalidParamsError
from zettelclaw.protocol import contract as rpc
from zettelclaw.protocol import params as p
from zettelclaw.protocol import results as r


def reindex(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    result = _rebuild(backend)
    if as_json:
        print_json(result.wire())
    else:
        print(f"indexed {result.entries} entries ({result.invalid_lines} invalid "
              f"lines skipped) and {result.memory_files} memory files "
              f"({result.chunks} chunks) in {result.seconds:.1f} s")
    return EXIT_OK


def _rebuild(backend: Backend) -> r.Rebuilt:
    """Rebuild; with a sidecar, draw its progress from `status` while the call runs."""
    from zettelclaw.cli.backend import ProgressBar, SidecarBackend

    if not isinstance(backend, SidecarBackend):
        return ask(backend, rpc.INDEX_REBUILD, p.IndexRebuildParams())
    import threading

    from zettelclaw.client import Client

    bar, done = ProgressBar("reindexing log.jsonl"), threading.Event()

    def watch() -> None:
        with Client(backend.client.socket_path) as client:
            while not done.wait(0.25):
                progress = ask(client, rpc.STATUS, p.StatusParams()).index.progress
                if progress:
                    bar(*progress)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        return ask(backend, rpc.INDEX_REBUILD, p.IndexRebuildParams())
    finally:
        done.set()
        watcher.join(5)


def subjects(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    if args.action in (None, "list"):
        result = ask(backend, rpc.SUBJECTS_LIST, p.SubjectsListParams()).wire()
        show(result, as_json, lambda: render.subjects(result["subjects"]))
        return EXIT_OK
    if args.action == "add":
        added = ask(backend, rpc.SUBJECTS_ADD, p.SubjectsAddParams(
            slug=args.slug, type=args.type, display=args.display or None))
        s = added.subject
        show(added, as_json, lambda: f"added {s.slug} ({s.display}, {s.type})")
        return EXIT_OK
    renamed = ask(backend, rpc.SUBJECTS_RENAME,
                  p.SubjectsRenameParams(**{"from": args.from_slug, "to": args.to_slug}))
    verb = "merged into" if renamed.merged else "renamed to"
    show(renamed, as_json, lambda: f"{renamed.from_} {verb} {renamed.to}: "
                                   f"{renamed.entries_rewritten} log entries rewritten")
    return EXIT_OK


def forget(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    if args.undo:
        if not args.ids or args.session or args.subject or args.text or args.purge:
            raise InvalidParamsError("`forget --undo` takes the ids to give back, only")
        result = ask(backend, rpc.MEMORY_UNFORGET,
                     p.UnforgetParams(ids=args.ids, dryRun=args.dry_run))
    else:
        result = ask(backend, rpc.MEMORY_FORGET, p.ForgetParams(
            purge=args.purge, dryRun=args.dry_run, editFiles=args.edit_files,
            session=args.session, subject=args.subject, text=args.text, ids=args.ids or None))
    wire = result.wire()
    show(wire, as_json, lambda: render.forgot(wire))
    return EXIT_OK


def remember(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    result = ask(backend, rpc.MEMORY_REMEMBER, p.RememberParams(
        type=args.type, content=" ".join(args.content), subject=args.subject,
        detail=args.detail, status=args.status, replaces=args.replaces,
        sessionId=args.session))
    said = ("already remembered: {id} (log.jsonl line {line}); nothing written"
            if result.existing else "remembered {id} (log.jsonl line {line})")
    show(result, as_json, lambda: said.format(id=result.id, line=result.line))
    return EXIT_OK


def vault(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    path = str(Path(args.path).expanduser().absolute()) if args.path else None
    if args.action == "sync":
        if args.from_scratch or args.force:
            raise InvalidParamsError("--from-scratch and --force go with `vault build`")
        synced = ask(backend, rpc.VAULT_SYNC, p.VaultSyncParams(path=path)).wire()
        show(synced, as_json, lambda: render.vault_sync(synced))
        return EXIT_OK
    if args.force and not args.from_scratch:
        raise InvalidParamsError("--force goes with --from-scratch")
    built = ask(backend, rpc.VAULT_BUILD, p.VaultBuildParams(
        path=path, fromScratch=args.from_scratch, force=args.force)).wire()
    show(built, as_json, lambda: render.vault_build(built))
    return EXIT_OK


def briefing(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    workspace = getattr(args, "workspace", None)  # given here: the sidecar may serve another
    result = ask(backend, rpc.BRIEFING_GENERATE, p.BriefingGenerateParams(
        dryRun=args.dry_run,
        workspaceDir=str(Path(workspace).expanduser().absolute()) if workspace else None))
    wire = result.wire()
    show(wire, as_json, lambda: render.briefing_run(wire))
    return EXIT_OK
