"""briefing/summaries.py: summaries and contradiction flags through the real SDK and a fake API.

Covers: what the prompts hold (prompts/briefing.md and prompts/contradiction.md filled: the date,
the subjects with their entries and ids, older and recent entries apart); the model used
(briefing.model, else the extraction model); replies read defensively (JSON lines, an array,
code fences, bullets, chatter around them); summaries only for subjects asked about; flags only
for known current ids of one subject, no repeats, at most 3; NONE means no flag; a 500, an
unusable reply, a 429 (no second call) and no API key (no call) leave the deterministic parts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import orjson
import pytest

from tests.briefing import briefing_data as data
from tests.fakes.anthropic_api import FakeAnthropic, Reply
from zettelclaw.briefing import summaries as model
from zettelclaw.briefing.sections import Candidates, Sections
from zettelclaw.briefing.summaries import ModelStep
from zettelclaw.config import Config, load_config
from zettelclaw.home import Home
from zettelclaw.index.digest import Item
from zettelclaw.llm.host import HostModels
from zettelclaw.llm.route import Router

ZONE = ZoneInfo(data.ZONE)


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    api = FakeAnthropic().start()
    api.default = None  # an unscripted call is a 500
    yield api
    api.stop()


async def run(found: Sections, config: Config) -> ModelStep:
    return await model.run(found, config, ZONE, Router(config.extraction, HostModels()))


def settings(home: Home, fake: FakeAnthropic, *extra: str, key: bool = True) -> Config:
    env = {"ANTHROPIC_BASE_URL": fake.url}
    if key:
        env["ANTHROPIC_API_KEY"] = "test-key"
    return load_config(home, env=env, overrides=[
        "extraction.model=claude-test", "extraction.timeoutSeconds=5", *extra])


@pytest.fixture
def fixed(home: Home, workspace: Path, write_log: Callable[..., Any]) -> Sections:
    return data.compute_sections(home, workspace, write_log)


def lines(*values: dict[str, Any]) -> str:
    return "\n".join(orjson.dumps(v).decode() for v in values)


SUMMARIES = lines({"subject": "auth-migration", "summary": "Retries done; backfill next"},
                  {"subject": "zettelclaw", "summary": "Moving to Bun"})
FLAG = {"older": "d0000000sync", "newer": "d000000queue", "reason": "retry count"}


async def test_summaries_and_flags_with_what_the_prompts_hold(
        home: Home, fake: FakeAnthropic, fixed: Sections) -> None:
    fake.add(Reply(text=SUMMARIES), Reply(text=lines(FLAG)))
    step = await run(fixed, settings(home, fake))
    assert step.error is None
    assert step.used
    assert step.summaries == {"auth-migration": "Retries done; backfill next",
                              "zettelclaw": "Moving to Bun"}
    assert [(f.slug, f.older.id, f.newer.id, f.reason) for f in step.flags] == [
        ("auth-migration", "d0000000sync", "d000000queue", "retry count")]
    assert step.report() == model.ModelReport(used=True, summaries=2, contradictions=1)

    summary_prompt, flag_prompt = fake.prompts()
    assert [r["model"] for r in fake.requests] == ["claude-test", "claude-test"]
    assert "Today is 2026-02-21. For each subject: its entries of the last 14 days" in (
        summary_prompt)
    assert "### auth-migration (Auth Migration)\n- id h00000000001 · 2026-02-20 · handoff: " \
           "Auth migration — retry logic done, backfill script not started (detail: Backoff " \
           "works in staging.)\n- id q000000burst" in summary_prompt
    assert "- id d000000queue · 2026-02-14 · decision: Queue-based retries with 3 max " \
           "(detail: sync retries cascaded under load)" in summary_prompt
    assert "### zettelclaw (Zettelclaw)" in summary_prompt
    assert "d0000000yarn" not in summary_prompt  # replaced
    assert "{{" not in summary_prompt
    assert "entries (from before 2026-02-07) and recent entries" in flag_prompt
    assert ("### auth-migration\nOlder:\n- id d0000000sync · 2026-02-01 · decision: Synchronous "
            "retries with 5 max (detail: simplest thing first)\nRecent:\n- id d000000queue"
            in flag_prompt)
    assert "zettelclaw" not in flag_prompt  # no older current decision or fact: no candidate


async def test_briefing_model_overrides_the_extraction_model(
        home: Home, fake: FakeAnthropic, fixed: Sections) -> None:
    fake.add(Reply(text=SUMMARIES), Reply(text="NONE"))
    config = settings(home, fake, "briefing.model=anthropic/claude-brief")
    step = await run(fixed, config)
    assert [r["model"] for r in fake.requests] == ["claude-brief", "claude-brief"]
    assert step.flags == ()
    assert step.error is None


async def test_flags_with_unknown_ids_or_over_three_are_dropped(
        home: Home, fake: FakeAnthropic, fixed: Sections) -> None:
    reply = lines({"older": "zzzzzzzzzzzz", "newer": "d000000queue"},  # unknown
                  {"older": "d000000queue", "newer": "d0000000sync"},  # the wrong way round
                  {"older": "d0000000yarn", "newer": "d000000bun01"},  # replaced, not listed
                  FLAG, FLAG)  # a repeat
    fake.add(Reply(text=SUMMARIES), Reply(text=reply))
    step = await run(fixed, settings(home, fake))
    assert [(f.older.id, f.newer.id) for f in step.flags] == [("d0000000sync", "d000000queue")]


def items(prefix: str, n: int, slug: str) -> tuple[Item, ...]:
    return tuple(Item(f"{prefix}{i:011d}", "fact", None, slug, "s", "", float(i), f"c{i}", None)
                 for i in range(n))


def test_at_most_three_flags_and_only_within_one_subject() -> None:
    groups = [Candidates("a", items("o", 6, "a"), items("n", 6, "a")),
              Candidates("b", items("p", 2, "b"), items("m", 2, "b"))]
    reply = lines({"older": "p00000000000", "newer": "n00000000000"},  # across subjects
                  *({"older": f"o{i:011d}", "newer": f"n{i:011d}"} for i in range(5)))
    flags = model.parse_flags(reply, groups)
    assert [(f.slug, f.older.id) for f in flags] == [
        ("a", "o00000000000"), ("a", "o00000000001"), ("a", "o00000000002")]


@pytest.mark.parametrize("reply", [
    '```json\n{"subject":"x","summary":"S"}\n```',
    '[{"subject":"x","summary":"S"}]',
    'Here you go:\n- {"subject":"x","summary":"S"},\nDone.',
    '{"subject":"x","summary":"  S  "}\n{"subject":"x","summary":"second"}',
])
def test_replies_are_read_defensively(reply: str) -> None:
    assert model.parse_summaries(reply, ["x"]) == {"x": "S"}


def test_summaries_for_subjects_not_asked_or_without_text_are_dropped() -> None:
    reply = lines({"subject": "other", "summary": "S"}, {"subject": "x", "summary": "  "},
                  {"subject": "x", "summary": 5}, {"summary": "no subject"})
    assert model.parse_summaries(reply, ["x"]) == {}


async def test_a_500_and_an_unusable_reply_leave_their_parts_out(
        home: Home, fake: FakeAnthropic, fixed: Sections) -> None:
    fake.add(Reply(status=500), Reply(text="I could not decide."))
    step = await run(fixed, settings(home, fake))
    assert step.summaries == {}
    assert step.flags == ()
    assert step.used  # the second call was answered
    assert step.error is not None
    assert step.error.startswith("summaries: the API answered 500")
    assert step.error.endswith("; contradictions: the model's reply had no usable line")
    assert len(fake.requests) == 2


async def test_garbage_summaries_are_an_error_but_flags_still_come(
        home: Home, fake: FakeAnthropic, fixed: Sections) -> None:
    fake.add(Reply(text="{not json"), Reply(text=lines(FLAG)))
    step = await run(fixed, settings(home, fake))
    assert step.summaries == {}
    assert len(step.flags) == 1
    assert step.error == "summaries: the model's reply had no usable line"


async def test_rate_limited_stops_after_the_first_call(
        home: Home, fake: FakeAnthropic, fixed: Sections) -> None:
    fake.add(Reply(status=429, error_type="rate_limit_error"))
    step = await run(fixed, settings(home, fake))
    assert not step.used
    assert step.error == "summaries: rate limited by the API (429)"
    assert len(fake.requests) == 1


async def test_no_api_key_calls_nothing(home: Home, fake: FakeAnthropic,
                                        fixed: Sections) -> None:
    step = await run(fixed, settings(home, fake, key=False))
    assert step == model.ModelStep(skipped=model.NO_KEY)
    assert step.report() == model.ModelReport(used=False, summaries=0, contradictions=0,
                                              skipped=model.NO_KEY)
    assert fake.requests == []


async def test_nothing_to_ask_calls_nothing(home: Home, fake: FakeAnthropic) -> None:
    step = await run(Sections(now=data.NOW), settings(home, fake))
    assert step == model.ModelStep()
    assert fake.requests == []
