"""The CLI's text for people: the extraction lines of `status` and `jobs` name the model route."""

from __future__ import annotations

from typing import Any

from zettelclaw.cli import render


def state(active: str | None, reason: str, **more: Any) -> dict[str, Any]:
    return {"jobs": {"pending": 1, "waiting": 2, "failed": 0}, "waitingFor": None,
            "route": {"setting": "auto", "active": active, "reason": reason,
                      "anthropicModel": "claude-sonnet-4-6", "hostModel": "the agent's own",
                      "hosts": [], **more}}


def test_the_anthropic_route() -> None:
    lines = render.extraction(state("anthropic", "an Anthropic API key is set (route auto)"))
    assert lines == ["extraction 1 pending, 2 waiting, 0 failed",
                     "model      Anthropic API, claude-sonnet-4-6 (an Anthropic API key is set "
                     "(route auto))"]


def test_the_hosts_route_names_the_host() -> None:
    lines = render.extraction(state("host", "no Anthropic API key; a connected host offers "
                                    "llm.complete (route auto)",
                                    hosts=[{"client": {"name": "openclaw",
                                                       "version": "2026.9.6"}}]))
    assert lines[1] == ("model      the host's (openclaw 2026.9.6), the agent's own (no Anthropic "
                        "API key; a connected host offers llm.complete (route auto))")
    assert len(lines) == 2


def test_the_local_route_says_its_measured_speeds() -> None:
    url = "http://127.0.0.1:11434/v1"
    before = render.extraction(state("local", "extraction.localUrl is set (route auto)",
                                     localUrl=url, localModel="qwen2.5:1.5b", speeds=None,
                                     readingSpeeds={}))
    assert before[1] == (f"model      a local model, qwen2.5:1.5b at {url} "
                         "(extraction.localUrl is set (route auto))")
    after = render.extraction(state("local", "extraction.localUrl is set (route auto)",
                                    localUrl=url, localModel="qwen2.5:1.5b",
                                    speeds={"local": 4.9, "host": 41.2},
                                    readingSpeeds={"local": 65.7}))
    assert after[1].endswith("(route auto)); measured: reads 65.7 and writes 4.9 tokens/s")


def test_no_route_warns_and_says_both_ways_out() -> None:
    lines = render.extraction(state(None, "no connected host offers llm.complete (route host)"))
    assert lines[1] == "model      none (no connected host offers llm.complete (route host))"
    assert lines[2].startswith("warning    extraction waits for a model: no connected host")
    assert "ANTHROPIC_API_KEY" in lines[2]
    assert "OpenClaw's gateway with the zettelclaw plugin" in lines[2]


def test_a_waiting_reason_on_a_route_is_shown() -> None:
    waiting = {**state("host", "r"), "waitingFor": "the host went away during the call"}
    assert render.extraction(waiting)[-1] == ("warning    extraction is waiting: the host went "
                                              "away during the call")


def test_a_host_offered_but_unusable_is_a_warning_not_a_route_that_works() -> None:
    retired = "Plugin inventory has retired; begin a new plugin operation."
    lines = render.extraction({**state("host", f"r; its model cannot be asked now: {retired}",
                                       hosts=[{"client": {"name": "openclaw"},
                                               "unusable": retired}]),
                               "waitingFor": f"the host's model cannot be asked now: {retired}"})
    assert lines[-1] == ("warning    the host offers its model, but it cannot be asked now: "
                         f"{retired}; extraction waits (no attempt is used) until it answers "
                         "or offers again")


def test_the_jobs_table_has_a_route_column() -> None:
    job = {"jobId": "20261124T100000.000000Z-abcdef", "state": "waiting", "route": "host",
           "sessionId": "s-1", "messages": 4, "attempts": 0,
           "lastError": "the host's model cannot be asked now: not authorized"}
    text = render.jobs({"jobs": [job], "extraction": state("host", "r")})
    header, row = text.splitlines()[-2:]
    assert header.split()[:3] == ["JOB", "STATE", "ROUTE"]
    assert row.split()[:3] == ["20261124T100000.000000Z-abcdef", "waiting", "host"]
    assert row.endswith("the host's model cannot be asked now: not authorized")


def test_wrap_cuts_a_long_word_into_lines_and_keeps_every_character() -> None:
    word = "x" * 1000
    lines = render.wrap(f"short {word} end", 100)
    assert all(len(line) <= 100 for line in lines)
    assert "".join(line.strip().replace(" ", "") for line in lines) == "short" + word + "end"


def test_a_cut_result_says_how_to_see_all_of_it() -> None:
    entry = {"id": "e00000000002", "timestamp": "2026-02-20T14:00:00Z", "type": "fact",
             "content": "y" * 50, "contentTruncated": True}
    assert render.entry_block(entry).splitlines()[-1] == (
        "    (cut for the list: `zettelclaw get e00000000002` shows all of it)")


def test_what_is_kept_and_the_admission_policy_are_shown() -> None:
    shown = {**state("anthropic", "r"),
             "transcripts": {"files": 3, "bytes": 2048, "oldest": "2026-11-01T00:00:00Z",
                             "retentionDays": 30},
             "admission": {"channels": ["whatsapp"], "senders": [], "sessionKeys": [],
                           "agents": ["family"], "refused": 4, "refusedSessions": 2}}
    lines = render.extraction(shown)
    assert lines[2] == ("transcripts 3 kept, 2.0 KiB, oldest 2026-11-01T00:00:00Z; pruned after "
                        "30 days")
    assert lines[3] == ("admission  refused 4 time(s), 2 session(s): channels whatsapp; "
                        "agents family")
    # no policy: no line
    assert not any(line.startswith("admission") for line in render.extraction(
        {**shown, "admission": {**shown["admission"], "channels": [], "agents": []}}))


def test_the_hosts_embeddings_are_named_only_on_that_route() -> None:
    host = {"client": {"name": "openclaw", "version": "2026.9.6"}, "provider": "openai",
            "model": "text-embedding-3-small"}
    ready = {"embeddings": "host", "hosts": [host], "state": "ready", "reason": None}
    assert render.host_embeddings(ready) == ("embedding  the host's (openclaw 2026.9.6), "
                                             "openai/text-embedding-3-small (search ready)")
    waiting = {"embeddings": "host", "hosts": [], "state": "off",
               "reason": "no connected host offers embeddings.embed (...)"}
    assert render.host_embeddings(waiting) == ("embedding  none (no connected host offers "
                                               "embeddings.embed (...))")
