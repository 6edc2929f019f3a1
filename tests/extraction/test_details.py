"""A message read alone for its details (extraction/details.py): which messages are asked
about, and which of the model's facts are kept. The replies below are the 1.5B model's own
(Qwen2.5-Coder-1.5B on llama.cpp, LoCoMo conv-41 session 1, prompts/extraction-details.md)."""

from __future__ import annotations

import json

from zettelclaw.extraction import details
from zettelclaw.extraction.transcript import Message


def message(role: str, text: str) -> Message:
    return Message(key=text, role=role, text=text, timestamp=None)


def test_a_person_s_messages_of_a_few_words_are_asked_about() -> None:
    """A chat relayed as text: most messages open with their speaker's name."""
    asked = details.to_ask([
        message("user", "John: Hey Maria! Just got back from a family road trip yesterday!"),
        message("user", "Maria: Thanks, John!"),  # three words: nothing to ask for
        message("assistant", "Maria: Been busy volunteering at the homeless shelter lately."),
    ])
    assert asked == [
        details.Asked("John", "Hey Maria! Just got back from a family road trip yesterday!"),
        details.Asked("Maria", "Been busy volunteering at the homeless shelter lately."),
    ]


def test_otherwise_the_user_s_messages_are_the_user_s() -> None:
    asked = details.to_ask([
        message("user", "I keep my bees on the roof of the garage"),
        message("assistant", "Noted: the bees live on the garage roof, by the water butt."),
        message("user", "The queen is marked blue this year"),
    ])
    assert asked == [
        details.Asked(details.USER, "I keep my bees on the roof of the garage"),
        details.Asked(details.USER, "The queen is marked blue this year"),
    ]


def test_a_long_message_is_read_from_its_start() -> None:
    (asked,) = details.to_ask([message("user", "word " * 1000)])
    assert len(asked.text) == details.MAX_MESSAGE_CHARS


def test_the_prompt_names_the_speaker_and_quotes_the_message() -> None:
    prompt = details.prompt(details.Asked("John", "I'm doing kickboxing."))
    assert prompt.startswith("Rewrite a chat message as facts about its speaker")
    assert prompt.rstrip().endswith("John: I'm doing kickboxing.\nThe facts:")


def test_only_facts_about_the_speaker_are_kept() -> None:
    """John said he does kickboxing; the model also made Maria do it."""
    reply = ('{"type":"fact","content":"Maria is doing kickboxing.","subject":"maria"}\n'
             '{"type":"fact","content":"John is doing kickboxing.","subject":"john"}')
    lines, aside = details.kept(reply, details.Asked("John", "I'm doing kickboxing."))
    assert [json.loads(line) for line in lines] == [
        {"type": "fact", "content": "John is doing kickboxing.", "subject": "john"}]
    assert aside == 1


def test_a_fact_that_reports_the_talk_is_set_aside() -> None:
    reply = ('{"type":"fact","content":"Maria asked John if he has any goals.",'
             '"subject":"maria"}\n'
             '{"type":"fact","content":"Maria suggests kickboxing to stay fit.",'
             '"subject":"maria"}\n'
             '{"type":"task","content":"Maria will call John.","status":"open"}')
    lines, aside = details.kept(reply, details.Asked("Maria", "Do you have any goals?"))
    assert (lines, aside) == ([], 3)


def test_a_reply_of_none_keeps_nothing() -> None:
    assert details.kept("none", details.Asked("Ben", "Wow, congrats! How old is he?")) == ([], 0)


def test_the_user_s_facts_are_kept_when_they_name_the_user() -> None:
    reply = ('{"type":"fact","content":"The user keeps bees on the garage roof."}\n'
             '{"type":"fact","content":"Bees like roofs."}')
    lines, aside = details.kept(reply, details.Asked(details.USER, "I keep bees on the roof"))
    assert [json.loads(line)["content"] for line in lines] == [
        "The user keeps bees on the garage roof."]
    assert aside == 1


def test_a_fact_naming_nothing_its_message_names_is_set_aside() -> None:
    """The real model, on a message about a dog: the prompt example's beagle, word for word."""
    asked = details.Asked("Gina", "I got a puppy last week, she's so cute! Pepper loves her")
    reply = ('{"type":"fact","content":"Gina adopted a beagle named Max last week.",'
             '"subject":"gina"}\n'
             '{"type":"fact","content":"Gina got a puppy last week.","subject":"gina"}\n'
             '{"type":"fact","content":"Gina\'s dog Pepper loves the puppy.","subject":"gina"}')
    lines, aside = details.kept(reply, asked)
    assert [json.loads(line)["content"] for line in lines] == [
        "Gina got a puppy last week.", "Gina's dog Pepper loves the puppy."]
    assert aside == 1


def test_a_title_given_with_its_author_is_kept() -> None:
    """The real model on LoCoMo conv-48: the message names the book, the model its author."""
    asked = details.Asked("Jolene", 'I\'m really into this book called "Sapiens" - it\'s '
                                    "a fascinating look at human history")
    reply = '{"type":"fact","content":"Jolene is reading \'Sapiens\' by Yuval Noah Harari."}'
    assert len(details.kept(reply, asked)[0]) == 1


def test_a_goodbye_is_no_fact() -> None:
    reply = ('{"type":"fact","content":"Andrew says goodbye."}\n'
             '{"type":"fact","content":"Andrew will keep you posted."}')
    assert details.kept(reply, details.Asked("Andrew", "I'll keep you posted. Ttyl, Bye!")) \
        == ([], 2)
