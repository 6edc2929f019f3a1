"""The Markdown view of one memory (docs/09-vault.md): an Obsidian vault rendered from the log.

``build`` appends what is new to daily journals and topic pages and never rewrites a line
(human edits stay); ``sync`` turns the person's edits of rendered lines into corrections
appended to the log (``replaces``). What was rendered is derived state beside the index
(``vault-state/`` in the memory's directory).
"""
