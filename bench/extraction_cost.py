"""What extraction costs in tokens, per session: the prompt the model is sent, and its parts.

    python bench/extraction_cost.py [--tokenizer PATH/tokenizer.json] [--entries 20000] [--json]

On the host's route this is what the user's own provider is billed for (the model the user
chats with), so README states it. The prompt is built by the real code (``Extraction.prompt``:
``prompts/extraction.md``, the subjects, up to ``extraction.relevantEntries`` related entries,
the transcript) over a generated log (bench/generate.py), for sessions of 5, 20 and 60 turns
(a user message of ~40 words and an agent reply of ~150), and for the transcript cap
(``extraction.maxTranscriptChars``, 200,000 characters). The reply is a few entries: at most a
few hundred tokens.

Tokens are counted with ``--tokenizer`` (a Hugging Face ``tokenizer.json``; the legacy Claude
tokenizer that ``anthropic`` 0.30 shipped is a fair proxy: ``pip download anthropic==0.30.0
--no-deps`` and unzip ``anthropic/tokenizer.json``), else estimated at 4 characters a token.
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.generate import generate  # noqa: E402

from zettelclaw.app import build_app, build_router  # noqa: E402
from zettelclaw.config import load_config  # noqa: E402
from zettelclaw.extraction.spool import Job  # noqa: E402
from zettelclaw.home import Home  # noqa: E402

USER_WORDS, AGENT_WORDS = 40, 150


def counter(path: Path | None) -> tuple[Callable[[str], int], str]:
    if path is None:
        return (lambda text: round(len(text) / 4)), "estimated at 4 characters a token"
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    return (lambda text: len(tokenizer.encode(text).ids)), f"counted with {path}"


def sentences(home: Path) -> itertools.cycle[str]:
    lines = (home / "log.jsonl").read_text().splitlines()
    return itertools.cycle(json.loads(line)["content"] for line in lines[:5000])


def words(source: itertools.cycle[str], n: int) -> str:
    out: list[str] = []
    while len(out) < n:
        out += next(source).split()
    return " ".join(out[:n])


def job(turns: int, source: itertools.cycle[str]) -> Job:
    messages: list[dict[str, Any]] = []
    for i in range(turns):
        for role, n in (("user", USER_WORDS), ("assistant", AGENT_WORDS)):
            messages.append({"key": f"m{len(messages)}", "role": role, "text": words(source, n),
                             "timestamp": f"2026-11-20T10:{i % 60:02d}:00.000Z"})
    return Job(job_id=f"bench-{turns}", session_id=f"bench-session-{turns}", trigger="sessionEnd",
               created_at="2026-11-20T11:00:00Z", messages=messages)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer", type=Path)
    parser.add_argument("--entries", type=int, default=20_000, help="entries in the log")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    count, how = counter(args.tokenizer)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Home(Path(tmp) / "home")
        home.ensure()
        generate(args.entries, home.root)
        workspace = Path(tmp) / "workspace"
        workspace.mkdir()
        settings = load_config(home, env={})
        app = build_app(home, workspace, settings, serving=False, router=build_router(settings))
        config = app.settings.extraction
        extraction = app.extraction
        source = sentences(home.root)
        cap_turns = config.max_transcript_chars // ((USER_WORDS + AGENT_WORDS) * 6) + 10
        for turns in (5, 20, 60, cap_turns):
            the_job = job(turns, source)
            prompt = extraction.prompt(the_job)
            transcript = prompt[prompt.index("## Transcript"):]
            rows.append({"turns": turns, "promptChars": len(prompt), "promptTokens": count(prompt),
                         "transcriptTokens": count(transcript),
                         "fixedTokens": count(prompt) - count(transcript),
                         "capped": turns == cap_turns})
        app.close()
    if args.json:
        print(json.dumps({"tokens": how, "entries": args.entries, "rows": rows}, indent=2))
        return 0
    print(f"extraction prompt per session, log of {args.entries:,} entries; tokens {how}; "
          f"{platform.machine()}, Python {platform.python_version()}")
    print(f"{'turns':>6} {'prompt chars':>13} {'prompt tokens':>14} {'transcript':>11} "
          f"{'the rest':>9}")
    for r in rows:
        label = f"{r['turns']}{' (cap)' if r['capped'] else ''}"
        print(f"{label:>6} {r['promptChars']:>13,} {r['promptTokens']:>14,} "
              f"{r['transcriptTokens']:>11,} {r['fixedTokens']:>9,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
