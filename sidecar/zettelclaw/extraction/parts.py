"""A long conversation cut into parts a model handles, extracted one after another.

A small local model reads a few thousand tokens well and a long transcript badly (and slowly:
on a CPU, reading the prompt is most of the call). So on such a route the transcript is cut
into parts of at most ``extraction.localPartChars`` characters, at message boundaries, and each
part's prompt lists the entries the earlier parts gave as already held, so that they are not
written again and a later part can build on them. The parts' replies are read as one reply
(``llm/json_objects.py`` reads a stream): entries repeated across parts are written once, and
the last part's handoff is the conversation's.
"""

from __future__ import annotations

from collections.abc import Sequence

from zettelclaw.extraction.transcript import Message, line
from zettelclaw.llm.json_objects import scan


def split(messages: Sequence[Message], part_chars: int, max_chars: int
          ) -> tuple[list[list[Message]], int]:
    """The messages in parts of at most ``part_chars`` rendered characters each (a message
    longer than that is a part alone, cut by the renderer), after the earliest were left out to
    fit ``max_chars`` in all; and how many were left out."""
    sizes = [len(line(m)) + 2 for m in messages]  # as render() counts them
    total, first = 0, len(messages)
    while first > 0 and total + sizes[first - 1] <= max_chars:
        first -= 1
        total += sizes[first]
    if first == len(messages) and messages:  # one message longer than everything: its end
        first -= 1
    parts: list[list[Message]] = []
    size = 0
    for message, length in zip(messages[first:], sizes[first:], strict=True):
        if parts and size + length <= part_chars:
            parts[-1].append(message)
            size += length
        else:
            parts.append([message])
            size = length
    return parts or [[]], first


def earlier_lines(replies: Sequence[str]) -> list[str]:
    """The entries the earlier parts' replies gave, as the next part's prompt lists them."""
    lines = []
    for reply in replies:
        for obj in scan(reply).objects:
            kind, content = obj.get("type"), obj.get("content")
            if isinstance(kind, str) and isinstance(content, str) and kind != "handoff":
                subject = f" ({obj['subject']})" if isinstance(obj.get("subject"), str) else ""
                lines.append(f"- from an earlier part of this conversation · {kind}{subject}: "
                             f"{content}")
    return list(dict.fromkeys(lines))
