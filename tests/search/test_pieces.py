"""search/pieces.py: a chunk is cut into pieces the model reads whole, losing and repeating
nothing, and is also compared by each line that says something on its own; an entry of several
sentences by each sentence that says something."""

from __future__ import annotations

from zettelclaw.search.pieces import (
    MOST_SENTENCES,
    PIECE_CHARS,
    asks,
    compared_texts,
    pieces,
    sentences,
    words,
)


def test_a_long_chunk_is_embedded_in_pieces_the_model_reads_whole() -> None:
    lines = [f"line {i} about the garden shed and the lawnmower" for i in range(60)]
    text = "\n".join(lines)
    cut = pieces(text)
    assert len(cut) > 1
    assert all(len(p) <= PIECE_CHARS for p in cut)
    assert "\n".join(cut) == text, "nothing is lost or repeated"
    assert pieces("x" * (PIECE_CHARS * 2 + 5)) == ["x" * PIECE_CHARS] * 2 + ["x" * 5]


def test_a_chunk_is_compared_by_its_pieces_and_by_each_line_that_says_something() -> None:
    text = "\n".join(["# Health", "", "- Allergic to penicillin since childhood",
                      "* [x] Booked the flu jab for October", "1. Runs on Sundays",
                      "> Blood pressure was 120/80 in May", "## 2 November 2025"])
    assert compared_texts(text) == [*pieces(text), "Allergic to penicillin since childhood",
                                    "Booked the flu jab for October",
                                    "Blood pressure was 120/80 in May"]
    one_line = "Aisle seats on long flights, always"
    assert compared_texts(one_line) == [one_line], "a line that is its chunk is compared once"
    assert compared_texts("x" * 1200) == pieces("x" * 1200), "a long line is in the pieces"


def test_an_entry_of_several_sentences_is_compared_by_each_that_says_something() -> None:
    text = ("Yes! I went to the LGBTQ support group yesterday. It was so powerful.\n"
            "The speakers told their own coming-out stories, and a transgender teacher "
            "described her first year back at school")
    assert sentences(text) == [
        ("I went to the LGBTQ support group yesterday.", 5),
        ("The speakers told their own coming-out stories, and a transgender teacher described "
         "her first year back at school", 11)]
    assert words("It was so powerful.") == 1, "stopwords say nothing"
    assert sentences("Yes! I went to the LGBTQ support group yesterday. It was so powerful.") \
        == [], "a text this short is read well enough whole"
    one = ("Queue-based retries for webhook delivery instead of synchronous ones, since the "
           "payment provider times out under load and the billing team wants fewer pages.")
    assert sentences(one) == [], "one sentence is the text itself"
    assert sentences("Meet at 3.30 by the station, version 2.1 ready, bring the blue folder "
                     "with the signed contracts and the spare keys") == [], "a point in a number"
    twice = ("Water the fig tree weekly in summer. Water the fig tree weekly in summer. Done. "
             "The lemon tree wants its pot turned every month.")
    assert sentences(twice) == [("Water the fig tree weekly in summer.", 5),
                                ("The lemon tree wants its pot turned every month.", 7)]
    joined = ("Rotate the deploy key on the CI runners before Friday's release; it leaked in a "
              "screenshot posted to the vendor's public forum")
    assert [said for said, _ in sentences(joined)] == [
        "Rotate the deploy key on the CI runners before Friday's release;",
        "it leaked in a screenshot posted to the vendor's public forum"]
    labelled = ("Office chair: switched to a refurbished Steelcase Leap V2 from a used-furniture "
                "dealer for $420")
    assert sentences(labelled) == [], "a colon ends no sentence"
    many = " ".join(f"Sentence number {i} about the garden shed." for i in range(40))
    said = sentences(many)
    assert len(said) == MOST_SENTENCES
    assert said[0][0] == "Sentence number 0 about the garden shed."


def test_a_text_asks_when_its_last_sentence_is_a_question() -> None:
    assert asks("What made you pick Postgres?")
    assert asks("Great news! How did the move go?")
    assert asks('She wrote back: "are you coming?"  ')
    assert asks("(is it still on?)")
    assert asks("それは本当ですか\uff1f")
    assert not asks("Is it still on? Yes, it is.")
    assert not asks("Ledger database: Postgres.")
    assert not asks("")
    assert not asks("?!")
