"""The briefing: the generated block of the workspace's MEMORY.md, and its schedule.

What it holds and when it is written: docs/05-recall.md#the-briefing-in-detail.

- ``sections``: what the block says, computed from the index (``index/digest.py``), no model;
- ``summaries``: the optional model step (Active summaries, contradiction flags);
- ``render``: the block's lines within the line budget;
- ``service``: one run (``briefing.generate``) and the ``status`` object;
- ``scheduler``: when the sidecar runs it by itself (``schedule.py``: cron, time zone);
- ``record``: the ``briefing`` record in state.json.

The file itself and its markers are the workspace's (``workspace/memory_md.py``, ``markers``).
"""
