"""LoCoMo: turn-level retrieval on long conversations, hybrid and keyword search against plain BM25.

    .venv/bin/python bench/locomo.py --data /work/locomo-cache/locomo10.json
        [--conversations conv-26,conv-30,...|tune|heldout] [--keep DIR] [--json FILE]
        [--handoffs] [--reach]

LoCoMo (Maharana et al., ACL 2024; github.com/snap-research/locomo, data/locomo10.json, CC BY-NC
4.0: not in this repository) holds ten long two-person conversations and questions about them,
each with the dialog ids of the turns that answer it (``evidence``). Every conversation gets a
fresh data directory: each turn is one ``fact`` entry of the log (content ``"<Speaker>: <text>"``,
the session's date as its timestamp, one log session per conversation session), and a real
``zettelclaw serve`` (bench/load.py's ``start``) answers every question, sent as written, to
``memory.search`` (maxResults 10) through its socket: once with ``search.semantic=auto`` (the
default install, hybrid; after the background has embedded every turn) and once with
``search.semantic=off`` (keyword only). Plain BM25 (Okapi, k1 1.5, b 0.75, rank_bm25's
``BM25Okapi`` formula, lower-cased words less the sidecar's stopwords, no stemming) over the
same turns is the baseline. ``dense`` is the shipped model alone (each question's turns by
cosine, in this process): what the meaning half of hybrid search finds on its own.

Per question: hit@5 (an evidence turn among the first five), recall@5 and recall@10 (the share
of its evidence turns among the first 5 / 10), MRR (1 / rank of the first evidence turn within
10). Per category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial) and over
categories 1-4; latency p50/p95 of the searches (client side, through the socket).

``--reach`` asks every system for 30 results and says, per system, how many questions have an
evidence turn among its first 5 / 10 / 20 / 30: the most hit@5 a reranker of that many
candidates could give. The table's figures are still read within the first 10, of a search
asked for 30 (which can order its first ten a little differently: gathering a list works over
the results asked for).

``--handoffs`` ends each session with a ``handoff`` entry holding LoCoMo's own summary of it
(``session_summary``), as a memory that extraction made would end each conversation with one,
and reports, beside the turn-level figures, hit@5 when the summary of an evidence turn's session
counts as a hit too, and the share of the top 5 that are handoffs: how a handoff's weight in
search trades the turns it summarises against the answers only its summary holds.

``--keep DIR`` keeps each conversation's data directories (and so their embeddings) for a rerun:
a rerun reuses them when the log is the same. ``--conversations tune`` is the half every ranking
constant was chosen on, ``heldout`` the other half (bench/README.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))  # bench/ is a namespace package under the root
from bench import load  # noqa: E402

from zettelclaw.client import Client  # noqa: E402
from zettelclaw.index.fts import STOPWORDS  # noqa: E402

TUNE = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
HELDOUT = ("conv-44", "conv-47", "conv-48", "conv-49", "conv-50")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop",
              5: "adversarial"}
DEPTH = 10
# --reach: each system asked for this many, to see how many questions a reranker of its
# first k could answer at best (k up to REACH)
REACH = 30
SYSTEMS = ("hybrid", "keyword", "bm25", "dense")
_DIA = re.compile(r"D(\d+):(\d+)")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Turn:
    dia: str  # "D3:12", normalised (no leading zeros)
    entry_id: str
    speaker: str
    text: str
    ts: str
    session: str

    @property
    def content(self) -> str:
        """The turn as a log entry's content, and as every system reads it."""
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: frozenset[str]  # entry ids
    summaries: frozenset[str] = frozenset()  # the handoffs of the evidence's sessions


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn]
    questions: list[Question]
    handoffs: list[Turn] = field(default_factory=list)  # with --handoffs: sessions' summaries


@dataclass
class Outcome:
    category: int
    conversation: str
    ranked: list[str]  # entry ids, best first
    evidence: frozenset[str]
    seconds: float | None = None
    summaries: frozenset[str] = frozenset()
    question: str = ""


@dataclass
class SystemRun:
    outcomes: list[Outcome] = field(default_factory=list)
    other_hits: Counter[str] = field(default_factory=Counter)  # results that are not turns


def _dia(text: str) -> list[str]:
    return [f"D{int(s)}:{int(t)}" for s, t in _DIA.findall(text)]


def _session_time(text: str) -> str:
    # "1:56 pm on 8 May, 2023"
    when = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def conversations(data: Path, wanted: Sequence[str] | None, handoffs: bool = False
                  ) -> list[Conversation]:
    """The conversations (all, or the ``wanted`` sample ids); with ``handoffs``, each session
    ends with a ``handoff`` entry holding LoCoMo's summary of it (``session_summary``)."""
    out = []
    for sample in json.loads(data.read_text()):
        sid = sample["sample_id"]
        if wanted and sid not in wanted:
            continue
        conv, number = sample["conversation"], int(sid.split("-")[1])
        turns: list[Turn] = []
        summaries: list[Turn] = []
        sessions = sorted(int(k.split("_")[1]) for k in conv
                           if re.fullmatch(r"session_\d+", k) and conv[k])
        for s in sessions:
            ts = _session_time(conv[f"session_{s}_date_time"])
            session = str(uuid.uuid5(uuid.NAMESPACE_URL, f"locomo/{sid}/session_{s}"))
            for turn in conv[f"session_{s}"]:
                dia = _dia(turn["dia_id"])[0]
                _, t = dia[1:].split(":")
                entry_id = f"c{number:02d}s{s:03d}t{int(t):04d}"  # 12 id characters
                turns.append(Turn(dia, entry_id, turn["speaker"], turn["text"], ts, session))
            summary = sample.get("session_summary", {}).get(f"session_{s}_summary")
            if handoffs and summary:
                summaries.append(Turn(f"D{s}:summary", f"c{number:02d}s{s:03d}h0000", "",
                                      summary, ts, session))
        by_dia = {t.dia: t.entry_id for t in turns}
        summary_of = {t.dia.split(":")[0]: t.entry_id for t in summaries}
        questions = []
        for qa in sample["qa"]:
            dias = [d for e in qa.get("evidence", []) for d in _dia(e) if d in by_dia]
            if dias:
                questions.append(Question(
                    qa["question"], int(qa["category"]), frozenset(by_dia[d] for d in dias),
                    frozenset(summary_of[d.split(":")[0]] for d in dias
                              if d.split(":")[0] in summary_of)))
        out.append(Conversation(sid, turns, questions, summaries))
    if wanted:
        missing = set(wanted) - {c.sample_id for c in out}
        if missing:
            raise SystemExit(f"not in the data: {', '.join(sorted(missing))}")
    return out


def subject(speaker: str) -> str:
    """The subject slug of a speaker's turns (``--subjects``)."""
    return re.sub(r"[^a-z0-9]+", "-", speaker.lower()).strip("-")


def log_lines(conv: Conversation, subjects: bool = False) -> bytes:
    lines = []
    handoffs = {t.session: t for t in conv.handoffs}
    for at, t in enumerate(conv.turns):
        turn = {"id": t.entry_id, "timestamp": t.ts, "type": "fact",
                "content": t.content, "session": t.session}
        if subjects:
            turn["subject"] = subject(t.speaker)
        lines.append(json.dumps(turn))
        last = at + 1 == len(conv.turns) or conv.turns[at + 1].session != t.session
        if last and t.session in handoffs:  # a session's handoff ends it
            h = handoffs[t.session]
            lines.append(json.dumps({"id": h.entry_id, "timestamp": h.ts, "type": "handoff",
                                     "content": h.text, "session": h.session}))
    return ("\n".join(lines) + "\n").encode()


# -- plain BM25 (rank_bm25's BM25Okapi, so that the baseline needs no package) ---------------

def bm25_ranked(docs: list[list[str]], queries: Iterable[list[str]], k1: float = 1.5,
                b: float = 0.75, epsilon: float = 0.25, *, depth: int = DEPTH
                ) -> list[list[int]]:
    n = len(docs)
    avgdl = sum(len(d) for d in docs) / n
    df: Counter[str] = Counter(w for d in docs for w in set(d))
    idf = {w: math.log(n - f + 0.5) - math.log(f + 0.5) for w, f in df.items()}
    floor = epsilon * sum(idf.values()) / len(idf)
    idf = {w: (v if v >= 0 else floor) for w, v in idf.items()}
    tfs = [Counter(d) for d in docs]
    norms = [k1 * (1 - b + b * len(d) / avgdl) for d in docs]
    out = []
    for q in queries:
        scores = []
        for i, tf in enumerate(tfs):
            s = 0.0
            for w in q:
                f = tf.get(w, 0)
                if f:
                    s += idf[w] * f * (k1 + 1) / (f + norms[i])
            scores.append(s)
        out.append(sorted(range(n), key=lambda i: (-scores[i], i))[:depth])
    return out


def words(text: str) -> list[str]:
    # the sidecar's stopwords out (search/fts.py), as its keyword search does: with them kept,
    # BM25 is 0.483 hit@5 / 0.436 recall@5 over categories 1-4 (bench/README.md)
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


def run_bm25(conv: Conversation, depth: int = DEPTH) -> SystemRun:
    docs = [words(t.content) for t in conv.turns]
    ranked = bm25_ranked(docs, (words(q.text) for q in conv.questions), depth=depth)
    return SystemRun([Outcome(q.category, conv.sample_id, [conv.turns[i].entry_id for i in r],
                              q.evidence)
                      for q, r in zip(conv.questions, ranked, strict=True)])


def run_dense(conv: Conversation, model: Any, depth: int = DEPTH) -> SystemRun:
    """The shipped model alone (``model``: a ``search/local_model.py`` ``LocalModel``): each
    question's turns by cosine, nothing else; what the meaning half of hybrid search finds on
    its own."""
    import numpy as np

    turns = model.embed_background([t.content for t in conv.turns])
    questions = model.embed([q.text for q in conv.questions])
    sims = questions @ turns.T
    order = np.argsort(-sims, axis=1, kind="stable")[:, :depth]
    return SystemRun([Outcome(q.category, conv.sample_id,
                              [conv.turns[i].entry_id for i in best], q.evidence)
                      for q, best in zip(conv.questions, order, strict=True)])


# -- the sidecar -----------------------------------------------------------------------------

def data_dir(root: Path, conv: Conversation, semantic: str, subjects: bool = False
             ) -> tuple[Path, Path, bool]:
    """(home, workspace, reused): a data directory holding the conversation's log (with
    ``subjects``, each turn's subject its speaker, registered in subjects.json)."""
    where = root / conv.sample_id / (f"{semantic}-subjects" if subjects else semantic)
    home, workspace = where / "home", where / "ws"
    log = log_lines(conv, subjects)
    digest = hashlib.blake2b(log, digest_size=8).hexdigest()
    stamp = where / "log.digest"
    if stamp.exists() and stamp.read_text() == digest:
        return home, workspace, True
    shutil.rmtree(where, ignore_errors=True)
    home.mkdir(parents=True)
    os.chmod(home, 0o700)
    workspace.mkdir()
    (home / "log.jsonl").write_bytes(log)
    if subjects:
        (home / "subjects.json").write_text(json.dumps({
            subject(t.speaker): {"display": t.speaker, "type": "person"} for t in conv.turns}))
    stamp.write_text(digest)
    return home, workspace, False


def wait_embedded(sock: Path, timeout: float = 3600) -> None:
    """Until the model is loaded and every entry has a vector (bench/load.py's wait gives up
    while the model loads: ``status`` gives a reason then)."""
    started = time.monotonic()
    with Client(sock, timeout=60) as client:
        while time.monotonic() - started < timeout:
            state = client.call("status")["search"]["semantic"]
            covered, lines = int(state.get("coveredThroughLine") or 0), int(state.get("lines") or 1)
            if state.get("on") and covered >= lines:
                return
            reason = state.get("reason") or ""
            if reason and "load" not in reason:
                raise SystemExit(f"semantic search is off: {reason}")
            time.sleep(0.5)
    raise SystemExit("the log was not embedded in time")


def run_sidecar(conv: Conversation, root: Path, semantic: str,
                embeddings: tuple[str, str, bool] | None = None, subjects: bool = False,
                *, depth: int = DEPTH) -> SystemRun:
    """One conversation's questions through a real ``zettelclaw serve``; ``embeddings`` (an
    OpenAI-compatible server's URL and model, and whether requests say ``input_type``) for
    ``search.embeddings = http``."""
    home, workspace, _ = data_dir(root, conv, semantic if embeddings is None else
                                  f"{semantic}-http-{embeddings[1]}-{int(embeddings[2])}",
                                  subjects)
    sock = Path(tempfile.mkdtemp(prefix="zc-locomo-", dir="/tmp")) / "s.sock"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZETTELCLAW_", "ANTHROPIC"))}
    env["ZETTELCLAW_SEARCH_SEMANTIC"] = semantic
    if embeddings is not None:
        env["ZETTELCLAW_SEARCH_EMBEDDINGS"] = "http"
        env["ZETTELCLAW_SEARCH_EMBEDDING_URL"] = embeddings[0]
        env["ZETTELCLAW_SEARCH_EMBEDDING_MODEL"] = embeddings[1]
        env["ZETTELCLAW_SEARCH_EMBEDDING_INPUT_TYPE"] = str(embeddings[2]).lower()
    env["ZETTELCLAW_CRON_SCHEDULE"] = "off"
    proc = subprocess.Popen([load.ZETTELCLAW, "serve", "--home", str(home), "--socket", str(sock),
                             "--workspace", str(workspace)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    run = SystemRun()
    want = "hybrid" if semantic == "auto" else "keyword"
    try:
        assert proc.stdout is not None
        if b"listening on" not in proc.stdout.readline():
            raise SystemExit("the sidecar did not start")
        if semantic == "auto":
            wait_embedded(sock)
        with Client(sock, timeout=120) as client:
            for q in conv.questions[:20]:  # untimed: the first calls warm caches
                client.call("memory.search", {"query": q.text, "maxResults": depth})
            for q in conv.questions:
                started = time.perf_counter()
                answer = client.call("memory.search", {"query": q.text, "maxResults": depth})
                seconds = time.perf_counter() - started
                if answer["mode"] != want:
                    raise SystemExit(f"asked for {want} search, got {answer['mode']}: "
                                     f"{answer.get('fallback')}")
                ranked = []
                for r in answer["results"]:
                    if r.get("source") == "log":
                        ranked.append(r["path"])
                    else:
                        run.other_hits[r["path"]] += 1
                        ranked.append(f"{r['path']}#{r.get('startLine')}")
                run.outcomes.append(Outcome(q.category, conv.sample_id, ranked, q.evidence,
                                            seconds, q.summaries, q.text))
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(sock.parent, ignore_errors=True)
    return run


# -- figures -----------------------------------------------------------------------------------

def figures(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    n = len(outcomes)
    if not n:
        return {"n": 0}

    def rank(o: Outcome) -> int | None:
        return next((i for i, e in enumerate(o.ranked[:DEPTH], 1) if e in o.evidence), None)

    def recall(o: Outcome, k: int) -> float:
        return len(o.evidence & set(o.ranked[:k])) / len(o.evidence)

    ranks = [rank(o) for o in outcomes]
    out: dict[str, Any] = {
        "n": n,
        "hit@5": sum(r is not None and r <= 5 for r in ranks) / n,
        "recall@5": sum(recall(o, 5) for o in outcomes) / n,
        "recall@10": sum(recall(o, 10) for o in outcomes) / n,
        "mrr": sum(1 / r for r in ranks if r is not None) / n,
    }
    if any(o.summaries for o in outcomes):  # --handoffs: a session's summary answers too
        out["hit@5+summary"] = sum(bool((o.evidence | o.summaries) & set(o.ranked[:5]))
                                   for o in outcomes) / n
    times = sorted(o.seconds for o in outcomes if o.seconds is not None)
    if times:
        out["p50ms"] = times[len(times) // 2] * 1000
        out["p95ms"] = times[min(len(times) - 1, int(0.95 * len(times)))] * 1000
    return out


def summary(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    return {"cats1-4": figures([o for o in outcomes if o.category != 5]),
            **{CATEGORIES[c]: figures([o for o in outcomes if o.category == c])
               for c in CATEGORIES}}


def table(title: str, runs: dict[str, list[Outcome]]) -> str:
    lines = [f"### {title}", "",
             "| system | questions | n | hit@5 | recall@5 | recall@10 | MRR | p50 ms | p95 ms |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for system, outcomes in runs.items():
        for label, f in summary(outcomes).items():
            if not f["n"]:
                continue
            lat = (f"{f['p50ms']:.1f} | {f['p95ms']:.1f}" if "p50ms" in f and label == "cats1-4"
                   else " | ")
            lines.append(f"| {system} | {label} | {f['n']} | {f['hit@5']:.3f} | "
                         f"{f['recall@5']:.3f} | {f['recall@10']:.3f} | {f['mrr']:.3f} | {lat} |")
    return "\n".join(lines)


def short_share(runs: dict[str, list[Outcome]], conv_turns: dict[str, str]) -> dict[str, float]:
    """Share of the top-5 results that are turns under 60 characters."""
    out = {}
    for system, outcomes in runs.items():
        top = [e for o in outcomes for e in o.ranked[:5] if e in conv_turns]
        out[system] = sum(len(conv_turns[e]) < 60 for e in top) / max(1, len(top))
    return out


def handoff_lines(runs: dict[str, list[Outcome]], convs: Sequence[Conversation]) -> str:
    """With --handoffs, per half (cats 1-4): hit@5 when the summary of an evidence turn's session
    counts as a hit too, and the share of the top-5 results that are handoffs."""
    handoffs = {h.entry_id for c in convs for h in c.handoffs}
    lines = []
    for name, half in (("all", None), ("tuning half", TUNE), ("held-out half", HELDOUT)):
        picked = {s: [o for o in out if o.category != 5
                      and (half is None or o.conversation in half)]
                  for s, out in runs.items() if s != "bm25"}
        picked = {s: o for s, o in picked.items() if o}
        if not picked:
            continue
        hits = ", ".join(f"{s} {figures(o).get('hit@5+summary', 0):.3f}"
                         for s, o in picked.items())
        shares = ", ".join(
            f"{s} {sum(e in handoffs for x in o for e in x.ranked[:5]) / (5 * len(o)):.1%}"
            for s, o in picked.items())
        lines.append(f"{name}: hit@5 counting the evidence session's summary: {hits}; "
                     f"top-5 results that are handoffs: {shares}")
    return "\n".join(lines)


def reach_lines(runs: dict[str, list[Outcome]]) -> str:
    """``--reach``: per system, the share of questions (categories 1-4) with an evidence turn
    among its first k results: hit@k, the most hit@5 a reranker of its first k could give."""
    lines = ["evidence among the first k (categories 1-4; a reranker of k reaches at most this "
             "hit@5):"]
    for system, outcomes in runs.items():
        asked = [o for o in outcomes if o.category != 5]
        if not asked:
            continue
        lines.append(f"  {system}: " + ", ".join(
            f"{k} {sum(any(e in o.evidence for e in o.ranked[:k]) for o in asked) / len(asked):.3f}"
            for k in (5, 10, 20, REACH)))
    return "\n".join(lines)


def write_outcomes(path: Path, runs: dict[str, list[Outcome]]) -> None:
    """Each question's ranking, a JSON line each (``--outcomes``), for reading the misses."""
    with path.open("w") as f:
        for system, out in runs.items():
            for o in out:
                f.write(json.dumps({"system": system, "conversation": o.conversation,
                                    "category": o.category, "question": o.question,
                                    "evidence": sorted(o.evidence), "ranked": o.ranked}) + "\n")


def _systems(value: str) -> list[str]:
    systems = [s for s in value.split(",") if s]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        raise argparse.ArgumentTypeError(f"{', '.join(unknown)} unknown; of {', '.join(SYSTEMS)}")
    return systems


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="LoCoMo's locomo10.json")
    parser.add_argument("--conversations", default="",
                        help="comma-separated sample ids, or 'tune' / 'heldout' (default: all)")
    parser.add_argument("--systems", type=_systems, default=list(SYSTEMS),
                        help=f"comma-separated, of {', '.join(SYSTEMS)}")
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the data directories here")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--subjects", action="store_true",
                        help="each turn's subject is its speaker (display name the speaker's "
                        "name), as extraction would set the person a fact is about")
    parser.add_argument("--outcomes", type=Path,
                        help="also write each question's ranking to this file (JSON lines: "
                        "system, conversation, category, question, evidence, ranked)")
    parser.add_argument("--handoffs", action="store_true",
                        help="end each session with a handoff entry holding LoCoMo's summary of "
                        "it (session_summary); reports hit@5 counting the evidence session's "
                        "summary as a hit too")
    parser.add_argument("--reach", action="store_true",
                        help=f"ask each system for {REACH} results and say how many questions "
                        "have evidence among its first 5 / 10 / 20 / 30: the most hit@5 a "
                        "reranker of that many could reach")
    parser.add_argument("--embedding-url", help="hybrid with an OpenAI-compatible embedding "
                        "server (search.embeddings = http), e.g. http://127.0.0.1:8765/v1")
    parser.add_argument("--embedding-model", default="", help="the server's model name")
    parser.add_argument("--embedding-input-type", action="store_true",
                        help="requests say input_type (search.embeddingInputType)")
    return parser


class Runner:
    """Each system's run of one conversation, as the arguments ask: the systems, their depth
    (``REACH`` with ``--reach``), the embedding server; the shipped model loaded once for
    every conversation when ``dense`` is asked for."""

    def __init__(self, args: argparse.Namespace, root: Path) -> None:
        self.systems: list[str] = args.systems
        self.depth = REACH if args.reach else DEPTH
        self.server = ((args.embedding_url, args.embedding_model, args.embedding_input_type)
                       if args.embedding_url else None)
        self.root, self.subjects = root, args.subjects
        self.model: Any = None
        if "dense" in self.systems:
            from zettelclaw.search import local_model

            self.model = local_model.LocalModel(2)

    def run(self, system: str, conv: Conversation) -> SystemRun:
        if system == "bm25":
            return run_bm25(conv, self.depth)
        if system == "dense":
            return run_dense(conv, self.model, self.depth)
        if system == "hybrid":
            return run_sidecar(conv, self.root, "auto", self.server, self.subjects,
                               depth=self.depth)
        return run_sidecar(conv, self.root, "off", None, self.subjects, depth=self.depth)

    def close(self) -> None:
        if self.model is not None:
            self.model.close()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    wanted = {"tune": list(TUNE), "heldout": list(HELDOUT), "": []}.get(
        args.conversations, [c for c in args.conversations.split(",") if c])
    convs = conversations(args.data, wanted, args.handoffs)
    root = args.keep or Path(tempfile.mkdtemp(prefix="zc-locomo-", dir="/tmp"))
    runner = Runner(args, root)
    systems = runner.systems
    runs: dict[str, list[Outcome]] = {s: [] for s in systems}
    others: Counter[str] = Counter()
    per_conv: dict[str, dict[str, Any]] = {}
    texts: dict[str, str] = {}
    try:
        for conv in convs:
            started = time.monotonic()
            texts.update({t.entry_id: t.content for t in conv.turns})
            per_conv[conv.sample_id] = {}
            for system in systems:
                run = runner.run(system, conv)
                runs[system] += run.outcomes
                others.update(run.other_hits)
                per_conv[conv.sample_id][system] = figures(
                    [o for o in run.outcomes if o.category != 5])
            print(f"{conv.sample_id}: {len(conv.turns)} turns, {len(conv.questions)} questions, "
                  f"{time.monotonic() - started:.0f} s", file=sys.stderr)
    finally:
        runner.close()
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    machine = (f"{platform.machine()}, {os.cpu_count()} cores, Python "
               f"{platform.python_version()}")
    print(table(f"{', '.join(c.sample_id for c in convs)} ({machine})", runs))
    for name, half in (("tuning half", TUNE), ("held-out half", HELDOUT)):
        if any(c.sample_id in half for c in convs) and any(c.sample_id not in half
                                                           for c in convs):
            print()
            print(table(f"{name}: {', '.join(half)}",
                        {s: [o for o in out if o.conversation in half]
                         for s, out in runs.items()}))
    print()
    print("recall@5 over categories 1-4 per conversation:\n" + "\n".join(
        f"  {sid}: " + ", ".join(f"{s} {f['recall@5']:.3f}" for s, f in by.items())
        for sid, by in per_conv.items()))
    print("top-5 turns under 60 characters: " + ", ".join(
        f"{s} {v:.1%}" for s, v in short_share(runs, texts).items()))
    if args.reach:
        print(reach_lines(runs))
    if args.handoffs:
        print(handoff_lines(runs, convs))
    if others:
        print(f"results that are not log entries: {dict(others)}")
    if args.outcomes:
        write_outcomes(args.outcomes, runs)
    if args.json:
        args.json.write_text(json.dumps({
            "machine": machine, "conversations": [c.sample_id for c in convs],
            "systems": {s: summary(o) for s, o in runs.items()},
            "halves": {name: {s: summary([o for o in out if o.conversation in half])
                              for s, out in runs.items()}
                       for name, half in (("tune", TUNE), ("heldout", HELDOUT))},
            "perConversation": per_conv, "notTurns": dict(others)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
