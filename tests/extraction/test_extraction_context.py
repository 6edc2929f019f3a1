"""The entries the extraction prompt shows (extraction/context.py): a correction reaches the
model with the entry it corrects, whether the conversation names it, read it with the memory
tools, or only contradicts it in a few short words of a long conversation."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import entry
from tests.direct import open_pool
from zettelclaw.agents.pool import Agents
from zettelclaw.extraction.context import named_ids
from zettelclaw.extraction.transcript import Message, normalize
from zettelclaw.home import Home
from zettelclaw.methods import build_methods
from zettelclaw.protocol.dispatcher import Dispatcher

# long, distinctive words: the 24 longest of the conversation, which the whole-conversation
# search takes, are all among these, and each finds a filler entry
LONG = ["refurbishment", "reconciliation", "infrastructure", "internationalisation",
        "photosynthesis", "administration", "transformational", "characterisation",
        "decentralisation", "telecommunication", "misunderstanding", "responsibilities",
        "recommendations", "notwithstanding", "interdisciplinary", "overgeneralisation",
        "compartmentalise", "electroencephalogram", "counterproductive", "unconstitutional",
        "thermoregulation", "microarchitecture", "institutionalised", "incomprehensible",
        "disproportionately", "uncharacteristic", "extraterritorial", "hyperventilation",
        "indistinguishable", "multiculturalism"]
TOBI = entry(content="The owner's cat is called Tobi")
SISTER = entry(content="The owner's sister moved to Porto in March")


@pytest.fixture
async def pool(home: Home, workspace: Path) -> AsyncIterator[Agents]:
    agents = open_pool(home, workspace)
    yield agents
    agents.close_all()


async def prompt_for(pool: Agents, messages: list[dict[str, Any]]) -> str:
    d = Dispatcher(build_methods(pool, dict))
    assert (await d.call("hook.sessionEnd", {"sessionId": "s-cat", "sessionKey":
                                             "agent:main:main", "messages": messages}))["jobId"]
    async with pool.lease("main") as app:
        return app.extraction.prompt(app.extraction.spool.jobs()[0])


def at(n: int) -> int:
    return 1_795_234_915_000 + n * 1000


async def test_a_correction_in_a_long_conversation_reaches_the_prompt_with_what_it_corrects(
        pool: Agents, write_log: Callable[..., list[dict[str, Any]]]) -> None:
    write_log(*[entry(content=f"The {word} plan was reviewed") for word in LONG], TOBI, SISTER)
    messages = [
        {"role": "user", "content": "Let us talk about " + ", ".join(LONG) + ".",
         "timestamp": at(1)},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Let me look that up."},
            {"type": "toolCall", "id": "c1", "name": "memory_get",
             "arguments": {"path": SISTER["id"]}}], "timestamp": at(2)},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "memory_get", "isError": False,
         "content": [{"type": "text", "text": orjson.dumps(
             {"status": "ok", "path": SISTER["id"], "entry": SISTER}).decode()}],
         "timestamp": at(3)},
        {"role": "assistant", "content": "Noted all of that.", "timestamp": at(4)},
        {"role": "user", "content": "By the way, my cat is Toby, not Tobi.", "timestamp": at(5)},
    ]
    prompt = await prompt_for(pool, messages)
    assert f"id {TOBI['id']}" in prompt  # what the correction contradicts
    assert f"id {SISTER['id']}" in prompt  # what the conversation read


def test_the_memory_tools_reads_are_kept_as_refs_not_as_text() -> None:
    search_result = {"results": [{"path": "Ab3_x9Qz-K1m", "content": "x"},
                                 {"path": "MEMORY.md"}]}
    messages = normalize([
        {"role": "user", "content": "what about my sister?", "timestamp": at(1)},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "memory_get",
                                           "arguments": {"path": "Zz9_aa-bbCCd"}}]},
        {"role": "toolResult", "toolName": "memory_search",
         "content": [{"type": "text", "text": orjson.dumps(search_result).decode()}]},
        {"role": "toolResult", "toolName": "exec", "content": '{"id": "Nn0000000000"}'},
        {"role": "assistant", "content": "She moved to Porto.", "timestamp": at(2)},
    ])
    assert [m.text for m in messages] == ["what about my sister?", "She moved to Porto."]
    assert messages[1].refs == ("Zz9_aa-bbCCd", "Ab3_x9Qz-K1m")  # no other tool's
    assert Message.from_json(messages[1].to_json()) == messages[1]
    assert "refs" not in messages[0].to_json()  # the spool's lines unchanged without


def test_ids_named_in_words_are_found_and_english_words_are_not() -> None:
    said = Message("k", "user", "replace Ab3_x9Qz-K1m please; the conversation (e00000000042)",
                   None)
    assert named_ids([said]) == ["Ab3_x9Qz-K1m", "e00000000042"]
