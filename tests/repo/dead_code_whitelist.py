"""What vulture (tests/repo/test_dead_code.py) takes for unused but is used: pydantic's fields, validators
and model_config, attributes set for a library (onnxruntime's session options, sqlite3's
row_factory), counters the tests read, named tuple fields, the failpoints' documented names.
Made with ``vulture sidecar/zettelclaw --min-confidence 60 --make-whitelist``; a line is added
here only for a name that is used where vulture cannot see it. Not imported, not type-checked."""

_.opened  # unused attribute (sidecar/zettelclaw/agents/pool.py:99)
_.opened  # unused attribute (sidecar/zettelclaw/agents/pool.py:180)
_.opened  # unused attribute (sidecar/zettelclaw/agents/pool.py:300)
_.runs  # unused attribute (sidecar/zettelclaw/briefing/scheduler.py:55)
_.runs  # unused attribute (sidecar/zettelclaw/briefing/scheduler.py:99)
exc_type  # unused variable (sidecar/zettelclaw/client.py:134)
tb  # unused variable (sidecar/zettelclaw/client.py:135)
model_config  # unused variable (sidecar/zettelclaw/config.py:43)
_._schedule  # unused method (sidecar/zettelclaw/config.py:85)
_._timezone  # unused method (sidecar/zettelclaw/config.py:91)
_._share  # unused method (sidecar/zettelclaw/config.py:124)
_._strip  # unused method (sidecar/zettelclaw/config.py:162)
model_config  # unused variable (sidecar/zettelclaw/extraction/spool.py:45)
POINTS  # unused variable (sidecar/zettelclaw/failpoints.py:18)
TERM_POINTS  # unused variable (sidecar/zettelclaw/failpoints.py:28)
_.row_factory  # unused attribute (sidecar/zettelclaw/index/database.py:219)
dev  # unused variable (sidecar/zettelclaw/index/log_fingerprint.py:26)
ino  # unused variable (sidecar/zettelclaw/index/log_fingerprint.py:27)
mtime_ns  # unused variable (sidecar/zettelclaw/index/log_fingerprint.py:29)
tb  # unused variable (sidecar/zettelclaw/index/terms_follower.py:83)
model_config  # unused variable (sidecar/zettelclaw/llm/host.py:71)
_.blank  # unused property (sidecar/zettelclaw/log/lines.py:57)
model_config  # unused variable (sidecar/zettelclaw/log/schema.py:95)
repaired_tail  # unused variable (sidecar/zettelclaw/log/store.py:28)
model_config  # unused variable (sidecar/zettelclaw/protocol/params.py:32)
_._agent_named  # unused method (sidecar/zettelclaw/protocol/params.py:62)
_._date  # unused method (sidecar/zettelclaw/protocol/params.py:130)
_._differ  # unused method (sidecar/zettelclaw/protocol/params.py:163)
updated_at  # unused variable (sidecar/zettelclaw/protocol/params.py:235)
_._agent_named  # unused method (sidecar/zettelclaw/protocol/params.py:237)
_._id  # unused method (sidecar/zettelclaw/protocol/params.py:274)
_.intra_op_num_threads  # unused attribute (sidecar/zettelclaw/search/local_model.py:85)
_.inter_op_num_threads  # unused attribute (sidecar/zettelclaw/search/local_model.py:86)
_.enable_mem_pattern  # unused attribute (sidecar/zettelclaw/search/local_model.py:92)
model_config  # unused variable (sidecar/zettelclaw/subjects/registry.py:34)
_.PURGE_POINTS  # unused variable (sidecar/zettelclaw/failpoints.py): the purge's points, named for ZETTELCLAW_FAILPOINT
_.IMPORT_POINTS  # likewise: an import's points (tests/importing/test_import_crash.py)
_._something_named  # unused method (sidecar/zettelclaw/protocol/params.py): a pydantic validator
_._embeddings_named  # unused method (sidecar/zettelclaw/protocol/params.py): a pydantic validator
_.syncs  # (sidecar/zettelclaw/vault/watch.py): how many syncs and builds the watcher made, what its tests observe
_.builds  # likewise
_.__signature__  # (sidecar/zettelclaw/cli/mcp_server.py): read by inspect.signature in the SDK
last_job  # (sidecar/zettelclaw/state.py): state.json's record of a session's last job, for people reading the file
_.pushed_total  # (sidecar/zettelclaw/replicate/team.py): team-state.json's counts, read by `team status`
_.appended_total  # likewise
_.last_round  # likewise
_.rounds  # (sidecar/zettelclaw/replicate/team_task.py): rounds done, for tests and a debugger
REPLICATE_POINTS  # unused variable (sidecar/zettelclaw/failpoints.py: the documented names)
TEAM_POINTS  # unused variable (sidecar/zettelclaw/failpoints.py: the documented names; tests/replicate/test_team_round.py)
_._one_key  # unused method (sidecar/zettelclaw/protocol/sync_models.py: a pydantic validator)
encrypted  # unused variable (sidecar/zettelclaw/protocol/sync_models.py: a result field)
unconfirmed  # unused variable (sidecar/zettelclaw/protocol/sync_models.py: a result field)
unpublished  # unused variable (sidecar/zettelclaw/protocol/sync_models.py: a result field)
_.yaml_implicit_resolvers  # unused variable (sidecar/zettelclaw/importing/sources/clawvault.py: PyYAML reads it, the loader's own resolvers)
