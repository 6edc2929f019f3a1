"""extraction/spool.py: one JSON file per extraction job, replaced atomically.

Covers Job construction by alias (jobId, sessionId, ...) and by field name; save/load/delete round
trip with the file written in alias form (owner-only); load and delete of a missing job; job ids
and path() refusing separators and leading dots; jobs() oldest first (also for jobs created within
the same second), [] without a spool directory, and an unreadable file set aside as
*.json.unreadable instead of returned or lost; summary(); message_objects().
"""

from __future__ import annotations

import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from zettelclaw.extraction.spool import Job, JobSummary, Spool, new_job_id
from zettelclaw.extraction.transcript import Message, normalize
from zettelclaw.home import Home

MESSAGES = normalize([{"role": "user", "content": "Use Postgres", "timestamp": 1795234915000},
                      {"role": "assistant", "content": "Noted.", "timestamp": 1795234916000}])


def make_job(job_id: str | None = None, **fields: object) -> Job:
    values: dict[str, object] = {
        "jobId": job_id or new_job_id(), "sessionId": "sess-1", "sessionKey": "agent:main:main",
        "agentId": "main", "trigger": "sessionEnd", "reason": "new",
        "createdAt": "2026-11-21T05:15:00Z", "messages": [m.to_json() for m in MESSAGES]}
    values.update(fields)
    return Job.model_validate(values)


@pytest.fixture
def spool(home: Home) -> Spool:
    return Spool(home)


def test_a_job_by_alias_equals_a_job_by_field_name() -> None:
    by_alias = make_job("job-1")
    by_name = Job(job_id="job-1", session_id="sess-1", session_key="agent:main:main",
                  agent_id="main", trigger="sessionEnd", reason="new",
                  created_at="2026-11-21T05:15:00Z", messages=[m.to_json() for m in MESSAGES])
    assert by_alias == by_name
    assert (by_alias.state, by_alias.attempts, by_alias.result) == ("pending", 0, None)


def test_save_load_delete_round_trip(spool: Spool) -> None:
    job = make_job(state="waiting", attempts=1, lastError="overloaded (529)",
                   notBefore=1795235000.5, sweepRetried=True,
                   result={"entries": [{"type": "fact"}], "report": {}, "at": "x"})
    spool.save(job)
    path = spool.dir / f"{job.job_id}.json"
    assert path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    on_disk = orjson.loads(path.read_bytes())
    assert {"jobId", "sessionId", "sessionKey", "agentId", "createdAt", "lastError",
            "notBefore", "sweepRetried"} <= set(on_disk)
    assert on_disk["jobId"] == job.job_id
    assert on_disk["lastError"] == "overloaded (529)"
    assert spool.load(job.job_id) == job
    assert spool.jobs() == [job]
    spool.delete(job.job_id)
    assert not path.exists()
    assert spool.load(job.job_id) is None
    assert spool.jobs() == []
    spool.delete(job.job_id)  # already gone: no error


def test_save_replaces_the_job(spool: Spool) -> None:
    job = make_job("job-1")
    spool.save(job)
    spool.save(job.model_copy(update={"attempts": 2, "state": "failed"}))
    loaded = spool.load("job-1")
    assert loaded is not None
    assert (loaded.attempts, loaded.state) == (2, "failed")
    assert [p.name for p in spool.dir.iterdir()] == ["job-1.json"]


def test_load_of_a_missing_job_is_none(spool: Spool) -> None:
    assert spool.load("nope") is None


@pytest.mark.parametrize("job_id", ["a/b", "../x", ".hidden"])
def test_bad_job_ids_are_refused(spool: Spool, job_id: str) -> None:
    with pytest.raises(ValueError, match="bad job id"):
        spool.path(job_id)


def test_new_job_ids_are_unique_and_usable(spool: Spool) -> None:
    ids = {new_job_id() for _ in range(200)}
    assert len(ids) == 200
    for job_id in list(ids)[:5]:
        assert spool.path(job_id).parent == spool.dir


def test_jobs_without_a_spool_directory(spool: Spool) -> None:
    assert not spool.dir.exists()
    assert spool.jobs() == []


def test_jobs_are_oldest_first(spool: Spool) -> None:
    created = []
    for i in range(30):  # well within one second: the order must not depend on chance
        job = make_job(new_job_id(), reason=str(i))
        spool.save(job)
        created.append(job.job_id)
    assert [j.job_id for j in spool.jobs()] == created


def test_an_unreadable_file_is_set_aside(spool: Spool) -> None:
    good = make_job("20261121T051500Z-000001")
    spool.save(good)
    (spool.dir / "20261121T051400Z-bad001.json").write_bytes(b"{not json")
    (spool.dir / "20261121T051600Z-bad002.json").write_bytes(b'{"jobId": "x"}')
    assert spool.jobs() == [good]
    names = sorted(p.name for p in spool.dir.iterdir())
    assert names == ["20261121T051400Z-bad001.json.unreadable", "20261121T051500Z-000001.json",
                     "20261121T051600Z-bad002.json.unreadable"]
    assert (spool.dir / "20261121T051400Z-bad001.json.unreadable").read_bytes() == b"{not json"
    assert spool.jobs() == [good]  # set aside once, not again and again


@pytest.mark.parametrize("message", [
    {"role": "user", "text": "no key", "timestamp": None},
    {"key": "k1", "role": "user", "timestamp": None},
    {"key": "k1", "role": "user", "text": 42, "timestamp": None},
    "a message that is a string",
])
def test_a_job_whose_messages_are_not_messages_is_set_aside(spool: Spool, message: Any) -> None:
    # a job file written or edited by hand: its messages are read only when the worker builds
    # the prompt, where a missing key stopped the sidecar (KeyError: 'key'); read as a job, it
    # must be refused whole, like any other file that is not a job
    good = make_job("20261121T051500Z-000001")
    spool.save(good)
    bad = make_job("20261121T051600Z-bad003").model_dump(by_alias=True)
    bad["messages"] = [MESSAGES[0].to_json(), message]
    (spool.dir / "20261121T051600Z-bad003.json").write_bytes(orjson.dumps(bad))
    assert spool.jobs() == [good]
    assert (spool.dir / "20261121T051600Z-bad003.json.unreadable").exists()


def test_summary(spool: Spool) -> None:
    job = make_job("job-1", attempts=1, lastError="boom", notBefore=12.5)
    assert job.summary() == JobSummary(
        job_id="job-1", session_id="sess-1", state="pending", trigger="sessionEnd",
        created_at="2026-11-21T05:15:00Z", messages=2, attempts=1, last_error="boom",
        has_result=False, not_before=12.5, route=None, import_id=None)
    with_result = job.model_copy(update={"result": {"entries": []}})
    assert with_result.summary().has_result is True


def test_message_objects() -> None:
    job = make_job()
    assert job.message_objects() == MESSAGES
    assert all(isinstance(m, Message) for m in job.message_objects())


def test_a_job_deleted_while_the_spool_is_listed_is_simply_done(
        home: Home, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker lists the spool while jobs finish (and delete their files) in other threads:
    a file gone between the listing and the read is not an error, nor set aside."""
    spool = Spool(home)
    first, second = make_job("20261121T000000.000001Z-aaaaaa"), make_job(
        "20261121T000000.000002Z-bbbbbb")
    spool.save(first)
    spool.save(second)
    real_glob = Path.glob

    def glob_then_finish(self: Path, pattern: str) -> Any:
        found = list(real_glob(self, pattern))
        spool.delete(first.job_id)  # the job finishes right after the listing
        return iter(found)

    monkeypatch.setattr(Path, "glob", glob_then_finish)
    assert [j.job_id for j in spool.jobs()] == [second.job_id]
    monkeypatch.undo()
    assert not list(spool.dir.glob("*.unreadable"))


def test_a_listing_parses_only_the_jobs_that_changed(
        home: Home, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker lists the spool after every hook and every finished job: with many jobs
    spooled, parsing them all each time made it quadratic."""
    spool = Spool(home)
    jobs = [make_job(f"20261121T000000.00000{i}Z-abcdef") for i in range(5)]
    for job in jobs:
        spool.save(job)
    parsed: list[bytes] = []
    real = Job.model_validate_json

    def counting(data: Any, **kwargs: Any) -> Job:
        parsed.append(data)
        return real(data, **kwargs)

    monkeypatch.setattr(Job, "model_validate_json", counting)
    assert [j.job_id for j in spool.jobs()] == [j.job_id for j in jobs]
    assert len(parsed) == 5
    assert len(spool.jobs()) == 5
    assert len(parsed) == 5, "nothing changed: nothing parsed again"
    changed = jobs[2].model_copy(update={"attempts": 1})
    spool.save(changed)
    spool.delete(jobs[0].job_id)
    listed = spool.jobs()
    assert len(parsed) == 6, "only the changed job"
    assert [j.job_id for j in listed] == [j.job_id for j in jobs[1:]]
    assert listed[1].attempts == 1
    listed[1].attempts = 7  # a copy: the next listing is what is on disk
    assert spool.jobs()[1].attempts == 1


def test_entries_are_dated_when_the_conversation_said_them() -> None:
    """docs/04-extraction.md#when-an-entry-is-dated: an import's time; else the last message's
    with a time, never after now; else now."""
    now = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
    assert make_job().said_at(now) == "2026-11-21T04:21:56Z"
    untimed = [{**m.to_json(), "timestamp": None} for m in MESSAGES]
    assert make_job(messages=[MESSAGES[0].to_json(), *untimed[1:]]).said_at(now) \
        == "2026-11-21T04:21:55Z"
    assert make_job(messages=untimed).said_at(now) == "2026-12-01T08:00:00Z"
    ahead = [{**m.to_json(), "timestamp": "2100-01-01T00:00:00.000Z"} for m in MESSAGES]
    assert make_job(messages=ahead).said_at(now) == "2026-12-01T08:00:00Z"
    torn = [{**m.to_json(), "timestamp": "yesterday"} for m in MESSAGES]
    assert make_job(messages=torn).said_at(now) == "2026-12-01T08:00:00Z"
    imported = make_job(entriesAt="2024-03-05T10:00:00Z", imported="imp-1")
    assert imported.said_at(now) == "2024-03-05T10:00:00Z"
