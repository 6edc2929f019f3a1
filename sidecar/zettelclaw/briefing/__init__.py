"""The briefing: the generated block of the workspace's MEMORY.md (spec §5), and its schedule.

- ``sections``: what the block says, computed from the index with no model;
- ``model``: the optional model step (Active summaries, contradiction flags);
- ``render``: the block's lines within the line budget;
- ``markers``: replacing the block between the markers, a pure text function;
- ``memory_md``: which file that is, reading it and replacing it atomically;
- ``service``: one run (``briefing.generate``) and the ``status`` object;
- ``cron``, ``zones``, ``scheduler``: when the sidecar runs it by itself;
- ``record``: the ``briefing`` record in state.json.
"""
