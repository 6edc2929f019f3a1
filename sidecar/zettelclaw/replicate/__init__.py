"""Replication: one memory across machines (docs/14-sync.md). ``ingest`` is the engine-neutral
core (machine id, foreign lines in, own lines out); ``git_sync`` and the other modules are the
git engine on top of it."""
