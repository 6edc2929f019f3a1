"""Would tantivy meet the keyword targets (bench/README.md#targets)? A probe, before building on it.

    .venv/bin/pip install tantivy
    .venv/bin/python bench/generate.py 1000000 /tmp/gen1m
    .venv/bin/python bench/tantivy_probe.py /tmp/gen1m/log.jsonl

Indexes each entry's content, detail and subject (English stemming) with its line number, as a
fast field, with tantivy's Python bindings (2 writer threads); then for a few queries, top 10 by
BM25 over every match (tantivy prunes with block-max WAND), p50 of 200 runs after 20 to warm up,
against the median of 5 ``rg -c`` runs over the same file (``-e`` per word). In-process calls:
no socket, no re-ranking by recency and type, so the sidecar would add its own overhead on top.
Not part of the test suite, and tantivy is not a dependency (yet).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import orjson

QUERIES = (("config",), ("config", "build"), ("webhook",), ("postgres", "migration"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path)
    args = parser.parse_args()
    import tantivy

    where = Path(tempfile.mkdtemp(prefix="zc-tantivy-"))
    try:
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("text", stored=False, tokenizer_name="en_stem")
        builder.add_unsigned_field("line", stored=False, fast=True, indexed=True)
        index = tantivy.Index(builder.build(), path=str(where))
        started = time.perf_counter()
        writer = index.writer(heap_size=100_000_000, num_threads=2)
        count = 0
        with args.log.open("rb") as f:
            for line, raw in enumerate(f, 1):
                entry = orjson.loads(raw)
                doc = tantivy.Document()
                doc.add_text("text", " ".join(filter(None, (
                    entry.get("content"), entry.get("detail"), entry.get("subject")))))
                doc.add_unsigned("line", line)
                writer.add_document(doc)
                count += 1
        writer.commit()
        writer.wait_merging_threads()
        print(f"index build: {count:,} entries in {time.perf_counter() - started:.1f} s "
              "(JSON parsing included)")
        index.reload()
        searcher = index.searcher()
        for words in QUERIES:
            query = index.parse_query(" ".join(words), ["text"])
            for _ in range(20):
                searcher.search(query, 10)
            runs = []
            for _ in range(200):
                t = time.perf_counter_ns()
                searcher.search(query, 10)
                runs.append((time.perf_counter_ns() - t) / 1e6)
            # tantivy.pyi (0.27) leaves out SearchResult.count, which the library has
            matches = searcher.search(query, 1, count=True).count  # type: ignore[attr-defined]
            rg = ["rg", "-c", *(a for w in words for a in ("-e", w)), str(args.log)]
            rg_ms = []
            for _ in range(5):
                t0 = time.perf_counter()
                subprocess.run(rg, stdout=subprocess.DEVNULL, check=False)
                rg_ms.append((time.perf_counter() - t0) * 1000)
            p50, rg_med = statistics.median(runs), statistics.median(rg_ms)
            print(f"{' '.join(words)!r}: {matches:,} matches; top 10 p50 {p50:.3f} ms; "
                  f"rg -c {rg_med:.1f} ms ({rg_med / p50:.0f}x)")
    finally:
        shutil.rmtree(where, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
