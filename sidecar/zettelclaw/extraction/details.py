"""A small model's second reading of a conversation: each message alone, for its details.

Read in parts (extraction/parts.py), a 1.5B model writes two or three entries for whatever it
reads, and what it drops are the details a person asks about later: the snakes' names, "the
croissants, muffins and tarts", the book's title (bench/README.md, "The 1.5B local model on
LoCoMo"). Asked about one message at a time, with a short prompt of its own
(``prompts/extraction-details.md``), the same model keeps them. So on the local route, after
the parts, each message a person wrote is rewritten as facts about that person, and those facts
join the parts' reply (``extraction.localDetails``; docs/04-extraction.md, "A small local model").

A small model also writes what a message does not say about its speaker: that the other person
does the same thing, what the speaker asked, the prompt example's dog. A fact is kept only when
it names the message's speaker first, gives a name the message gives if it gives any, and does
not report the talk itself (asking, greeting, goodbyes); the rest is set aside and counted
(``setAside`` in the job's outcome). Facts the parts gave already, or memory holds, are
dropped as repeats by the reply's reader like any other (extraction/output.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import orjson

from zettelclaw import prompts_loader
from zettelclaw.extraction.transcript import Message
from zettelclaw.llm.json_objects import scan

MAX_TOKENS = 200  # a message's facts; a reply that runs past it is cut and continued
MAX_MESSAGE_CHARS = 1500  # a longer message is read from its start: a prompt stays small
MIN_WORDS = 4  # "Thanks!", "Haha, same": no fact to ask for
USER = "The user"  # a user's message that does not name its speaker

# "Name: text", a chat between people relayed as text (LoCoMo, a group's messages)
_NAMED = re.compile(r"([A-Z][\w'.-]{0,30}(?: [A-Z][\w'.-]{0,30})?): (.+)", re.DOTALL)
# a fact that reports the conversation rather than the person
_TALK = re.compile(r"\b(?:ask(?:s|ed|ing)?|wants? to know|wonder(?:s|ed)|greet(?:s|ed)?|"
                   r"suggest(?:s|ed)?|compliment(?:s|ed)?|congratulat\w*|thank(?:s|ed)|"
                   r"goodbye|bye|posted)\b", re.IGNORECASE)
# a name after the fact's first word ("Pepper", "Fox Hollow", "Caroline's", '"Sapiens"')
_NAME = re.compile(r"(?<=[\s'\"\u2018\u201c])[A-Z][\w-]*?(?=(?:'s|\u2019s)?\b)")


@dataclass(frozen=True)
class Asked:
    """One message to read alone: who wrote it and what it says."""

    speaker: str
    text: str


def to_ask(messages: Sequence[Message]) -> list[Asked]:
    """The messages worth reading alone: a person's, of a few words at least.

    When most messages open with a name ("Maria: ..."), the conversation is a chat between
    people relayed as text and each message is its named speaker's; otherwise a user's message
    is the user's ("Noted: ..." is no name), and an assistant's words are the agent's work,
    which the parts' reading covers."""
    matches = [_NAMED.fullmatch(m.text.strip()) for m in messages]
    relayed = sum(1 for m in matches if m) * 2 > len(messages)
    asked = []
    for message, named in zip(messages, matches, strict=True):
        if relayed and named:
            speaker, text = named[1], named[2].strip()
        elif message.role == "user":
            speaker, text = USER, message.text.strip()
        else:
            continue
        if len(text.split()) >= MIN_WORDS:
            asked.append(Asked(speaker, text[:MAX_MESSAGE_CHARS]))
    return asked


def prompt(asked: Asked) -> str:
    return prompts_loader.fill(prompts_loader.load("extraction-details"),
                               {"speaker": asked.speaker, "message": asked.text})


def kept(reply: str, asked: Asked) -> tuple[list[str], int]:
    """The reply's facts about the speaker, as lines the reply's reader takes; and how many
    objects were set aside (not a fact, not about the speaker, or about the talk)."""
    lines, aside = [], 0
    name = asked.speaker.lower()
    for obj in scan(reply).objects:
        content = obj.get("content")
        if (obj.get("type", "fact") != "fact" or not isinstance(content, str)
                or not _about(content, name) or _TALK.search(content)
                or not _grounded(content, asked)):
            aside += 1
            continue
        fact = {"type": "fact", "content": content.strip()}
        if isinstance(obj.get("subject"), str):
            fact["subject"] = obj["subject"]
        lines.append(orjson.dumps(fact).decode())
    return lines, aside


def _about(content: str, speaker: str) -> bool:
    said = content.strip().lower()
    if speaker == USER.lower():
        return said.startswith(("the user", "user "))
    return said.startswith(speaker.split(maxsplit=1)[0])


def _grounded(content: str, asked: Asked) -> bool:
    """The fact gives no name, or one at least that its message gives: a small model fills a
    message about a dog with the prompt example's "beagle named Max", whereas a title it gives
    with its author ("'Sapiens' by Yuval Noah Harari") is the message's, and kept."""
    said = f"{asked.speaker} {asked.text}".lower()
    names = _NAME.findall(content)
    return not names or any(name.lower() in said for name in names)
