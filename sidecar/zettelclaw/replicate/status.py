"""``sync status``: what the last sync did, what waits to be published, and the purges each
machine has not confirmed yet. Read from the data directory and the local clone as the last
sync left it: no network, so it answers offline and while the remote is down."""

from __future__ import annotations

from typing import Any

from zettelclaw.home import Home
from zettelclaw.replicate import crypt, layout
from zettelclaw.replicate.git_sync import ENGINE
from zettelclaw.replicate.ingest import Replica
from zettelclaw.replicate.settings import load_settings, load_state, repo_path

LAST = ("at", "ok", "error", "pulled", "pushed", "seconds")


def status(home: Home) -> dict[str, Any]:
    home.ensure()
    replica = Replica(home)
    settings = load_settings(home)
    answer: dict[str, Any] = {"configured": settings is not None, "machine": replica.machine_id,
                              "remote": None, "encrypted": crypt.key_path(home).exists(),
                              "machines": [], "unpublished": 0, "last": None, "purges": []}
    if settings is None:
        return answer
    state = load_state(home)
    repo = repo_path(home)
    published: set[str] = set()
    for path in layout.segments(repo, replica.machine_id):
        published |= layout.ids_in(path, crypt.load(home))
    own = replica.own_lines_since(replica.load_cursor(ENGINE))
    purged = replica.purged.ids()
    machines = sorted(set(layout.machines(repo)) | set(layout.acks(repo))
                      | {replica.machine_id})
    acks = layout.acks(repo)
    purges = []
    for purge in layout.purges(repo):
        confirmed = sorted(m for m in machines if purge.id in acks.get(m, {}))
        if purge.id in state.applied and replica.machine_id not in confirmed:
            confirmed.append(replica.machine_id)  # applied here; the ack goes with the next push
        purges.append({"id": purge.id, "at": purge.at, "by": purge.machine,
                       "ids": len(purge.ids), "confirmed": sorted(confirmed),
                       "unconfirmed": [m for m in machines if m not in confirmed]})
    answer.update(remote=settings.remote, machines=machines,
                  unpublished=sum(1 for line in own.lines
                                  if line.id not in published and line.id not in purged),
                  last={k: v for k, v in state.last.items() if k in LAST} or None,
                  purges=purges)
    return answer
