"""``status``, ``agents`` and ``jobs`` as a person reads them: the memory, extraction's
route, budget and outcomes, the briefing's schedule."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zettelclaw.workspace import claims


def status(result: Mapping[str, Any], where: str) -> str:
    entries_ = result["entries"]
    by_type = ", ".join(f"{n} {t}" for t, n in sorted(entries_["byType"].items())) or "none"
    log = result["log"]
    lines = [
        f"zettelclaw {result['version']} ({where})",
        f"agent      {result.get('agent', 'main')}"
        + (f" (uses {result['memory']}'s memory)" if result.get("memory") not in
           (None, result.get("agent")) else ""),
        f"home       {result['home']}",
        f"workspace  {result['workspace']}",
        f"log        {result['paths']['log']}: {_bytes(log['bytes'])}, {log['lines']} lines",
        f"entries    {entries_['total']} ({by_type}); {entries_['replaced']} replaced, "
        f"{entries_['current']} current",
        f"subjects   {result['subjects']}",
        f"index      {result['paths']['index']}: {_bytes(result['index']['bytes'])}"
        + (" (indexing now)" if result["index"]["indexing"] else ""),
    ]
    server = result.get("server") or {}
    if server.get("socket"):
        lines.append(f"sidecar    pid {result['pid']}, up {_duration(server['uptimeSeconds'])}, "
                     f"socket {server['socket']}")
        if server.get("previousExit"):
            lines.append(f"           {server['previousExit']}")
    else:
        tried = f" on {server['triedSocket']}" if server.get("triedSocket") else ""
        lines.append(f"sidecar    not running{tried} (this answer came from the files)")
    if result.get("extraction"):
        lines += extraction(result["extraction"])
    semantic = (result.get("search") or {}).get("semantic") or {}
    if semantic.get("embeddings") == "host":
        lines.append(host_embeddings(semantic))
    if result.get("briefing"):
        lines += briefing(result["briefing"])
    others = [a for a in result.get("agents") or [] if a["agentId"] != result.get("agent")]
    if others:
        lines.append("agents     " + ", ".join(
            f"{a['agentId']} ({'-' if a['entries'] is None else a['entries']} entries"
            + (f", uses {a['memory']}'s memory" if a["memory"] != a["agentId"] else "") + ")"
            for a in result["agents"])
            + (f", and {result['agentsTotal'] - len(result['agents'])} more (zettelclaw agents)"
               if result.get("agentsTotal", 0) > len(result["agents"]) else ""))
    lines += [f"warning    {claims.describe(claims.Conflict(**c))}"
              for c in result.get("workspaceConflicts") or []]
    invalid = result["invalidLines"]
    if invalid["count"]:
        lines.append(f"warning    {invalid['count']} invalid line(s) in the log are skipped:")
        lines += [f"             line {i['line']}: {i['reason']}" for i in invalid["first"]]
    if log["unreadTailBytes"]:
        lines.append(f"warning    the log ends in {log['unreadTailBytes']} bytes without a "
                     "newline that are not a whole entry (a write in progress, or torn by a "
                     "crash); the next append closes that line")
    return "\n".join(lines)


def host_embeddings(semantic: Mapping[str, Any]) -> str:
    """search.embeddings = host: which host embeds, with what, or why none does."""
    hosts = semantic.get("hosts") or []
    if not hosts:
        return f"embedding  none ({semantic.get('reason') or 'no connected host embeds'})"
    host = hosts[-1]
    client = " ".join(str(host["client"][k]) for k in ("name", "version")
                      if host["client"].get(k))
    state = semantic.get("state", "")
    why = f": {semantic['reason']}" if semantic.get("reason") else ""
    return (f"embedding  the host's ({client}), {host['provider']}/{host['model']} "
            f"(search {state}{why})")


def agents(rows: list[Mapping[str, Any]]) -> str:
    lines = [f"{'AGENT':<16} {'MEMORY':<16} {'ENTRIES':>8} {'LOG':>9}  OPEN  WORKSPACE"]
    for row in rows:
        count = "-" if row["entries"] is None else str(row["entries"])
        lines.append(f"{row['agentId']:<16} {row['memory']:<16} {count:>8} "
                     f"{_bytes(row['logBytes']):>9}  {'yes ' if row['open'] else 'no  '}  "
                     f"{row['workspace'] or '(not known yet)'}")
    return "\n".join(lines)


def extraction(state: Mapping[str, Any]) -> list[str]:
    jobs = state["jobs"]
    route = state.get("route") or {}
    counts = f"{jobs['pending']} pending, {jobs['waiting']} waiting, {jobs['failed']} failed"
    lines = [f"extraction {counts}", f"model      {_route(route)}"]
    kept = state.get("transcripts")
    if kept:
        lines.append(f"transcripts {kept['files']} kept, {_bytes(kept['bytes'])}"
                     + (f", oldest {kept['oldest']}" if kept.get("oldest") else "")
                     + f"; pruned after {kept['retentionDays']} days")
    budget = state.get("budget")
    if budget:
        lines.append(f"budget     {budget_line(budget)}")
    admission = state.get("admission") or {}
    rules = [f"{name} {', '.join(admission[name])}"
             for name in ("channels", "senders", "sessionKeys", "agents") if admission.get(name)]
    if rules:
        lines.append(f"admission  refused {admission['refused']} time(s), "
                     f"{admission['refusedSessions']} session(s): " + "; ".join(rules))
    before = state.get("beforeInstall") or {}
    if before.get("sessions"):
        lines.append(f"sweep      {before['sessions']} session(s) older than this memory's start "
                     f"({before['since']}) left out: {before['hint']}")
    if route.get("active") is None:
        lines.append(f"warning    extraction waits for a model: {route.get('reason')}; set "
                     "ANTHROPIC_API_KEY for the sidecar (or extraction.apiKey in "
                     "HOME/config.json), set extraction.localUrl to a local model's "
                     "OpenAI-compatible server (Ollama, llama.cpp, vLLM), or run OpenClaw's "
                     "gateway with the zettelclaw plugin, which offers its own model; hooks "
                     "are still accepted and spooled")
    elif route.get("active") == "host" and (route.get("hosts") or [{}])[-1].get("unusable"):
        lines.append("warning    the host offers its model, but it cannot be asked now: "
                     f"{route['hosts'][-1]['unusable']}; extraction waits (no attempt is "
                     "used) until it answers or offers again")
    elif state.get("waitingFor"):
        lines.append(f"warning    extraction is waiting: {state['waitingFor']}")
    if jobs["failed"]:
        lines.append("warning    failed jobs: `zettelclaw jobs` lists them, "
                     "`zettelclaw jobs retry` retries them")
    recent = state.get("recent") or []
    if recent:
        last = recent[-1]
        lines.append(f"last reply {last['sessionId']} ({last.get('route') or '-'}): "
                     f"{last['note']}")
        # a repeat of what memory holds (a reply with nothing new) loses nothing
        troubled = sum(1 for o in recent if o["failed"] or o["cut"]
                       or o["dropped"] > o["duplicates"] + o["held"])
        if troubled:
            lines.append(f"warning    {troubled} of the last {len(recent)} model replies lost "
                         "something (unreadable, cut short or invalid objects dropped): "
                         "`zettelclaw jobs` shows each")
    return lines


def outcomes(recent: list[Mapping[str, Any]]) -> list[str]:
    """What became of the last jobs' model replies, newest first."""
    if not recent:
        return []
    lines = ["recent replies (newest first):"]
    lines += [f"  {o.get('at') or '?':<20} {o.get('sessionId') or '-':<38} "
              f"{o.get('route') or '-':<9} {o['note']}" for o in reversed(recent)]
    return lines


def budget_line(budget: Mapping[str, Any]) -> str:
    """Today's model tokens against the daily budget, by purpose."""
    limit = budget["dailyTokens"]
    used = f"{budget['usedToday']:,} tokens today ({budget['day']}, UTC)"
    purposes = ", ".join(f"{k} {v:,}" for k, v in sorted(budget["byPurpose"].items()))
    line = used + (f": {purposes}" if purposes else "")
    line += f" of {limit:,} a day" if limit else ", no daily limit"
    line += (f"; an import may use {budget['importTokens']:,} unless --budget"
             if budget["importTokens"] else "; imports unlimited")
    if budget["spent"]:
        line += "; SPENT: model calls wait until 00:00 UTC (raise budget.dailyTokens)"
    return line


def _route(route: Mapping[str, Any]) -> str:
    """The model route in one line: which one, with which model, and why."""
    active, reason = route.get("active"), route.get("reason", "")
    if active == "anthropic":
        return f"Anthropic API, {route.get('anthropicModel')} ({reason})"
    if active == "local":
        return (f"a local model, {route.get('localModel') or 'the server default'} at "
                f"{route.get('localUrl')} ({reason}){_measured(route)}")
    if active == "host":
        hosts = route.get("hosts") or [{}]
        client = hosts[-1].get("client", {})
        who = " ".join(str(client[k]) for k in ("name", "version") if client.get(k))
        return f"the host's ({who or 'a client'}), {route.get('hostModel')} ({reason})"
    return f"none ({reason})" if route else "unknown"


def _measured(route: Mapping[str, Any]) -> str:
    """The local route's measured speeds, which size its replies and timeouts."""
    read = (route.get("readingSpeeds") or {}).get("local")
    write = (route.get("speeds") or {}).get("local")
    said = ([f"reads {read:g}"] if read else []) + ([f"writes {write:g}"] if write else [])
    return f"; measured: {' and '.join(said)} tokens/s" if said else ""


def jobs(result: Mapping[str, Any]) -> str:
    lines = extraction(result["extraction"])
    lines += outcomes(result["extraction"].get("recent") or [])
    if not result["jobs"]:
        return "\n".join([*lines, "no jobs in the spool"])
    lines.append(f"{'JOB':<24} {'STATE':<8} {'ROUTE':<9} {'SESSION':<38} {'MSGS':>5} "
                 f"{'TRIES':>5}  LAST ERROR")
    for job in result["jobs"]:
        lines.append(f"{job['jobId']:<24} {job['state']:<8} {job.get('route') or '-':<9} "
                     f"{job['sessionId'][:38]:<38} {job['messages']:>5} {job['attempts']:>5}  "
                     f"{job['lastError'] or ''}")
    return "\n".join(lines)


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def _when(stamp: str | None) -> str:
    return stamp[:16].replace("T", " ") if stamp else "never"


def briefing(state: Mapping[str, Any]) -> list[str]:
    """The briefing lines of ``status``."""
    last = state.get("lastResult") or {}
    line = f"briefing   last run {_when(state.get('lastRun'))}"
    if last.get("ok"):
        line += f" ({last.get('trigger')}, {'changed' if last.get('changed') else 'unchanged'})"
    elif last:
        line += f" ({last.get('trigger')}, failed)"
    upcoming = _when(state.get("nextRun")) if state.get("nextRun") else "off"
    line += f"; next {upcoming} ({state['timezone']}, schedule {state['schedule']})"
    lines = [line]
    if state.get("memoryMd"):
        size = state.get("memoryMdLines")
        lines.append(f"MEMORY.md  {state['memoryMd']}: "
                     + (f"{size} lines" if size is not None else "not created yet"))
    lines += [f"warning    {w}" for w in state.get("warnings") or []]
    return lines
