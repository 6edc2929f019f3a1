"""fts.plan: turning typed text into FTS5 MATCH expressions (pure, no SQLite).

Covers: words only (punctuation and FTS5 operators are not syntax), each symbol (an emoji) a
word of its own and spaced apart in the text FTS5 indexes, lower-casing, stopwords
dropped unless nothing else remains, de-duplication in first-seen order, every term quoted,
the AND / OR expressions, and None when the text holds no word.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zettelclaw.index.fts import STOPWORDS, indexed_text, plan, words


def test_a_single_word() -> None:
    p = plan("webhook")
    assert p is not None
    assert p.terms == ("webhook",)
    assert p.all_terms == '"webhook"'
    assert p.any_term is None


def test_several_words_give_and_and_or() -> None:
    p = plan("Webhook retry QUEUE")
    assert p is not None
    assert p.terms == ("webhook", "retry", "queue")
    assert p.all_terms == '"webhook" AND "retry" AND "queue"'
    assert p.any_term == '"webhook" OR "retry" OR "queue"'


def test_stopwords_are_dropped() -> None:
    p = plan("what did we decide about the webhook")
    assert p is not None
    assert p.terms == ("decide", "webhook")


def test_stopwords_are_kept_when_nothing_else_remains() -> None:
    p = plan("The Who")
    assert p is not None
    assert p.terms == ("the", "who")
    assert p.all_terms == '"the" AND "who"'


def test_duplicates_are_dropped_in_first_seen_order() -> None:
    p = plan("retry webhook Retry RETRY webhook queue")
    assert p is not None
    assert p.terms == ("retry", "webhook", "queue")


def test_duplicate_stopwords_only() -> None:
    p = plan("the THE the")
    assert p is not None
    assert p.terms == ("the",)
    assert p.any_term is None


def test_operators_and_punctuation_are_words_or_nothing() -> None:
    p = plan('"webhook" AND (retry OR NEAR(queue, 2)) NOT x* ^y content:z')
    assert p is not None
    # and/or/not are stopwords; every other operator character is dropped but "^", a symbol
    assert p.terms == ("webhook", "retry", "near", "queue", "2", "x", "^", "y", "content", "z")
    for expression in (p.all_terms, p.any_term):
        assert expression is not None
        parts = re.split(r" (?:AND|OR) ", expression)
        assert all(re.fullmatch(r'"(?:\w+|\^)"', part) for part in parts)


def test_each_symbol_is_a_word() -> None:
    """An emoji, a currency or a maths sign: a word of one character (the term index cuts
    text the same way); marks and joiners inside an emoji (U+FE0F) are not."""
    assert words("🍮🍮 pudding ❤️ C++ costs $5!") == ["🍮", "🍮", "pudding", "❤", "C", "+",
                                                      "+", "costs", "$", "5"]
    p = plan("🍮")
    assert p is not None
    assert p.terms == ("🍮",)
    assert p.all_terms == '"🍮"'


def test_symbols_stand_apart_in_the_text_fts5_indexes() -> None:
    assert indexed_text("C++ 🍮dessert, ok") == "C +  +   🍮 dessert, ok"


def test_unicode_words() -> None:
    p = plan("Émigré café 日本語 naïve")
    assert p is not None
    assert p.terms == ("émigré", "café", "日本語", "naïve")


@pytest.mark.parametrize("text", ["", "   ", "!!!", '"" () * : -', "\n\t", "\ufe0f\u200d"])
def test_no_words_is_none(text: str) -> None:
    assert plan(text) is None


@settings(max_examples=200)
@given(text=st.text(max_size=80))
def test_every_term_is_a_quoted_lowercase_word(text: str) -> None:
    p = plan(text)
    if p is None:
        assert not re.findall(r"\w+", text)
        return
    assert p.terms
    assert len(set(p.terms)) == len(p.terms)
    found = {w.lower() for w in re.findall(r"\w+|[^\w\s]", text)}
    assert set(p.terms) <= found
    assert all('"' not in t and t == t.lower() for t in p.terms)
    assert p.all_terms == " AND ".join(f'"{t}"' for t in p.terms)
    if len(p.terms) == 1:
        assert p.any_term is None
    else:
        assert p.any_term == " OR ".join(f'"{t}"' for t in p.terms)
    if any(t not in STOPWORDS for t in p.terms):
        assert not any(t in STOPWORDS for t in p.terms)
