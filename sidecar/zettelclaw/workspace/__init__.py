"""The agent's workspace as Zettelclaw sees it: MEMORY.md and memory/*.md, read safely.

``memory_files`` (listing and reading them without leaving the workspace), ``memory_md`` (the
MEMORY.md the briefing writes), ``markers`` (the briefing block's markers inside it).
"""
