"""What the code and the docs point a reader to must be in the repository, and comments say why.

A successor has the repository and nothing else: a citation of a design text kept elsewhere (a
"spec" section, an appendix) or of a tracker's item ("issue 28 item 7") leads nowhere. The reason
goes in docs/ (a section, a decision record in docs/decisions/), a test or a CHANGELOG.md entry,
and the comment links to it. Kept as they are: CHANGELOG.md's "(issue N)" headings and
bench/HISTORY.md, which are history and say so.

Comments say why; figures go to bench/: package comments carry no benchmark figures (rounds,
recall@k, MRR, hit@k, p99) but a pointer to bench/README.md's section for the constant, whose
figures are there. bench/README.md stays short enough to read (the figures now, the method); the
rounds that led to them are in bench/HISTORY.md. A link to a heading (`docs/03-log.md#entries`,
`bench/README.md#ranking`) must find it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# The trees a successor reads as the design and its reasons (files git tracks or would: never
# node_modules; clients/openclaw/dist/ is what the build makes of src/).
TREES = ("sidecar", "clients", "docs", "tests", "bench", "prompts", "protocol.md")
SUFFIXES = {".py", ".md", ".ts", ".js", ".mjs", ".sh", ".json", ".txt", ".toml"}
EXEMPT = {
    # The rounds' history, moved as written from bench/README.md: its "(issue N)" are history.
    "bench/HISTORY.md",
    # A model's vocabulary, not prose (it holds "§" as a token).
    "sidecar/zettelclaw/search/all-MiniLM-L6-v2.tokenizer.json",
    # This file names the patterns it refuses.
    "tests/repo/test_references.py",
}
CITATION = re.compile(
    r"§"                                    # a section of a document a reader cannot open
    r"|\b(?:the|a|v3) spec\b|\bspec's\b"      # the design text that is not in the repository
    r"|\bappendix [A-Z]\b"
    r"|\bissues? #?[0-9]+"                    # a tracker's item: "issue 28 item 7", "(issue 28)"
    r"|\bissue [0-9]+ item",
    re.IGNORECASE,
)
FIGURE = re.compile(r"\bround [0-9]|recall@|\bMRR\b|hit@|nDCG|\bp(?:50|95|99)\b", re.IGNORECASE)
BENCH_README_MAX_LINES = 600
# A link to a heading of a Markdown file: `docs/03-log.md#entries`, `(03-log.md#entries)`.
ANCHOR_LINK = re.compile(r"([\w./-]*\.md)#([\w-]+)")
FENCE = re.compile(r"^(```|~~~)")


def tracked(*trees: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                          "--", *trees], cwd=REPO, check=True, capture_output=True).stdout.decode()
    return [REPO / name for name in out.split("\0") if name]


def citations(text: str) -> list[str]:
    """Each line of ``text`` that cites something outside the repository, numbered from 1."""
    return [f"{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1)
            if CITATION.search(line)]


def figures(text: str) -> list[str]:
    """Each line of ``text`` that carries a benchmark figure, numbered from 1."""
    return [f"{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1)
            if FIGURE.search(line)]


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of ``markdown`` (not the lines of a code block)."""
    out = set()
    fenced = False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif line.startswith("#") and not fenced:
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_the_checks_see_what_they_refuse() -> None:
    for line in ("the entry schema (spec §3.3)", "(issue 28)", "issue 29 item 3",
                 "as in the spec's example", "the retry (appendix A #15)", "issues 30 and 33"):
        assert citations(line), line
    for line in ("see docs/03-log.md#entries", "a test (tests/log/test_schema.py)",
                 "the MCP specification", "def parse(spec: str)"):
        assert not citations(line), line
    for line in ("# LoCoMo round 3: MRR 0.492 -> 0.508", "# recall@5 0.6", "# hit@5 0.7",
                 "# the hook took 0.6-1.1 s at p99"):
        assert figures(line), line
    assert not figures("# Seconds around 1970 (bench/README.md#ranking)")
    assert {"ranking", "the-cold-build-a-second-pass-387---262-s"} <= anchors(
        "## Ranking\n### The cold build, a second pass: 38.7 -> 26.2 s\n")


def test_no_citation_leads_outside_the_repository() -> None:
    found = []
    for path in tracked(*TREES):
        name = path.relative_to(REPO).as_posix()
        if name in EXEMPT or path.suffix not in SUFFIXES or not path.is_file():
            continue
        found += [f"{name}:{hit}" for hit in citations(path.read_text(errors="replace"))]
    assert not found, ("link a docs/ section, a decision record, a test or a CHANGELOG.md entry "
                       "instead:\n" + "\n".join(found))


def test_package_comments_carry_no_benchmark_figures() -> None:
    found = []
    for path in tracked("sidecar"):
        if path.suffix == ".py":
            name = path.relative_to(REPO).as_posix()
            found += [f"{name}:{hit}" for hit in figures(path.read_text())]
    assert not found, ("one sentence of why and a pointer to its bench/README.md section; the "
                       "figures go there:\n" + "\n".join(found))


def test_bench_readme_stays_short() -> None:
    lines = (REPO / "bench/README.md").read_text().count("\n")
    assert lines < BENCH_README_MAX_LINES, (
        f"bench/README.md has {lines} lines: the rounds go to bench/HISTORY.md")


def broken_links(name: str, text: str) -> list[str]:
    """The links to a heading in ``text`` (of the file ``name``) that no heading answers."""
    broken = []
    for target, anchor in ANCHOR_LINK.findall(text):
        if "://" in target:
            continue
        # A file of the repository; other names are a memory's (MEMORY.md#L3 cites lines).
        for candidate in ((REPO / name).parent / target, REPO / target):
            if candidate.is_file():
                if anchor not in anchors(candidate.read_text()):
                    broken.append(f"{name}: {target}#{anchor}")
                break
    return broken


def test_the_link_check_sees_a_broken_link() -> None:
    assert broken_links("docs/README.md", "see 03-log.md#entries") == []
    assert broken_links("docs/README.md", "see 03-log.md#no-such-heading")
    assert broken_links("sidecar/x.py", "(bench/README.md#ranking)") == []
    assert broken_links("sidecar/x.py", "(bench/README.md#round-9)")
    assert broken_links("sidecar/x.py", "(docs/05-recall.md#stale)")  # a heading in a code block


def test_links_to_headings_resolve() -> None:
    broken = []
    for path in tracked(*TREES, "README.md", "CONTRIBUTING.md", "CHANGELOG.md"):
        name = path.relative_to(REPO).as_posix()
        if name in EXEMPT or path.suffix not in SUFFIXES or not path.is_file():
            continue
        broken += broken_links(name, path.read_text(errors="replace"))
    assert not broken, "\n".join(broken)
