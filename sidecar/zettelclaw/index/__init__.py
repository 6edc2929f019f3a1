"""The index: everything derived from the log (and the workspace's memory files), rebuildable
from them. ``HOME/index.sqlite`` and the term index beside it (``HOME/terms``, tantivy).

The one package that knows the index's schema and SQL: ``database`` (schema, connections),
``ingest`` (reading the log into it), ``entries`` (the entry repository), the term index of the
log's entries (``terms``, one shard each in ``term_shard``, written by ``terms_update`` and, for
a large build, ``terms_follower``; ``term_documents`` and ``term_query``), ``keyword`` (the
candidates of the term index and of FTS5 over the memory files, whose queries ``fts`` makes),
``ranking`` (scores), ``digest`` (the briefing's reads), ``vectors`` (semantic search's table),
``file_chunks`` and ``chunking`` (the workspace's memory files), ``counts`` and
``subject_counts`` (kept, not counted), ``freshness`` (keeping it as fresh as the log, blocking)
and ``syncer`` (the same from trio). It depends on the log, the subject registry and the
workspace's files, never on what searches or briefs with it.
"""
