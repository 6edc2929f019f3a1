"""Secrets out of what Zettelclaw keeps and sends: each is replaced by a marker saying what was
there.

``scrub(text)`` replaces, with ``[redacted: <kind>]`` (e.g. ``[redacted: Anthropic API key]``):

- keys and tokens known by their shape (``providers.py``): the providers' API keys, private
  keys (a whole PEM block), JWTs, bearer and basic credentials;
- values known by their label (``labels.py``): a password, PIN, door or alarm code, card
  security code or API key after what names it, in English, German, French, Spanish,
  Portuguese, Dutch, Russian, Japanese and more (``Passwort: ...``, ``mot de passe : ...``,
  ``пароль ...``, ``パスワードは...``, ``the door code is 4821``, ``X-Api-Key: ...``);
- numbers that carry their own checksum (``numbers.py``): card numbers and IBANs.

Only the secret's own span is replaced: the label, quotes and punctuation around it stay. Pure
and idempotent: a marker is never taken for a secret. Provider rules run first, so a key after
a label (``password: sk-ant-...``) is named for what it is and replaced whole.

Where it runs (docs/11-configuration.md, "What is kept"): before a conversation is kept
(``extraction/transcript.py``: the spool and the provenance transcript), where entries are
built (``log.schema.validate_entry``, which every writer of entries uses), on each prompt
(``llm/route.py``) and each text sent to an embedder (``search/semantic.py``), on the index's
chunks of workspace files (``index/file_chunks.py``), on the MEMORY.md block
(``briefing/render.py``) and on what the vault keeps of an edited line (``vault/sync.py``).
Lines a person writes into log.jsonl by hand are theirs and are not rewritten; they are
scrubbed on their way to a model and into MEMORY.md.

Each rule has a cheap literal test first (``hint``): a message without ``sk-`` never runs the
key expressions. ``bench/scrubber.py`` (our corpus) and ``bench/scrub_quality.py`` (a public
one) print detection and false positives; the first also the cost per KB.
"""

from __future__ import annotations

import re

from zettelclaw.scrub import labels, numbers, providers
from zettelclaw.scrub.rules import MARKER, MARKER_RE, Rule, apply, has_lower, luhn

__all__ = ["MARKER", "MARKER_RE", "RULES", "found", "luhn", "scrub"]

# A password's name in configuration: the word itself, or joined to others by "_", "-", "." or
# camelCase (DB_PASSWORD, db.password, dbPassword, AdminPassword, DB_PWD), never inside a word
# ("compass", "bypass", "passenger"). A bare "pwd" is the working directory.
_PASSWORD_WORDS = r"(?:password|passwd|passphrase|passcode|pass ?word)"  # noqa: S105
_PASSWORD_NAME = (r"\b(?:[A-Za-z0-9]+[_.\-])*(?:[A-Za-z0-9]*[a-z0-9](?=[A-Z]))?"
                  rf"(?:(?i:{_PASSWORD_WORDS})|(?<=[_.\-])(?i:pwd)|(?i:pw))(?:[_.\-][A-Za-z0-9]+)*\b")
_QUOTED = re.compile(r"\"[^\"\n]+\"|'[^'\n]+'")
_REFERENCE = re.compile(r"[/~$%{<]|[A-Za-z_][\w.]*[(\[]")


def _config_password(match: re.Match[str]) -> tuple[int, int] | None:
    start, end = match.span(1)
    value = match.group(1)
    if _QUOTED.fullmatch(value):
        start, end, value = start + 1, end - 1, value[1:-1]
        if labels.code_in_quotes(value):
            return None
    word = value.rstrip(".,;:!?)")
    if (not word or word.startswith("[redacted") or _REFERENCE.match(word)
            or word.lower() in labels.NOT_A_PASSWORD):
        return None
    if start == match.start(1) and (labels.code_not_value(word)
                                    or labels.prose_goes_on(match.string, word, end)):
        return None
    return start, start + len(value)


_CONFIG_PASSWORD = Rule("password", re.compile(
    rf"{_PASSWORD_NAME}[\"']?\s*(?:=|:=|:)\s*(\"[^\"\n]+\"|'[^'\n]+'|[^\s,;\"']+)"),
    has_lower("pass", "pw"), _config_password)

RULES: tuple[Rule, ...] = (
    *providers.RULES, _CONFIG_PASSWORD, *labels.RULES, *numbers.RULES)


def scrub(text: str, *, keep_lines: bool = False) -> str:
    """``text`` with every secret found replaced by its marker. ``keep_lines``: a secret of
    several lines (a private key) leaves as many line breaks, so that the text's line numbers
    still point into the file it was read from (the index's chunks of workspace files)."""
    if len(text) < 6:
        return text
    lower = text.lower()
    for rule in RULES:
        if rule.hint(text, lower):
            scrubbed = apply(rule, text, keep_lines=keep_lines)
            if scrubbed is not text:
                text, lower = scrubbed, scrubbed.lower()
    return text


def found(text: str) -> list[str]:
    """The kinds of secret in ``text``, in rule order (for tests and the benchmarks)."""
    kinds = []
    lower = text.lower()
    for rule in RULES:
        if rule.hint(text, lower) and apply(rule, text) != text:
            kinds.append(rule.kind)
    return kinds

