"""What an import would cost: model tokens per conversation, and dollars where prices are known.

The estimate is the extraction prompt's size, as ``extraction/service.prompt`` builds it: the
prompt's template (``prompts/extraction.md``) with the conversation rendered into it (cut to
``extraction.maxTranscriptChars`` as extraction cuts it), the subjects and the related entries
it lists (``extraction.relevantEntries`` of them at most, as many as the memory holds, a line
each), and an allowance for the reply; characters / 4 (``llm/usage.estimate_tokens``, the rule
the router counts a route by when it gives no count). bench/README.md#import compares it
with what the prompts sent came to.

Prices (US dollars per million tokens, input / output) are Anthropic's list prices for the
models named, as platform.claude.com/docs/about-claude/pricing lists them (checked against it
for this table in November 2026: Opus 4.5 $5/$25, Sonnet 4.5 and 4.6 $3/$15, Haiku 4.5 $1/$5);
a model not listed, or the host's model (OpenClaw's), has no price: the plan says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from zettelclaw import prompts_loader
from zettelclaw.extraction.transcript import Message, render
from zettelclaw.importing.items import Conversation
from zettelclaw.llm.usage import estimate_tokens

PRICES: dict[str, tuple[float, float]] = {
    "claude-sonnet-4-6": (3.0, 15.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-opus-4-5": (5.0, 25.0),
    "claude-haiku-4-5": (1.0, 5.0),
}
ENTRY_LINE = 30  # tokens: a related entry's line in the prompt (id, type, subject, content)
SUBJECT_LINE = 10  # tokens: a subject's line
REPLY_ALLOWANCE = 400  # tokens: a reply of a few entries and a handoff


@dataclass(frozen=True)
class Estimate:
    input_tokens: int
    output_tokens: int

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


def _template_tokens() -> int:
    template = prompts_loader.load("extraction")
    return estimate_tokens(prompts_loader.fill(template, {
        "subjects": "", "entries": "", "session": "", "date": "", "truncation": "",
        "transcript": ""}))


def context_tokens(entries: int, subjects: int, relevant: int) -> int:
    """What the prompt lists beside the conversation: the subjects, and the related entries
    (``relevant`` at most; a memory of ``entries`` shows no more than it has)."""
    return min(entries, relevant) * ENTRY_LINE + subjects * SUBJECT_LINE


def conversation(item: Conversation, max_chars: int, base: int | None = None,
                 context: int = 0) -> Estimate:
    """The model tokens extracting ``item`` takes (``base``: the template's and the listed
    context's, computed once for an import); with the last ``context`` messages of what an
    earlier import sent of it, shown as extraction shows them (a quarter of the budget)."""
    found = transcript(as_transcript(item), max_chars, base)
    if not (context and item.context):
        return found
    earlier, _ = render([Message("", m.role, m.text, iso(m.at)) for m in item.context[-context:]],
                        max_chars // 4)
    return Estimate(found.input_tokens + estimate_tokens(earlier), found.output_tokens)


def transcript(messages: Sequence[Message], max_chars: int, base: int | None = None
               ) -> Estimate:
    """The model tokens extracting these messages (as the intake spools them) takes."""
    text, _ = render(list(messages), max_chars)
    fixed = _template_tokens() if base is None else base
    return Estimate(fixed + estimate_tokens(text), REPLY_ALLOWANCE)


def as_transcript(item: Conversation) -> list[Message]:
    """The conversation's messages as extraction renders them (keys left empty)."""
    return [Message("", m.role, m.text, iso(m.at)) for m in item.messages]


def iso(at: datetime | None) -> str | None:
    """A time as the transcript keeps it: ISO 8601 UTC with milliseconds."""
    if at is None:
        return None
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def template_tokens() -> int:
    return _template_tokens()


def cost(model: str, input_tokens: int, output_tokens: int) -> float | None:
    """US dollars at the model's list price; None when it is not known."""
    price = PRICES.get(model.removeprefix("anthropic/"))
    if price is None:
        return None
    return round((input_tokens * price[0] + output_tokens * price[1]) / 1_000_000, 4)


def models(extraction_model: str, others: Sequence[str] = ()) -> list[str]:
    """The models to price: the configured one first, then the others listed."""
    chosen = [extraction_model.removeprefix("anthropic/")]
    chosen += [m for m in (*others, *PRICES) if m not in chosen]
    return chosen


