"""One memory per agent: which memory a call reads and writes, where it lives, and keeping the
open ones few. ``roster``: which agents exist, where their memories and workspaces are;
``upgrade``: what moves when a single-agent home is upgraded; ``pool``: the open memories,
opened on first use and closed when idle; ``briefings``: the schedule over every memory.
Agent ids themselves (and the agent a call names) are ``agent_ids.py``, a leaf module."""
