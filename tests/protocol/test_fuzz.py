"""Fuzzing the framing and the dispatcher: over 10,000 generated messages, none may
escape as an exception, and each answer must be a well-formed JSON-RPC response with a code that
fits (never -32603, which means a bug).

Messages are built to reach deep: real method names with params of every JSON shape, ids of every
type, nesting near and past the limits, batches, bytes that are not JSON or not UTF-8, and lines
cut anywhere for the framer. The dispatcher is the real method table over a data directory with
a few entries and a workspace with a memory file. Hypothesis keeps the failing example small.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import entry, line
from tests.direct import open_pool
from zettelclaw.errors import BY_CODE
from zettelclaw.home import Home
from zettelclaw.methods import build_methods
from zettelclaw.protocol.dispatcher import Dispatcher
from zettelclaw.protocol.framing import LineFramer, Message, Oversized

pytestmark = pytest.mark.slow  # hypothesis: thousands of generated messages

# Methods that change the data directory in ways that make each example slow (a rename rewrites
# the log, a rebuild re-indexes, a briefing writes MEMORY.md): called, but with bad params more
# often than not, which is what the fuzzer is for.
METHODS = ["memory.search", "memory.get", "subjects.list", "subjects.add", "subjects.rename",
           "hook.beforePromptBuild", "hook.sessionEnd", "hook.beforeReset", "hook.gatewayStart",
           "status", "jobs.list", "jobs.retry", "briefing.generate", "index.rebuild",
           "host.offer", "no.such.method", "", "memory.search\x00"]
KEYS = ["query", "path", "type", "subject", "status", "since", "until", "maxResults", "from",
        "lines", "slug", "display", "sessionId", "sessionKey", "messages", "chatType",
        "senderIsOwner", "workspaceDir", "dryRun", "capabilities", "jobId", "order", "corpus",
        "minScore", "includeReplaced", "sessions", "role", "content", "x"]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False), st.text(max_size=40),
    st.sampled_from(["", "..", "../../etc/passwd", "memory/x.md", "MEMORY.md", "9999-12-31",
                     "2026-02-20", "task", "open", "agent:main:main", "a" * 300, "\ud800"
                     .encode("utf-8", "surrogatepass").decode("utf-8", "replace")]))
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), inner,
                                            max_size=5)),
    max_leaves=20)
ids = st.one_of(st.none(), st.integers(min_value=-(2**63), max_value=2**63 - 1),
                st.text(max_size=10), st.floats(allow_nan=False, allow_infinity=False),
                st.just(10**30), st.booleans(), st.lists(st.integers(), max_size=2))


@st.composite
def requests(draw: st.DrawFn) -> Any:
    request: dict[str, Any] = {"jsonrpc": draw(st.sampled_from(["2.0", "2.0", "2.0", "1.0", 2]))}
    if draw(st.booleans()) or True:
        request["method"] = draw(st.sampled_from(METHODS) | st.text(max_size=12))
    if draw(st.integers(0, 4)):
        request["id"] = draw(ids)
    if draw(st.integers(0, 3)):
        request["params"] = draw(st.one_of(
            st.dictionaries(st.sampled_from(KEYS), json_values, max_size=6),
            json_values))
    if draw(st.integers(0, 9)) == 0:
        request[draw(st.text(max_size=6))] = draw(json_values)
    return request


def encode(value: Any) -> bytes:
    """JSON as a client may send it: integers of any size (orjson refuses past 64 bits),
    and Infinity, which is not JSON at all."""
    return json.dumps(value).encode()


def deep_params(depth: int) -> bytes:
    return (b'{"jsonrpc":"2.0","id":1,"method":"memory.search","params":{"query":'
            + b"[" * depth + b"1" + b"]" * depth + b"}}")


# Depths around the limit (64), where jsonschema's repr overflowed the stack (999 to 1,023:
# orjson itself refuses 1,025), and anywhere.
depths = st.sampled_from([63, 64, 65, 900, 999, 1000, 1010, 1023, 1024]) | st.integers(1, 1100)

messages = st.one_of(
    requests().map(encode),
    st.lists(requests(), min_size=0, max_size=6).map(encode),
    json_values.map(encode),
    depths.map(deep_params),
    depths.map(lambda d: b"[" * d + b"]" * d),
    depths.map(lambda d: b'{"jsonrpc":"2.0","method":"status","id":' + b"[" * d + b"]" * d
               + b"}"),
    st.binary(max_size=60),
    st.text(max_size=60).map(lambda t: t.encode("utf-8", "surrogatepass")),
)

KNOWN_CODES = set(BY_CODE) - {-32603}
DEFAULT_RECURSION_LIMIT = 1000


def check_response(data: bytes | None) -> None:
    if data is None:
        return  # a notification, or a batch of them
    assert data.endswith(b"\n")
    assert data.count(b"\n") == 1
    decoded = orjson.loads(data)
    for response in decoded if isinstance(decoded, list) else [decoded]:
        assert response["jsonrpc"] == "2.0"
        assert "id" in response
        assert ("result" in response) != ("error" in response)
        if "error" in response:
            assert response["error"]["code"] in KNOWN_CODES, response
            assert isinstance(response["error"]["message"], str)


@pytest.fixture(scope="module")
def dispatcher() -> Iterator[Dispatcher]:
    root = Path(tempfile.mkdtemp(prefix="zc-fuzz-"))
    home, workspace = Home(root / "home"), root / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text("# Goals\n- keep the fuzzer busy\n")
    (workspace / "memory" / "x.md").write_text("# x\nnotes\n")
    home.ensure()
    home.log.write_bytes(b"".join(line(entry(subject="fuzz", content=f"fact {i} about fuzz"))
                                  for i in range(20)))
    agents = open_pool(home, workspace)
    yield Dispatcher(build_methods(agents, lambda: {"socket": None}), max_response_bytes=1 << 20)
    agents.close_all()
    shutil.rmtree(root, ignore_errors=True)


@settings(max_examples=6000, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(messages)
def test_the_dispatcher_answers_every_message_well(dispatcher: Dispatcher,
                                                   message: bytes) -> None:
    # Hypothesis raises the recursion limit while it runs a test; the sidecar runs with
    # Python's default, where a deep message once overflowed the stack.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(DEFAULT_RECURSION_LIMIT)
    try:
        response = trio.run(dispatcher.dispatch, message)
    finally:
        sys.setrecursionlimit(limit)
    check_response(response)


@settings(max_examples=5000, deadline=None, database=None)
@given(st.lists(st.binary(max_size=80), max_size=12), st.integers(8, 200))
def test_the_framer_never_loses_a_line_nor_holds_more_than_its_limit(
        pieces: list[bytes], limit: int) -> None:
    framer = LineFramer(limit)
    stream = b"".join(pieces)
    events = [e for p in pieces for e in framer.feed(p)] + framer.finish()
    assert framer.pending <= limit
    got = [e.data for e in events if isinstance(e, Message)]
    expected = []
    lines = stream.split(b"\n")
    oversized = 0
    for raw in lines:
        if len(raw) > limit:
            oversized += 1
        elif raw.strip():
            expected.append(raw.strip())
    assert got == expected
    assert sum(isinstance(e, Oversized) for e in events) == oversized
