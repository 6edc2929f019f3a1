"""The admission policy (extraction/admission.py, config ``admission``): named channels, senders,
session keys and agents are kept out of extraction at intake, with nothing of the conversation
kept; the reason is recorded in state.json and counted, the sweep leaves them out, and
``status`` shows the policy and the counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.direct import open_app, open_pool
from zettelclaw.config import AdmissionConfig, Config, ExtractionConfig, load_config
from zettelclaw.errors import DataDirError
from zettelclaw.extraction.admission import Admission, AdmissionStatus, Subject
from zettelclaw.extraction.intake import Accepted, HookCall, Intake
from zettelclaw.extraction.provenance import Provenance
from zettelclaw.extraction.spool import Spool
from zettelclaw.extraction.sweep import HostSession, Skipped
from zettelclaw.home import Home
from zettelclaw.methods import hooks as hook_methods
from zettelclaw.protocol.params import HookTranscriptParams
from zettelclaw.state import load_state

MESSAGES = [{"role": "user", "content": "Pick up the kids at five", "timestamp": 1_795_000_000_000},
            {"role": "assistant", "content": "Noted.", "timestamp": 1_795_000_001_000}]


def intake(home: Home, **policy: Any) -> Intake:
    return Intake(home, ExtractionConfig(), Provenance(home), Spool(home), [],
                  admission=AdmissionConfig(**policy))


def call(**fields: Any) -> HookCall:
    values: dict[str, Any] = {"trigger": "sessionEnd", "session_id": "s1",
                              "session_key": "agent:main:main", "agent_id": "main",
                              "messages": MESSAGES}
    values.update(fields)
    return HookCall(**values)


def nothing_kept(home: Home) -> bool:
    return not any((home.root / d).exists() and any((home.root / d).iterdir())
                   for d in ("spool", "transcripts"))


@pytest.mark.parametrize(("policy", "fields", "reason"), [
    ({"channels": ["whatsapp"]}, {"channel": "whatsapp"}, "channel whatsapp matches 'whatsapp'"),
    ({"channels": ["tele*"]}, {"session_key": "agent:main:telegram:direct:42"},
     "channel telegram matches 'tele*'"),
    ({"senders": ["+1555*"]}, {"sender_id": "+15551234567"},
     "sender +15551234567 matches '+1555*'"),
    ({"senders": ["42"]}, {"session_key": "agent:main:telegram:direct:42"},
     "sender 42 matches '42'"),
    ({"sessionKeys": ["agent:*:scratch-*"]}, {"session_key": "agent:main:scratch-1"},
     "session key agent:main:scratch-1 matches 'agent:*:scratch-*'"),
    ({"agents": ["family"]}, {"agent_id": "family", "session_key": "agent:family:main"},
     "agent family matches 'family'"),
])
def test_a_refused_conversation_leaves_nothing_but_the_reason(
        home: Home, policy: dict[str, Any], fields: dict[str, Any], reason: str) -> None:
    result = intake(home, **policy).accept(call(**fields))
    assert result == Accepted(skipped=f"admission policy: {reason}")
    assert nothing_kept(home)
    state = load_state(home)
    assert state.skipped_sessions["s1"].reason == f"admission policy: {reason}"
    assert state.admission_refused == 1


def test_refused_before_the_transcript_is_read(home: Home) -> None:
    """A transcriptPath is not even opened (it is outside every root: reading it would fail)."""
    result = intake(home, agents=["family"]).accept(
        call(agent_id="family", session_key=None, messages=None,
             transcript_path="/nonexistent/x.jsonl"))
    assert (result.skipped or "").startswith("admission policy: agent family")


def test_what_matches_no_rule_is_extracted(home: Home) -> None:
    taker = intake(home, channels=["whatsapp"], senders=["+1555*"],
                   sessionKeys=["agent:*:scratch-*"], agents=["family"])
    result = taker.accept(call(session_key="agent:main:telegram:direct:42", channel="telegram",
                               sender_id="+4420"))
    assert result.messages == 2
    assert load_state(home).admission_refused == 0


def test_missing_metadata_matches_nothing_and_matching_is_case_sensitive() -> None:
    admission = Admission(AdmissionConfig(channels=["*"], senders=["*"]))
    assert admission.refusal(Subject(session_key="agent:main:main")) is None  # no channel part
    assert admission.refusal(Subject(session_key=None)) is None
    assert Admission(AdmissionConfig(channels=["Telegram"])).refusal(
        Subject(channel="telegram")) is None


def test_each_refusal_is_counted(home: Home) -> None:
    refuser = intake(home, agents=["family"])
    for _ in range(3):
        refuser.accept(call(agent_id="family", session_key="agent:family:main"))
    assert load_state(home).admission_refused == 3


def test_the_setting_from_file_and_command_line(home: Home) -> None:
    (home.root / "config.json").write_text('{"admission": {"channels": ["whatsapp", " "]}}')
    config = load_config(home, env={}, overrides=["admission.sessionKeys=agent:*:x-*,y"])
    assert config.admission.channels == ("whatsapp",)
    assert config.admission.session_keys == ("agent:*:x-*", "y")
    with pytest.raises(DataDirError, match=r"unknown setting admission\.chatTypes"):
        load_config(home, env={}, overrides=["admission.chatTypes=group"])


# -- the sweep, the hook's params, status ---------------------------------------------------------


def _policy(home: Home, *overrides: str) -> Config:
    return load_config(home, env={}, overrides=list(overrides))


def test_the_sweep_does_not_ask_for_a_refused_session(home: Home, workspace: Path) -> None:
    app = open_app(home, workspace,
                   settings=_policy(home, "admission.channels=whatsapp",
                                    "admission.agents=family"))
    try:
        answer = app.extraction.sweep([
            HostSession("a", session_key="agent:main:whatsapp:direct:+1555"),
            HostSession("b", session_key="agent:family:main"),
            HostSession("c", session_key="agent:main:main")])
    finally:
        app.close()
    assert [s.session_id for s in answer.sessions] == ["c"]
    assert answer.skipped == [
        Skipped("a", "admission policy: channel whatsapp matches 'whatsapp'"),
        Skipped("b", "admission policy: agent family matches 'family'")]


async def test_the_hook_passes_channel_and_sender_to_the_policy(home: Home,
                                                                workspace: Path) -> None:
    pool = open_pool(home, workspace, settings=_policy(home, "admission.senders=+1555*"))
    try:
        params = HookTranscriptParams.model_validate(
            {"sessionId": "s9", "sessionKey": "agent:main:main", "channel": "signal",
             "senderId": "+15550001111", "messages": MESSAGES})
        answer = (await hook_methods.methods(pool)["hook.sessionEnd"].handler(params)).wire()
    finally:
        pool.close_all()
    assert answer["skipped"] == "admission policy: sender +15550001111 matches '+1555*'"


def test_status_shows_the_policy_and_the_refusals(home: Home, workspace: Path) -> None:
    app = open_app(home, workspace, settings=_policy(home, "admission.agents=family,guest-*"))
    try:
        assert app.extraction.status().admission == AdmissionStatus(
            channels=[], senders=[], session_keys=[], agents=["family", "guest-*"],
            refused=0, refused_sessions=0)
        for sid in ("s1", "s2", "s1"):
            app.extraction.intake.accept(call(session_id=sid, agent_id="guest-1",
                                              session_key="agent:guest-1:main"))
        status = app.extraction.status().admission
    finally:
        app.close()
    assert (status.refused, status.refused_sessions) == (3, 2)


def test_a_refusal_the_sweep_cannot_see_is_not_asked_for_again(home: Home,
                                                                 workspace: Path) -> None:
    """Refused by the hook's channel (the key does not show it): the session is marked as read,
    so the next sweep leaves it out until the host has newer activity in it."""
    app = open_app(home, workspace, settings=_policy(home, "admission.channels=signal"))
    try:
        refused = app.extraction.intake.accept(call(channel="signal", read_at=1_795_000_500_000))
        assert (refused.skipped or "").startswith("admission policy: channel signal")
        sweep = app.extraction.sweep([HostSession("s1", session_key="agent:main:main",
                                                  updated_at=1_795_000_400_000)])
        assert sweep.sessions == []
        later = app.extraction.sweep([HostSession("s1", session_key="agent:main:main",
                                                  updated_at=1_795_000_600_000)])
        assert [s.session_id for s in later.sessions] == ["s1"]
    finally:
        app.close()
    # kept: the .seen mark (a time), no word of the conversation
    assert [p.name for p in (home.root / "transcripts").iterdir()] == ["s1.seen"]
    assert not (home.root / "spool").exists() or not any((home.root / "spool").iterdir())
