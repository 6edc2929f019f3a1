"""Extraction: finished conversations become log entries, durably and exactly once.

intake (hooks spool jobs) -> worker (model call, result saved) -> log append -> job done.
"""
