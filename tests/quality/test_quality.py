"""Retrieval quality of ``memory.search`` on a generated personal-memory corpus (tests/quality).

The query set is checked first: every target exists and is current, and a paraphrase shares no
content word with its target (enforced here, not trusted). Then the figures: keyword mode must
stay above a floor measured on this corpus, so a ranking regression fails; and with
the shipped model (base install), hybrid mode must find paraphrases clearly better than
keyword mode without losing keyword queries. ``python -m tests.quality.evaluate`` prints the
figures these thresholds were set from.

The corpus is built once per module; hybrid mode loads all-MiniLM-L6-v2 and embeds about 3,100
texts (tens of seconds on a CPU).
"""

from __future__ import annotations

import sqlite3
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.quality import evaluate
from tests.quality.generate import BY_SLUG, PLANTED_BY_LABEL, Corpus, generate, planted_id
from tests.quality.queries import CORRECTED, QUERIES, Entry, Lines, Query
from zettelclaw.index import fts
from zettelclaw.log.schema import validate_entry

pytestmark = pytest.mark.slow

RECALL = f"recall@{evaluate.K}"

# -- thresholds ---------------------------------------------------------------------------------
# Measured with `python -m tests.quality.evaluate` on 2026-11-25 (39 queries of each kind, so one
# query is 0.026), with the tantivy term index (words weighed by IDF in the share of the query
# matched), the shipped int8 ONNX all-MiniLM-L6-v2, memory files compared by piece and by line,
# and the fusion at 0.3 keyword / 0.7 similarity relative to the query's best (0.25 least
# similarity): keyword mode finds 1.000 of the keyword queries in its top 5 (MRR 0.944); hybrid
# mode 1.000 (MRR 0.974) of them, and 0.821 (MRR 0.613) of the paraphrases, against keyword
# mode's 0.103 (MRR 0.073: Markdown notes that share a word). Each floor is one to four queries
# below what was measured, so that a float16 rounding or CPU difference does not fail the test,
# and a ranking regression does.
KEYWORD_FLOOR = {RECALL: 0.97, "mrr": 0.88}  # keyword mode, keyword queries
HYBRID_KEYWORD_FLOOR = {RECALL: 0.97, "mrr": 0.92}  # hybrid mode, keyword queries
PARAPHRASE_MARGIN = {RECALL: 0.64, "mrr": 0.47}  # hybrid over keyword mode, paraphrases
KEYWORD_TOLERANCE = 0.05  # hybrid may lose this much recall@5 to keyword mode on keyword queries


# -- what a word is: lower-cased, stemmed, not a stopword ---------------------------------------

VOWELS = frozenset("aeiouy")


def light_stem(word: str) -> str:
    """A Porter-like stem of plurals, -ing, -ed (and a final e, and a doubled consonant), so that
    move/moved/moving, page/pages, drip/dripping, tax/taxes have one stem each."""
    w = word.lower()
    if len(w) > 4 and w.endswith(("ies", "ied")):
        w = w[:-3] + "y"
    elif len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) > 4 and w.endswith("ed"):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in VOWELS:
        w = w[:-1]
    return w


def content_words(text: str) -> set[str]:
    """The stems of the words the search engine would look for (its own stopwords dropped)."""
    return {light_stem(w) for w in (m.lower() for m in fts.WORD_RE.findall(text))
            if w not in fts.STOPWORDS}


@cache
def _vocabulary() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5 (x, tokenize=\"{fts.FTS_TOKENIZE}\")")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab (t, 'instance')")
    return conn


def index_terms(text: str) -> set[str]:
    """The terms the FTS index holds for ``text`` (its own tokenizer: Porter stems)."""
    conn = _vocabulary()
    conn.execute("DELETE FROM t")
    conn.execute("INSERT INTO t (rowid, x) VALUES (1, ?)", (fts.indexed_text(text),))
    return {row[0] for row in conn.execute("SELECT term FROM v")}


def query_terms(text: str) -> set[str]:
    """The index terms a query searches for: its words as ``fts.plan`` keeps them, stemmed."""
    plan = fts.plan(text)
    return set().union(*(index_terms(t) for t in plan.terms)) if plan else set()


# -- the corpus and the query set ---------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return evaluate.build(tmp_path_factory.mktemp("quality"))


def target_text(corpus: Corpus, query: Query) -> str:
    """Everything of the target that search reads: an entry's content, detail and subject name;
    a file's target lines."""
    target = query.target
    if isinstance(target, Entry):
        entry = corpus.by_id[planted_id(target.label)]
        subject = BY_SLUG[entry["subject"]].display if "subject" in entry else ""
        return "\n".join((entry["content"], entry.get("detail") or "", subject))
    lines = (corpus.workspace / target.path).read_text().splitlines()
    return "\n".join(lines[target.start - 1:target.end])


def test_the_log_is_realistic(corpus: Corpus) -> None:
    entries = corpus.entries
    for e in entries:
        validate_entry(e)
    assert 2500 <= len(entries) <= 3500
    assert len(corpus.subjects) >= 40
    sessions: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        sessions.setdefault(e["session"], []).append(e)
    for part in sessions.values():
        assert 5 <= len(part) <= 15
        assert [e["type"] for e in part].count("handoff") == 1
        assert part[-1]["type"] == "handoff"
    types = {t: sum(e["type"] == t for e in entries) / len(entries)
             for t in ("fact", "decision", "task", "question")}
    assert types["fact"] > types["task"] > types["decision"] > types["question"] > 0.05
    replaced = sum("replaces" in e for e in entries) / len(entries)
    assert 0.01 < replaced < 0.06
    timestamps = [e["timestamp"] for e in entries]
    assert timestamps == sorted(timestamps)
    files = list(corpus.workspace.rglob("*.md"))
    assert len(files) >= 10
    assert len((corpus.workspace / "MEMORY.md").read_text().splitlines()) >= 40


def test_the_generator_is_deterministic(tmp_path: Path, corpus: Corpus) -> None:
    again = generate(tmp_path, end=corpus.end)
    for name in ("log.jsonl", "subjects.json"):
        assert (again.data_dir / name).read_bytes() == (corpus.data_dir / name).read_bytes()


def test_every_target_exists_and_is_current(corpus: Corpus) -> None:
    replaced = {e["replaces"] for e in corpus.entries if "replaces" in e}
    for query in QUERIES:
        target = query.target
        if isinstance(target, Entry):
            entry_id = planted_id(target.label)
            assert entry_id in corpus.by_id, query
            assert entry_id not in replaced, f"{query}: the target was replaced"
            entry = corpus.by_id[entry_id]
            expected = {"task": "task"}.get(query.about, query.about)
            assert entry["type"] == expected, query
            if entry["type"] == "task":
                assert entry["status"] == "open", query
            assert PLANTED_BY_LABEL[target.label].content == entry["content"]
        else:
            assert isinstance(target, Lines)
            assert query.about == "note"
            lines = (corpus.workspace / target.path).read_text().splitlines()
            assert 1 <= target.start <= target.end <= len(lines), query
            assert target.anchor in "\n".join(lines[target.start - 1:target.end]), query


def test_the_query_set_is_balanced() -> None:
    texts = [q.text for q in QUERIES]
    assert len(set(texts)) == len(texts)
    pairs = [q for q in QUERIES if q.kind != "corrected"]
    assert 60 <= len(pairs) <= 80
    for about in evaluate.ABOUTS:
        kinds = [q.kind for q in pairs if q.about == about]
        assert kinds.count("keyword") == kinds.count("paraphrase") >= 4, about
    for target in {q.target for q in pairs}:
        assert sorted(q.kind for q in pairs if q.target == target) == ["keyword", "paraphrase"]
    assert len(CORRECTED) >= 6


def test_a_corrected_query_matches_both_versions_and_asks_for_the_current_one(
        corpus: Corpus) -> None:
    """So that only the correction (``replaces``) tells the two apart, not the words."""
    by_id = {e["id"]: e for e in corpus.entries}
    for query in CORRECTED:
        assert isinstance(query.target, Entry)
        current = by_id[planted_id(query.target.label)]
        old = by_id[current["replaces"]]
        for version in (current, old):
            text = " ".join(filter(None, (version["content"], version.get("detail"))))
            assert query_terms(query.text) & index_terms(text), (query.text, text)


def test_the_current_answer_of_a_corrected_entry_is_the_first_entry_and_the_old_one_hidden(
        corpus: Corpus, keyword_run: evaluate.Run) -> None:
    """Among the log's results the current version comes first, and the version it replaced is
    not shown at all. (A note in MEMORY.md may still come before both: ranking across the log
    and the Markdown memory is measured by the figures, not pinned here.)"""
    by_id = {e["id"]: e for e in corpus.entries}
    for outcome in keyword_run.outcomes:
        if outcome.query.kind != "corrected":
            continue
        assert isinstance(outcome.query.target, Entry)
        current = planted_id(outcome.query.target.label)
        assert outcome.log_ids[:1] == (current,), outcome
        assert by_id[current]["replaces"] not in outcome.log_ids, outcome


def test_light_stem() -> None:
    for group in (("move", "moved", "moving"), ("page", "pages"), ("drip", "dripping"),
                  ("tax", "taxes"), ("reply", "replies", "replied"), ("fit", "fitting"),
                  ("process", "processed"), ("book", "books", "booked", "booking")):
        assert len({light_stem(w) for w in group}) == 1, group
    assert light_stem("bus") == "bus"
    assert content_words("What did we decide about the webhooks?") == {"decid", "webhook"}


def test_paraphrases_share_no_word_with_their_target(corpus: Corpus) -> None:
    wrong = []
    for query in QUERIES:
        if query.kind != "paraphrase":
            continue
        text = target_text(corpus, query)
        shared = content_words(query.text) & content_words(text)
        matched = query_terms(query.text) & index_terms(text)
        if shared or matched:
            wrong.append(f"{query.text!r} shares {sorted(shared | matched)} with {text!r}")
    assert not wrong, "\n".join(wrong)


def test_keyword_queries_share_words_with_their_target(corpus: Corpus) -> None:
    wrong = [q.text for q in QUERIES if q.kind == "keyword"
             and not query_terms(q.text) & index_terms(target_text(corpus, q))]
    assert not wrong


# -- the figures --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def keyword_run(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> evaluate.Run:
    return evaluate.run_mode(corpus, tmp_path_factory.mktemp("keyword"), "keyword")


@pytest.fixture(scope="module")
def keyword_mode(keyword_run: evaluate.Run) -> dict[str, Any]:
    return evaluate.summarize(keyword_run)


@pytest.fixture(scope="module")
def hybrid_mode(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    assert evaluate.hybrid_available(), "the base install has semantic search"
    run = evaluate.run_mode(corpus, tmp_path_factory.mktemp("hybrid"), "hybrid")
    return evaluate.summarize(run)


def test_keyword_mode_reaches_its_floor(keyword_mode: dict[str, Any]) -> None:
    found = keyword_mode["byKind"]["keyword"]
    for measure, floor in KEYWORD_FLOOR.items():
        assert found[measure] >= floor, (measure, found)
    # a paraphrase shares no word with its target, so keyword search cannot find a log entry
    # (a Markdown chunk holds more than the target's lines, and may share words elsewhere)
    found = [q.text for q, rank in zip(QUERIES, keyword_mode["ranks"], strict=True)
             if q.kind == "paraphrase" and isinstance(q.target, Entry) and rank is not None]
    assert not found


def test_hybrid_mode_finds_paraphrases(keyword_mode: dict[str, Any],
                                       hybrid_mode: dict[str, Any]) -> None:
    hybrid = hybrid_mode["byKind"]["paraphrase"]
    keyword = keyword_mode["byKind"]["paraphrase"]
    for measure, margin in PARAPHRASE_MARGIN.items():
        assert hybrid[measure] >= keyword[measure] + margin, (measure, hybrid, keyword)


def test_hybrid_mode_keeps_keyword_queries(keyword_mode: dict[str, Any],
                                           hybrid_mode: dict[str, Any]) -> None:
    hybrid = hybrid_mode["byKind"]["keyword"]
    keyword = keyword_mode["byKind"]["keyword"]
    assert hybrid[RECALL] >= keyword[RECALL] - KEYWORD_TOLERANCE, (hybrid, keyword)
    for measure, floor in HYBRID_KEYWORD_FLOOR.items():
        assert hybrid[measure] >= floor, (measure, hybrid)


def test_figures_across_seeds_give_each_seed_and_their_mean() -> None:
    def result(seed: int, recall: float, mrr: float) -> dict[str, Any]:
        cell = {"n": 39, RECALL: recall, "mrr": mrr}
        return {"seed": seed, "modes": {"hybrid": {"all": cell, "byKind": {"paraphrase": cell}}}}

    table = evaluate.across_seeds([result(1859, 0.846, 0.646), result(1, 0.795, 0.678)])
    paraphrase = table["hybrid"]["paraphrase"]
    assert paraphrase["bySeed"]["1"] == {RECALL: 0.795, "mrr": 0.678}
    assert paraphrase["mean"] == {RECALL: 0.821, "mrr": 0.662}
    text = evaluate.seeds_markdown(table)
    assert "| hybrid | paraphrase | 0.846 / 0.646 | 0.795 / 0.678 | 0.821 / 0.662 |" in text
