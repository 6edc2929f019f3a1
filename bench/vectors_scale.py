"""Semantic search on large logs: RSS and search latency with the vectors sealed into segments.

    .venv/bin/python bench/vectors_scale.py build N DIR [--real K]
    .venv/bin/python bench/vectors_scale.py measure DIR [--searches 200] [--exact]

Embedding a million entries with the real model takes hours on a 2-core machine, so ``build``
embeds only ``--real`` (default 4,000) of the generated log's texts with the shipped model
(once, cached in DIR/real.npy) and gives every other text the vector of one of those (picked by
its hash) with a little noise, unit length: vectors of the same shape and spread as the real
ones. They go through the sidecar's own path (``Semantic.embed_pending``: SQLite writes, the
sentences, then ``seal_due``), so the index, the segments and the walk are those a real run
leaves. ``measure`` opens DIR in a fresh process, loads the real model for the queries, runs
``--searches`` hybrid searches (paraphrases, no shared keyword needed) and prints p50 / p95 and
the process's peak RSS (VmHWM), with the segments' size on disk; ``--exact`` leaves the
segments out, so every vector is read into memory and compared exactly, as before segments.

The log comes from bench/generate.py (DIR/gen); DIR is kept, outside the repository.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.direct import Direct  # noqa: E402
from zettelclaw.config import SearchConfig  # noqa: E402
from zettelclaw.home import Home  # noqa: E402
from zettelclaw.protocol.params import SearchParams  # noqa: E402
from zettelclaw.search import ann, local_model  # noqa: E402

QUERIES = ["why did the deploy fail last week", "who is in charge of the payment service",
           "what did we choose for caching", "the database is slow at night",
           "which tasks are still open for the mobile app", "how do we roll back a release",
           "a meeting about hiring", "where do the logs go", "the login page is broken",
           "what does the team think of the new editor"]


class Synthetic:
    """The shipped model's name and query path; the background's vectors from a real sample."""

    def __init__(self, model: Any, real: Any) -> None:
        self.model, self.real, self.name, self.texts = model, real, model.name, 0

    def embed(self, texts: Any) -> Any:
        return self.model.embed(texts)

    def embed_background(self, texts: Any) -> Any:
        self.texts += len(texts)
        out = np.empty((len(texts), self.real.shape[1]), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
            rng = np.random.default_rng(seed)
            v = self.real[seed % len(self.real)] + 0.04 * rng.standard_normal(self.real.shape[1])
            out[i] = v / np.linalg.norm(v)
        return out

    def close(self) -> None:
        self.model.close()


def build(n: int, folder: Path, real_count: int) -> None:
    gen = folder / "gen"
    if not (gen / "log.jsonl").exists():
        subprocess.run([sys.executable, str(ROOT / "bench/generate.py"), str(n), str(gen),
                        "--seed", "1"], check=True)
    home = Home(folder / "home")
    home.ensure()
    if not home.log.stat().st_size:
        for name in ("log.jsonl", "subjects.json"):
            (home.root / name).write_bytes((gen / name).read_bytes())
    workspace = folder / "workspace"
    workspace.mkdir(exist_ok=True)
    model = local_model.LocalModel(2)
    cached = folder / "real.npy"
    if not cached.exists():
        import orjson

        from zettelclaw.index.entry_rows import entry_text
        texts = []
        with (gen / "log.jsonl").open("rb") as f:
            for line in f:
                e = orjson.loads(line)
                texts.append(entry_text(e["content"], e.get("detail")))
                if len(texts) >= real_count:
                    break
        np.save(cached, np.vstack([model.embed_background(texts[i:i + 256])
                                   for i in range(0, len(texts), 256)]))
    m = Direct.open(home, workspace, SearchConfig(semantic="auto", semantic_max_entries=n * 2))
    t = time.perf_counter()
    m.sync()
    print(f"index built in {time.perf_counter() - t:.1f} s", flush=True)
    embedder = Synthetic(model, np.load(cached))
    m.searcher.semantic.use(embedder)
    t, seal_s, last = time.perf_counter(), 0.0, time.perf_counter()
    while True:
        done = m.searcher.semantic.embed_pending()
        s = time.perf_counter()
        m.searcher.semantic.seal_due()
        seal_s += time.perf_counter() - s
        if time.perf_counter() - last > 30:
            last = time.perf_counter()
            print(f"  {m.searcher.semantic.coverage()} texts {embedder.texts}", flush=True)
        if not done:
            break
    wall = time.perf_counter() - t
    print(f"walk: {n} entries, {embedder.texts} texts in {wall:.0f} s ({n / wall:.0f} "
          f"entries/s without the model), sealing {seal_s:.0f} s of it", flush=True)
    m.searcher.semantic.embedder = None
    m.close()
    model.close()


def measure(folder: Path, searches: int, exact: bool) -> None:
    home = Home(folder / "home")
    if exact:  # as before segments: every vector in memory, compared exactly
        empty = Path(tempfile.mkdtemp()) / "none.ann"
        ann.folder = lambda index: empty
        ann.SEAL_ROWS = 1 << 40  # and nothing kept out of memory for want of a segment
    m = Direct.open(home, folder / "workspace", SearchConfig(semantic="auto",
                                                             semantic_max_entries=10**8))
    model = local_model.LocalModel(2)
    m.searcher.semantic.use(model)
    t = time.perf_counter()
    m.sync()
    first = m.search(SearchParams.model_validate({"query": QUERIES[0]}))
    print(f"first search (opens the segments) {time.perf_counter() - t:.2f} s, mode "
          f"{first.get('mode')}")
    times, answers = [], {}
    for i in range(searches):
        q = QUERIES[i % len(QUERIES)]
        t = time.perf_counter()
        answer = m.search(SearchParams.model_validate({"query": q}))
        times.append((time.perf_counter() - t) * 1000)
        answers[q] = [r.get("id") for r in answer["results"]]
    mine, other = (folder / f"answers-{k}.json" for k in (
        ("exact", "ann") if exact else ("ann", "exact")))
    mine.write_text(json.dumps(answers))
    if other.exists():  # the same queries' first ten, with and without segments
        theirs = json.loads(other.read_text())
        shared = [len(set(answers[q]) & set(theirs[q])) / max(len(theirs[q]), 1)
                  for q in answers if q in theirs]
        print(f"first ten shared with the {other.stem[8:]} run: {statistics.mean(shared):.2f}")
    times.sort()
    store = m.searcher.semantic.rows._store
    rows = {k: store.rows(k) for k in ann.KINDS} if store else {}
    size = sum(p.stat().st_size for p in ann.folder(home.index).iterdir() if p.is_file())
    print(f"hybrid search p50 {statistics.median(times):.1f} ms, p95 "
          f"{times[int(len(times) * 0.95)]:.1f} ms ({searches} searches)")
    print(f"sealed rows {rows}; segments on disk {size / 1e6:.0f} MB; peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; VmRSS "
          f"{_status('VmRSS'):.0f} MB (anonymous {_status('RssAnon'):.0f}, files "
          f"{_status('RssFile'):.0f})")
    m.searcher.semantic.embedder = None
    m.close()
    model.close()


def _status(field: str) -> float:
    """A /proc/self/status field in MB (RssAnon: the heap; RssFile: mapped files' pages, the
    segments' among them, which the kernel may drop and read again)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("n", type=int)
    b.add_argument("dir", type=Path)
    b.add_argument("--real", type=int, default=4000)
    me = sub.add_parser("measure")
    me.add_argument("dir", type=Path)
    me.add_argument("--searches", type=int, default=200)
    me.add_argument("--exact", action="store_true",
                    help="leave the segments out: every vector in memory, as before them")
    args = parser.parse_args()
    if args.command == "build":
        build(args.n, args.dir, args.real)
    else:
        measure(args.dir, args.searches, args.exact)


if __name__ == "__main__":
    main()
