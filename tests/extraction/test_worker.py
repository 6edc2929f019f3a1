"""Extraction end to end in one process: hooks over the real socket, the worker, the real
``anthropic`` SDK against a fake Messages API on 127.0.0.1, and the log on disk."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio

from tests.conftest import started
from tests.fakes.anthropic_api import FakeAnthropic, Reply
from tests.timing import scaled
from zettelclaw.client import AsyncClient
from zettelclaw.config import Config, load_config
from zettelclaw.extraction.intake import HookCall
from zettelclaw.extraction.spool import Job
from zettelclaw.extraction.worker import Worker
from zettelclaw.home import Home
from zettelclaw.serve import Ready, ServerConfig, serve
from zettelclaw.state import load_state

MAIN = "agent:main:main"


def msg(role: str, text: str, ms: int) -> dict[str, Any]:
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    return {"role": role, "content": content, "timestamp": ms}


STRETCH_1 = [msg("user", "We will use Postgres for billing", 1_795_000_000_000),
             msg("assistant", "Noted: Postgres for billing.", 1_795_000_001_000)]
STRETCH_2 = [msg("user", "Also the invoices go out on the first Monday", 1_795_000_100_000),
             msg("assistant", "Got it, first Monday.", 1_795_000_101_000)]

GOOD_REPLY = "\n".join([
    '{"type":"decision","content":"Postgres for billing","detail":"team knows it",'
    '"subject":"billing-service"}',
    '{"type":"task","content":"Provision the billing database","status":"open",'
    '"subject":"billing-service"}',
    '{"type":"handoff","content":"Billing: database chosen, provisioning next"}',
])


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    api = FakeAnthropic().start()
    yield api
    api.stop()


def settings(home: Home, fake: FakeAnthropic, *, key: bool = True, timeout: float = 5.0
             ) -> Config:
    env = {"ANTHROPIC_BASE_URL": fake.url}
    if key:
        env["ANTHROPIC_API_KEY"] = "test-key"
    return load_config(home, env=env, overrides=[
        "extraction.retryWaitSeconds=0.05", f"extraction.timeoutSeconds={timeout}",
        "extraction.model=claude-test"])


@pytest.fixture
async def start(server_config: ServerConfig) -> AsyncIterator[Any]:
    """Start a server with the given settings; returns (ready, client)."""
    clients: list[AsyncClient] = []
    async with trio.open_nursery() as nursery:

        async def starter(config_settings: Any) -> tuple[Ready, AsyncClient]:
            config = replace(server_config, settings=config_settings)
            ready: Ready = await nursery.start(serve, config)
            clients.append(await AsyncClient.connect(ready.socket))
            return ready, clients[-1]

        yield starter
        for client in clients:
            await client.aclose()
        nursery.cancel_scope.cancel()


async def settled(client: AsyncClient, *, failed: int | None = 0, waiting: int = 0
                  ) -> dict[str, Any]:
    """Wait until no job is pending (the spool holds only the expected failed/waiting ones;
    ``failed`` None: any number)."""
    with trio.fail_after(scaled(15)):
        while True:
            listing: dict[str, Any] = await client.call("jobs.list")
            states = [j["state"] for j in listing["jobs"]]
            if ("pending" not in states and failed in (None, states.count("failed"))
                    and states.count("waiting") == waiting):
                return listing
            await trio.sleep(0.02)


def log_entries(home: Home) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in home.log.read_bytes().splitlines() if line.strip()]


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str], bool]]:
    """Every job the worker starts, as it starts it: its session, the sessions of the jobs
    running then (itself and any started in the same pass included; trio runs a pass's new
    tasks in any order), and whether the queue was paused. A wrong start shows here
    whenever it happens, where a look at the fake after a fixed wait could come too soon."""
    started: list[tuple[str, list[str], bool]] = []
    run = Worker._run

    async def recorded(self: Worker, listed: Job) -> None:
        started.append((listed.session_id, sorted(self._running.values()),
                        self.extraction.pause.active()))
        await run(self, listed)

    monkeypatch.setattr(Worker, "_run", recorded)
    return started


async def test_a_conversation_becomes_entries(start: Any, fake: FakeAnthropic, home: Home) -> None:
    fake.add(Reply(text=f"```\n{GOOD_REPLY}\n```"))
    _, client = await start(settings(home, fake))
    answer = await client.call("hook.beforeReset", {"sessionId": "s-1", "sessionKey": MAIN,
                                                    "messages": STRETCH_1})
    assert answer["accepted"]
    assert answer["jobId"]
    assert answer["messages"] == 2
    await settled(client)

    entries = log_entries(home)
    assert [e["type"] for e in entries] == ["decision", "task", "handoff"]
    assert {e["session"] for e in entries} == {"s-1"}
    assert len({e["id"] for e in entries}) == 3
    assert all(e["timestamp"].endswith("Z") for e in entries)
    subjects = orjson.loads(home.subjects.read_bytes())
    assert subjects["billing-service"] == {"display": "Billing Service", "type": "project"}
    state = orjson.loads(home.state.read_bytes())
    assert state["extractedSessions"]["s-1"]["entries"] == 3

    assert len(fake.requests) == 1
    prompt = fake.prompts()[0]
    assert "We will use Postgres for billing" in prompt
    assert fake.requests[0]["model"] == "claude-test"
    hits = await client.call("memory.search", {"query": "postgres"})
    assert hits["results"][0]["content"] == "Postgres for billing"
    context = await client.call("hook.beforePromptBuild", {"sessionKey": MAIN})
    assert "Billing: database chosen" in context["prependContext"]
    assert "Provision the billing database" in context["prependContext"]
    transcript = await client.call("memory.get", {"path": "session:s-1"})
    assert "user: We will use Postgres for billing" in transcript["text"]
    assert "assistant: Noted: Postgres for billing." in transcript["text"]


async def test_before_reset_then_session_end_is_one_extraction(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    fake.default = Reply(text=GOOD_REPLY)
    _, client = await start(settings(home, fake))
    first = await client.call("hook.beforeReset", {"sessionId": "s-2", "sessionKey": MAIN,
                                                   "messages": STRETCH_1})
    # session_end brings the same stretch again, as transcript events from the session store
    events = [{"type": "session", "id": "e0"}] + [
        {"type": "message", "id": f"e{i}", "timestamp": "2026-11-21T00:00:00Z", "message": m}
        for i, m in enumerate(STRETCH_1, start=1)]
    second = await client.call("hook.sessionEnd", {"sessionId": "s-2", "sessionKey": MAIN,
                                                   "reason": "new", "messages": events})
    assert "jobId" in first
    assert "jobId" not in second
    assert second["skipped"].startswith("nothing new")
    await settled(client)
    assert len(fake.requests) == 1
    assert len(log_entries(home)) == 3


async def test_a_reset_keeps_the_session_id_and_only_new_messages_are_extracted(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    fake.numbered(GOOD_REPLY)
    _, client = await start(settings(home, fake))
    await client.call("hook.beforeReset", {"sessionId": "s-3", "sessionKey": MAIN,
                                           "messages": STRETCH_1})
    await settled(client)
    # after /new the same sessionId goes on; the session store gives the whole transcript
    again = await client.call("hook.sessionEnd", {"sessionId": "s-3", "sessionKey": MAIN,
                                                  "messages": STRETCH_1 + STRETCH_2})
    assert again["messages"] == 2
    await settled(client)
    assert len(fake.requests) == 2
    second_prompt = fake.prompts()[1]
    assert "invoices go out on the first Monday" in second_prompt
    assert "We will use Postgres for billing" not in second_prompt
    assert len(log_entries(home)) == 6


async def test_a_correction_replaces_the_entry_it_corrects(
        start: Any, fake: FakeAnthropic, home: Home, write_log: Any) -> None:
    write_log({"id": "r7Wp3nKx_mZe", "timestamp": "2026-02-20T14:35:00Z", "type": "fact",
               "content": "Exponential backoff intervals: 1s, 5s, 15s",
               "subject": "auth-migration", "session": "old"})
    fake.add(Reply(text='{"type":"fact","content":"Exponential backoff intervals: 2s, 10s, 30s",'
                        '"replaces":"r7Wp3nKx_mZe","subject":"auth-migration"}\n'
                        '{"type":"fact","content":"Made-up correction","replaces":"ZZZZZZZZZZZZ"}'
                        '\n{"type":"handoff","content":"Backoff corrected"}'))
    _, client = await start(settings(home, fake))
    await client.call("hook.beforeReset", {"sessionId": "s-4", "sessionKey": MAIN, "messages": [
        msg("user", "That's wrong, the exponential backoff is 2s/10s/30s", 1_795_000_000_000)]})
    await settled(client)
    prompt = fake.prompts()[0]
    assert "r7Wp3nKx_mZe" in prompt, "the entry to correct is shown to the model with its id"
    corrected, invented = log_entries(home)[1:3]
    assert corrected["replaces"] == "r7Wp3nKx_mZe"
    assert "replaces" not in invented  # an id the log does not hold is dropped
    visible = await client.call("memory.search", {"query": "backoff intervals"})
    contents = [r["content"] for r in visible["results"]]
    assert contents[0] == "Exponential backoff intervals: 2s, 10s, 30s"
    assert "Exponential backoff intervals: 1s, 5s, 15s" not in contents


async def test_rate_limited_then_success_keeps_the_retry(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    fake.add(Reply(status=429, error_type="rate_limit_error", headers={"retry-after": "0"}),
             Reply(text=GOOD_REPLY))
    _, client = await start(settings(home, fake))
    await client.call("hook.sessionEnd", {"sessionId": "s-5", "sessionKey": MAIN,
                                          "messages": STRETCH_1})
    await settled(client)
    assert len(fake.requests) == 2
    assert len(log_entries(home)) == 3


async def test_a_500_twice_fails_the_job_after_exactly_two_calls_and_retry_recovers(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    fake.add(Reply(status=500), Reply(status=500))
    fake.default = Reply(text=GOOD_REPLY)
    _, client = await start(settings(home, fake))
    await client.call("hook.sessionEnd", {"sessionId": "s-6", "sessionKey": MAIN,
                                          "messages": STRETCH_1})
    listing = await settled(client, failed=1)
    job = listing["jobs"][0]
    assert job["attempts"] == 2
    assert "500" in job["lastError"]
    assert len(fake.requests) == 2
    assert not home.log.read_bytes()
    state = orjson.loads(home.state.read_bytes())
    assert state["failedSessions"]["s-6"]["retries"] == 1
    status = await client.call("status")
    assert status["extraction"]["jobs"]["failed"] == 1

    retried = await client.call("jobs.retry", {"jobId": job["jobId"]})
    assert retried["retried"] == [job["jobId"]]
    await settled(client)
    assert len(fake.requests) == 3
    assert len(log_entries(home)) == 3
    assert "s-6" not in load_state(home).failed_sessions


@pytest.mark.slow
async def test_a_timeout_counts_as_a_failed_attempt(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    fake.default = Reply(text=GOOD_REPLY, delay=2.0)
    _, client = await start(settings(home, fake, timeout=0.2))
    await client.call("hook.sessionEnd", {"sessionId": "s-7", "sessionKey": MAIN,
                                          "messages": STRETCH_1})
    listing = await settled(client, failed=1)
    assert "did not answer within" in listing["jobs"][0]["lastError"]
    assert len(fake.requests) == 2


async def test_without_a_key_hooks_are_spooled_and_status_says_why(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    _, client = await start(settings(home, fake, key=False))
    answer = await client.call("hook.sessionEnd", {"sessionId": "s-8", "sessionKey": MAIN,
                                                   "messages": STRETCH_1})
    assert answer["accepted"]
    assert answer["jobId"]
    listing = await settled(client, waiting=1)
    assert listing["jobs"][0]["attempts"] == 0
    status = await client.call("status")
    assert status["extraction"]["apiKey"] is False
    assert "API key" in status["extraction"]["waitingFor"]
    assert fake.requests == []
    assert (home.root / "spool" / f"{answer['jobId']}.json").exists()


@pytest.mark.parametrize("reply", [
    '{"type":"fact","content":"Invoices go out on the first Monday"}',  # no handoff
    '{"type":"handoff","content":"first"}\n{"type":"fact","content":"Invoices on Mondays"}\n'
    '{"type":"handoff","content":"second"}',  # two handoffs
])
@pytest.mark.slow
async def test_exactly_one_handoff_ends_every_batch(
        start: Any, fake: FakeAnthropic, home: Home, reply: str) -> None:
    fake.default = Reply(text=reply)
    _, client = await start(settings(home, fake))
    await client.call("hook.sessionEnd", {"sessionId": "s-9", "sessionKey": MAIN,
                                          "messages": STRETCH_2})
    await settled(client)
    entries = log_entries(home)
    assert [e["type"] for e in entries].count("handoff") == 1
    assert entries[-1]["type"] == "handoff"


async def test_garbage_lines_are_dropped_and_the_rest_kept(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    fake.default = Reply(text="Here are the entries:\n{not json}\n"
                              '{"type":"opinion","content":"x"}\n'
                              '{"type":"fact","content":"Invoices go out on Mondays"}\n'
                              '{"type":"handoff","content":"done"}\nHope this helps!')
    _, client = await start(settings(home, fake))
    await client.call("hook.sessionEnd", {"sessionId": "s-10", "sessionKey": MAIN,
                                          "messages": STRETCH_2})
    await settled(client)
    assert [e["content"] for e in log_entries(home)] == ["Invoices go out on Mondays", "done"]


@pytest.mark.parametrize("key", ["agent:main:cron:nightly:run:8821", "agent:main:subagent:child",
                                 "agent:main:hook:automation"])
async def test_sessions_without_a_human_are_not_extracted(
        start: Any, fake: FakeAnthropic, home: Home, key: str) -> None:
    fake.default = Reply(text=GOOD_REPLY)
    _, client = await start(settings(home, fake))
    answer = await client.call("hook.sessionEnd", {"sessionId": "s-11", "sessionKey": key,
                                                   "messages": STRETCH_1})
    assert "jobId" not in answer
    assert answer["skipped"]
    await settled(client)
    assert fake.requests == []
    assert "s-11" in load_state(home).skipped_sessions
    assert not (home.root / "transcripts" / "s-11.jsonl").exists()


async def test_the_gateway_sweep_names_what_is_missing_and_retries_failed_jobs(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    fake.add(Reply(status=500), Reply(status=500))
    fake.default = Reply(text=GOOD_REPLY)
    started(home)  # before STRETCH_1: s-12b, never seen, is swept
    _, client = await start(settings(home, fake))
    await client.call("hook.sessionEnd", {"sessionId": "s-12", "sessionKey": MAIN,
                                          "messages": STRETCH_1})
    await settled(client, failed=1)
    last_ms = STRETCH_1[-1]["timestamp"]
    sweep = await client.call("hook.gatewayStart", {"sessions": [
        {"sessionId": "s-12", "sessionKey": MAIN, "updatedAt": last_ms},  # nothing newer
        {"sessionId": "s-12b", "sessionKey": MAIN, "updatedAt": last_ms},  # never seen
        {"sessionId": "s-12c", "sessionKey": "agent:main:cron:x"},
    ]})
    assert [s["sessionId"] for s in sweep["sessions"]] == ["s-12b"]
    assert sweep["skipped"] == [{"sessionId": "s-12c", "reason": "cron session"}]
    assert len(sweep["retried"]) == 1
    await settled(client)
    assert len(log_entries(home)) == 3
    # a second sweep does not retry again, and now s-12 newer activity is asked for
    sweep = await client.call("hook.gatewayStart", {"sessions": [
        {"sessionId": "s-12", "sessionKey": MAIN, "updatedAt": last_ms + 60_000}]})
    assert sweep["sessions"][0]["after"]["timestamp"].startswith("2026-")
    assert sweep["retried"] == []


async def test_a_transcript_file_path_is_read_with_its_reset_rotation(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    fake.default = Reply(text=GOOD_REPLY)
    root = home.root.parent / "transcripts"  # the transcript root the fixture configures
    sessions = root / "main" / "sessions"
    sessions.mkdir(parents=True)
    rotated = sessions / "s-13.jsonl.reset.2026-11-20T10-00-00"
    rotated.write_bytes(b"".join(orjson.dumps(
        {"type": "message", "id": f"m{i}", "message": m}) + b"\n"
        for i, m in enumerate(STRETCH_1)))
    _, client = await start(settings(home, fake))
    answer = await client.call("hook.sessionEnd", {
        "sessionId": "s-13", "sessionKey": MAIN,
        "transcriptPath": str(sessions / "s-13.jsonl")})
    assert answer["messages"] == 2
    await settled(client)
    assert "We will use Postgres for billing" in fake.prompts()[0]


async def test_hooks_answer_while_the_model_is_still_thinking(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    fake.numbered(GOOD_REPLY, hold=True)
    _, client = await start(settings(home, fake))
    for i in range(5):
        answer = await client.call("hook.sessionEnd", {
            "sessionId": f"s-14-{i}", "sessionKey": MAIN, "messages": STRETCH_1})
        assert answer["jobId"]
    with trio.fail_after(scaled(10)):
        while len(fake.requests) < 2:  # noqa: ASYNC110 (the fake lives in another thread)
            await trio.sleep(0.01)
    assert len(fake.requests) == 2, "at most extraction.concurrency calls at once"
    hook = await client.call("hook.beforePromptBuild", {"sessionKey": MAIN})
    assert hook == {"prependContext": None}
    fake.release()
    await settled(client)
    assert len(log_entries(home)) == 15


async def test_a_later_stretch_waits_for_its_session_while_other_sessions_go_ahead(
        start: Any, fake: FakeAnthropic, home: Home,
        starts: list[tuple[str, list[str], bool]]) -> None:
    """Two jobs of one session run in order (the second may correct the first); a job of
    another session, spooled after both, takes the free slot instead."""
    fake.numbered(GOOD_REPLY, hold=True)
    _, client = await start(settings(home, fake))
    for session, messages in (("s-A", STRETCH_1), ("s-A", STRETCH_1 + STRETCH_2),
                              ("s-B", STRETCH_2)):
        answer = await client.call("hook.sessionEnd", {"sessionId": session, "sessionKey": MAIN,
                                                       "messages": messages})
        assert answer["jobId"]
    with trio.fail_after(scaled(10)):
        while len(fake.requests) < 2:  # noqa: ASYNC110 (the fake lives in another thread)
            await trio.sleep(0.01)
    in_flight = sorted(fake.prompts()[:2], key=lambda p: "Session s-B" in p)  # any order
    assert "Session s-A" in in_flight[0]
    assert "We will use Postgres for billing" in in_flight[0]  # s-A's first stretch
    assert "Session s-B" in in_flight[1]  # not s-A's second stretch
    fake.release()
    await settled(client)
    assert len(fake.requests) == 3
    assert "Session s-A" in fake.prompts()[2]
    assert "invoices go out on the first Monday" in fake.prompts()[2]
    assert [e["session"] for e in log_entries(home)].count("s-A") == 6
    # whenever a job started, at most two ran (extraction.concurrency), never two of a session:
    # s-A's second stretch waited for its first, and no third job ran beside the two held ones
    assert sorted(session for session, _, _ in starts) == ["s-A", "s-A", "s-B"], starts
    assert all(len(running) == len(set(running)) <= 2 for _, running, _ in starts), starts


def test_prompt_file_is_the_one_in_prompts() -> None:
    prompt = Path(__file__).resolve().parents[2] / "prompts" / "extraction.md"
    assert "{{transcript}}" in prompt.read_text()


async def test_a_rate_limit_pauses_the_whole_queue_until_retried(
        start: Any, fake: FakeAnthropic, home: Home,
        starts: list[tuple[str, list[str], bool]]) -> None:
    # both 429s are held until both calls are in flight: on a loaded machine the first could
    # answer (and pause the queue) before the second job started, and the count of two waiting
    # jobs never came (scripts/test --fast at load 20). They ask for an hour: the jobs stay
    # waiting until jobs.retry, so no window of the real clock can be missed.
    limited = Reply(status=429, error_type="rate_limit_error", headers={"retry-after": "3600"},
                    hold=True)
    fake.add(limited, limited)
    fake.numbered(GOOD_REPLY)
    _, client = await start(settings(home, fake))
    for i in range(6):
        await client.call("hook.sessionEnd", {"sessionId": f"s-20-{i}", "sessionKey": MAIN,
                                              "messages": STRETCH_1})
    # polling the server: there is no event to wait on. The bound covers the Anthropic SDK's
    # first import in this process, which took over 10 s on a loaded 2-core CI machine
    with trio.fail_after(scaled(30)):
        while True:  # the fake's requests come from its thread: no event to wait on
            if len(fake.requests) >= 2:
                break
            await trio.sleep(0.02)
    fake.release()
    with trio.fail_after(scaled(30)):
        while True:  # both calls in flight answered 429, their jobs saved as waiting
            jobs = (await client.call("jobs.list"))["jobs"]
            if [j["state"] for j in jobs].count("waiting") == 2:
                break
            await trio.sleep(0.02)
    status = await client.call("status")
    assert "rate limited" in status["extraction"]["waitingFor"]
    await client.call("jobs.retry")
    await settled(client)
    assert len(log_entries(home)) == 18
    # a paused queue starts nothing, whatever is spooled: every job started before the pause
    # (the two answered 429) or after the retry lifted it
    assert [paused for _, _, paused in starts] == [False] * 8, starts
    assert len(fake.requests) == 8, "the two rate-limited calls, then the six jobs"


async def test_a_stale_copy_of_a_job_never_runs_it_twice(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    """The loop lists the spool in a thread while jobs finish: it can hold a copy of a job
    that has since finished (or saved its result). Running that copy must not ask the model
    again: the job file on disk is the truth."""
    from tests.direct import open_app
    from zettelclaw.extraction.worker import Worker

    fake.default = Reply(text=GOOD_REPLY)
    app = open_app(home, home.root.parent / "ws", settings=settings(home, fake))
    try:
        extraction = app.extraction
        answer = await trio.to_thread.run_sync(extraction.intake.accept, HookCall(
            trigger="sessionEnd", session_id="s-21", session_key=MAIN, messages=STRETCH_1))
        assert answer.job_id is not None
        stale = extraction.spool.load(answer.job_id)  # the loop's snapshot: no result yet
        assert stale is not None
        worker = Worker(extraction)
        worker._sdk_ready.set()
        await worker._run(stale.model_copy(deep=True))  # runs it: one model call
        assert len(fake.requests) == 1
        await worker._run(stale.model_copy(deep=True))  # the stale copy, after it finished
        assert len(fake.requests) == 1, "a finished job is not run again"
        assert len(log_entries(home)) == 3
    finally:
        app.close()


async def test_two_conversations_saying_the_same_thing_at_once_write_it_once(
        start: Any, fake: FakeAnthropic, home: Home, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both replies are read before either job finishes (each kept result waits for the
    other's): the reader's check saw memory without the other's entries, so the job that
    finishes second finds them held and writes none of them, and says so."""
    import threading

    from zettelclaw.extraction.service import Extraction

    both_read = threading.Barrier(2, timeout=scaled(10))
    keep = Extraction.keep_result

    def kept_then_wait(self: Extraction, job: Job) -> bool:
        kept = keep(self, job)
        both_read.wait()
        return kept

    monkeypatch.setattr(Extraction, "keep_result", kept_then_wait)
    fake.default = Reply(text=GOOD_REPLY)
    _, client = await start(settings(home, fake))
    for session in ("s-same-1", "s-same-2"):
        await client.call("hook.sessionEnd", {"sessionId": session, "sessionKey": MAIN,
                                              "messages": STRETCH_1})
    await settled(client)
    written = log_entries(home)
    assert sorted(e["content"] for e in written) == [
        "Billing: database chosen, provisioning next", "Postgres for billing",
        "Provision the billing database"]
    assert len({e["session"] for e in written}) == 1
    notes = [o.note for o in load_state(home).extraction_outcomes]
    assert len(notes) == 2, notes
    assert sum("dropped: 3 already in memory" in n for n in notes) == 1, notes
    assert sum(n.startswith("nothing new") for n in notes) == 1, notes
