"""Retrieval quality of ``memory.search``: recall@5 and MRR, keyword mode against hybrid mode.

    python -m tests.quality.evaluate [--json] [--misses] [--keep DIR] [--seed N ...]

Builds the generated corpus (tests/quality/generate.py) in a temporary directory, indexes it the
way the sidecar does (``Freshness.sync``, and for hybrid mode the embedding model and every vector),
asks every query of tests/quality/queries.py through the search use case (the ``memory.search``
method's code path, top 10), and finds where its one target ranks:

- recall@5: the share of queries whose target is among the first 5 results;
- MRR: the mean of 1/rank of the target within the first 10 results (0 when absent).

A log target is found by its entry id (a result's ``path``); a Markdown target by any result of
that file whose lines overlap the target's lines (a chunk holds about 400 tokens of lines).
Figures are given per mode and per query kind (keyword, paraphrase, corrected: the current
answer of a corrected entry), and per kind of target.
Hybrid mode uses the shipped model (search/local_model.py), or what ``--search`` settings say
(``--search embeddings=http --search embeddingUrl=http://127.0.0.1:8765/v1 --search
embeddingModel=M``: an embedding server's model).

The corpus ends today (whole days before now), so the ages that recency ranking sees, and
with them the figures, do not drift with the date the evaluation runs.

``--seed N`` draws the corpus from another seed (the default is ``generate.SEED``): the same
planted targets among other distractors, a check on a corpus no constant was tuned on. Given
more than once, every seed is run and the figures are given per seed and as their mean: one
draw can be kinder than the rest (bench/README.md#ranking).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from tests.direct import Direct
from tests.quality.generate import SEED, Corpus, generate, planted_id
from tests.quality.queries import QUERIES, Entry, Query, Target
from zettelclaw.config import SearchConfig
from zettelclaw.home import Home
from zettelclaw.protocol.params import SearchParams
from zettelclaw.search.semantic import missing_extra

MODES = ("keyword", "hybrid")
KINDS = ("keyword", "paraphrase", "corrected")
ABOUTS = ("fact", "decision", "task", "question", "note")
K = 5  # recall@K
DEPTH = 10  # results asked for; MRR counts ranks up to here


@dataclass(frozen=True)
class Outcome:
    query: Query
    rank: int | None  # 1-based, within the first DEPTH results
    top: tuple[str, ...]  # the results, for reading the misses
    log_ids: tuple[str, ...] = ()  # the log entries among the results, in order

    @property
    def hit(self) -> bool:
        return self.rank is not None and self.rank <= K

    @property
    def reciprocal(self) -> float:
        return 1.0 / self.rank if self.rank is not None else 0.0


@dataclass
class Run:
    mode: str
    outcomes: list[Outcome]
    seconds: dict[str, float] = field(default_factory=dict)


def end_today() -> datetime:
    """The corpus's end: today at 18:00 UTC (a fixed time of day keeps the draws the same)."""
    return datetime.now(UTC).replace(hour=18, minute=0, second=0, microsecond=0)


def build(root: Path, end: datetime | None = None, seed: int = SEED) -> Corpus:
    return generate(root / "corpus", end=end or end_today(), seed=seed)


def hybrid_available() -> bool:
    return missing_extra() is None


def is_hit(result: dict[str, Any], target: Target) -> bool:
    if isinstance(target, Entry):
        return result.get("source") == "log" and result["path"] == planted_id(target.label)
    return (result.get("source") == "memory" and result["path"] == target.path
            and result["startLine"] <= target.end and result["endLine"] >= target.start)


def _describe(result: dict[str, Any]) -> str:
    where = (result["path"] if result.get("source") == "log"
             else f"{result['path']}#L{result['startLine']}-L{result['endLine']}")
    text = result.get("content") or result.get("snippet") or ""
    return f"{result['score']:.3f} {where} {text[:70]!r}"


def run_mode(corpus: Corpus, workdir: Path, mode: str,
             queries: Sequence[Query] = QUERIES, search: dict[str, str] | None = None) -> Run:
    """Index the corpus in a data directory of its own and ask every query in ``mode``
    (hybrid with the ``search`` settings given, by their config.json names)."""
    assert mode in MODES
    started = time.monotonic()
    home = Home(workdir / f"home-{mode}")
    home.ensure()
    for name in ("log.jsonl", "subjects.json"):
        shutil.copyfile(corpus.data_dir / name, home.root / name)
    config = SearchConfig.model_validate(
        {"semantic": "off"} if mode == "keyword" else {**(search or {}), "semantic": "auto"})
    memory = Direct.open(home, corpus.workspace, config)
    try:
        memory.sync()
        # the memory files are indexed by the first search: index them now, so that their
        # chunks are embedded with the entries (as a running sidecar's vectorizer would do)
        memory.searcher.files.sync()
        seconds = {"index": time.monotonic() - started}
        if mode == "hybrid":
            semantic = memory.searcher.semantic
            semantic.load()
            seconds["model"] = time.monotonic() - started - seconds["index"]
            while semantic.embed_pending():
                pass
            seconds["embed"] = time.monotonic() - started - seconds["index"] - seconds["model"]
        asked = time.monotonic()
        outcomes = []
        for query in queries:
            answer = memory.search(SearchParams.model_validate(
                {"query": query.text, "maxResults": DEPTH}))
            if answer["mode"] != mode:
                raise RuntimeError(f"asked for {mode} search, got {answer['mode']}: "
                                   f"{answer.get('fallback')}")
            results = answer["results"]
            rank = next((i for i, r in enumerate(results, 1) if is_hit(r, query.target)), None)
            outcomes.append(Outcome(query, rank, tuple(_describe(r) for r in results),
                                    tuple(r["id"] for r in results if "id" in r)))
        seconds["queries"] = time.monotonic() - asked
    finally:
        memory.close()
    return Run(mode, outcomes, seconds)


def figures(outcomes: Iterable[Outcome]) -> dict[str, Any]:
    items = list(outcomes)
    n = len(items)
    return {"n": n,
            f"recall@{K}": round(sum(o.hit for o in items) / n, 4) if n else None,
            "mrr": round(sum(o.reciprocal for o in items) / n, 4) if n else None}


def summarize(run: Run) -> dict[str, Any]:
    out = run.outcomes
    return {
        "all": figures(out),
        "byKind": {kind: figures(o for o in out if o.query.kind == kind) for kind in KINDS},
        "byTarget": {about: {kind: figures(o for o in out if o.query.about == about
                                           and o.query.kind == kind) for kind in KINDS}
                     for about in ABOUTS},
        "seconds": {k: round(v, 2) for k, v in run.seconds.items()},
        "ranks": [o.rank for o in out],
    }


def corpus_figures(corpus: Corpus) -> dict[str, Any]:
    types: dict[str, int] = {}
    for e in corpus.entries:
        types[e["type"]] = types.get(e["type"], 0) + 1
    files = list(corpus.workspace.rglob("*.md"))
    return {"entries": len(corpus.entries), "byType": types,
            "replacements": sum("replaces" in e for e in corpus.entries),
            "sessions": len({e["session"] for e in corpus.entries}),
            "subjects": len(corpus.subjects), "memoryFiles": len(files),
            "memoryLines": sum(len(p.read_text().splitlines()) for p in files),
            "queries": len(QUERIES)}


def evaluate(root: Path | None = None, modes: Sequence[str] | None = None,
             search: dict[str, str] | None = None, seed: int = SEED) -> dict[str, Any]:
    """Build the corpus (drawn from ``seed``), run every mode that can run here; returns the
    figures (and runs)."""
    wanted = list(modes or MODES)
    runnable = [m for m in wanted if m != "hybrid" or hybrid_available()]
    with tempfile.TemporaryDirectory(prefix="zc-quality-") as tmp:
        work = root or Path(tmp)
        started = time.monotonic()
        corpus = build(work, seed=seed)
        runs = {mode: run_mode(corpus, work, mode, search=search) for mode in runnable}
        return {"seed": seed, "corpus": corpus_figures(corpus),
                "modes": {mode: summarize(run) for mode, run in runs.items()},
                "skipped": [m for m in wanted if m not in runs],
                "seconds": round(time.monotonic() - started, 1),
                "_runs": runs}


def markdown(result: dict[str, Any]) -> str:
    c = result["corpus"]
    lines = [f"Corpus: {c['entries']} log entries ({c['sessions']} sessions, {c['subjects']} "
             f"subjects, {c['replacements']} replacements), {c['memoryFiles']} Markdown files "
             f"({c['memoryLines']} lines); {c['queries']} queries, one target each.", "",
             f"| mode | queries | n | recall@{K} | MRR@{DEPTH} |", "|---|---|---|---|---|"]
    for mode, s in result["modes"].items():
        for label, f in (("all", s["all"]), *s["byKind"].items()):
            lines.append(f"| {mode} | {label} | {f['n']} | {f[f'recall@{K}']:.3f} | "
                         f"{f['mrr']:.3f} |")
    lines += ["", f"recall@{K} by target (keyword queries / paraphrases / corrected):", "",
              "| mode | " + " | ".join(ABOUTS) + " |", "|---|" + "---|" * len(ABOUTS)]
    for mode, s in result["modes"].items():
        cells = [" / ".join("-" if s["byTarget"][a][k]["n"] == 0 else
                            f"{s['byTarget'][a][k][f'recall@{K}']:.2f}" for k in KINDS)
                 for a in ABOUTS]
        lines.append(f"| {mode} | " + " | ".join(cells) + " |")
    timing = "; ".join(f"{mode}: " + ", ".join(f"{k} {v:.1f} s" for k, v in s["seconds"].items())
                       for mode, s in result["modes"].items())
    lines += ["", f"Time: {result['seconds']:.1f} s in all ({timing})."]
    if result["skipped"]:
        lines.append(f"Not run: {', '.join(result['skipped'])} (semantic search is not "
                     "installed).")
    return "\n".join(lines)


def across_seeds(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per mode and query kind: each seed's recall@K and MRR, and their mean."""
    out: dict[str, Any] = {}
    for mode in results[0]["modes"]:
        for label in ("all", *results[0]["modes"][mode]["byKind"]):
            cells = [r["modes"][mode]["all"] if label == "all"
                     else r["modes"][mode]["byKind"][label] for r in results]
            out.setdefault(mode, {})[label] = {
                "bySeed": {str(r["seed"]): {f"recall@{K}": c[f"recall@{K}"], "mrr": c["mrr"]}
                           for r, c in zip(results, cells, strict=True)},
                "mean": {f"recall@{K}": round(sum(c[f"recall@{K}"] for c in cells) / len(cells), 3),
                         "mrr": round(sum(c["mrr"] for c in cells) / len(cells), 3)}}
    return out


def seeds_markdown(table: dict[str, Any]) -> str:
    seeds = list(next(iter(next(iter(table.values())).values()))["bySeed"])
    lines = [f"recall@{K} / MRR@{DEPTH} by seed:", "",
             "| mode | queries | " + " | ".join(seeds) + " | mean |",
             "|---|---|" + "---|" * (len(seeds) + 1)]
    for mode, kinds in table.items():
        for label, f in kinds.items():
            cells = [f"{v[f'recall@{K}']:.3f} / {v['mrr']:.3f}" for v in f["bySeed"].values()]
            mean = f["mean"]
            lines.append(f"| {mode} | {label} | " + " | ".join(cells)
                         + f" | {mean[f'recall@{K}']:.3f} / {mean['mrr']:.3f} |")
    return "\n".join(lines)


def misses(result: dict[str, Any]) -> str:
    out = []
    for mode, run in result["_runs"].items():
        for o in run.outcomes:
            if o.hit:
                continue
            out.append(f"[{mode}] {o.query.kind} ({o.query.about}) rank={o.rank}: "
                       f"{o.query.text!r} -> {o.query.target}")
            out += [f"      {line}" for line in o.top[:K]]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None, echo: Callable[[str], None] = print) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--misses", action="store_true", help="list the queries not in the top 5")
    parser.add_argument("--mode", choices=MODES, action="append", help="only this mode")
    parser.add_argument("--keep", type=Path, help="build in this directory and keep it")
    parser.add_argument("--search", action="append", default=[], metavar="KEY=VALUE",
                        help="a search setting for hybrid mode, as in config.json "
                             "(embeddings=http, embeddingUrl=..., embeddingModel=...)")
    parser.add_argument("--seed", type=int, action="append", metavar="N",
                        help=f"draw the corpus from this seed (default {SEED}); more than once: "
                             "every seed, and their mean")
    args = parser.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    settings = dict(item.partition("=")[::2] for item in args.search)
    seeds = args.seed or [SEED]
    if len(seeds) > 1:
        if args.keep:
            parser.error("--keep takes one seed")
        results = [evaluate(None, args.mode, settings, seed) for seed in seeds]
        table = across_seeds(results)
        echo(orjson.dumps({"seeds": seeds, "figures": table}, option=orjson.OPT_INDENT_2).decode()
             if args.json else seeds_markdown(table))
        if args.misses:
            for result in results:
                echo(f"\nseed {result['seed']}:")
                echo(misses(result))
        return {"seeds": seeds, "figures": table, "_results": results}
    result = evaluate(args.keep, args.mode, settings, seeds[0])
    if args.json:
        echo(orjson.dumps({k: v for k, v in result.items() if not k.startswith("_")},
                          option=orjson.OPT_INDENT_2).decode())
    else:
        echo(markdown(result))
    if args.misses:
        echo("")
        echo(misses(result))
    return result


if __name__ == "__main__":
    main()
