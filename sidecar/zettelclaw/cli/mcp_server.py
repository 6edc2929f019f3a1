"""``zettelclaw mcp``: one agent's memory as an MCP server over stdio.

The tools are OpenClaw's memory tools as agents know them, defined once for this server and the
plugin in protocol/tools.py (memory-core's names and parameters), answered in memory-core's
result shapes as the plugin answers them (clients/openclaw/src/tools.ts). Each
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
from typing import Annotated, Any

import anyio

from zettelclaw import __version__
from zettelclaw.cli.backend import AgentBackend, Backend
from zettelclaw.cli.mcp_stdio import stdio_streams
from zettelclaw.client import SidecarUnavailableError
from zettelclaw.errors import NotFoundError, ZettelclawError
from zettelclaw.protocol.contract import Rpc
from zettelclaw.protocol.results import Result
from zettelclaw.protocol.tools import TOOLS, AgentTool, arguments_model, call, parameters

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.server.mcpserver.tools import Tool
except ModuleNotFoundError as exc:  # the optional extra is not installed
    raise ModuleNotFoundError(
        "`zettelclaw mcp` needs the MCP SDK: pip install 'zettelclaw[mcp]'", name=exc.name
    ) from exc

INSTRUCTIONS = (
    "Zettelclaw is the user's long-term memory: a log of facts, decisions, tasks, questions and "
    "session handoffs written after each conversation with their agents. Call memory_search "
    "before answering about prior work, decisions, people, preferences or todos; read an entry "
    "or its source conversation with memory_get."
)


def build_server(open_backend: Callable[[], Backend], agent: str = "main") -> MCPServer[Any]:
    """The MCP server; ``open_backend`` opens where one call goes (a sidecar or the files)."""
    memory = Memory(open_backend, agent)
    tools = [mcp_tool(tool, memory.ask) for tool in TOOLS]
    return MCPServer(name="zettelclaw", version=__version__, instructions=INSTRUCTIONS,
                     tools=tools)


class Memory:
    """Where a tool's call goes: opened for the call, closed after it (a sidecar started later
    finds the data directory free); what cannot be reached is a tool error."""

    def __init__(self, open_backend: Callable[[], Backend], agent: str) -> None:
        self.open_backend = open_backend
        self.agent = agent

    def ask(self, rpc: Rpc[Any, Any], params: dict[str, Any]) -> dict[str, Any]:
        try:
            backend = AgentBackend(self.open_backend(), self.agent)
        except SidecarUnavailableError as exc:
            raise ToolError(f"Zettelclaw memory is unavailable: {exc}") from exc
        except ZettelclawError as exc:
            raise ToolError(f"Zettelclaw memory is unavailable: {exc.message} "
                            f"(code {exc.code})") from exc
        try:
            # the arguments as given (the sidecar's params model decides what they mean), the
            # answer read as the method's result model
            answer: Result = rpc.answer(backend.call(rpc.name, params))
            return answer.wire()
        except SidecarUnavailableError as exc:
            raise ToolError(f"Zettelclaw memory is unavailable: {exc}") from exc
        finally:
            backend.close()


def answer(tool: str, arguments: dict[str, Any], result: Callable[[], dict[str, Any]]
           ) -> dict[str, Any]:
    """The tool's answer in memory-core's shape (as the plugin's, tools.ts): a read as it is, a
    write or an exact read with its status; a sidecar's refusal is a tool error with its code."""
    try:
        got = result()
    except ZettelclawError as exc:
        if isinstance(exc, NotFoundError) and tool == "memory_get":
            return {"status": "not_found", "path": arguments["path"], "text": ""}
        raise ToolError(f"{exc.message} (code {exc.code})") from exc
    if tool == "memory_search":
        return got
    if tool == "memory_get":
        return {"status": "ok", "path": arguments["path"], **got}
    return {"status": "ok", **got}


def mcp_tool(tool: AgentTool, ask: Callable[[Rpc[Any, Any], dict[str, Any]], dict[str, Any]]
             ) -> Tool:
    """``tool`` for the SDK: its arguments validated by the definition's model (the SDK reads it
    from the function's signature and passes each argument by its wire name), and shown as the
    definition's parameters, the plugin's."""
    model = arguments_model(tool)

    def run(**arguments: Any) -> dict[str, Any]:
        rpc, params = call(tool, arguments)
        return answer(tool.name, arguments, lambda: ask(rpc, params))

    run.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                           default=(inspect.Parameter.empty if info.is_required()
                                    else info.default),
                           annotation=Annotated[info.annotation, info])
         for name, info in model.model_fields.items()],
        return_annotation=dict[str, Any])
    run.__name__ = tool.name
    made = Tool.from_function(run, name=tool.name, title=tool.title, description=tool.description)
    return made.model_copy(update={"parameters": parameters(tool)})


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
