"""Replies of the kinds a real small model (Qwen2.5-Coder-1.5B-Instruct on llama.cpp) gave when
it extracted LoCoMo conversations, replayed through the fake Messages API and the real sidecar:
the hook over the socket, the worker, the real ``anthropic`` SDK, the log on disk.

Each reproduces a loss seen with the real model: several pretty-printed objects (all dropped
by a one-object-a-line reader); a reply cut at its token limit (taken as whole); one fact 43
times (written 43 times); an unreadable reply (a stand-in handoff written, then copied by the
model from the next prompt); and the outcome of each, gone with the job. The replies are
written for these tests in the shapes the model used (the texts are not LoCoMo's).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.extraction.test_worker import MAIN, fake, log_entries, msg, settings, settled, start
from tests.fakes.anthropic_api import FakeAnthropic, Reply
from zettelclaw.client import AsyncClient
from zettelclaw.home import Home
from zettelclaw.log.schema import now_timestamp

__all__ = ["fake", "start"]  # fixtures, shared with test_worker

pytestmark = pytest.mark.slow  # a sidecar, a socket and an HTTP server each

DAY = 1_683_500_000_000  # 2023-05-07 (UTC), in ms: the conversation's own date
TALK = [msg("user", "I went to the climbing gym with Ana yesterday, my first time on the "
                    "wall.", DAY),
        msg("assistant", "That sounds fun! How did it go?", DAY + 1000),
        msg("user", "Great. I'm signing up for the beginner course next month; I work as a "
                    "nurse so evenings are hard.", DAY + 2000)]

FACTS = [
    {"type": "fact", "content": "Rosa went climbing for the first time with Ana",
     "subject": "climbing"},
    {"type": "fact", "content": "Rosa works as a nurse", "subject": "rosa"},
    {"type": "task", "content": "Sign up for the beginner climbing course", "status": "open",
     "subject": "climbing"},
    {"type": "fact", "content": "Rosa finds evenings hard to free up", "subject": "rosa"},
    {"type": "decision", "content": "Rosa will take the beginner course",
     "detail": "she liked her first time", "subject": "climbing"},
    {"type": "handoff", "content": "Rosa is starting climbing; course sign-up pending"},
]


def pretty(*objects: dict[str, Any]) -> str:
    return "\n".join(json.dumps(o, indent=2) for o in objects)


async def talk(client: AsyncClient, session: str) -> None:
    await client.call("hook.sessionEnd", {"sessionId": session, "sessionKey": MAIN,
                                          "messages": TALK})


def recent(listing: dict[str, Any]) -> list[dict[str, Any]]:
    outcomes: list[dict[str, Any]] = listing["extraction"]["recent"]
    return outcomes


async def test_several_pretty_printed_objects_all_land(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    """The real reply: six objects, each over several lines, in a fence with a preamble."""
    fake.add(Reply(text="Here are the entries:\n```json\n" + pretty(*FACTS) + "\n```"))
    _, client = await start(settings(home, fake))
    await talk(client, "s-pretty")
    listing = await settled(client)
    assert [e["content"] for e in log_entries(home)] == [f["content"] for f in FACTS]
    (outcome,) = recent(listing)
    assert (outcome["objects"], outcome["entries"], outcome["dropped"]) == (6, 6, 0)
    assert outcome["note"].startswith("6 object(s) read, 6 entries written")


async def test_a_reply_cut_at_its_token_limit_is_continued(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    """Cut inside its fourth object: the model is asked to go on from there (the reply so far
    sent back as the start of its answer), and the two halves make the entries."""
    whole = "\n".join(json.dumps(f) for f in FACTS)
    at = whole.index('"Rosa finds evenings')
    fake.add(Reply(text=whole[:at], stop_reason="max_tokens"), Reply(text=whole[at:]))
    _, client = await start(settings(home, fake))
    await talk(client, "s-cut")
    listing = await settled(client)
    assert [e["content"] for e in log_entries(home)] == [f["content"] for f in FACTS]
    assert len(fake.requests) == 2
    again = fake.requests[1]["messages"]
    assert [m["role"] for m in again] == ["user", "assistant"]
    assert again[1]["content"] == whole[:at].rstrip()
    (outcome,) = recent(listing)
    assert (outcome["cut"], outcome["continued"]) == (False, 1)
    assert "continued 1 time(s)" in outcome["note"]


async def test_a_reply_cut_in_a_repetition_loop_is_not_taken_as_whole(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    """The real reply: two facts, then one fact again and again until the token limit, cut
    mid-object. Going on would write more of the loop: the reply is not continued, the fact
    is written once, and the outcome says the reply was cut while looping."""
    loop = json.dumps(FACTS[1])
    text = "\n".join([json.dumps(FACTS[0]), *[loop] * 40, loop[:25]])
    fake.add(Reply(text=text, stop_reason="max_tokens"))
    _, client = await start(settings(home, fake))
    await talk(client, "s-loop")
    listing = await settled(client)
    contents = [e["content"] for e in log_entries(home)]
    assert contents[:2] == [FACTS[0]["content"], FACTS[1]["content"]]
    assert contents.count(FACTS[1]["content"]) == 1
    assert len(fake.requests) == 1, "a loop is not asked to go on"
    (outcome,) = recent(listing)
    assert (outcome["cut"], outcome["looping"], outcome["duplicates"]) == (True, True, 39)
    assert "stopped at its token limit while repeating itself" in outcome["note"]


async def test_a_reply_cut_while_cycling_through_several_facts_is_not_continued(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    """The real reply (tests/fixtures/real_replies/locomo-conv44-s2-cycle.json): eleven facts,
    then nine of them again in the same order, cut at the token limit mid-object. Fewer than
    half are repeats, and its end is no sentence written three times; but its newest objects
    are all old ones: going on would write the cycle again, so it is not asked to."""
    recorded = json.loads((FIXTURES / "locomo-conv44-s2-cycle.json").read_text())
    (reply,) = recorded["replies"]
    fake.add(Reply(text=reply["text"], stop_reason="max_tokens"))
    fake.default = Reply(status=500, text=None)  # a call to go on: seen as failed
    _, client = await start(settings(home, fake))
    await talk(client, "s-cycle")
    listing = await settled(client)
    assert len(fake.requests) == 1, "a cycle is not asked to go on"
    (outcome,) = recent(listing)
    assert (outcome["cut"], outcome["looping"]) == (True, True)
    contents = [e["content"] for e in log_entries(home)]
    assert len(contents) == len(set(contents))


async def test_one_fact_43_times_is_written_once_and_a_held_one_not_again(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    fact = FACTS[1]
    fake.add(Reply(text="\n".join([json.dumps(fact)] * 43 + [json.dumps(FACTS[-1])])))
    _, client = await start(settings(home, fake))
    await talk(client, "s-43")
    await settled(client)
    assert [e["content"] for e in log_entries(home)] == [fact["content"],
                                                         FACTS[-1]["content"]]
    # the next conversation's reply gives it again (spacing and case aside): memory has it
    fake.add(Reply(text=json.dumps({**fact, "content": " ROSA works as a nurse"}) + "\n"
                   + json.dumps({"type": "handoff", "content": "nothing new"})))
    await talk(client, "s-43b")
    listing = await settled(client)
    contents = [e["content"] for e in log_entries(home)]
    assert contents.count(fact["content"]) == 1
    assert [o["duplicates"] for o in recent(listing)] == [42, 0]
    assert recent(listing)[-1]["held"] == 1


@pytest.mark.parametrize("filed", [
    ("Maria is here for John.", "maria", "john"),
    ("Nate will tell Joanna more about the movie.", "joanna", "nate")])
async def test_an_entry_filed_under_the_other_person_is_held_already(
        start: Any, fake: FakeAnthropic, home: Home, filed: tuple[str, str, str]) -> None:
    """The real model filed "Maria is here for John." under maria in one session of LoCoMo's
    conv-41 and under john in a later one (conv-42: a task under joanna, then nate): the log
    held them twice."""
    content, first, then = filed
    fact = {"type": "fact", "content": content, "subject": first}
    fake.add(Reply(text=json.dumps(fact)), Reply(text=json.dumps({**fact, "subject": then})))
    _, client = await start(settings(home, fake))
    for session in ("s-filed-1", "s-filed-2"):
        await talk(client, session)
        listing = await settled(client)
    assert [e["content"] for e in log_entries(home) if e["type"] == "fact"] == [content]
    assert recent(listing)[-1]["held"] == 1


async def test_a_fact_with_a_relative_date_held_already_is_not_written_again(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    """The real model wrote "Melanie has a painting ... that she created last year" in two
    sessions of one conversation; the first was kept with its date resolved ("last year
    (2022)"), so the second, compared before its own date was resolved, was new to memory and
    the log held the same fact twice."""
    fact = {"type": "fact", "content": "Rosa painted a lake sunrise last year",
            "subject": "rosa"}
    fake.add(Reply(text=json.dumps(fact)), Reply(text=json.dumps(fact)))
    _, client = await start(settings(home, fake))
    for session in ("s-dated-1", "s-dated-2"):
        await talk(client, session)
        listing = await settled(client)
    contents = [e["content"] for e in log_entries(home) if e["type"] == "fact"]
    assert contents == ["Rosa painted a lake sunrise last year (2022)"]
    assert recent(listing)[-1]["held"] == 1



async def test_a_handoff_said_again_word_for_word_is_not_written_again(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    """The real model restated the previous session's handoff word for word when nothing had
    moved (the tuning half's only exact duplicates); an older handoff said again, after
    another, is news: where things stand went back to it."""
    first = {"type": "handoff", "content": "Rosa is choosing a frame for the lake painting"}
    other = {"type": "handoff", "content": "Rosa hung the painting in the hall"}
    fake.add(Reply(text=json.dumps(first)), Reply(text=json.dumps({**first, "content":
                                                                    " rosa is choosing a frame"
                                                                    " for the lake painting"})),
             Reply(text=json.dumps(other)), Reply(text=json.dumps(first)))
    _, client = await start(settings(home, fake))
    for session in ("s-h1", "s-h2", "s-h3", "s-h4"):
        await talk(client, session)
        listing = await settled(client)
    handoffs = [(e["session"], e["content"]) for e in log_entries(home) if e["type"] == "handoff"]
    assert handoffs == [("s-h1", first["content"]), ("s-h3", other["content"]),
                        ("s-h4", first["content"])]
    assert [o["held"] for o in recent(listing)][-3:] == [1, 0, 0]

async def test_an_unreadable_reply_fails_visibly_and_leaves_no_stand_in(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    """The real model once answered in prose. Main wrote a stand-in handoff ("Conversation
    without lasting information; ..."), which the next prompt listed as an entry memory held,
    and the model copied it. Now: a failed attempt, retried once, then failed, its outcome
    kept and shown; nothing written."""
    prose = ("Sure! Rosa went climbing with Ana. She is a nurse and wants to take a beginner "
             "course next month.")
    fake.add(Reply(text=prose), Reply(text=prose))
    _, client = await start(settings(home, fake))
    await talk(client, "s-prose")
    listing = await settled(client, failed=1)
    assert not home.log.exists() or log_entries(home) == []
    outcome = recent(listing)[-1]
    assert outcome["failed"].startswith("no entry could be read from the model's reply")
    status = await client.call("status")
    assert status["extraction"]["recent"][-1]["failed"] == outcome["failed"]
    fake.add(Reply(text=json.dumps(FACTS[-1])))
    await talk(client, "s-next")
    await settled(client, failed=1)
    assert "without lasting information" not in fake.prompts()[-1]


async def test_a_reply_of_only_repeats_is_nothing_new_not_a_failure(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    """The real model, given a later session that added nothing, wrote what memory held
    already, cycled through it again and was cut mid-object at its token limit. Main failed
    the job ("no entry could be read"), retried it and marked it failed. Now: done, nothing
    written, and the outcome says there was nothing new, in ``jobs`` and ``status``."""
    fake.add(Reply(text="\n".join(json.dumps(f) for f in FACTS)))
    again = [json.dumps(f, indent=2) for f in FACTS]
    cycle = "\n".join([*again, *again[:4], again[4][:40]])
    fake.add(Reply(text="```json\n" + cycle, stop_reason="max_tokens"))
    fake.default = Reply(status=500, text=None)  # a retry or a call to go on: seen as failed
    _, client = await start(settings(home, fake))
    await talk(client, "s-first")
    await settled(client)
    written = log_entries(home)
    await talk(client, "s-again")
    listing = await settled(client)
    assert log_entries(home) == written
    assert len(fake.requests) == 2, "neither retried nor asked to go on"
    outcome = recent(listing)[-1]
    assert (outcome["sessionId"], outcome["nothingNew"], outcome["failed"]) == (
        "s-again", True, None)
    assert (outcome["objects"], outcome["entries"], outcome["held"], outcome["duplicates"]) \
        == (10, 0, 6, 4)
    assert outcome["lines"] > outcome["objects"]
    assert outcome["note"].startswith("nothing new: ")
    assert (outcome["cut"], outcome["looping"]) == (True, True)
    from zettelclaw.cli import render

    assert "nothing new: " in render.jobs(listing)
    status = await client.call("status")
    assert status["extraction"]["recent"][-1]["nothingNew"] is True
    assert any(line.startswith("last reply s-again") and "nothing new" in line
               for line in render.extraction(status["extraction"]))
    state = json.loads(home.state.read_text())
    assert "s-again" in state["extractedSessions"]
    assert "s-again" not in state.get("failedSessions", {})


async def test_a_reply_of_prose_only_still_fails(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    """Repeats are nothing new; a reply with no object at all, even after a session whose
    entries memory holds, is still a reply nothing could be read from."""
    fake.add(Reply(text="\n".join(json.dumps(f) for f in FACTS)))
    prose = "Nothing new here: Rosa still climbs, and she is still a nurse."
    fake.add(Reply(text=prose), Reply(text=prose))
    _, client = await start(settings(home, fake))
    await talk(client, "s-first")
    await settled(client)
    await talk(client, "s-prose")
    listing = await settled(client, failed=1)
    outcome = recent(listing)[-1]
    assert outcome["nothingNew"] is False
    assert outcome["failed"].startswith("no entry could be read from the model's reply")


async def test_the_outcome_outlives_the_job_and_jobs_shows_it(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    fake.add(Reply(text=json.dumps(FACTS[0]) + "\n{not json}\n" + json.dumps(FACTS[-1])))
    ready, client = await start(settings(home, fake))
    await talk(client, "s-kept")
    listing = await settled(client)
    assert listing["jobs"] == []  # the job is gone; its outcome is not
    (outcome,) = recent(listing)
    assert (outcome["objects"], outcome["entries"], outcome["dropped"]) == (2, 2, 1)
    assert outcome["reasons"][0].startswith("not valid JSON")
    from zettelclaw.cli import render

    shown = render.jobs(listing)
    assert "recent replies (newest first):" in shown
    assert "1 invalid (not valid JSON" in shown
    with trio.fail_after(5):
        status = await client.call("status")
    assert any(line.startswith("last reply s-kept") for line in
               render.extraction(status["extraction"]))
    assert ready is not None


async def test_the_prompt_gives_the_conversations_date_for_relative_dates(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    fake.add(Reply(text=json.dumps({"type": "fact", "content":
                                    "Rosa went climbing for the first time yesterday"})))
    _, client = await start(settings(home, fake))
    await talk(client, "s-date")
    await settled(client)
    prompt = fake.prompts()[0]
    assert "2023-05-07" in prompt
    assert "yesterday" in prompt.split("## Transcript")[0], "the rule names relative dates"
    entry = log_entries(home)[0]
    assert entry["content"] == ("Rosa went climbing for the first time yesterday "
                                "(2023-05-06)")


async def test_entries_are_dated_when_the_conversation_said_them(
        start: Any, fake: FakeAnthropic, home: Home) -> None:
    """The bench sends LoCoMo sessions at their own dates; main stamped their entries with the
    day the model read them, so a search for that day (or a "when" question) found nothing.
    Now an entry takes its conversation's last message's time, a message dated ahead of the
    clock is taken as now, and the log stays in append order."""
    fake.add(Reply(text=pretty(*FACTS[:2], FACTS[-1])), Reply(text=json.dumps(FACTS[3])))
    _, client = await start(settings(home, fake))
    await talk(client, "s-then")
    await settled(client)
    assert {e["timestamp"] for e in log_entries(home)} == {"2023-05-07T22:53:22Z"}
    found = await client.call("memory.search", {"since": "2023-05-07", "until": "2023-05-07"})
    assert {r["content"] for r in found["results"]} == {FACTS[i]["content"] for i in (0, 1, -1)}
    ahead = 4_102_444_800_000  # 2100-01-01: a host whose clock is wrong
    before = now_timestamp()
    await client.call("hook.sessionEnd", {"sessionId": "s-ahead", "sessionKey": MAIN,
                                          "messages": [msg("user", "Evenings are hard.",
                                                           ahead)]})
    await settled(client)
    last = log_entries(home)[-1]
    assert last["session"] == "s-ahead"
    assert before <= last["timestamp"] <= now_timestamp()


FIXTURES = Path(__file__).parents[1] / "fixtures" / "real_replies"


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.json")))
async def test_recorded_real_replies_replayed(
        start: Any, fake: FakeAnthropic, home: Home, name: str) -> None:
    """The real model's replies (tests/fixtures/real_replies: its output only, recorded by
    bench/extraction_quality.py --record), replayed: every reply read or its failure shown, no
    entry written twice, and a reply cut at its token limit never taken as whole."""
    recorded = json.loads((FIXTURES / name).read_text())
    replies = recorded["replies"]
    fake.add(*[Reply(text=r["text"], stop_reason="max_tokens" if r["finish"] == "length"
                     else "end_turn") for r in replies])
    fake.default = Reply(status=500, text=None)  # a call past the recording: seen as failed
    _, client = await start(settings(home, fake))
    await talk(client, "s-recorded")
    listing = await settled(client, failed=None)
    entries = log_entries(home) if home.log.exists() else []
    seen = [(e["type"], " ".join(e["content"].split()).casefold()) for e in entries]
    assert len(seen) == len(set(seen)), "an entry written twice"
    outcome = recent(listing)[-1]
    if outcome["failed"]:
        assert entries == []
    else:
        assert entries
        assert outcome["entries"] == len(entries)
    if any(r["finish"] == "length" for r in replies):
        assert outcome["cut"] or outcome["continued"], "a cut reply taken as whole"
    assert len(fake.requests) <= len(replies)
