"""config.py: defaults, HOME/config.json, the environment and --set, in that rising precedence.

Covers load_config: the defaults without a file; file values (camelCase and snake_case keys,
lists as JSON lists); ZETTELCLAW_<SECTION>_<KEY> in UPPER_SNAKE; ANTHROPIC_API_KEY and
ANTHROPIC_BASE_URL; --set with camelCase and snake_case keys, values containing "=";
precedence --set > env > file > defaults, key by key; comma-separated lists from env and --set;
unrelated ZETTELCLAW_* variables ignored; errors as DataDirError naming their source (the file for
an unknown section, an unknown key or a bad value in it, even when the environment sets another
key of that section; $VAR for an unknown key or a bad value from the environment; --set key for
those from the CLI; a malformed --set; a file that is not JSON or not an object); the API key not
shown in repr; model_id stripping "anthropic/".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from zettelclaw.config import (
    DEFAULT_MODEL,
    BriefingConfig,
    Config,
    CronConfig,
    ExtractionConfig,
    load_config,
    unknown_variables,
)
from zettelclaw.errors import EXIT_USAGE, DataDirError
from zettelclaw.home import Home


def write_config(home: Home, value: Any) -> Path:
    path = home.root / "config.json"
    path.write_text(json.dumps(value) if not isinstance(value, str) else value)
    return path


def test_defaults(home: Home) -> None:
    config = load_config(home, env={})
    assert config == Config()
    ex = config.extraction
    assert ex.model == DEFAULT_MODEL
    assert ex.api_key is None
    assert ex.base_url is None
    assert ex.concurrency == 2
    assert ex.timeout_seconds == 120.0
    assert ex.skip_session_types == ("cron", "sub", "subagent", "hook", "group", "channel")
    assert ex.prune_days == 30
    assert config.briefing == BriefingConfig()
    assert config.briefing.max_lines == 80
    assert config.cron == CronConfig()
    assert config.cron.schedule == "0 3 * * *"


def test_file_values(home: Home) -> None:
    write_config(home, {"extraction": {"model": "claude-opus-4", "concurrency": 4,
                                       "timeoutSeconds": 30, "skipSessionTypes": ["cron"],
                                       "max_tokens": 8000},
                        "briefing": {"maxLines": 60}, "cron": {"schedule": "0 4 * * *",
                                                              "timezone": "Europe/Lisbon"}})
    config = load_config(home, env={})
    assert config.extraction.model == "claude-opus-4"
    assert config.extraction.concurrency == 4
    assert config.extraction.timeout_seconds == 30.0
    assert config.extraction.skip_session_types == ("cron",)
    assert config.extraction.max_tokens == 8000
    assert config.extraction.relevant_entries == 30  # untouched: default
    assert config.briefing.max_lines == 60
    assert (config.cron.schedule, config.cron.timezone) == ("0 4 * * *", "Europe/Lisbon")


def test_environment_variables_in_upper_snake(home: Home) -> None:
    config = load_config(home, env={
        "ZETTELCLAW_EXTRACTION_MODEL": "claude-haiku-4",
        "ZETTELCLAW_EXTRACTION_TIMEOUT_SECONDS": "12.5",
        "ZETTELCLAW_EXTRACTION_MAX_TRANSCRIPT_CHARS": "5000",
        "ZETTELCLAW_BRIEFING_MAX_LINES": "40",
        "ZETTELCLAW_CRON_TIMEZONE": "UTC",
    })
    assert config.extraction.model == "claude-haiku-4"
    assert config.extraction.timeout_seconds == 12.5
    assert config.extraction.max_transcript_chars == 5000
    assert config.briefing.max_lines == 40
    assert config.cron.timezone == "UTC"


def test_the_agents_section_comes_from_the_environment_too(home: Home) -> None:
    """ZETTELCLAW_AGENTS_* were ignored (the pattern listed four sections)."""
    config = load_config(home, env={"ZETTELCLAW_AGENTS_SHARE": "phone:main,tablet:main",
                                    "ZETTELCLAW_AGENTS_IDLE_SECONDS": "90"})
    assert config.agents.share == {"phone": "main", "tablet": "main"}
    assert config.agents.idle_seconds == 90.0


@pytest.mark.parametrize("section", list(Config.model_fields))
def test_every_section_of_the_model_is_read_from_the_environment(home: Home,
                                                                 section: str) -> None:
    """A section added to Config is read from ZETTELCLAW_<SECTION>_<KEY> with nothing else to
    change: an unknown key of each section is refused, naming the variable (so it was read)."""
    var = f"ZETTELCLAW_{section.upper()}_NO_SUCH_KEY"
    with pytest.raises(DataDirError) as info:
        load_config(home, env={var: "1"})
    assert info.value.message.startswith(f"${var}: unknown setting")


def test_an_unknown_zettelclaw_variable_is_reported_not_refused(home: Home) -> None:
    env = {"ZETTELCLAW_EXTRACTON_MODEL": "x", "ZETTELCLAW_HOME": "/x",
           "ZETTELCLAW_SOCKET": "/s", "ZETTELCLAW_AGENTS_SHARE": "phone:main"}
    load_config(home, env=env)  # no error: the variable may be another program's
    warnings = unknown_variables(env)
    assert len(warnings) == 1
    assert warnings[0].startswith("$ZETTELCLAW_EXTRACTON_MODEL is not a Zettelclaw setting")
    assert "ZETTELCLAW_AGENTS_<KEY>" in warnings[0]


def test_a_bad_setting_is_bad_input_exit_2(home: Home) -> None:
    """`serve --set nosuch.key=1` exited 5 ("data directory unusable")."""
    for overrides in (["nosuch.key=1"], ["extraction.model"], ["extraction.modle=x"]):
        with pytest.raises(DataDirError) as info:
            load_config(home, env={}, overrides=overrides)
        assert info.value.exit_code == EXIT_USAGE, overrides
    with pytest.raises(DataDirError) as info:
        load_config(home, env={}, overrides=["extraction.modle=x"])
    assert "did you mean model?" in info.value.message


def test_anthropic_variables(home: Home) -> None:
    config = load_config(home, env={"ANTHROPIC_API_KEY": "sk-ant-test",
                                    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    assert config.extraction.api_key == "sk-ant-test"
    assert config.extraction.base_url == "http://127.0.0.1:9"
    assert "sk-ant-test" not in repr(config)


def test_empty_anthropic_variables_are_ignored(home: Home) -> None:
    write_config(home, {"extraction": {"apiKey": "from-file"}})
    config = load_config(home, env={"ANTHROPIC_API_KEY": "", "ANTHROPIC_BASE_URL": ""})
    assert config.extraction.api_key == "from-file"
    assert config.extraction.base_url is None


def test_unrelated_zettelclaw_variables_are_ignored(home: Home) -> None:
    config = load_config(home, env={"ZETTELCLAW_HOME": "/x", "ZETTELCLAW_WORKSPACE": "/y",
                                    "ZETTELCLAW_FAILPOINT": "after-spool",
                                    "ZETTELCLAW_OTHER_THING": "1"})
    assert config == Config()


@pytest.mark.parametrize("key", ["extraction.maxTokens", "extraction.max_tokens",
                                 "extraction.MAX_TOKENS"])
def test_set_accepts_camel_and_snake_case(home: Home, key: str) -> None:
    config = load_config(home, env={}, overrides=[f"{key}=1024"])
    assert config.extraction.max_tokens == 1024


def test_set_value_may_contain_equals(home: Home) -> None:
    config = load_config(home, env={}, overrides=["extraction.baseUrl=http://h/?a=b"])
    assert config.extraction.base_url == "http://h/?a=b"


def test_set_several_and_repeated(home: Home) -> None:
    config = load_config(home, env={}, overrides=["extraction.concurrency=3",
                                                  "briefing.activeWindow=21",
                                                  "extraction.concurrency=5"])
    assert config.extraction.concurrency == 5
    assert config.briefing.active_window == 21


def test_precedence_set_over_env_over_file_over_defaults(home: Home) -> None:
    write_config(home, {"extraction": {"model": "file-model", "concurrency": 3,
                                       "maxTokens": 2000, "apiKey": "file-key"}})
    env = {"ZETTELCLAW_EXTRACTION_MODEL": "env-model",
           "ZETTELCLAW_EXTRACTION_CONCURRENCY": "6",
           "ANTHROPIC_API_KEY": "env-key"}
    config = load_config(home, env=env, overrides=["extraction.model=cli-model"])
    ex = config.extraction
    assert ex.model == "cli-model"  # --set > env > file
    assert ex.concurrency == 6  # env > file
    assert ex.max_tokens == 2000  # file > default
    assert ex.timeout_seconds == 120.0  # default
    assert ex.api_key == "env-key"  # env > file


def test_zettelclaw_api_key_variable_beats_anthropic_api_key(home: Home) -> None:
    config = load_config(home, env={"ANTHROPIC_API_KEY": "generic",
                                    "ZETTELCLAW_EXTRACTION_API_KEY": "specific"})
    assert config.extraction.api_key == "specific"


def test_lists_are_comma_separated(home: Home) -> None:
    config = load_config(home, env={"ZETTELCLAW_EXTRACTION_SKIP_SESSION_TYPES":
                                    "cron, hook,,subagent "})
    assert config.extraction.skip_session_types == ("cron", "hook", "subagent")
    config = load_config(home, env={}, overrides=["extraction.skipSessionTypes=cron,telegram"])
    assert config.extraction.skip_session_types == ("cron", "telegram")


# -- errors ------------------------------------------------------------------------------------


def test_unknown_section_in_the_file(home: Home) -> None:
    path = write_config(home, {"extraction": {}, "memory": {"x": 1}})
    with pytest.raises(DataDirError) as info:
        load_config(home, env={})
    assert str(path) in info.value.message
    assert "memory" in info.value.message


def test_unknown_key_in_the_file(home: Home) -> None:
    path = write_config(home, {"extraction": {"modle": "x"}})
    with pytest.raises(DataDirError) as info:
        load_config(home, env={})
    assert str(path) in info.value.message
    assert "modle" in info.value.message


def test_bad_value_in_the_file(home: Home) -> None:
    path = write_config(home, {"extraction": {"concurrency": 0}})
    with pytest.raises(DataDirError) as info:
        load_config(home, env={})
    assert str(path) in info.value.message
    assert "concurrency" in info.value.message


def test_bad_value_in_the_file_is_blamed_on_the_file_not_the_env(home: Home) -> None:
    path = write_config(home, {"extraction": {"concurrency": 0}})
    with pytest.raises(DataDirError) as info:
        load_config(home, env={"ZETTELCLAW_EXTRACTION_MODEL": "claude-haiku-4"},
                    overrides=["extraction.maxTokens=1024"])
    assert info.value.message.startswith(str(path))
    assert "concurrency" in info.value.message
    assert "ZETTELCLAW_EXTRACTION_MODEL" not in info.value.message
    assert "--set" not in info.value.message


@pytest.mark.parametrize(("var", "value"), [("ZETTELCLAW_EXTRACTION_CONCURRENCY", "lots"),
                                            ("ZETTELCLAW_EXTRACTION_TIMEOUT_SECONDS", "-1")])
def test_bad_env_value_is_blamed_on_the_variable_not_a_later_set(home: Home, var: str,
                                                                 value: str) -> None:
    write_config(home, {"extraction": {"model": "file-model"}})
    with pytest.raises(DataDirError) as info:
        load_config(home, env={var: value}, overrides=["extraction.model=x"])
    assert info.value.message.startswith(f"${var}")


@pytest.mark.parametrize(("var", "value"), [
    ("ZETTELCLAW_EXTRACTION_CONCURRENCY", "lots"),
    ("ZETTELCLAW_EXTRACTION_CONCURRENCY", "99"),
    ("ZETTELCLAW_EXTRACTION_TIMEOUT_SECONDS", "-1"),
    ("ZETTELCLAW_BRIEFING_MAX_LINES", "5"),
])
def test_bad_value_from_the_environment_names_the_variable(home: Home, var: str,
                                                           value: str) -> None:
    with pytest.raises(DataDirError) as info:
        load_config(home, env={var: value})
    assert info.value.message.startswith(f"${var}")


def test_unknown_key_from_the_environment_names_the_variable(home: Home) -> None:
    with pytest.raises(DataDirError) as info:
        load_config(home, env={"ZETTELCLAW_EXTRACTION_TEMPERATURE": "0.2"})
    assert info.value.message.startswith("$ZETTELCLAW_EXTRACTION_TEMPERATURE")
    assert "maxTokens" in info.value.message  # the known keys are listed


@pytest.mark.parametrize(("item", "named"), [
    ("extraction.concurrency=0", "--set extraction.concurrency"),
    ("extraction.concurrency=two", "--set extraction.concurrency"),
    ("extraction.bogus=1", "--set extraction.bogus"),
    ("memory.model=x", "--set memory.model"),
    ("extraction.model", "--set 'extraction.model'"),
    ("model=x", "--set 'model=x'"),
])
def test_bad_set_names_the_key(home: Home, item: str, named: str) -> None:
    with pytest.raises(DataDirError) as info:
        load_config(home, env={}, overrides=[item])
    assert info.value.message.startswith(named)


def test_a_file_that_is_not_json(home: Home) -> None:
    path = write_config(home, "{extraction: ")
    with pytest.raises(DataDirError) as info:
        load_config(home, env={})
    assert str(path) in info.value.message


def test_a_file_that_is_not_an_object(home: Home) -> None:
    path = write_config(home, [1, 2])
    with pytest.raises(DataDirError) as info:
        load_config(home, env={})
    assert str(path) in info.value.message


def test_a_section_that_is_not_an_object(home: Home) -> None:
    path = write_config(home, {"extraction": "claude"})
    with pytest.raises(DataDirError) as info:
        load_config(home, env={})
    assert str(path) in info.value.message


# -- model_id ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("model", "model_id"), [
    ("anthropic/claude-sonnet-4-6", "claude-sonnet-4-6"),
    ("claude-sonnet-4-6", "claude-sonnet-4-6"),
    ("anthropic/anthropic/x", "anthropic/x"),
])
def test_model_id_strips_the_provider_prefix(model: str, model_id: str) -> None:
    assert ExtractionConfig(model=model).model_id == model_id


def test_model_id_from_set(home: Home) -> None:
    config = load_config(home, env={}, overrides=["extraction.model=anthropic/claude-x"])
    assert config.extraction.model == "anthropic/claude-x"
    assert config.extraction.model_id == "claude-x"
