"""One source of truth for the protocol: the pydantic models of ``protocol/contract.py``.

Covers: the committed ``protocol.schema.json`` is what the models generate (the schema-drift
check: after changing a model, ``python -m zettelclaw.protocol.schema --write``); the sidecar's
method table is the contract's, every handler is a module-level function (bound to the pool
with ``functools.partial``, so it can be called and read without the table) annotated with
the contract's params model, and returns its result model (a BaseModel, a union of them, or
``Wire`` of one), never a dict;
protocol.md has a section for every method of the schema and none for a method it lacks, and
every param of the schema appears in its method's section (or, for the params every method of
an agent takes, in "Agents: one memory each").
"""

from __future__ import annotations

import functools
import inspect
import json
import re
import types
import typing
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

import pytest
from pydantic import BaseModel

from tests.direct import open_pool
from zettelclaw.home import Home
from zettelclaw.methods import build_methods
from zettelclaw.protocol import schema
from zettelclaw.protocol.contract import CONTRACT
from zettelclaw.protocol.results import Wire

DOC = Path(__file__).resolve().parents[2] / "protocol.md"
# what the sidecar asks a client (protocol.md documents it; the client answers it)
OUTGOING = {"llm.complete", "embeddings.embed"}
# the params of every agent's call and of the audience, documented once, not per method
SHARED_SECTIONS = ("## Agents: one memory each", "## Methods")


def test_the_committed_schema_is_what_the_models_generate() -> None:
    committed = schema.SCHEMA_FILE.read_text()
    assert committed == schema.text(), (
        f"{schema.SCHEMA_FILE.name} is stale: run `python -m zettelclaw.protocol.schema --write`")


def _result_models(annotation: Any) -> list[Any]:
    """The models an annotation names: a model, a union of them, ``Wire[model]``."""
    if get_origin(annotation) in {typing.Union, types.UnionType}:
        return [m for arg in get_args(annotation) for m in _result_models(arg)]
    if get_origin(annotation) is Wire:
        return _result_models(get_args(annotation)[0])
    return [annotation]


def test_every_handler_returns_the_contracts_result_model(home: Home, workspace: Path) -> None:
    agents = open_pool(home, workspace)
    table = build_methods(agents, dict)
    assert set(table) == set(CONTRACT)
    wrong = []
    for name, method in sorted(table.items()):
        handler = method.handler
        assert isinstance(handler, functools.partial), f"{name}: not a module-level function"
        hints = get_type_hints(handler.func)
        returned = _result_models(hints["return"])
        expected = schema.result_models(CONTRACT[name].result)
        params = [hints[p] for p in inspect.signature(handler).parameters]
        if method.params is not CONTRACT[name].params or params != [method.params]:
            wrong.append(f"{name}: params {params}, contract {CONTRACT[name].params}")
        if not all(isinstance(m, type) and issubclass(m, BaseModel) for m in returned):
            wrong.append(f"{name}: returns {hints['return']}, not a result model")
        elif set(returned) != set(expected):
            wrong.append(f"{name}: returns {hints['return']}, contract {CONTRACT[name].result}")
    assert not wrong, "\n".join(wrong)


def _sections(text: str) -> dict[str, str]:
    """Each method's section of protocol.md: from its ``###`` heading to the next heading."""
    found: dict[str, str] = {}
    parts = re.split(r"^(#{2,3} .*)$", text, flags=re.M)
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        if heading.startswith("### "):
            for name in re.findall(r"`([a-zA-Z]+(?:\.[a-zA-Z]+)?)`", heading):
                found[name] = body
    return found


def _shared(text: str) -> str:
    return "".join(text.split(heading, 1)[1].split("\n## ", 1)[0] for heading in SHARED_SECTIONS)


def test_protocol_md_has_a_section_for_each_method_of_the_schema() -> None:
    methods = set(json.loads(schema.SCHEMA_FILE.read_text())["methods"])
    documented = set(_sections(DOC.read_text())) - OUTGOING
    assert methods - documented == set(), "methods without a section in protocol.md"
    assert documented - methods == set(), "sections for methods the schema does not have"


def test_every_param_of_the_schema_is_in_its_methods_section() -> None:
    text = DOC.read_text()
    sections, shared = _sections(text), _shared(text)
    loaded = json.loads(schema.SCHEMA_FILE.read_text())
    missing = []
    for name, method in loaded["methods"].items():
        model = method["params"]["$ref"].rsplit("/", 1)[1]
        for param in loaded["$defs"][model].get("properties", {}):
            if f"`{param}`" not in sections[name] and f"`{param}`" not in shared:
                missing.append(f"{name}: `{param}`")
    assert not missing, "params not documented in protocol.md:\n" + "\n".join(missing)


def test_the_checks_see_what_they_look_for() -> None:
    sections = _sections("## Methods\n### `a.b`\n| `x` |\n### `c` and `d.e`\nbody\n")
    assert sections == {"a.b": "\n| `x` |\n", "c": "\nbody\n", "d.e": "\nbody\n"}
    assert _result_models(Wire[int] | str) == [int, str]  # type: ignore[type-var]
    with pytest.raises(AssertionError):
        assert set(_sections(DOC.read_text())) - OUTGOING == set(CONTRACT) - {"status"}
