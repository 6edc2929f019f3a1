"""The secret scrubber on its corpus: detection rate, false-positive rate, cost per KB.

    .venv/bin/python bench/scrubber.py [--per-kind 20] [--seeds 1,2,3] [--json]

The corpus is ``tests/scrub/secrets_corpus.py``: secrets of each kind in their providers' shapes,
inside the sentences people write them in, and look-alikes that must survive (UUIDs, git SHAs,
sha256/md5 digests, version strings, the log's 12-character ids, phone numbers, order numbers
that fail Luhn or start like no card, base64 images, long words, talk about passwords).

- detection: a secret counts as found when its text is gone from the scrubbed message and the
  marker names its kind (``[redacted: Anthropic API key]``);
- false positive: a look-alike message that comes out changed;
- speed: ``scrub`` over ordinary chat text with no secret (the common case on the hook path)
  and over the corpus's secret messages, in microseconds of CPU per KB (best of 5 rounds).

When Yelp's ``detect-secrets`` is importable (``pip install detect-secrets``: it is not a
dependency), its regex plugins run on the same corpus for comparison (found: a plugin reports a
value overlapping the secret; false positive: any report on a look-alike).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "sidecar"), str(ROOT)]

from tests.scrub.secrets_corpus import Secret, lookalikes, secrets  # noqa: E402
from zettelclaw.scrub import MARKER, scrub  # noqa: E402

WORDS = ("the deploy went fine yesterday but the webhook retries still pile up in the queue "
         "so we decided to move billing to Postgres and keep the old MySQL replica for reports "
         "until March; Sam owns the migration script and wants a review by Friday").split()


def chat_text(size: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:size]


def rates(found: list[Secret], fps: list[str], corpus: list[Secret], looks: list[str]
          ) -> dict[str, Any]:
    per_kind = Counter(s.kind for s in corpus)
    found_kind = Counter(s.kind for s in found)
    return {"secrets": len(corpus), "found": len(found),
            "detectionRate": round(len(found) / len(corpus), 4),
            "lookalikes": len(looks), "falsePositives": len(fps),
            "falsePositiveRate": round(len(fps) / len(looks), 4),
            "perKind": {k: f"{found_kind[k]}/{n}" for k, n in sorted(per_kind.items())},
            "missedExamples": [s.text[:100] for s in corpus if s not in found][:5],
            "falsePositiveExamples": [t[:100] for t in fps][:5]}


def ours(corpus: list[Secret], looks: list[str]) -> dict[str, Any]:
    found = [s for s in corpus
             if s.secret not in (out := scrub(s.text)) and MARKER.format(s.kind) in out]
    fps = [t for t in looks if scrub(t) != t]
    return rates(found, fps, corpus, looks)


def per_kb(fn: Any, texts: list[str], rounds: int = 5) -> float:
    size = sum(len(t.encode()) for t in texts) / 1024
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()  # CPU time: the machine may be shared (load in the wall)
        for text in texts:
            fn(text)
        best = min(best, time.process_time() - start)
    return round(best / size * 1e6, 1)


def detect_secrets_plugins() -> list[Any] | None:
    try:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    except ImportError:
        return None
    from detect_secrets.plugins.base import RegexBasedDetector

    return [cls() for cls in get_mapping_from_secret_type_to_class().values()
            if issubclass(cls, RegexBasedDetector)]


def theirs(plugins: list[Any], corpus: list[Secret], looks: list[str]) -> dict[str, Any]:
    def hits(text: str) -> list[str]:
        return [value for plugin in plugins for value in plugin.analyze_string(text)]

    found = [s for s in corpus
             if any(v and (v in s.secret or s.secret in v) for v in hits(s.text))]
    fps = [t for t in looks if hits(t)]
    result = rates(found, fps, corpus, looks)
    result["plugins"] = sorted(type(p).__name__ for p in plugins)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-kind", type=int, default=20)
    parser.add_argument("--seeds", default="7")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    corpus: list[Secret] = []
    looks: list[str] = []
    for seed in (int(s) for s in args.seeds.split(",")):
        corpus += secrets(seed, args.per_kind)
        looks += lookalikes(seed + 1000, args.per_kind)
    chat = [chat_text(2000, seed) for seed in range(50)]
    report: dict[str, Any] = {
        "zettelclaw.scrub": {
            **ours(corpus, looks),
            "usPerKbChat": per_kb(scrub, chat),
            "usPerKbSecrets": per_kb(scrub, [s.text for s in corpus]),
            "usPerKbLookalikes": per_kb(scrub, looks),
        }}
    plugins = detect_secrets_plugins()
    if plugins is None:
        report["detect-secrets"] = "not installed (pip install detect-secrets to compare)"
    else:
        def scan(text: str) -> None:
            for plugin in plugins:
                list(plugin.analyze_string(text))

        report["detect-secrets"] = {**theirs(plugins, corpus, looks),
                                    "usPerKbChat": per_kb(scan, chat)}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for name, result in report.items():
        print(f"== {name}")
        if isinstance(result, str):
            print(f"  {result}")
            continue
        print(f"  detection {result['found']}/{result['secrets']} "
              f"({result['detectionRate']:.1%}); false positives {result['falsePositives']}/"
              f"{result['lookalikes']} ({result['falsePositiveRate']:.1%})")
        for key in ("usPerKbChat", "usPerKbSecrets", "usPerKbLookalikes"):
            if key in result:
                print(f"  {key}: {result[key]} us")
        print("  per kind: " + ", ".join(f"{k} {v}" for k, v in result["perKind"].items()))
        for key in ("missedExamples", "falsePositiveExamples"):
            for example in result[key]:
                print(f"  {key[:-8]}: {example!r}")


if __name__ == "__main__":
    main()
