"""Bringing a user's history in: past OpenClaw sessions, memory-core's files, ChatGPT and
Claude exports, ClawVault vaults (docs/13-import.md).

``sources/`` read a source's files into the items of ``items.py`` and nothing else: no log, no
spool, no model. What becomes of an item (a conversation through extraction, a note straight to
the log) is decided above them, once for every source.
"""
