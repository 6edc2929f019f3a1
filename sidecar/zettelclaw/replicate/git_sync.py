"""Sync through git: ``init``, one ``sync`` (pull, then push), ``status``.

One sync, under ``HOME/replicate/sync.lock`` (not the data lock: the network is slow; the data
lock is taken only to append what came in):

1. fetch the remote's branch; reset the local clone to it (a local commit not pushed is made
   again below, from the cursor). When the commit read last is not an ancestor of it, the
   history was rewritten by a purge: every file is read again from the top, and the clone's
   old objects are pruned;
2. apply the purges recorded there that this machine has not applied (``purge_local``), and
   acknowledge each in ``acks/<machine>.json``;
3. read the other machines' files from where the last sync stopped into the log
   (``ingest.take_foreign``);
4. record this machine's own new purges (``purges/<id>.json``) and rewrite the history without
   their lines (``rewrite.py``, git-filter-repo);
5. append this machine's new lines to its own file, commit, push (forced, with a lease on the
   commit fetched, after a rewrite). A push refused because another machine pushed first starts
   again at 1: the files are disjoint, so the retry always succeeds once the remote is still.

A failure (unreachable, refused, corrupt, a key missing) raises ``SyncError`` before anything
local changed, or after only whole steps (each is safe to run again); the log is never
touched but by ``take_foreign`` and ``purge_local``.
"""

from __future__ import annotations

import logging
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from zettelclaw import failpoints, lock
from zettelclaw.errors import SyncError
from zettelclaw.home import Home
from zettelclaw.log.schema import new_id, now_timestamp
from zettelclaw.replicate import crypt, layout
from zettelclaw.replicate.gitcli import Git, said
from zettelclaw.replicate.ingest import ForeignLine, Replica
from zettelclaw.replicate.settings import (
    Settings,
    State,
    load_state,
    lock_path,
    repo_path,
    require_settings,
    save_settings,
    save_state,
)

logger = logging.getLogger(__name__)

ENGINE = "git"
TRIES = 12
PurgeLocal = Callable[[list[str]], object]


@dataclass
class SyncReport:
    pulled: int = 0  # lines appended to the local log
    pushed: int = 0  # lines published
    purges_applied: int = 0
    purges_published: int = 0
    rewritten: bool = False  # the remote's history was rewritten (by a purge, here or there)
    tries: int = 0
    seconds: float = 0.0
    remote_bytes: int = 0  # bytes appended to this machine's file
    steps: list[str] = field(default_factory=list)


def _is_local_path(remote: str) -> bool:
    """A path, not a URL nor scp-like ``host:path``."""
    return remote.startswith(("/", "~", ".")) or (
        "://" not in remote and ":" not in remote.split("/", 1)[0])


def init(home: Home, remote: str, *, key: str | None = None, new_key: bool = False
         ) -> dict[str, object]:
    """Set up sync of this memory with ``remote``: checked reachable first (nothing is written
    when it is not). ``key``: an age secret key's text (a new machine of an encrypted memory);
    ``new_key``: make one (the first machine)."""
    home.ensure()
    replica = Replica(home)
    git = Git(repo_path(home), replica.machine_id)
    if _is_local_path(remote):
        remote = str(Path(remote).expanduser().absolute())
    reached = git.run("ls-remote", "--heads", remote, network=True, cwd=home.root, check=False)
    if reached.returncode != 0:
        raise SyncError(f"cannot reach the remote {remote}: {said(reached)}; nothing was set up")
    if key is not None and new_key:
        raise SyncError("give a key or ask for a new one, not both")
    with lock.exclusive(lock_path(home), timeout=60):
        if key is not None:
            crypt.save(home, crypt.parse_key(key, "the key given"))
        elif new_key and crypt.load(home) is None:
            crypt.generate(home)
        repo = repo_path(home)
        if not (repo / ".git").is_dir():
            shutil.rmtree(repo, ignore_errors=True)
            git.run("init", "-q", str(repo), cwd=home.root)
        if git.run("remote", "get-url", "origin", check=False).returncode == 0:
            git.run("remote", "set-url", "origin", remote)
        else:
            git.run("remote", "add", "origin", remote)
        save_settings(home, Settings(remote))
        state = load_state(home)
        state.seen = None
        state.read = {}
        save_state(home, state)
    identity = crypt.load(home)
    return {"remote": remote, "machine": replica.machine_id,
            "encrypted": identity is not None,
            "keyFile": str(crypt.key_path(home)) if identity is not None else None}


def sync(home: Home, purge_local: PurgeLocal, *, wait: float = 60.0) -> SyncReport:
    """One sync (see the module's docstring)."""
    settings = require_settings(home)
    started = time.monotonic()
    with lock.exclusive(lock_path(home), timeout=wait):
        report = SyncReport()
        state = load_state(home)
        try:
            _Sync(home, settings, purge_local, state, report).run()
        except SyncError as exc:
            state = load_state(home)
            state.last = {"at": now_timestamp(), "ok": False, "error": exc.message}
            save_state(home, state)
            raise
        report.seconds = round(time.monotonic() - started, 3)
        state = load_state(home)
        state.last = {"at": now_timestamp(), "ok": True, **{
            k: v for k, v in asdict(report).items() if k != "steps"}}
        save_state(home, state)
        return report


class _Sync:
    def __init__(self, home: Home, settings: Settings, purge_local: PurgeLocal, state: State,
                 report: SyncReport) -> None:
        self.home = home
        self.settings = settings
        self.purge_local = purge_local
        self.state = state
        self.report = report
        self.replica = Replica(home)
        self.me = self.replica.machine_id
        self.repo = repo_path(home)
        self.git = Git(self.repo, self.me)
        self.identity = crypt.load(home)
        if not (self.repo / ".git").is_dir():
            raise SyncError(f"{self.repo} is missing: run `zettelclaw sync init "
                            f"{settings.remote}` again")

    @property
    def branch(self) -> str:
        return self.settings.branch

    def run(self) -> None:
        for attempt in range(1, TRIES + 1):
            self.report.tries = attempt
            head = self._fetch()
            self._check_marker(head)
            self._apply_purges()
            self._pull(head)
            rewrote = self._publish_purges()
            if self._push(head, force=rewrote):
                return
            logger.info("sync: the remote moved during the push; again (try %d)", attempt)
            # machines that push at the same moment would collide again in step: a random
            # pause, growing, spreads them out
            time.sleep(random.uniform(0, min(2.0, 0.05 * 2 ** attempt)))  # noqa: S311
        raise SyncError(f"the remote kept moving: {TRIES} pushes refused in a row")

    # -- 1 --------------------------------------------------------------------------------

    def _fetch(self) -> str | None:
        ref = f"refs/remotes/origin/{self.branch}"
        # a remote without the branch yet (a new, empty repository) is not an error
        listed = self.git.run("ls-remote", "--heads", "origin", self.branch, network=True,
                              check=False)
        if listed.returncode != 0:
            raise SyncError(f"cannot reach the remote {self.settings.remote}: {said(listed)}; "
                            "the local memory is unchanged")
        if not listed.stdout.strip():
            self.git.run("checkout", "-q", "--orphan", self.branch, check=False)
            self.git.run("rm", "-rfq", "--cached", ".", check=False)
            self._clean_worktree()
            return None
        self.git.run("fetch", "-q", "origin", f"+refs/heads/{self.branch}:{ref}",
                     network=True)
        head = self.git.text("rev-parse", "--verify", ref)
        seen = self.state.seen
        if seen and self.git.run("merge-base", "--is-ancestor", seen, head,
                                 check=False).returncode != 0:
            self.report.rewritten = True
            self.state.read = {}
        self.git.run("checkout", "-q", "-B", self.branch, head)
        self.git.run("reset", "-q", "--hard", head)
        self.git.run("clean", "-qfdx")
        if self.report.rewritten:  # the purged lines' old objects leave this clone too
            self.git.run("reflog", "expire", "--expire=now", "--all")
            self.git.run("gc", "-q", "--prune=now")
        return head

    def _clean_worktree(self) -> None:
        for child in self.repo.iterdir():
            if child.name != ".git":
                shutil.rmtree(child) if child.is_dir() else child.unlink()

    def _check_marker(self, head: str | None) -> None:
        marker = layout.read_marker(self.repo)
        mine = crypt.recipient(self.identity) if self.identity is not None else None
        if marker is None:
            if head is not None and (self.repo / "machines").exists():
                raise SyncError(f"{self.settings.remote} is not a Zettelclaw sync repository "
                                f"({layout.MARKER} is missing)")
            if head is not None and any(p.name != ".git" for p in self.repo.iterdir()):
                raise SyncError(f"{self.settings.remote} holds other files: not a Zettelclaw "
                                "sync repository; give an empty repository")
            layout.write_marker(self.repo, mine)
            return
        if marker.recipient != mine:
            if marker.recipient is None:
                raise SyncError("this machine has a key but the sync repository is not "
                                "encrypted: remove HOME/replicate/key or use another remote")
            if mine is None:
                raise SyncError("the sync repository is encrypted and this machine has no "
                                "key: copy the key file from a machine that syncs this memory "
                                "and run `zettelclaw sync init REMOTE --key-file FILE`")
            raise SyncError("the sync repository is encrypted to another key than this "
                            "machine's: copy the key file from a machine that syncs it")

    # -- 2 --------------------------------------------------------------------------------

    def _apply_purges(self) -> None:
        for purge in layout.purges(self.repo):
            if purge.id in self.state.applied:
                continue
            with lock.exclusive(self.home.lock):
                self.replica.add_purged(purge.ids)
            if purge.machine != self.me:
                self.purge_local(purge.ids)
                self.report.purges_applied += 1
            at = now_timestamp()
            layout.write_ack(self.repo, self.me, purge.id, at)
            self.state.applied[purge.id] = at
            save_state(self.home, self.state)

    # -- 3 --------------------------------------------------------------------------------

    def _pull(self, head: str | None) -> None:
        batch: list[ForeignLine] = []
        moved: dict[str, list[int]] = {}
        for machine in layout.machines(self.repo):
            if machine == self.me:
                continue
            for number, path in enumerate(layout.segments(self.repo, machine)):
                name = path.relative_to(self.repo).as_posix()
                offset, lines = self.state.read.get(name, [0, 0])
                if path.stat().st_size < offset:  # changed under us: read it all again
                    offset, lines = 0, 0
                found, offset, lines = layout.read_new(path, offset, self.identity, number,
                                                       lines)
                batch.extend(ForeignLine(machine, seq, data) for seq, data in found)
                moved[name] = [offset, lines]
        if batch:
            taken = self.replica.take_foreign(batch)
            self.report.pulled += taken.appended
        self.state.read.update(moved)
        self.state.seen = head
        save_state(self.home, self.state)

    # -- 4 --------------------------------------------------------------------------------

    def _publish_purges(self) -> bool:
        recorded = {i for purge in layout.purges(self.repo) for i in purge.ids}
        new = sorted(self.replica.purged.ids() - recorded)
        if not new:
            return False
        purge = layout.Purge(new_id(), new, self.me, now_timestamp())
        layout.write_purge(self.repo, purge)
        layout.write_ack(self.repo, self.me, purge.id, purge.at)
        self.git.run("add", "-A")
        self.git.run("commit", "-q", "-m", f"purge {purge.id} ({len(new)} ids)")
        self._rewrite(new)
        self.state.applied[purge.id] = purge.at
        save_state(self.home, self.state)
        self.report.purges_published += 1
        return True

    def _rewrite(self, ids: list[str]) -> None:
        import subprocess
        import sys

        with tempfile.NamedTemporaryFile("w", dir=self.home.root / "replicate",
                                         delete=False) as f:
            f.write("\n".join(ids))
        try:
            done = subprocess.run(
                [sys.executable, "-m", "zettelclaw.replicate.rewrite", str(self.home.root),
                 f.name], cwd=self.repo, capture_output=True, check=False, timeout=3600)
        finally:
            os.unlink(f.name)
        if done.returncode != 0:
            raise SyncError(f"rewriting the sync repository's history failed: "
                            f"{done.stderr.decode(errors='replace').strip()[-400:]}")
        self.git.run("reflog", "expire", "--expire=now", "--all")
        self.git.run("gc", "-q", "--prune=now")
        self.report.rewritten = True

    # -- 5 --------------------------------------------------------------------------------

    def _push(self, head: str | None, *, force: bool) -> bool:
        cursor = self.replica.load_cursor(ENGINE)
        own = self.replica.own_lines_since(cursor)
        purged = self.replica.purged.ids()
        published: set[str] = set()
        if own.lines:
            for path in layout.segments(self.repo, self.me):
                published |= layout.ids_in(path, self.identity)
        fresh = [line for line in own.lines if line.id not in published and line.id not in purged]
        if fresh:
            self.report.remote_bytes += layout.append_own(
                self.repo, self.me, [line.data for line in fresh], self.identity)
        layout.announce(self.repo, self.me)
        self.git.run("add", "-A")
        changed = self.git.run("diff", "--cached", "--quiet", check=False).returncode != 0
        if changed:
            self.git.run("commit", "-q", "-m", f"{self.me}: {len(fresh)} lines")
            failpoints.reach("sync-after-commit")
        local = self.git.text("rev-parse", "HEAD") if changed or force else head
        if local is not None and local != head:
            args = ["push", "-q", "origin", f"HEAD:refs/heads/{self.branch}"]
            if force or head is None:
                lease = head or ""
                args.insert(2, f"--force-with-lease=refs/heads/{self.branch}:{lease}")
            done = self.git.run(*args, network=True, check=False)
            if done.returncode != 0:
                text = done.stderr.decode(errors="replace")
                if "rejected" in text or "stale info" in text or "fetch first" in text:
                    return False
                raise SyncError(f"git push failed: {said(done)}")
            if force and _is_local_path(self.settings.remote):
                self._prune_remote()
            failpoints.reach("sync-after-push")
        self.replica.save_cursor(ENGINE, own.cursor)
        self.report.pushed += len(fresh)
        self.state.seen = local
        save_state(self.home, self.state)
        return True

    def _prune_remote(self) -> None:
        """A remote on a path: its unreachable objects (the purged lines) pruned now. A Git
        host prunes on its own schedule (docs/14-sync.md)."""
        remote = Path(self.settings.remote)
        self.git.run("reflog", "expire", "--expire=now", "--all", cwd=remote)
        self.git.run("gc", "-q", "--prune=now", cwd=remote)
