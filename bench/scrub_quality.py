"""The scrubber on corpora it was not written against: detection and false positives.

    git clone https://github.com/praetorian-inc/noseyparker /tmp/noseyparker
    .venv/bin/python bench/scrub_quality.py \\
        --noseyparker /tmp/noseyparker/crates/noseyparker/data/default/builtin/rules \\
        [--text /usr/lib/python3.11] [--chat DIR] [--ours] [--json] [--show 10] [--sidecar DIR]

- ``--noseyparker DIR``: Nosey Parker's rules (Praetorian, Apache-2.0; nothing of them is kept
  in this repository: the script reads the copy you point it at). Each rule carries
  ``examples``, texts in which it must find a secret, and ``negative_examples``, texts in which
  it must not. Detection: an example of a rule of the ``secret`` category (not ``hashed``: a
  password's hash is no credential) is found when a value the rule's own pattern captures in it
  (compiled with Python's ``re``; 4+ characters) is gone from the scrubbed text and a marker is
  in it; where Python cannot compile or match the rule's Rust pattern, when a marker is in it.
  A rule captures more than the secret (a user name, a host), so ``detectionRateAll`` (every
  captured value gone) is a floor, not the figure.
  False positives: a negative example, or an example of an ``identifier`` rule (an account id,
  a bucket name), that comes out changed. Nosey Parker's negatives are negatives of one rule:
  some hold a secret that rule misses (its file says FIXME), so the changed ones are listed
  (``--show``) to be judged.
- ``--text DIR``: ordinary text that holds no credential but talks about passwords, tokens and
  keys at every turn: each line of each ``.py``/``.txt``/``.md``/``.rst`` file under DIR
  (test folders left out: their vectors are made-up keys). Every changed line is a false
  positive candidate; the figure is changed lines per 10,000, with examples.
- ``--chat PATH``: chat messages, none of them a credential: every string under a ``text`` key
  of a JSON file (or of each ``*.json`` under a folder). LoCoMo's dialogues (Maharana et al.,
  ACL 2024; github.com/snap-research/locomo, CC BY-NC 4.0: read, not copied here) are 5,882
  turns of two people's everyday talk: dates, times, prices, addresses, phone numbers. Every
  changed message is a false positive.
- ``--ours``: the same figures on tests/scrub/secrets_corpus.py (seeds 1-3), as bench/scrubber.py.
- ``--sidecar DIR``: the scrubber of another checkout's ``sidecar/`` (an older commit's, to
  compare); the corpora stay this checkout's.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
MARKER_RE = re.compile(r"\[redacted: [A-Za-z0-9 ]+\]")
Scrub = Callable[[str], str]

MIN_CAPTURE = 4  # shorter captures (a port, a scheme) are not the secret


def _pattern(source: str) -> re.Pattern[str] | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return re.compile(source)
        except (re.error, OverflowError):
            return None


def rules(folder: Path) -> list[dict[str, Any]]:
    out = []
    for path in sorted(folder.glob("*.yml")):
        for rule in (yaml.safe_load(path.read_text()) or {}).get("rules", []):
            rule["file"] = path.name
            out.append(rule)
    return out


def _captured(rule: dict[str, Any], text: str) -> list[str] | None:
    """The values the rule's pattern captures in ``text``; None when Python's ``re`` cannot
    compile or match the pattern."""
    pattern = _pattern(rule["pattern"])
    if pattern is None:
        return None
    values = []
    for match in pattern.finditer(text):
        values += [g for g in match.groups() if g and len(g) >= MIN_CAPTURE]
    return values or None


def _judge(scrub: Scrub, rule: dict[str, Any], text: str) -> tuple[bool, bool, bool]:
    """Whether the example's secret is gone (a captured value gone, a marker in its place),
    whether every captured value is, and whether the rule's pattern judged it."""
    out = scrub(text)
    marked = MARKER_RE.search(out) is not None
    values = _captured(rule, text)
    if values is None:
        return marked, marked, False
    gone = [v not in out for v in values]
    return marked and any(gone), all(gone), True


def noseyparker(scrub: Scrub, folder: Path, show: int) -> dict[str, Any]:
    found = missed = by_capture = by_marker = all_gone = 0
    missed_examples: list[str] = []
    negatives = changed_negatives = 0
    changed_negative_examples: list[str] = []
    identifiers = changed_identifiers = 0
    changed_identifier_examples: list[str] = []
    per_rule_missed: dict[str, int] = {}
    for rule in rules(folder):
        categories = set(rule.get("categories") or [])
        examples = [e for e in rule.get("examples") or [] if isinstance(e, str)]
        if "secret" in categories and "hashed" not in categories:
            for text in examples:
                hit, every, captured = _judge(scrub, rule, text)
                by_capture += captured
                by_marker += not captured
                all_gone += every
                if hit:
                    found += 1
                else:
                    missed += 1
                    per_rule_missed[rule["id"]] = per_rule_missed.get(rule["id"], 0) + 1
                    missed_examples.append(f"{rule['id']}: {text.strip()[:120]!r}")
        elif "identifier" in categories and "secret" not in categories:
            for text in examples:
                identifiers += 1
                if scrub(text) != text:
                    changed_identifiers += 1
                    changed_identifier_examples.append(f"{rule['id']}: {text.strip()[:120]!r}")
        for text in rule.get("negative_examples") or []:
            if not isinstance(text, str):
                continue
            negatives += 1
            if scrub(text) != text:
                changed_negatives += 1
                changed_negative_examples.append(
                    f"{rule['id']}: {text.strip()[:100]!r} -> {scrub(text).strip()[:100]!r}")
    total = found + missed
    return {
        "secretExamples": total, "found": found,
        "detectionRate": round(found / total, 4) if total else None,
        "detectionRateAll": round(all_gone / total, 4) if total else None,
        "judgedByCapture": by_capture, "judgedByMarker": by_marker,
        "negativeExamples": negatives, "negativesChanged": changed_negatives,
        "negativesChangedRate": round(changed_negatives / negatives, 4) if negatives else None,
        "identifierExamples": identifiers, "identifiersChanged": changed_identifiers,
        "missedByRule": dict(sorted(per_rule_missed.items(), key=lambda kv: -kv[1])),
        "missedExamples": missed_examples[:show],
        "negativesChangedExamples": changed_negative_examples[:show],
        "identifiersChangedExamples": changed_identifier_examples[:show],
    }


def text_lines(scrub: Scrub, folder: Path, show: int) -> dict[str, Any]:
    lines = changed = 0
    examples: list[str] = []
    kinds: dict[str, int] = {}
    for path in sorted(folder.rglob("*")):
        if path.suffix not in (".py", ".txt", ".md", ".rst") or not path.is_file():
            continue
        if any(part in ("test", "tests", "idle_test", "site-packages", "dist-packages")
               for part in path.relative_to(folder).parts):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for row in text.splitlines():
            lines += 1
            out = scrub(row)
            if out != row:
                changed += 1
                for kind in re.findall(r"\[redacted: ([^\]]+)\]", out):
                    kinds[kind] = kinds.get(kind, 0) + 1
                examples.append(f"{path.relative_to(folder)}: {row.strip()[:110]!r}")
    return {"lines": lines, "changed": changed,
            "changedPer10k": round(changed / lines * 10_000, 2) if lines else None,
            "changedByKind": dict(sorted(kinds.items(), key=lambda kv: -kv[1])),
            "changedExamples": examples[:show]}


def _texts(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [t for k, v in value.items()
                for t in ([v] if k == "text" and isinstance(v, str) else _texts(v))]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def chat(scrub: Scrub, path: Path, show: int) -> dict[str, Any]:
    files = sorted(path.rglob("*.json")) if path.is_dir() else [path]
    messages = [t for f in files for t in _texts(json.loads(f.read_text()))]
    changed = [(t, out) for t in messages if (out := scrub(t)) != t]
    return {"messages": len(messages), "changed": len(changed),
            "changedRate": round(len(changed) / len(messages), 5) if messages else None,
            "changedExamples": [f"{t[:100]!r} -> {out[:100]!r}" for t, out in changed[:show]]}


def ours(scrub: Scrub) -> dict[str, Any]:
    from tests.scrub.secrets_corpus import lookalikes, secrets

    corpus = [s for seed in (1, 2, 3) for s in secrets(seed, 20)]
    looks = [t for seed in (1, 2, 3) for t in lookalikes(seed + 1000, 20)]
    found = sum(1 for s in corpus if s.secret not in (out := scrub(s.text))
                and f"[redacted: {s.kind}]" in out)
    fps = sum(1 for t in looks if scrub(t) != t)
    return {"secrets": len(corpus), "found": found,
            "detectionRate": round(found / len(corpus), 4),
            "lookalikes": len(looks), "falsePositives": fps,
            "falsePositiveRate": round(fps / len(looks), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--noseyparker", type=Path, help="Nosey Parker's rules folder")
    parser.add_argument("--text", type=Path, help="a folder of ordinary text and code")
    parser.add_argument("--chat", type=Path, help="a JSON file or folder of chat messages")
    parser.add_argument("--ours", action="store_true", help="tests/scrub/secrets_corpus.py too")
    parser.add_argument("--show", type=int, default=10, help="examples listed per figure")
    parser.add_argument("--sidecar", type=Path, default=ROOT / "sidecar",
                        help="the sidecar/ folder whose scrubber runs (default: this one)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not (args.noseyparker or args.text or args.chat or args.ours):
        parser.error("give --noseyparker DIR, --text DIR, --chat PATH or --ours")
    sys.path[:0] = [str(args.sidecar), str(ROOT)]
    from zettelclaw.scrub import scrub
    report: dict[str, Any] = {}
    for name, path, must_be_dir, measure in (
            ("noseyparker", args.noseyparker, True, noseyparker),
            ("text", args.text, True, text_lines), ("chat", args.chat, False, chat)):
        if path is None:
            continue
        if not (path.is_dir() if must_be_dir else path.exists()):
            parser.error(f"--{name}: {path} is not " + ("a folder" if must_be_dir else "there"))
        report[name] = measure(scrub, path, args.show)
    if args.ours:
        report["ours"] = ours(scrub)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    for name, result in report.items():
        print(f"== {name}")
        for key, value in result.items():
            if isinstance(value, list):
                for item in value:
                    print(f"  {key}: {item}")
            else:
                print(f"  {key}: {value}")


if __name__ == "__main__":
    main()
