"""extraction/intake.py: what a hook call leaves behind (a spooled job, the provenance, state.json).

With a real Home, Provenance, Spool and ExtractionConfig: a new stretch becomes one job with only
user/assistant text, also recorded in the provenance with its job id; the same stretch again (as
message objects or as transcript events) is "nothing new" and makes no job; a later stretch that
repeats the earlier messages makes a job of only the new ones; automated session keys (cron, sub,
subagent, hook, and whatever skipSessionTypes configures instead) are skipped and recorded in
state.json skippedSessions; a stretch without a user message is skipped but recorded as received;
neither messages nor transcriptPath, or a bad sessionId, is InvalidParamsError; transcriptPath
inside a configured root (older OpenClaw JSONL, one event per line) works, and its .reset.*
rotation is used when the file is gone; a path outside the roots (directly, via ../, via a
symlink, via a rotation that is a symlink, not .jsonl, no roots at all) is PathNotAllowedError;
a missing file is NotFoundError; recover_locked() records a spooled job's messages in the
provenance when a crash left them out, after which a redelivery is "nothing new".
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from zettelclaw import lock
from zettelclaw.config import ExtractionConfig
from zettelclaw.errors import InvalidParamsError, NotFoundError, PathNotAllowedError
from zettelclaw.extraction.intake import Accepted, HookCall, Intake
from zettelclaw.extraction.provenance import Provenance
from zettelclaw.extraction.spool import Job, Spool, new_job_id
from zettelclaw.extraction.transcript import normalize
from zettelclaw.home import Home
from zettelclaw.state import Skipped, load_state

SID = "5f0c7a1e-2b8d-4c61-9e3f-0a1b2c3d4e5f"
T0 = 1795234915000


def conversation() -> list[dict[str, Any]]:
    """OpenClaw message objects as before_reset delivers them (with tool traffic)."""
    return [
        {"role": "user", "content": "Let's move auth to Okta.", "timestamp": T0},
        {"role": "assistant", "timestamp": T0 + 1000, "content": [
            {"type": "thinking", "thinking": "check the config first"},
            {"type": "text", "text": "I'll read the auth config."},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "auth.yml"}}]},
        {"role": "toolResult", "toolCallId": "c1", "timestamp": T0 + 2000,
         "content": [{"type": "text", "text": "provider: saml"}]},
        {"role": "assistant", "timestamp": T0 + 3000,
         "content": [{"type": "text", "text": "It uses SAML today; Okta supports OIDC."}]},
        {"role": "user", "content": "Then OIDC it is.", "timestamp": T0 + 4000},
    ]


EXPECTED = [("user", "Let's move auth to Okta."), ("assistant", "I'll read the auth config."),
            ("assistant", "It uses SAML today; Okta supports OIDC."), ("user", "Then OIDC it is.")]


def later_messages() -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": [{"type": "text", "text": "Switched to OIDC."}],
             "timestamp": T0 + 60_000},
            {"role": "user", "content": "Thanks, rotate the secret tomorrow.",
             "timestamp": T0 + 61_000}]


def as_events(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": SID, "timestamp": "2026-11-21T04:00:00.000Z",
         "cwd": "/home/rosa"},
        {"type": "model_change", "id": "mc1", "provider": "anthropic",
         "modelId": "claude-sonnet-4-6"}]
    for i, message in enumerate(messages):
        events.append({"type": "message", "id": f"ev{i}", "parentId": f"ev{i - 1}" if i else None,
                       "timestamp": "2026-11-21T04:30:00.000Z", "message": message})
        if i == 1:
            events.append({"type": "custom", "customType": "note", "data": {}})
    return events


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


@pytest.fixture
def roots(tmp_path: Path) -> Path:
    root = tmp_path / "state" / "agents"
    (root / "main" / "sessions").mkdir(parents=True)
    return root


@pytest.fixture
def intake(home: Home, roots: Path) -> Intake:
    return Intake(home, ExtractionConfig(), Provenance(home), Spool(home), [roots])


def call(**fields: Any) -> HookCall:
    values: dict[str, Any] = {"trigger": "beforeReset", "session_id": SID,
                              "session_key": "agent:main:main", "agent_id": "main",
                              "reason": "new"}
    values.update(fields)
    return HookCall(**values)


def skipped_sessions(home: Home) -> dict[str, Skipped]:
    return load_state(home).skipped_sessions


# -- new and repeated stretches ----------------------------------------------------------------


def test_a_new_stretch_becomes_a_job(intake: Intake) -> None:
    result = intake.accept(call(messages=conversation()))
    assert result.messages == 4
    [job] = intake.spool.jobs()
    assert result.job_id == job.job_id
    assert [(m["role"], m["text"]) for m in job.messages] == EXPECTED
    assert (job.session_id, job.session_key, job.agent_id, job.trigger, job.reason) == (
        SID, "agent:main:main", "main", "beforeReset", "new")
    assert job.state == "pending"
    assert intake.provenance.keys(SID) == {m["key"] for m in job.messages}
    assert [r["job"] for r in intake.provenance.messages(SID)] == [job.job_id] * 4


def test_the_same_stretch_again_is_nothing_new(intake: Intake) -> None:
    first = intake.accept(call(messages=conversation()))
    again = intake.accept(call(trigger="sessionEnd", messages=conversation()))
    assert (again.skipped or "").startswith("nothing new")
    assert again.messages == 0
    assert again.job_id is None
    assert [j.job_id for j in intake.spool.jobs()] == [first.job_id]
    assert len(intake.provenance.messages(SID)) == 4


def test_the_same_stretch_as_events_is_nothing_new(intake: Intake) -> None:
    intake.accept(call(messages=conversation()))
    again = intake.accept(call(trigger="sessionEnd", messages=as_events(conversation())))
    assert (again.skipped or "").startswith("nothing new")
    assert len(intake.spool.jobs()) == 1


def test_events_first_then_objects_is_nothing_new_too(intake: Intake) -> None:
    first = intake.accept(call(messages=as_events(conversation())))
    assert first.messages == 4
    assert (intake.accept(call(messages=conversation())).skipped or "").startswith("nothing new")


def test_a_later_stretch_makes_a_job_of_only_the_new_messages(intake: Intake) -> None:
    first = intake.accept(call(messages=conversation()))
    second = intake.accept(call(trigger="sessionEnd",
                                messages=conversation() + later_messages()))
    assert second.messages == 2
    jobs = intake.spool.jobs()
    assert [j.job_id for j in jobs] == [first.job_id, second.job_id]
    assert [(m["role"], m["text"]) for m in jobs[1].messages] == [
        ("assistant", "Switched to OIDC."), ("user", "Thanks, rotate the secret tomorrow.")]
    records = intake.provenance.messages(SID)
    assert [r["job"] for r in records] == [first.job_id] * 4 + [second.job_id] * 2


def test_sessions_are_kept_apart(intake: Intake) -> None:
    intake.accept(call(messages=conversation()))
    other = intake.accept(call(session_id="another-session", messages=conversation()))
    assert other.messages == 4
    assert len(intake.spool.jobs()) == 2


# -- skipped stretches -------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "reason"), [
    ("agent:main:cron:nightly:run:8821", "cron session"),
    ("agent:main:sub:worker", "sub session"),
    ("agent:main:subagent:child", "subagent session"),
    ("agent:main:hook:automation", "hook session"),
])
def test_automated_sessions_are_skipped_and_recorded(intake: Intake, home: Home, key: str,
                                                     reason: str) -> None:
    result = intake.accept(call(session_key=key, messages=conversation()))
    assert result == Accepted(skipped=reason)
    assert intake.spool.jobs() == []
    assert intake.provenance.keys(SID) == set()
    record = skipped_sessions(home)[SID]
    assert reason in str(record.reason)
    assert key in str(record.reason)
    assert record.at is not None


def test_configured_skip_session_types(home: Home, roots: Path) -> None:
    config = ExtractionConfig(skip_session_types=("telegram",))
    intake = Intake(home, config, Provenance(home), Spool(home), [roots])
    skipped = intake.accept(call(session_key="agent:main:telegram:direct:123",
                                 messages=conversation()))
    assert skipped.skipped == "telegram session"
    assert "telegram session" in str(skipped_sessions(home)[SID].reason)
    # cron is no longer in the list: a cron session is extracted
    taken = intake.accept(call(session_id="cron-run", session_key="agent:main:cron:nightly",
                               messages=conversation()))
    assert taken.messages == 4
    assert "cron-run" not in skipped_sessions(home)


def test_the_main_session_and_no_key_are_not_skipped(intake: Intake) -> None:
    assert intake.accept(call(messages=conversation())).job_id is not None
    assert intake.accept(call(session_id="s2", session_key=None,
                              messages=conversation())).job_id is not None


def test_a_stretch_without_a_user_message_is_skipped_but_received(intake: Intake,
                                                                  home: Home) -> None:
    only_assistant = [m for m in conversation() if m["role"] == "assistant"]
    result = intake.accept(call(messages=only_assistant))
    assert result == Accepted(skipped="no user message", messages=2)
    assert intake.spool.jobs() == []
    assert len(intake.provenance.keys(SID)) == 2
    assert [r["job"] for r in intake.provenance.messages(SID)] == [None, None]
    assert "no user message" in str(skipped_sessions(home)[SID].reason)
    assert (intake.accept(call(messages=only_assistant)).skipped or "").startswith("nothing new")
    # the user's messages come later: only they make the job
    result = intake.accept(call(messages=conversation()))
    assert result.messages == 2
    [job] = intake.spool.jobs()
    assert [m["role"] for m in job.messages] == ["user", "user"]


def test_an_empty_stretch_is_nothing_new(intake: Intake) -> None:
    result = intake.accept(call(messages=[]))
    assert (result.skipped or "").startswith("nothing new")
    assert intake.spool.jobs() == []


# -- invalid calls -----------------------------------------------------------------------------


def test_neither_messages_nor_a_path_is_invalid(intake: Intake) -> None:
    with pytest.raises(InvalidParamsError) as info:
        intake.accept(call())
    assert info.value.data[0]["field"] == "messages"


@pytest.mark.parametrize("sid", ["../x", "a/b", ".hidden", ""])
def test_a_bad_session_id_is_invalid(intake: Intake, sid: str) -> None:
    with pytest.raises(InvalidParamsError):
        intake.accept(call(session_id=sid, messages=conversation()))
    assert intake.spool.jobs() == []


# -- transcript files --------------------------------------------------------------------------


def test_a_transcript_path_inside_a_root(intake: Intake, roots: Path) -> None:
    path = write_jsonl(roots / "main" / "sessions" / f"{SID}.jsonl", as_events(conversation()))
    with path.open("ab") as f:
        f.write(b"not json\n")
    result = intake.accept(call(trigger="sessionEnd", transcript_path=str(path)))
    assert result.messages == 4
    [job] = intake.spool.jobs()
    assert [(m["role"], m["text"]) for m in job.messages] == EXPECTED
    # the same conversation inline afterwards is nothing new
    assert (intake.accept(call(messages=conversation())).skipped or "").startswith("nothing new")


def test_inline_messages_win_over_a_path(intake: Intake, roots: Path) -> None:
    result = intake.accept(call(messages=conversation(),
                                transcript_path=str(roots / "nowhere.jsonl")))
    assert result.messages == 4


def test_the_reset_rotation_is_used_when_the_file_is_gone(intake: Intake, roots: Path) -> None:
    sessions = roots / "main" / "sessions"
    write_jsonl(sessions / f"{SID}.jsonl.reset.2026-11-21T05-00-00.000Z",
                as_events(conversation()))
    result = intake.accept(call(transcript_path=str(sessions / f"{SID}.jsonl")))
    assert result.messages == 4


def test_a_missing_transcript_is_not_found(intake: Intake, roots: Path) -> None:
    with pytest.raises(NotFoundError):
        intake.accept(call(transcript_path=str(roots / "main" / "sessions" / "gone.jsonl")))


def test_a_path_outside_the_roots_is_not_allowed(intake: Intake, tmp_path: Path) -> None:
    outside = write_jsonl(tmp_path / "elsewhere" / f"{SID}.jsonl", as_events(conversation()))
    with pytest.raises(PathNotAllowedError):
        intake.accept(call(transcript_path=str(outside)))
    assert intake.spool.jobs() == []


def test_dot_dot_out_of_a_root_is_not_allowed(intake: Intake, tmp_path: Path,
                                              roots: Path) -> None:
    write_jsonl(tmp_path / "elsewhere" / "x.jsonl", as_events(conversation()))
    sneaky = f"{roots}/main/sessions/../../../../elsewhere/x.jsonl"
    assert Path(os.path.realpath(sneaky)).is_file()
    with pytest.raises(PathNotAllowedError):
        intake.accept(call(transcript_path=sneaky))


def test_a_symlink_out_of_a_root_is_not_allowed(intake: Intake, tmp_path: Path,
                                                roots: Path) -> None:
    target = write_jsonl(tmp_path / "elsewhere" / "x.jsonl", as_events(conversation()))
    link = roots / "main" / "sessions" / f"{SID}.jsonl"
    link.symlink_to(target)
    with pytest.raises(PathNotAllowedError):
        intake.accept(call(transcript_path=str(link)))


def test_a_rotation_that_links_out_of_a_root_is_not_allowed(intake: Intake, tmp_path: Path,
                                                            roots: Path) -> None:
    target = write_jsonl(tmp_path / "elsewhere" / "secret.jsonl", as_events(conversation()))
    sessions = roots / "main" / "sessions"
    (sessions / f"{SID}.jsonl.reset.2026-11-21T05-00-00.000Z").symlink_to(target)
    with pytest.raises(PathNotAllowedError):
        intake.accept(call(transcript_path=str(sessions / f"{SID}.jsonl")))
    assert intake.spool.jobs() == []
    assert intake.provenance.keys(SID) == set()


def test_a_file_that_is_not_jsonl_is_not_allowed(intake: Intake, roots: Path) -> None:
    path = write_jsonl(roots / "main" / "agent" / "settings.json", [{"a": 1}])
    with pytest.raises(PathNotAllowedError):
        intake.accept(call(transcript_path=str(path)))


def test_without_roots_no_path_is_allowed(home: Home, roots: Path) -> None:
    intake = Intake(home, ExtractionConfig(), Provenance(home), Spool(home), [])
    path = write_jsonl(roots / "main" / "sessions" / f"{SID}.jsonl", as_events(conversation()))
    with pytest.raises(PathNotAllowedError):
        intake.accept(call(transcript_path=str(path)))


def test_a_root_given_through_a_symlink_still_works(home: Home, roots: Path,
                                                    tmp_path: Path) -> None:
    alias = tmp_path / "agents-link"
    alias.symlink_to(roots)
    intake = Intake(home, ExtractionConfig(), Provenance(home), Spool(home), [alias])
    path = write_jsonl(roots / "main" / "sessions" / f"{SID}.jsonl", as_events(conversation()))
    assert intake.accept(call(transcript_path=str(path))).messages == 4


# -- recovery ----------------------------------------------------------------------------------


def test_recover_records_a_spooled_jobs_messages(intake: Intake, home: Home) -> None:
    # a crash after the spool write and before the provenance append
    messages = normalize(conversation())
    job = Job(job_id=new_job_id(), session_id=SID, session_key="agent:main:main",
              trigger="beforeReset", created_at="2026-11-21T05:15:00Z",
              messages=[m.to_json() for m in messages])
    intake.spool.save(job)
    assert intake.provenance.keys(SID) == set()
    with lock.exclusive(home.lock):
        assert intake.recover_locked() == 4
    assert intake.provenance.keys(SID) == {m.key for m in messages}
    assert [r["job"] for r in intake.provenance.messages(SID)] == [job.job_id] * 4
    with lock.exclusive(home.lock):
        assert intake.recover_locked() == 0
    assert len(intake.provenance.messages(SID)) == 4
    # the host delivers the same stretch again after the restart: nothing new, no second job
    assert (intake.accept(call(messages=conversation())).skipped or "").startswith("nothing new")
    assert [j.job_id for j in intake.spool.jobs()] == [job.job_id]


def test_recover_records_only_what_is_missing(intake: Intake, home: Home) -> None:
    messages = normalize(conversation())
    intake.provenance.append(SID, messages[:2], "job-0")
    job = Job(job_id=new_job_id(), session_id=SID, trigger="sessionEnd",
              created_at="2026-11-21T05:15:00Z", messages=[m.to_json() for m in messages])
    intake.spool.save(job)
    with lock.exclusive(home.lock):
        assert intake.recover_locked() == 2
    assert [r["job"] for r in intake.provenance.messages(SID)] == ["job-0"] * 2 + [
        job.job_id] * 2


def test_recover_with_an_empty_spool(intake: Intake, home: Home) -> None:
    with lock.exclusive(home.lock):
        assert intake.recover_locked() == 0


def said(text: str, at: int, owner: bool | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "user", "content": text, "timestamp": T0 + at}
    if owner is not None:
        message["__openclaw"] = {"senderIsOwner": owner}
    return message


@pytest.mark.parametrize(("key", "reason"), [
    ("agent:main:telegram:group:-1001234567890:topic:42", "group session"),
    ("agent:main:discord:channel:123456:thread:987654", "channel session")])
def test_group_and_channel_sessions_are_not_extracted(intake: Intake, home: Home,
                                                      key: str, reason: str) -> None:
    """Others speak there: their words must not become the owner's memory, nor a group's
    handoff the one injected into the owner's private session."""
    answer = intake.accept(call(session_key=key, messages=[said("meet on Friday?", 1)]))
    assert answer.job_id is None
    assert answer.skipped == reason
    assert not intake.spool.jobs()
    assert SID in skipped_sessions(home)


def test_a_stretch_where_someone_else_speaks_is_not_extracted_nor_kept(
        intake: Intake, home: Home) -> None:
    """A group routed into the main session, or a DM from another person: OpenClaw marks their
    messages __openclaw.senderIsOwner = false."""
    owner = said("remind me to water the plants", 1, owner=True)
    stranger = said("my bank pin is 4711", 2, owner=False)
    answer = intake.accept(call(messages=[owner, stranger]))
    assert answer.job_id is None
    assert "someone other than the owner" in str(answer.skipped)
    assert not intake.spool.jobs()
    assert not intake.provenance.path(SID).exists(), "nothing of it is kept"
    alone = intake.accept(call(session_id="other-session", messages=[owner]))
    assert alone.job_id, "the owner's own words are extracted"


# -- readAt: the transcript was read then (the sweep leaves the session out until it is active) --


def test_read_at_is_remembered_whatever_the_stretch_brings(intake: Intake) -> None:
    intake.accept(call(messages=conversation(), read_at=T0 + 10_000))
    assert intake.provenance.seen(SID) == T0 + 10_000
    result = intake.accept(call(messages=conversation(), read_at=T0 + 20_000))
    assert (result.skipped or "").startswith("nothing new")
    assert intake.provenance.seen(SID) == T0 + 20_000  # read again: still worth remembering
    intake.accept(call(messages=conversation()))  # a host that does not say
    assert intake.provenance.seen(SID) == T0 + 20_000


def test_a_read_at_to_come_counts_as_now(intake: Intake) -> None:
    before = time.time() * 1000
    intake.accept(call(messages=conversation(), read_at=before + 86_400_000))
    seen = intake.provenance.seen(SID)
    assert seen is not None
    assert before <= seen <= time.time() * 1000


def test_a_stretch_that_could_not_be_spooled_is_not_marked_read(
        intake: Intake, monkeypatch: pytest.MonkeyPatch) -> None:
    def full_disk(job: Job) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(intake.spool, "save", full_disk)
    with pytest.raises(OSError, match="No space left"):
        intake.accept(call(messages=conversation(), read_at=T0 + 10_000))
    assert intake.provenance.seen(SID) is None  # so the next sweep still sends it
