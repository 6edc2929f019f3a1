"""Background embedding rate: texts (and log entries) per CPU-second of the local model.

    .venv/bin/python bench/embedding_rate.py LOG [--entries 1200] [--threads 2,1]
    .venv/bin/python bench/embedding_rate.py LOG --model OTHER.onnx   # a candidate, compared
    .venv/bin/python bench/embedding_rate.py --requantize OUT.onnx    # needs `pip install onnx`

Texts are made from a generated log (bench/generate.py) as the vectorizer makes them: each
entry's text and, for an entry of several sentences, each sentence. Rates are per CPU-second
(the process's, all threads), since the wall time on a shared host says little; two quiet
cores give about twice the figure. ``--model`` runs a candidate file through the same
pipeline (tokenizer, batches, pooling) and compares its vectors with the shipped model's:
cosine per text and the nearest ten neighbours shared. ``--requantize`` makes the candidate
that was measured (docs/decisions/0010-meaning-model.md): the shipped model's int8 weights
folded into float32 by onnxruntime, then quantized again dynamically, per channel (int8
MatMulInteger kernels at run time).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from zettelclaw.index.entry_rows import entry_text  # noqa: E402
from zettelclaw.search import local_model  # noqa: E402
from zettelclaw.search.pieces import sentences  # noqa: E402


def texts_of(log: Path, entries: int, every: int) -> tuple[list[str], int]:
    texts: list[str] = []
    taken = 0
    with log.open(encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i % every:
                continue
            e = json.loads(line)
            whole = entry_text(e.get("content", ""), e.get("detail"))
            texts.append(whole)
            texts.extend(s for s, _ in sentences(whole))
            taken += 1
            if taken >= entries:
                break
    return texts, taken


def rate(texts: list[str], threads: int, model: Path | None) -> tuple[Any, float, float]:
    """(vectors, texts per CPU-second, texts per wall second), the best of two passes."""
    shipped = local_model.model_file
    if model is not None:
        local_model.model_file = lambda: model
    try:
        embedder = local_model.LocalModel(threads)
    finally:
        local_model.model_file = shipped
    try:
        embedder.embed_background(texts[:64])  # the arena's first batches
        best_cpu = best_wall = 0.0
        vectors = None
        for _ in range(2):
            cpu, wall = time.process_time(), time.perf_counter()
            vectors = embedder.embed_background(texts)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            best_cpu, best_wall = max(best_cpu, len(texts) / cpu), max(best_wall,
                                                                        len(texts) / wall)
    finally:
        embedder.close()
    return vectors, best_cpu, best_wall


def neighbours(vectors: Any, k: int = 10) -> Any:
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    return np.argsort(-sims, axis=1)[:, :k]


def requantize(out: Path) -> None:
    try:
        import importlib

        importlib.import_module("onnx")  # quantize_dynamic's own dependency, not ours
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        print(f"embedding_rate: --requantize needs the onnx package ({exc}); "
              "pip install onnx into a scratch environment", file=sys.stderr)
        sys.exit(2)
    import onnxruntime

    with tempfile.TemporaryDirectory() as scratch:
        folded = Path(scratch) / "float.onnx"
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        onnxruntime.InferenceSession(str(local_model.model_file()), options,
                                     providers=["CPUExecutionProvider"])
        quantize_dynamic(str(folded), str(out), weight_type=QuantType.QInt8, per_channel=True)
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, nargs="?", help="a generated log.jsonl")
    parser.add_argument("--entries", type=int, default=1200)
    parser.add_argument("--every", type=int, default=37, help="take every Nth entry")
    parser.add_argument("--threads", default="2,1", help="comma-separated thread counts")
    parser.add_argument("--model", type=Path, help="a candidate ONNX file to compare")
    parser.add_argument("--requantize", type=Path, metavar="OUT",
                        help="write the dynamically re-quantized model to OUT and stop")
    args = parser.parse_args()
    if args.requantize:
        requantize(args.requantize)
        return
    if args.log is None or not args.log.is_file():
        parser.error("LOG: a generated log.jsonl (bench/generate.py) is needed")
    texts, entries = texts_of(args.log, args.entries, args.every)
    per_entry = len(texts) / entries
    print(f"{entries} entries, {len(texts)} texts ({per_entry:.2f} an entry)")
    for threads in (int(t) for t in args.threads.split(",")):
        for name, model in (("shipped", None), ("candidate", args.model)):
            if name == "candidate" and model is None:
                continue
            vectors, cpu, wall = rate(texts, threads, model)
            print(f"{name}, {threads} thread(s): {cpu:.0f} texts / CPU-second = "
                  f"{cpu / per_entry:.0f} entries / CPU-second (wall {wall:.0f} texts/s)")
            if name == "shipped":
                base = vectors
            else:
                cosine = (vectors * base).sum(axis=1)
                shared = np.mean([len(set(a) & set(b)) / 10 for a, b in
                                  zip(neighbours(base), neighbours(vectors), strict=True)])
                print(f"  its vectors against the shipped model's: cosine median "
                      f"{np.median(cosine):.4f}, least {cosine.min():.4f}; nearest ten "
                      f"shared {shared:.3f}")


if __name__ == "__main__":
    main()
