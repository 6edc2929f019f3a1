"""``zettelclaw mcp``: one agent's memory as an MCP server over stdio.

The tools are OpenClaw's memory tools as agents know them (clients/openclaw/src/tools.ts:
memory-core's names, parameters and result shapes): ``memory_search`` and ``memory_get``. Each
call goes where a CLI command's goes (cli/backend.py): to the running sidecar when one answers,
else to the files in this process, opened for that call only (so that a sidecar started later
finds the data directory free).

The MCP client runs as the user on the user's machine: it is the owner, so the calls name no
audience, which the sidecar takes as the owner's own (protocol.md, "Who may see memory").
The server decides nothing about memory: every rule is the sidecar's.
"""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

import anyio

from zettelclaw import __version__
from zettelclaw.cli.backend import AgentBackend, Backend
from zettelclaw.cli.mcp_stdio import stdio_streams
from zettelclaw.client import SidecarUnavailableError
from zettelclaw.errors import NotFoundError, ZettelclawError

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import Field
except ModuleNotFoundError as exc:  # the optional extra is not installed
    raise ModuleNotFoundError(
        "`zettelclaw mcp` needs the MCP SDK: pip install 'zettelclaw[mcp]'", name=exc.name
    ) from exc

REMEMBER_DESCRIPTION = (
    "Write one entry to long-term memory now, when the user explicitly asks you to remember "
    "something (\"remember that...\", \"note this\"). Not for things merely mentioned. One fact "
    "or decision per call. Answers the entry's id: tell the user it was remembered.")
FORGET_DESCRIPTION = (
    "Remove entries from long-term memory when the user asks to forget something. Choose by ids "
    "(from memory_search), session, subject or text; call with dryRun first and confirm with the "
    "user unless they named exact ids. Entries are hidden from recall (undo: true gives them "
    "back); purge: true erases them from disk for good, only when the user asks for that.")
SEARCH_DESCRIPTION = (
    "Mandatory recall step: search long-term memory (Zettelclaw's log of facts, decisions, tasks, "
    "questions and session handoffs, and MEMORY.md / memory/*.md) before answering questions about "
    "prior work, decisions, dates, people, preferences or todos. Best matches first; filter log "
    "entries by type, subject and task status. Corrected entries are hidden unless "
    "includeReplaced. A log result's path is its entry id, a file result's path its file: pass "
    "either to memory_get."
)
GET_DESCRIPTION = (
    "Safe exact read from memory: a log entry by its id (with the versions it replaced or that "
    "replaced it), the conversation an entry came from (`session:<sessionId>`), or MEMORY.md and "
    "memory/*.md by path."
)
INSTRUCTIONS = (
    "Zettelclaw is the user's long-term memory: a log of facts, decisions, tasks, questions and "
    "session handoffs written after each conversation with their agents. Call memory_search "
    "before answering about prior work, decisions, people, preferences or todos; read an entry "
    "or its source conversation with memory_get."
)

# memory-core's corpus names, as the sidecar's (protocol.md, memory.search `corpus`), as the
# OpenClaw plugin maps them (tools.ts CORPUS)
CORPUS = {"all": "all", "log": "log", "files": "files", "memory": "all", "sessions": "log",
          "wiki": "files"}

EntryType = Literal["task", "fact", "decision", "question", "handoff"]


def search_params(query: str, **filters: Any) -> dict[str, Any]:
    """memory_search's arguments as memory.search's params (tools.ts searchParams): an empty
    query with filters lists the matching entries; memory-core's corpus names are mapped."""
    params = {key: value for key, value in filters.items() if value is not None}
    if "corpus" in params:
        params["corpus"] = CORPUS[params["corpus"]]
    if query.strip():
        params["query"] = query.strip()
    return params


def build_server(open_backend: Callable[[], Backend], agent: str = "main") -> MCPServer[Any]:
    """The MCP server; ``open_backend`` opens where one call goes (a sidecar or the files)."""
    server: MCPServer[Any] = MCPServer(name="zettelclaw", version=__version__,
                                       instructions=INSTRUCTIONS)

    def ask(method: str, params: dict[str, Any]) -> Any:
        try:
            backend = AgentBackend(open_backend(), agent)
        except SidecarUnavailableError as exc:
            raise ToolError(f"Zettelclaw memory is unavailable: {exc}") from exc
        except ZettelclawError as exc:
            raise ToolError(f"Zettelclaw memory is unavailable: {exc.message} "
                            f"(code {exc.code})") from exc
        try:
            return backend.call(method, params)
        except SidecarUnavailableError as exc:
            raise ToolError(f"Zettelclaw memory is unavailable: {exc}") from exc
        finally:
            backend.close()

    def rpc_error(exc: ZettelclawError) -> ToolError:
        return ToolError(f"{exc.message} (code {exc.code})")

    @server.tool(name="memory_search", title="Memory Search", description=SEARCH_DESCRIPTION)
    def memory_search(
        *,
        query: Annotated[str, Field(max_length=2000, description=(
            "Keywords. An empty string with filters lists the matching entries, newest "
            "first."))],
        maxResults: Annotated[int | None, Field(ge=1, le=1000, description=(
            "At most this many results (default 10)."))] = None,
        minScore: Annotated[float | None, Field(ge=0, le=1, description=(
            "Leave out results scoring below this (0..1)."))] = None,
        corpus: Annotated[Literal["all", "log", "files", "memory", "sessions", "wiki"] | None,
                          Field(description=(
                              "What to search: all (default), log (the entries), files "
                              "(MEMORY.md and memory/*.md). memory-core's names are accepted "
                              "too: memory = all, sessions = log, wiki = files."))] = None,
        type: Annotated[EntryType | None, Field(  # the tool's own parameter name
            description="Only entries of this type.")] = None,
        subject: Annotated[str | None, Field(description=(
            "Only entries about this subject (a kebab-case slug, e.g. auth-migration)."))] = None,
        status: Annotated[Literal["open", "done"] | None, Field(
            description="Only tasks with this status.")] = None,
        includeReplaced: Annotated[bool | None, Field(description=(
            "Also return entries that were corrected later (default false)."))] = None,
    ) -> dict[str, Any]:
        params = search_params(query, maxResults=maxResults, minScore=minScore, corpus=corpus,
                               type=type, subject=subject, status=status,
                               includeReplaced=includeReplaced)
        try:
            answer: dict[str, Any] = ask("memory.search", params)
        except ZettelclawError as exc:
            raise rpc_error(exc) from exc
        return answer

    def memory_get(
        *,
        path: Annotated[str, Field(min_length=1, description=(
            "An entry id from memory_search (12 characters), `session:<sessionId>` for the "
            "conversation an entry came from, or MEMORY.md / memory/*.md."))],
        from_: Annotated[int | None, Field(alias="from", ge=1, description=(
            "First line to return (files and sessions)."))] = None,
        lines: Annotated[int | None, Field(ge=1, description=(
            "How many lines to return."))] = None,
        corpus: Annotated[Literal["memory", "wiki", "all"] | None, Field(description=(
            "Accepted for compatibility with memory-core; ignored."))] = None,
    ) -> dict[str, Any]:
        del corpus
        params = {key: value for key, value in
                  {"path": path, "from": from_, "lines": lines}.items() if value is not None}
        try:
            answer = ask("memory.get", params)
        except NotFoundError:  # memory-core's shape for a path that names nothing
            return {"status": "not_found", "path": path, "text": ""}
        except ZettelclawError as exc:
            raise rpc_error(exc) from exc
        return {"status": "ok", "path": path, **answer}

    server.add_tool(by_alias(memory_get), name="memory_get", title="Memory Get",
                    description=GET_DESCRIPTION)

    @server.tool(name="memory_remember", title="Memory Remember",
                 description=REMEMBER_DESCRIPTION)
    def memory_remember(
        *,
        type: Annotated[EntryType, Field(  # the tool's own parameter name
            description="fact, decision, task, question or handoff.")],
        content: Annotated[str, Field(min_length=1, max_length=16_384, description=(
            "The entry: one self-contained sentence."))],
        subject: Annotated[str | None, Field(description=(
            "A kebab-case slug (auth-migration), when it is about one."))] = None,
        detail: Annotated[str | None, Field(max_length=16_384)] = None,
        status: Annotated[Literal["open", "done"] | None, Field(
            description="A task's (default open).")] = None,
        replaces: Annotated[str | None, Field(description=(
            "The id of the entry this one corrects."))] = None,
    ) -> dict[str, Any]:
        params = {key: value for key, value in {
            "type": type, "content": content, "subject": subject, "detail": detail,
            "status": status, "replaces": replaces}.items() if value is not None}
        try:
            answer: dict[str, Any] = ask("memory.remember", params)
        except ZettelclawError as exc:
            raise rpc_error(exc) from exc
        return {"status": "ok", **answer}

    @server.tool(name="memory_forget", title="Memory Forget", description=FORGET_DESCRIPTION)
    def memory_forget(
        *,
        ids: Annotated[list[str] | None, Field(description="Entry ids.")] = None,
        session: Annotated[str | None, Field(description="Every entry of this session.")] = None,
        subject: Annotated[str | None, Field(description="Every entry of this subject.")] = None,
        text: Annotated[str | None, Field(description="Entries whose text holds this.")] = None,
        purge: Annotated[bool, Field(description=(
            "Erase from disk for good, only when the user asks for that."))] = False,
        undo: Annotated[bool, Field(description="Give hidden entries (ids) back.")] = False,
        dryRun: Annotated[bool, Field(description=(
            "List what would go, change nothing."))] = False,
    ) -> dict[str, Any]:
        params: dict[str, Any]
        if undo:
            method, params = "memory.unforget", {"ids": ids, "dryRun": dryRun}
        else:
            method, params = "memory.forget", {
                "ids": ids, "session": session, "subject": subject, "text": text,
                "purge": purge, "dryRun": dryRun}
        try:
            answer: dict[str, Any] = ask(method, {k: v for k, v in params.items()
                                                  if v is not None})
        except ZettelclawError as exc:
            raise rpc_error(exc) from exc
        return {"status": "ok", **answer}

    return server


def by_alias(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """``fn`` called with its parameters' aliases: the SDK passes an argument by its alias
    (``from``, a Python keyword, for the parameter ``from_``), and reads the schema from the
    signature, which is ``fn``'s."""
    names = {param.name.removesuffix("_"): param.name
             for param in inspect.signature(fn).parameters.values()}

    def call(**arguments: Any) -> dict[str, Any]:
        return fn(**{names.get(key, key): value for key, value in arguments.items()})

    call.__signature__ = inspect.signature(fn, eval_str=True)  # type: ignore[attr-defined]
    call.__name__ = fn.__name__
    return call


def memory_missing(args: argparse.Namespace, env: Mapping[str, str]) -> str:
    """What to do when the data directory this server was pointed at holds no memory: a client
    that passes a server only some of the user's variables lands on OpenClaw's default place."""
    new = ("A new memory starts there when OpenClaw with the Zettelclaw plugin, or "
           "`zettelclaw serve`, runs once.")
    if getattr(args, "home", None) or env.get("ZETTELCLAW_HOME"):
        return ("Check the path given by --home (or ZETTELCLAW_HOME): `zettelclaw status` in "
                f"your shell prints your memory's data directory on its `home` line. {new}")
    return ("This server was started without --home, ZETTELCLAW_HOME or OPENCLAW_STATE_DIR, "
            "so it looked in OpenClaw's default place; some MCP clients (Codex, apps started "
            "from the desktop) pass a server only a few of your shell's variables. If your "
            "memory is elsewhere, add `--home DIR` to the server's arguments in the client's "
            "configuration, DIR being what `zettelclaw status` in your shell prints on its "
            f"`home` line. {new}")


def run_stdio(server: MCPServer[Any]) -> None:
    """Serve on stdin and stdout until stdin ends and every request read has its answer."""
    lowlevel = server._lowlevel_server  # the SDK's stdio runner has no seam for a transport

    async def serve() -> None:
        async with stdio_streams() as (read_stream, write_stream):
            await lowlevel.run(read_stream, write_stream,
                               lowlevel.create_initialization_options())

    anyio.run(serve)
