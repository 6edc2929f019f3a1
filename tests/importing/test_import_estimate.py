"""The plan's token estimate against the prompt extraction actually builds, and the prices."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.conftest import entry, line
from tests.direct import open_app
from zettelclaw.extraction.intake import HookCall
from zettelclaw.home import Home
from zettelclaw.importing import estimate, importer
from zettelclaw.importing.items import Conversation, Message
from zettelclaw.llm.usage import estimate_tokens


def conversation(turns: int) -> Conversation:
    start = datetime(2025, 6, 1, 9, tzinfo=UTC)
    words = "we moved the billing database to Postgres and the invoices go out Monday".split()
    messages = tuple(Message("user" if n % 2 == 0 else "assistant",
                             " ".join(words[(n + k) % len(words)] for k in range(40)),
                             start + timedelta(minutes=n)) for n in range(turns))
    return Conversation(source_id="test:1", title=None, messages=messages, origin="test")


def prompt_tokens(home: Home, workspace: Path, item: Conversation) -> tuple[int, int]:
    """(the plan's estimate of its input, the prompt extraction builds for it) in tokens."""
    app = open_app(home, workspace)
    try:
        base = importer._base_tokens(app)
        estimated = estimate.conversation(item, app.settings.extraction.max_transcript_chars,
                                          base).input_tokens
        answer = app.extraction.intake.accept(HookCall(
            trigger="import", session_id="import:t:1",
            messages=[importer._message(m) for m in item.messages]))
        assert answer.job_id is not None
        job = app.extraction.spool.load(answer.job_id)
        assert job is not None
        return estimated, estimate_tokens(app.extraction.prompt(job))
    finally:
        app.close()


def test_the_estimate_is_the_prompt_on_an_empty_memory(home: Home, workspace: Path) -> None:
    estimated, built = prompt_tokens(home, workspace, conversation(20))
    assert abs(estimated - built) / built < 0.02


def test_the_estimate_counts_the_related_entries_a_memory_lists(home: Home, workspace: Path
                                                                ) -> None:
    with home.log.open("ab") as log:
        for n in range(200):
            log.write(line(entry("fact", f"the billing database note number {n} about Postgres "
                                         "and the Monday invoices", subject="billing")))
    estimated, built = prompt_tokens(home, workspace, conversation(20))
    assert abs(estimated - built) / built < 0.10


def test_a_long_conversation_is_cut_as_extraction_cuts_it(home: Home, workspace: Path) -> None:
    estimated, built = prompt_tokens(home, workspace, conversation(2000))
    assert abs(estimated - built) / built < 0.02


def test_prices() -> None:
    assert estimate.cost("claude-sonnet-4-6", 1_000_000, 100_000) == 4.5
    assert estimate.cost("anthropic/claude-haiku-4-5", 2_000_000, 0) == 2.0
    assert estimate.cost("openai/gpt-5", 1, 1) is None
    assert estimate.models("claude-test")[0] == "claude-test"
