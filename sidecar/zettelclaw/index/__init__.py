"""The search index (SQLite, ``HOME/index.sqlite``): derived from the log, rebuildable from it.

The one package that knows the index's schema and SQL: ``database`` (schema, connections),
``ingest`` (reading the log into it), ``entries`` (the entry repository), ``keyword`` and
``fts`` (FTS5 matches), ``ranking`` (scores, in Python and in SQL side by side), ``digest``
(the briefing's reads), ``vectors`` (semantic search's table), ``file_chunks`` and ``chunking``
(the workspace's memory files), ``freshness`` (keeping it as fresh as the log, blocking) and
``syncer`` (the same from trio). It depends on the log, the subject registry and the
workspace's files, never on what searches or briefs with it.
"""
