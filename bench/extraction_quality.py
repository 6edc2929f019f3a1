"""What extraction keeps of a conversation: LoCoMo sessions through a real ``zettelclaw serve``
and any model route, against the raw turns and LoCoMo's own observations.

    .venv/bin/python bench/extraction_quality.py --data /work/locomo-cache/locomo10.json \\
        --sessions conv-26:1-4,conv-30:1-3 | --conversations tune|heldout|conv-26,... [--first N]
        [--local-url URL --local-model NAME] [--semantic auto|off] [--json FILE]
        [--extractors sidecar,turns,observations] [--roles user,user|user,assistant]

Extractors: ``sidecar`` sends each session, in order, to a fresh memory as a conversation
(``hook.sessionEnd``: each turn "<Speaker>: <text>" at the session's date, both speakers' turns
as the user's, as in a chat between two people, unless ``--roles user,assistant``: the second
speaker as the assistant, whose words a model reads as an AI's) and waits for its extraction,
through the route the flags give (``--local-url``: an OpenAI-compatible server,
``extraction.route local``; else an Anthropic key in ANTHROPIC_API_KEY); ``turns`` is every
turn an entry (what a memory without extraction would hold); ``observations`` is LoCoMo's
GPT-written observations of each session, each an entry (a reference extractor). LoCoMo's data
(CC BY-NC 4.0) stays outside the repository (bench/README.md says where it comes from).

Per extractor: parse outcomes (replies read, failed, nothing new, cut at the token limit,
continued: the sidecar's ``extraction.recent``), entries per session, exact duplicates (type and
content, case and spacing aside; a handoff that brings back an older one after another is
counted apart: where things stand went back), types; over the questions of categories 1-4
whose evidence lies wholly in the sessions sent: evidence coverage (the answer's key words,
less stopwords, all found in the conversation's entries) and answerable@5 (all found in the
first five ``memory.search`` results for the question as written), and both for the date
questions (category 2) alone.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))  # bench/ is a namespace package under the root
from bench import load, locomo  # noqa: E402

from zettelclaw.client import Client  # noqa: E402

EXTRACTORS = ("sidecar", "turns", "observations")


@dataclass
class Session:
    number: int
    uuid: str
    ts: str  # the session's date and time, ISO 8601
    turns: list[tuple[str, str, str]]  # (dia id, speaker, text)
    observations: list[str]


@dataclass
class Conv:
    sample_id: str
    speakers: tuple[str, str]
    sessions: list[Session]
    questions: list[tuple[str, int, str, set[str]]]  # text, category, answer, evidence dias


@dataclass
class Result:
    memories: list[list[dict[str, Any]]] = field(default_factory=list)  # one a conversation
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    covered: list[tuple[int, bool]] = field(default_factory=list)  # (category, covered)
    answerable: list[tuple[int, bool]] = field(default_factory=list)
    sessions: int = 0
    seconds: float = 0.0

    @property
    def entries(self) -> list[dict[str, Any]]:
        return [entry for memory in self.memories for entry in memory]


def load_convs(data: Path, wanted: dict[str, set[int] | None], first: int | None
               ) -> list[Conv]:
    out = []
    for sample in json.loads(data.read_text()):
        sid = sample["sample_id"]
        if sid not in wanted:
            continue
        conv = sample["conversation"]
        numbers = sorted(int(k.split("_")[1]) for k in conv
                         if re.fullmatch(r"session_\d+", k) and conv[k])
        chosen = wanted[sid] or set(numbers[:first] if first else numbers)
        sessions = []
        for s in numbers:
            if s not in chosen:
                continue
            observed = (sample.get("observation") or {}).get(f"session_{s}_observation") or {}
            sessions.append(Session(
                s, str(uuid.uuid5(uuid.NAMESPACE_URL, f"locomo/{sid}/session_{s}")),
                locomo._session_time(conv[f"session_{s}_date_time"]),
                [(locomo._dia(t["dia_id"])[0], t["speaker"], t["text"])
                 for t in conv[f"session_{s}"]],
                [str(o[0]) for lines in observed.values() for o in lines if o]))
        kept = {f"D{s.number}" for s in sessions}
        questions = []
        for qa in sample["qa"]:
            dias = {d for e in qa.get("evidence", []) for d in locomo._dia(e)}
            if (int(qa["category"]) in locomo.CATEGORIES and int(qa["category"]) != 5
                    and dias and all(d.split(":")[0] in kept for d in dias)
                    and "answer" in qa):
                questions.append((qa["question"], int(qa["category"]), str(qa["answer"]), dias))
        out.append(Conv(sid, (conv["speaker_a"], conv["speaker_b"]), sessions, questions))
    return out


MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
_ISO = re.compile(r"\b(\d{4})-(\d{2})(?:-(\d{2}))?\b")


def key_words(answer: str) -> set[str]:
    return set(locomo.words(answer))


def spelled(text: str) -> str:
    """ISO dates also as LoCoMo's answers write them ("2023-05-07": "7 May 2023")."""
    def say(m: re.Match[str]) -> str:
        day = f"{int(m[3])} " if m[3] else ""
        month = int(m[2])
        return (f"{m[0]} {day}{MONTHS[month - 1]} {m[1]}" if 1 <= month <= 12 else m[0])
    return _ISO.sub(say, text)


def entry_text(entry: dict[str, Any]) -> str:
    """What an entry tells: its content and detail, and its date (its timestamp's day)."""
    return spelled(f"{entry.get('content') or ''} {entry.get('detail') or ''} "
                   f"{str(entry.get('timestamp') or '')[:10]}")


def holds(words: set[str], text: str) -> bool:
    return bool(words) and words <= set(locomo.words(text))


def _serve(home: Path, extra_env: dict[str, str], semantic: str
           ) -> tuple[subprocess.Popen[bytes], Path]:
    sock = Path(tempfile.mkdtemp(prefix="zc-xq-", dir="/tmp")) / "s.sock"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZETTELCLAW_", "ANTHROPIC"))}
    env.update({"ZETTELCLAW_SEARCH_SEMANTIC": semantic, "ZETTELCLAW_CRON_SCHEDULE": "off",
                **extra_env})
    workspace = home.parent / "ws"
    workspace.mkdir(exist_ok=True)
    proc = subprocess.Popen([load.ZETTELCLAW, "serve", "--home", str(home), "--socket",
                             str(sock), "--workspace", str(workspace)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    if b"listening on" not in proc.stdout.readline():
        raise SystemExit("the sidecar did not start")
    return proc, sock


def _stop(proc: subprocess.Popen[bytes], sock: Path) -> None:
    proc.terminate()
    proc.wait(60)
    shutil.rmtree(sock.parent, ignore_errors=True)


def _log(home: Path) -> list[dict[str, Any]]:
    path = home / "log.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def extract(conv: Conv, root: Path, route_env: dict[str, str], semantic: str,
            timeout: float, *, roles: tuple[str, str] = ("user", "user"), more: bool = False
            ) -> tuple[Path, list[dict[str, Any]], float]:
    """Every session through the sidecar's extraction; the memory's home, the outcomes.
    ``more``: into the memory an earlier run kept there, after its sessions."""
    home = root / conv.sample_id / "sidecar" / "home"
    if not (more and home.is_dir()):
        shutil.rmtree(home.parent, ignore_errors=True)
        home.mkdir(parents=True, mode=0o700)
    proc, sock = _serve(home, route_env, semantic)
    started = time.monotonic()
    try:
        with Client(sock, timeout=120) as client:
            for session in conv.sessions:
                base = int(time.mktime(time.strptime(session.ts, "%Y-%m-%dT%H:%M:%SZ")) * 1000)
                messages = [{"role": roles[0] if speaker == conv.speakers[0] else roles[1],
                             "content": f"{speaker}: {text}", "timestamp": base + i * 1000}
                            for i, (_, speaker, text) in enumerate(session.turns)]
                client.call("hook.sessionEnd", {"sessionId": session.uuid,
                                                "sessionKey": "agent:main:main",
                                                "messages": messages})
                _settle(client, timeout)
                print(f"  {conv.sample_id} session {session.number}: "
                      f"{len(_log(home))} entries so far, "
                      f"{time.monotonic() - started:.0f} s", file=sys.stderr)
            outcomes = client.call("jobs.list")["extraction"]["recent"]
    finally:
        _stop(proc, sock)
    return home, outcomes, time.monotonic() - started


def _settle(client: Client, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        jobs = client.call("jobs.list")["jobs"]
        if all(j["state"] == "failed" for j in jobs):
            return
        if any(j["state"] == "waiting" for j in jobs):
            raise SystemExit(f"extraction waits: {jobs[0]['lastError']}")
        time.sleep(1.0)
    raise SystemExit("extraction did not finish in time")


def written_home(conv: Conv, root: Path, kind: str) -> Path:
    """A memory holding the turns, or the observations, one ``fact`` entry each."""
    home = root / conv.sample_id / kind / "home"
    shutil.rmtree(home.parent, ignore_errors=True)
    home.mkdir(parents=True, mode=0o700)
    lines = []
    for session in conv.sessions:
        texts = ([f"{speaker}: {text}" for _, speaker, text in session.turns] if kind == "turns"
                 else session.observations)
        for i, text in enumerate(texts):
            lines.append(json.dumps({"id": f"s{session.number:03d}{kind[0]}{i:07d}",
                                     "timestamp": session.ts, "type": "fact", "content": text,
                                     "session": session.uuid}))
    (home / "log.jsonl").write_text("\n".join(lines) + "\n")
    return home


def judge(conv: Conv, home: Path, semantic: str, result: Result) -> list[dict[str, Any]]:
    """Coverage and answerable@5 of the memory at ``home``; its extraction outcomes."""
    entries = [e for e in _log(home) if e.get("type") in ("fact", "task", "decision",
                                                           "question", "handoff")]
    result.memories.append(entries)
    everything = "\n".join(entry_text(e) for e in entries)
    proc, sock = _serve(home, {}, semantic)
    try:
        if semantic == "auto":
            locomo.wait_embedded(sock)
        with Client(sock, timeout=120) as client:
            for text, category, answer, _ in conv.questions:
                words = key_words(answer)
                result.covered.append((category, holds(words, everything)))
                found = client.call("memory.search", {"query": text, "maxResults": 5})
                top = "\n".join(entry_text(r) for r in found["results"][:5])
                result.answerable.append((category, holds(words, top)))
            outcomes: list[dict[str, Any]] = client.call("jobs.list")["extraction"]["recent"]
    finally:
        _stop(proc, sock)
    return outcomes


def repeats(entries: list[dict[str, Any]]) -> tuple[int, int]:
    """Exact duplicates (type and content, case and spacing aside) among one memory's entries
    in log order; and handoffs that bring back an older one after another was written, which
    are not: the newest handoff is where things stand (docs/04-extraction.md), so saying an
    older one again is news, and memory.get's handoff would be stale without it."""
    seen: set[tuple[str, str]] = set()
    newest_handoff: str | None = None
    duplicates = returned = 0
    for entry in entries:
        key = (entry["type"], " ".join(str(entry["content"]).split()).casefold())
        if entry["type"] == "handoff":
            if key[1] == newest_handoff:
                duplicates += 1
            elif key in seen:
                returned += 1
            newest_handoff = key[1]
        elif key in seen:
            duplicates += 1
        seen.add(key)
    return duplicates, returned


def figures(result: Result) -> dict[str, Any]:
    duplicates = returned = 0
    for memory in result.memories:
        dup, back = repeats(memory)
        duplicates, returned = duplicates + dup, returned + back

    def share(pairs: list[tuple[int, bool]], only: int | None = None) -> str:
        chosen = [ok for c, ok in pairs if only is None or c == only]
        return f"{sum(chosen)}/{len(chosen)}" if chosen else "-"

    outcomes, entries = result.outcomes, result.entries
    return {
        "sessions": result.sessions, "entries": len(entries),
        "entriesPerSession": round(len(entries) / max(result.sessions, 1), 1),
        "exactDuplicates": duplicates, "handoffsBroughtBack": returned,
        "types": dict(Counter(e["type"] for e in entries)),
        "replies": len(outcomes), "failed": sum(1 for o in outcomes if o["failed"]),
        "nothingNew": sum(1 for o in outcomes if o.get("nothingNew")),
        "cut": sum(1 for o in outcomes if o["cut"]),
        "continued": sum(o["continued"] for o in outcomes),
        "droppedObjects": sum(o["dropped"] for o in outcomes),
        "coverage": share(result.covered), "answerable@5": share(result.answerable),
        "dateCoverage": share(result.covered, 2), "dateAnswerable@5": share(result.answerable, 2),
        "seconds": round(result.seconds, 1),
    }


def parse_sessions(spec: str) -> dict[str, set[int] | None]:
    wanted: dict[str, set[int] | None] = {}
    for part in spec.split(","):
        name, _, span = part.partition(":")
        if span:
            low, _, high = span.partition("-")
            wanted[name] = set(range(int(low), int(high or low) + 1))
        else:
            wanted[name] = None
    return wanted


class Recorder:
    """A pass-through on 127.0.0.1 between the sidecar and the local server that appends each
    reply (its text and finish reason: the model's output, not the conversation) to a file,
    for tests to replay (tests/fixtures/real_replies)."""

    def __init__(self, upstream: str, out: Path) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from threading import Thread
        from urllib.request import Request, urlopen

        target, record = upstream.rstrip("/"), out

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                started = time.monotonic()
                with urlopen(Request(target + self.path.removeprefix("/v1"), data=body,  # noqa: S310
                                     headers={"content-type": "application/json"}),
                             timeout=7200) as answer:
                    data = answer.read()
                reply = json.loads(data)
                asked = json.loads(body)
                with record.open("a", encoding="utf-8") as f:
                    f.write(json.dumps({
                        "part": len(asked["messages"]),  # 2: a call to go on
                        "text": reply["choices"][0]["message"]["content"],
                        "finish": reply["choices"][0].get("finish_reason"),
                        "usage": reply.get("usage"), "maxTokens": asked.get("max_tokens"),
                        "seconds": round(time.monotonic() - started, 1)}) + "\n")
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


def _route_env(args: argparse.Namespace, needed: bool) -> dict[str, str] | None:
    """The sidecar's settings for the route the flags give (None: none, and one is needed)."""
    if args.local_url:
        env = {"ZETTELCLAW_EXTRACTION_ROUTE": "local",
               "ZETTELCLAW_EXTRACTION_LOCAL_URL": args.local_url}
        if args.local_model:
            env["ZETTELCLAW_EXTRACTION_LOCAL_MODEL"] = args.local_model
        if args.local_part_chars:
            env["ZETTELCLAW_EXTRACTION_LOCAL_PART_CHARS"] = str(args.local_part_chars)
        if args.repeat_penalty:
            env["ZETTELCLAW_EXTRACTION_LOCAL_REPEAT_PENALTY"] = str(args.repeat_penalty)
        if args.details is not None:
            env["ZETTELCLAW_EXTRACTION_LOCAL_DETAILS"] = args.details
        if args.max_tokens:
            env["ZETTELCLAW_EXTRACTION_MAX_TOKENS"] = str(args.max_tokens)
        if args.local_timeout:
            env["ZETTELCLAW_EXTRACTION_LOCAL_TIMEOUT_SECONDS"] = str(args.local_timeout)
        return env
    key = os.environ.get("ANTHROPIC_API_KEY")
    if key:
        return {"ANTHROPIC_API_KEY": key, "ZETTELCLAW_EXTRACTION_ROUTE": "anthropic"}
    return None if needed else {}


def _wanted(args: argparse.Namespace) -> dict[str, set[int] | None]:
    if args.sessions:
        return parse_sessions(args.sessions)
    names = {"tune": locomo.TUNE, "heldout": locomo.HELDOUT}.get(
        args.conversations or "tune") or tuple(args.conversations.split(","))
    return dict.fromkeys(names)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="LoCoMo's locomo10.json")
    parser.add_argument("--sessions", help="conv-26:1-4,conv-30:1-3 (sessions, 1-based)")
    parser.add_argument("--conversations", help="tune, heldout, or conv-26,conv-30,...")
    parser.add_argument("--first", type=int, help="with --conversations: the first N sessions")
    parser.add_argument("--extractors", default=",".join(EXTRACTORS))
    parser.add_argument("--local-url", help="an OpenAI-compatible server's /v1 URL")
    parser.add_argument("--local-model")
    parser.add_argument("--local-part-chars", type=int)
    parser.add_argument("--repeat-penalty", type=float,
                        help="extraction.localRepeatPenalty (default 1.1; 1.0: none)")
    parser.add_argument("--details", choices=("true", "false"),
                        help="extraction.localDetails: each message read alone after the "
                             "parts (default true)")
    parser.add_argument("--max-tokens", type=int, help="extraction.maxTokens (default 4096)")
    parser.add_argument("--local-timeout", type=float,
                        help="extraction.localTimeoutSeconds (default 900)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="per session, seconds")
    parser.add_argument("--semantic", choices=("auto", "off"), default="auto")
    parser.add_argument("--roles", choices=("user,user", "user,assistant"), default="user,user",
                        help="the roles of LoCoMo's first and second speaker's turns")
    parser.add_argument("--keep", type=Path, help="keep the memories here")
    parser.add_argument("--more", action="store_true",
                        help="with --keep: send the sessions to the memories an earlier run "
                             "kept there (its later sessions: --sessions conv-44:3-4)")
    parser.add_argument("--reuse", action="store_true",
                        help="with --keep: judge the memories an earlier run extracted there "
                             "(--sessions: those it finished) instead of extracting again")
    parser.add_argument("--record", type=Path,
                        help="with --local-url: append every reply to this file (JSON lines)")
    parser.add_argument("--json", type=Path)
    return parser


def _one(conv: Conv, name: str, args: argparse.Namespace, route_env: dict[str, str], *,
         root: Path, result: Result) -> None:
    """One conversation through one extractor, judged."""
    if name == "sidecar" and args.reuse:  # extracted by an earlier run
        home = root / conv.sample_id / "sidecar" / "home"
        if not home.is_dir():
            raise SystemExit(f"--reuse: no memory at {home}")
        result.outcomes += judge(conv, home, args.semantic, result)
        return
    if name == "sidecar":
        home, outcomes, seconds = extract(conv, root, route_env, args.semantic, args.timeout,
                                          roles=tuple(args.roles.split(",")), more=args.more)
        result.outcomes += outcomes
        result.seconds += seconds
    else:
        home = written_home(conv, root, name)
    judge(conv, home, args.semantic, result)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.data.is_file():
        parser.error(f"--data {args.data}: no such file (bench/README.md says where it comes "
                     "from)")
    wanted = _wanted(args)
    extractors = [e for e in args.extractors.split(",") if e]
    if unknown := set(extractors) - set(EXTRACTORS):
        parser.error(f"--extractors: unknown {', '.join(sorted(unknown))}")
    if args.record and args.local_url:
        args.local_url = Recorder(args.local_url, args.record).url
    if args.reuse and not args.keep:
        parser.error("--reuse needs --keep: where the earlier run kept its memories")
    route_env = _route_env(args, "sidecar" in extractors and not args.reuse)
    if route_env is None:
        parser.error("the sidecar extractor needs --local-url or ANTHROPIC_API_KEY")
    convs = load_convs(args.data, wanted, args.first)
    root = args.keep or Path(tempfile.mkdtemp(prefix="zc-xq-"))
    results = {name: Result() for name in extractors}
    try:
        for conv in convs:
            for name in extractors:
                results[name].sessions += len(conv.sessions)
                _one(conv, name, args, route_env, root=root, result=results[name])
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    report = {"sessions": {c.sample_id: [s.number for s in c.sessions] for c in convs},
              "questions": sum(len(c.questions) for c in convs),
              "route": route_env.get("ZETTELCLAW_EXTRACTION_ROUTE"),
              "localModel": args.local_model,
              "extractors": {name: figures(r) for name, r in results.items()}}
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
