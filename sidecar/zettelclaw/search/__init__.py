"""The search index: a SQLite file derived from the log, never the truth, rebuilt at will."""
