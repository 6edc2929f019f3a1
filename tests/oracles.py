"""Test oracles: slower, plainer forms of what the package does fast, to check it against."""

from __future__ import annotations

from zettelclaw.methods.search_wire import search_wire
from zettelclaw.protocol.results import SearchResult
from zettelclaw.search.engine import Answer


def search_result(answer: Answer) -> SearchResult:
    """``search_wire(answer)`` as the models: validated, field by field."""
    return SearchResult.model_validate(search_wire(answer))
