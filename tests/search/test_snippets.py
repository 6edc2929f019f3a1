"""search/snippets.py: the text around the query's words, cut to size, from content or detail."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from zettelclaw.search.snippets import WIDTH, clip, snippet


def test_a_short_text_is_shown_whole() -> None:
    assert snippet(["The webhook retries cap at three"], ["webhook"]) == (
        "The webhook retries cap at three")


def test_the_part_around_the_first_word_found() -> None:
    text = "filler " * 80 + "the webhook failed at midnight " + "more " * 80
    shown = snippet([text], ["webhook"])
    assert shown.startswith("…")
    assert shown.endswith("…")
    assert "webhook failed at midnight" in shown
    assert len(shown) <= WIDTH


def test_a_word_is_found_by_its_stem() -> None:
    text = "x " * 200 + "one retry is enough " + "y " * 200
    assert "one retry is enough" in snippet([text], ["retries"])


def test_the_detail_when_the_content_lacks_the_words() -> None:
    assert snippet(["Nothing here", "but the detail mentions a webhook"], ["webhook"]) == (
        "but the detail mentions a webhook")
    assert snippet(["Nothing here", None], ["webhook"]) == "Nothing here"


@given(st.lists(st.text(max_size=600) | st.none(), min_size=1, max_size=3),
       st.lists(st.text(alphabet="abcdefghijklmnop", min_size=1, max_size=12), max_size=4))
def test_always_a_piece_of_the_text_within_the_width(texts: list[str | None],
                                                     terms: list[str]) -> None:
    shown = snippet(texts, terms)
    assert len(shown) <= WIDTH
    core = shown.removeprefix("…").removesuffix("…")
    assert any(core in (t or "") for t in texts) or shown == clip(next(
        (t for t in texts if t), ""))
