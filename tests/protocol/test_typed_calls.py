"""protocol/contract.py's ``Rpc`` and client.py's ``ask``: a Python client's typed call.

Covers: every method of the contract is an ``Rpc`` constant named after it; a call sends the
params as the wire spells them (only what was given, no None) and reads the answer as the
method's result model (a union's member by its shape); params of another method are refused at
run time, an answer that is not the result is a protocol violation; and mypy refuses a call
whose params are another method's or whose result is taken as another type.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from zettelclaw.client import ProtocolViolationError, ask
from zettelclaw.protocol import contract
from zettelclaw.protocol.params import GetParams, SearchParams
from zettelclaw.protocol.results import EntryWithChain, SearchResult, TextSlice

REPO = Path(__file__).resolve().parents[2]


class Recorder:
    """A caller that records the request and answers with ``answer``."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.sent: list[tuple[str, dict[str, Any] | None]] = []

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        self.sent.append((method, params))
        return self.answer


def constant(method: str) -> str:
    """``memory.search`` -> ``MEMORY_SEARCH``, ``hook.beforePromptBuild`` ->
    ``HOOK_BEFORE_PROMPT_BUILD``."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", method).replace(".", "_").upper()


def test_every_method_is_a_constant_named_after_it() -> None:
    for name, rpc in contract.CONTRACT.items():
        assert rpc.name == name
        assert getattr(contract, constant(name)) is rpc
    assert len(contract.CONTRACT) == 33


def test_a_call_sends_wire_names_and_reads_the_result_model() -> None:
    caller = Recorder({"results": [], "mode": "keyword",
                       "fallback": {"reason": "semantic search is turned off"}})
    found = ask(caller, contract.MEMORY_SEARCH,
                SearchParams(query="webhook", maxResults=3, type=None))
    assert caller.sent == [("memory.search", {"query": "webhook", "maxResults": 3})]
    assert isinstance(found, SearchResult)
    assert found.fallback is not None
    assert found.fallback.reason.startswith("semantic")
    assert found.wire() == caller.answer


def test_a_union_result_is_read_by_its_shape() -> None:
    text = {"path": "MEMORY.md", "text": "a\n", "from": 2, "lines": 1, "totalLines": 3,
            "truncated": False}
    got = ask(Recorder(text), contract.MEMORY_GET,
              GetParams.model_validate({"path": "MEMORY.md", "from": 2}))
    assert isinstance(got, TextSlice)
    assert got.from_ == 2
    entry = {"id": "e00000000001", "timestamp": "2026-02-20T14:00:00Z", "type": "fact",
             "content": "x", "session": "s1"}
    chained = ask(Recorder({"entry": entry, "line": 4, "current": True, "replaces": [],
                            "replacedBy": []}), contract.MEMORY_GET, GetParams(path="e1"))
    assert isinstance(chained, EntryWithChain)
    assert chained.entry.id == "e00000000001"


def test_params_of_another_method_and_a_wrong_answer_are_refused() -> None:
    another: Any = GetParams(path="x")  # as an untyped caller would pass it
    with pytest.raises(TypeError, match=r"memory\.search takes SearchParams, not GetParams"):
        ask(Recorder({}), contract.MEMORY_SEARCH, another)
    with pytest.raises(ProtocolViolationError, match=r"memory\.search"):
        ask(Recorder({"results": "none"}), contract.MEMORY_SEARCH, SearchParams())



def test_fields_a_newer_sidecar_adds_are_ignored() -> None:
    """A sidecar of a later version may answer with fields this client's models lack, at the
    top and nested: the client reads what it knows instead of failing the command."""
    answer = {"results": [], "mode": "keyword", "addedLater": {"a": 1},
              "fallback": {"reason": "semantic search is turned off", "laterField": 1}}
    found = ask(Recorder(answer), contract.MEMORY_SEARCH, SearchParams(query="x"))
    assert found.mode == "keyword"
    assert found.fallback is not None
    assert found.fallback.reason.startswith("semantic")
    assert "addedLater" not in found.wire()

@pytest.mark.slow
def test_mypy_refuses_a_wrong_pairing(tmp_path: Path) -> None:
    from mypy import api

    snippet = tmp_path / "wrong_pairing.py"
    snippet.write_text(textwrap.dedent("""\
        from zettelclaw.client import Client, ask
        from zettelclaw.protocol import contract
        from zettelclaw.protocol.params import GetParams, SearchParams
        from zettelclaw.protocol.results import SearchResult, TextSlice

        client = Client("/nowhere")
        ok: SearchResult = ask(client, contract.MEMORY_SEARCH, SearchParams(query="x"))
        ask(client, contract.MEMORY_SEARCH, GetParams(path="x"))
        wrong: TextSlice = ask(client, contract.MEMORY_SEARCH, SearchParams(query="x"))
        """))
    out, _, status = api.run(["--config-file", str(REPO / "pyproject.toml"),
                              "--cache-dir", str(REPO / ".mypy_cache"), str(snippet)])
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1
    assert [line.split(":")[1] for line in errors] == ["8", "9"], out
    assert '"ask"' in errors[0]  # its params type cannot be both
    assert '"SearchResult", variable has type "TextSlice"' in errors[1]
