"""protocol/tools.py: the agents' memory tools, defined once. The plugin's tools are the
generated clients/openclaw/src/tool_schemas.ts (its unit tests hold the registered tools to it),
the MCP server's are built from the same definition, and each argument is a field of its
method's params model, so memory-core's names are the sidecar's to accept."""

from __future__ import annotations

import json
from typing import Any

import pytest
import trio

from zettelclaw.protocol import tools
from zettelclaw.protocol.contract import CONTRACT, MEMORY_FORGET, MEMORY_SEARCH, MEMORY_UNFORGET
from zettelclaw.protocol.params import GetParams, SearchParams


def test_the_committed_tool_schemas_are_what_the_definition_generates() -> None:
    assert tools.TS_FILE.read_text() == tools.text(), (
        "clients/openclaw/src/tool_schemas.ts is stale: run "
        "`python -m zettelclaw.protocol.tools --write`, then scripts/build-plugin")


@pytest.mark.parametrize("tool", tools.TOOLS, ids=lambda tool: tool.name)
def test_each_argument_is_a_param_of_its_method(tool: tools.AgentTool) -> None:
    assert tool.routes[-1].when is None, "the last route is taken when no other is"
    for wire in tool.args:
        tools.params_field(CONTRACT[tool.routes[-1].method].params, wire)
    assert set(tool.required) <= set(tool.args)
    assert {route.when for route in tool.routes} - {None} == set(tool.flags)
    schema = tools.parameters(tool)
    assert list(schema["properties"]) == [*tool.args, *tool.flags]
    assert schema.get("required", []) == list(tool.required)
    assert schema["additionalProperties"] is False


def test_a_call_goes_to_its_route_with_the_arguments_it_takes_unchanged() -> None:
    search, _, _, forget = tools.TOOLS
    assert tools.call(search, {"query": " x ", "corpus": "sessions", "type": None}) == (
        MEMORY_SEARCH, {"query": " x ", "corpus": "sessions"})
    assert tools.call(forget, {"ids": ["Qm2vT8_xLp0a"], "undo": True, "text": "ignored"}) == (
        MEMORY_UNFORGET, {"ids": ["Qm2vT8_xLp0a"]})
    assert tools.call(forget, {"text": "boiler", "undo": False, "dryRun": True}) == (
        MEMORY_FORGET, {"text": "boiler", "dryRun": True})


@pytest.mark.parametrize(("name", "searched"), [
    ("all", "all"), ("log", "log"), ("files", "files"),
    ("memory", "all"), ("sessions", "log"), ("wiki", "files")])
def test_the_sidecar_takes_memory_cores_corpus_names(name: str, searched: str) -> None:
    assert SearchParams.model_validate({"corpus": name}).searched() == searched


def test_the_sidecar_accepts_memory_cores_corpus_for_get_and_strips_a_query() -> None:
    assert GetParams.model_validate({"path": "MEMORY.md", "corpus": "wiki"}).corpus == "wiki"
    assert SearchParams.model_validate({"query": "  tea \n"}).query == "tea"


def test_the_mcp_servers_tools_are_the_definitions() -> None:
    pytest.importorskip("mcp")
    from zettelclaw.cli.mcp_server import build_server

    def unused() -> Any:
        raise AssertionError("listing the tools opens no backend")

    listed = trio.run(build_server(unused).list_tools)
    assert [(t.name, t.title, t.description, t.input_schema) for t in listed] == [
        (t.name, t.title, t.description, tools.parameters(t)) for t in tools.TOOLS]


def test_the_plugins_manifest_declares_the_definitions_tools() -> None:
    manifest = json.loads((tools.TS_FILE.parents[1] / "openclaw.plugin.json").read_text())
    assert manifest["contracts"]["tools"] == [tool.name for tool in tools.TOOLS]
