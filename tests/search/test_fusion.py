"""search/engine.py's fusion with the real all-MiniLM-L6-v2 model: a text that the model puts
among the query's closest and that no keyword finds keeps a place in the first ten, however
many texts hold a word of the question (bench/README.md, LoCoMo round 10)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import entry
from tests.direct import Direct
from zettelclaw.config import SearchConfig
from zettelclaw.home import Home
from zettelclaw.protocol.params import SearchParams
from zettelclaw.search import weights
from zettelclaw.search.local_model import LocalModel

pytestmark = pytest.mark.slow  # loads the real embedding model

CHAT = ["See ya!", "Later, take care!", "Thanks, that means a lot!", "Wow, that's great!",
        "Haha, so true!", "Bye for now!", "Sounds good!", "Talk soon!"]
# "interesting" is "interests" to the keyword side (one stem), and says nothing of them
INTERESTING = ["That's so interesting, tell me more!",
               "Interesting, I never thought of it that way.", "What an interesting day at work.",
               "The museum tour was interesting.", "Interesting book, I'll lend it to you.",
               "That documentary was really interesting.", "Interesting choice of restaurant!",
               "An interesting idea for the garden.",
               "The lecture was more interesting than I expected.", "Such an interesting city.",
               "Interesting, the weather changed so fast.", "Interesting how the team picked it."]


def test_a_close_meaning_no_keyword_finds_stays_in_the_first_ten(
        home: Home, workspace: Path, write_log: Any) -> None:
    """"What interests does Paola have?": twelve turns hold both of its words, and every one
    outscored the turn that answers in other words, which the model ranks among its closest
    three; it fell out of the ten results."""
    turns = [entry("fact", f"{who}: {CHAT[i % len(CHAT)]}")
             for i, who in enumerate(["Paola", "Sam"] * 30)]
    answer = entry("fact", "Paola: I collect vintage cameras and go birdwatching on Sundays.")
    write_log(*turns[:31], answer, *turns[31:],
              *[entry("fact", f"Paola: {text}") for text in INTERESTING])
    m = Direct.open(home, workspace, SearchConfig(semantic="auto"))
    model = LocalModel(threads=1)
    try:
        m.searcher.semantic.use(model)
        m.sync()
        while m.searcher.semantic.embed_pending():
            pass
        results = m.search(SearchParams.model_validate(
            {"query": "What interests does Paola have?", "maxResults": 10}))["results"]
        assert [r["id"] for r in results].index(answer["id"]) + 1 == weights.CONFIDENT_PLACE
        assert results[-1]["textScore"] == 0.0
        assert all("nteresting" in r["snippet"] for r in results[:-1]), "words still lead"
        assert [r["score"] for r in results] == sorted((r["score"] for r in results),
                                                       reverse=True)
    finally:
        m.close()
