"""The agents' memory tools (memory-core's ``memory_search`` and ``memory_get``, and the owner's
``memory_remember`` and ``memory_forget``), defined once for every front end.

Each tool is a method of the contract (``contract.py``) seen by a model: its name, title and
description, and the arguments it shows, each a field of the method's params model (its type
and limits are the model's; only the description is the tool's). Arguments reach the sidecar as
they are: what they mean (memory-core's corpus names included) is the params model's to decide.
A tool may have an argument of its own that chooses another method (``undo``).

``python -m zettelclaw.protocol.tools --write`` writes the plugin's
``clients/openclaw/src/tool_schemas.ts``; the MCP server (cli/mcp_server.py) builds its tools
from ``TOOLS`` here. tests/protocol/test_tool_schemas.py fails when the committed file is stale.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo

from zettelclaw.protocol.contract import (
    MEMORY_FORGET,
    MEMORY_GET,
    MEMORY_REMEMBER,
    MEMORY_SEARCH,
    MEMORY_UNFORGET,
    Rpc,
)
from zettelclaw.protocol.generated import write_or_print

TS_FILE = (Path(__file__).resolve().parents[3] / "clients" / "openclaw" / "src"
           / "tool_schemas.ts")


@dataclass(frozen=True)
class Route:
    """Where a call goes: the method ``rpc``, when the boolean argument ``when`` is true (or
    always, when None), with those of the tool's arguments that the method's params take."""

    rpc: Rpc[Any, Any]
    when: str | None = None

    @property
    def method(self) -> str:
        return self.rpc.name


@dataclass(frozen=True)
class AgentTool:
    name: str
    title: str
    description: str
    # the arguments as the wire spells them, each a field of the first route's params model
    args: dict[str, str]
    required: tuple[str, ...] = ()
    # arguments of the tool's own (a boolean that chooses a route): name -> description
    flags: dict[str, str] = field(default_factory=dict)
    routes: tuple[Route, ...] = ()


ENTRY_TYPES = "fact (learned), decision (chosen, why in detail), task, question (open), handoff."

TOOLS: tuple[AgentTool, ...] = (
    AgentTool(
        name="memory_search", title="Memory Search",
        description=(
            "Mandatory recall step: search long-term memory (Zettelclaw's log of facts, decisions, "
            "tasks, questions and session handoffs, and MEMORY.md / memory/*.md) before answering "
            "questions about prior work, decisions, dates, people, preferences or todos. Best "
            "matches first; filter log entries by type, subject and task status. Corrected entries "
            "are hidden unless includeReplaced. A log result's path is its entry id, a file "
            "result's path its file: pass either to memory_get."),
        args={
            "query": ("Keywords. An empty string with filters lists the matching entries, newest "
                      "first."),
            "maxResults": "At most this many results (default 10).",
            "minScore": "Leave out results scoring below this (0..1).",
            "corpus": ("What to search: all (default), log (the entries), files (MEMORY.md and "
                       "memory/*.md). memory-core's names are accepted too: memory = all, "
                       "sessions = log, wiki = files."),
            "type": "Only entries of this type.",
            "subject": ("Only entries about this subject (a kebab-case slug, e.g. "
                        "auth-migration)."),
            "status": "Only tasks with this status.",
            "includeReplaced": "Also return entries that were corrected later (default false).",
        },
        required=("query",), routes=(Route(MEMORY_SEARCH),)),
    AgentTool(
        name="memory_get", title="Memory Get",
        description=(
            "Safe exact read from memory: a log entry by its id (with the versions it replaced or "
            "that replaced it), the conversation an entry came from (`session:<sessionId>`), or "
            "MEMORY.md and memory/*.md by path."),
        args={
            "path": ("An entry id from memory_search (12 characters), `session:<sessionId>` for "
                     "the conversation an entry came from, or MEMORY.md / memory/*.md."),
            "from": "First line to return (files and sessions).",
            "lines": "How many lines to return.",
            "corpus": "Accepted for compatibility with memory-core; ignored.",
        },
        required=("path",), routes=(Route(MEMORY_GET),)),
    AgentTool(
        name="memory_remember", title="Memory Remember",
        description=(
            "Write one entry to long-term memory now, when the user explicitly asks you to "
            "remember something (\"remember that...\", \"note this\", \"don't forget...\"). Do not "
            "use it for things merely mentioned: conversations are extracted into memory "
            "automatically when they end, and an entry written here is not extracted again. One "
            "fact or decision per call. Answers the entry's id: tell the user it was remembered."),
        args={
            "type": ENTRY_TYPES,
            "content": "The entry, one sentence to a short paragraph, in the user's terms.",
            "detail": "Why, background, constraints (optional).",
            "subject": "A kebab-case slug, e.g. auth-migration (optional).",
            "status": "A task's status (default open).",
            "replaces": "The id of the entry this one corrects (from memory_search).",
        },
        required=("type", "content"), routes=(Route(MEMORY_REMEMBER),)),
    AgentTool(
        name="memory_forget", title="Memory Forget",
        description=(
            "Remove entries from long-term memory when the user asks to forget something "
            "(\"forget that\", \"that's wrong, drop it\", after a \"Remembered from your last "
            "conversation\" line). Choose by ids (from memory_search or the receipt line), "
            "session, subject or text; call with dryRun first and confirm with the user unless "
            "they named exact ids. By default entries are hidden from recall (undo: true gives "
            "them back); purge: true erases them from disk for good, only when the user asks for "
            "that. To correct an entry instead, use memory_remember with replaces."),
        args={
            "ids": "Entry ids (from memory_search or a receipt line).",
            "session": "Every entry of this session id.",
            "subject": "Every entry of this subject slug.",
            "text": ("Entries whose content contains this text (any case, at least 3 "
                     "characters)."),
            "purge": ("Remove from disk (cannot be undone) instead of hiding (default false). "
                      "Only when the user asks to erase or delete for good."),
            "dryRun": ("List what would be forgotten and change nothing. Use it first unless the "
                       "user named exact ids."),
        },
        flags={"undo": "Give hidden entries back (ids only): the user changed their mind."},
        routes=(Route(MEMORY_UNFORGET, when="undo"), Route(MEMORY_FORGET))),
)


def params_field(model: type[BaseModel], wire: str) -> tuple[str, FieldInfo]:
    """The field of ``model`` the wire calls ``wire`` (its alias, else its name)."""
    for name, info in model.model_fields.items():
        if (info.alias or name) == wire:
            return name, info
    raise KeyError(f"{model.__name__} has no field {wire!r}")


def without_none(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, type(int | None)):
        members = [a for a in get_args(annotation) if a is not type(None)]
        return members[0] if len(members) == 1 else Union[tuple(members)]  # noqa: UP007
    return annotation


def route_params(tool: AgentTool, route: Route) -> list[str]:
    """The tool's arguments that ``route``'s method takes, as the wire spells them."""
    model = route.rpc.params
    wire = {info.alias or name for name, info in model.model_fields.items()}
    return [arg for arg in tool.args if arg in wire]


def arguments_model(tool: AgentTool) -> type[BaseModel]:
    """The tool's arguments as a pydantic model: each argument with its params field's type
    and limits; optional ones default to None (left out: the sidecar's default applies)."""
    params = tool.routes[-1].rpc.params
    fields: dict[str, Any] = {}
    for wire, description in tool.args.items():
        name, info = params_field(params, wire)
        kind = without_none(info.annotation)
        if info.metadata:
            kind = Annotated[(kind, *info.metadata)]
        extra = info.json_schema_extra
        if wire in tool.required:
            fields[name] = (kind, Field(alias=wire, description=description,
                                        json_schema_extra=extra))
        else:
            fields[name] = (kind | None, Field(None, alias=wire, description=description,
                                               json_schema_extra=extra))
    for flag, description in tool.flags.items():
        fields[flag] = (bool | None, Field(None, description=description))
    model: type[BaseModel] = create_model(
        f"{tool.name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
    return model


def tidy(node: Any) -> Any:
    """A pydantic JSON Schema as a tool's parameters read best: no titles, and an optional
    argument as its own type rather than ``anyOf [type, null]`` with a null default."""
    if isinstance(node, list):
        return [tidy(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: tidy(value) for key, value in node.items() if key != "title"}
    options = out.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        rest = [option for option in options if option != {"type": "null"}]
        del out["anyOf"]
        out = {**(rest[0] if len(rest) == 1 else {"anyOf": rest}), **out}
        if out.get("default", 0) is None:
            del out["default"]
    return out


def parameters(tool: AgentTool) -> dict[str, Any]:
    """The JSON Schema of the tool's arguments, as a model is shown it."""
    schema = arguments_model(tool).model_json_schema(by_alias=True)
    if "$defs" in schema:
        raise ValueError(f"{tool.name}: an argument refers to a definition; inline it")
    tidied: dict[str, Any] = tidy(schema)
    tidied["additionalProperties"] = False
    return tidied


def call(tool: AgentTool, arguments: dict[str, Any]) -> tuple[Rpc[Any, Any], dict[str, Any]]:
    """The method a call of ``tool`` goes to, and its params: the arguments that method takes,
    unchanged (the params model validates them), leaving out the ones not given."""
    for route in tool.routes:
        if route.when is None or arguments.get(route.when) is True:
            return route.rpc, {name: arguments[name] for name in route_params(tool, route)
                               if arguments.get(name) is not None}
    raise ValueError(f"{tool.name}: no route taken")  # the last route has no condition


def spec(tool: AgentTool) -> dict[str, Any]:
    """The tool as the plugin reads it."""
    return {"name": tool.name, "label": tool.title, "description": tool.description,
            "parameters": parameters(tool),
            "routes": [{"method": route.method, **({"when": route.when} if route.when else {}),
                        "params": route_params(tool, route)} for route in tool.routes]}


HEADER = """\
// Generated from sidecar/zettelclaw/protocol/tools.py by
// `python -m zettelclaw.protocol.tools --write`: do not edit
// (tests/protocol/test_tool_schemas.py fails when this file is not what the definition
// generates). Each tool's parameters are its method's params (protocol/params/), as the
// sidecar validates them; the MCP server's tools are the same.

import type { MethodName } from "./protocol_types.ts";

/** Where a call goes: `method` when the argument `when` is true (or always), with `params`. */
export type ToolRoute = {
  readonly method: MethodName;
  readonly when?: string;
  readonly params: readonly string[];
};
export type ToolSpec = {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
  readonly routes: readonly ToolRoute[];
};
"""


def text() -> str:
    specs = {tool.name: spec(tool) for tool in TOOLS}
    body = json.dumps(specs, indent=2)
    return (f"{HEADER}\nexport const TOOLS = {body} as const satisfies Record<string, ToolSpec>;"
            "\n\nexport type ToolName = keyof typeof TOOLS;\n")


def main(argv: list[str] | None = None) -> int:
    return write_or_print("python -m zettelclaw.protocol.tools", TS_FILE, text, argv)


if __name__ == "__main__":
    raise SystemExit(main())
