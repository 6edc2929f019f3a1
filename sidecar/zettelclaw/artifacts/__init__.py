"""A memory's public artifacts: the files a host's companion plugins may read (the
bundled memory-wiki of OpenClaw, in bridge mode): the briefing (the workspace's MEMORY.md), the
vault's pages (``vault/``), and an export of the log's current entries (JSON). Listed by
``artifacts.list``; off unless the owner turns ``artifacts.publish`` on, since what a companion
plugin copies leaves the sidecar's privacy rules behind (docs/12-openclaw-surfaces.md)."""
