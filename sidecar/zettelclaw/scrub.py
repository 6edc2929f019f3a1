"""Secrets out of what Zettelclaw keeps: each is replaced by a marker saying what was there.

``scrub(text)`` replaces API keys and tokens of the common providers, private keys (a whole PEM
block), passwords in their obvious forms and card numbers (Luhn-checked, with a card's leading
digits) with ``[redacted: <kind>]``, e.g. ``[redacted: Anthropic API key]``. Pure and
idempotent: a marker is never taken for a secret.

It runs before a conversation is kept (intake: the spool job and the provenance transcript) and
where entries are built (``log.schema.validate_entry``, which every writer of entries uses), so
no secret a conversation carried reaches the disk. Lines a person writes into log.jsonl by hand
are theirs, and are not rewritten.

The patterns are this module's own. Yelp's ``detect-secrets`` was measured on the same corpus
(``bench/scrubber.py``): its regex plugins find AWS key ids, GitHub's classic tokens, GitLab,
Slack, Stripe's live keys, SendGrid, Twilio, Discord, npm, JWTs, OpenAI's legacy keys and the
first line of a private key (53% of the corpus, no false positive, ~10x the CPU per KB), but
not Anthropic keys, OpenAI project keys, fine-grained GitHub tokens, Google API keys, Hugging
Face tokens, AWS secret keys outside quotes, bearer tokens, a private key's whole block,
passwords in prose, PINs or card numbers; it needs ``requests`` (its plugins import it, to
verify secrets over the network, which must never happen here) and its last release is of
May 2024. What it covers is a regex each, written here again with the span the marker needs.

Each rule has a cheap literal test first (``hint``): a message without ``sk-`` never runs the
key expressions. ``bench/scrubber.py`` prints detection, false positives and the cost per KB.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

MARKER = "[redacted: {}]"
MARKER_RE = re.compile(r"\[redacted: [A-Za-z0-9 ]+\]")

# A token's character set, for the rules that take "the rest of the token".
_TOKEN = r"[A-Za-z0-9_\-]"  # noqa: S105  (a character class, not a password)


def _mixed(token: str) -> bool:
    """Random-looking: an upper-case letter, a lower-case letter and a digit. Random base62 of
    20+ characters nearly always is; words, slugs, hex hashes and version strings are not."""
    return (any(c.isupper() for c in token) and any(c.islower() for c in token)
            and any(c.isdigit() for c in token))


def luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


# Issuer prefixes of the card networks (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay,
# Maestro): a Luhn-valid number that starts otherwise is an order or account number.
_CARD_PREFIX = re.compile(r"4|5[1-5]|2[2-7]|3[47]|3[05689]|6[0-9]")
_CARD_LENGTHS = range(13, 20)


def _card(match: re.Match[str]) -> bool:
    digits = re.sub(r"[ -]", "", match.group(0))
    return (len(digits) in _CARD_LENGTHS and _CARD_PREFIX.match(digits) is not None
            and luhn(digits))


# Words that follow "password is" in ordinary talk about passwords, not a password itself.
_NOT_A_PASSWORD = frozenset("""
a an the not no now still too very also just only required incorrect correct wrong right
stored saved kept hashed encrypted set reset changed expired invalid valid missing empty
weak strong long short there here in on at for of to from with by it this that same
different one protected needed necessary optional rotated updated shared known unknown
being been case sensitive hidden visible good bad fine ok okay done different
true false yes no none null nil undefined
""".split())

# What comes after "password=" in code and templates without being a password: a path, a
# variable or template reference, a call or an index (getpass(), os.environ["X"]).
_REFERENCE = re.compile(r"[/~$%{<]|[A-Za-z_][\w.]*[(\[]")


def _password_value(value: str, *, strict: bool) -> bool:
    """Whether the word after "password is" is the password. ``strict``: the sentence only
    says "password is", so it must look like one (a digit, a capital, a symbol, or quoted)."""
    if value.startswith("[redacted"):  # already a marker
        return False
    word = value.strip("\"'`").rstrip(".,;:!?)")
    if not word or word.lower() in _NOT_A_PASSWORD:
        return False
    if value[:1] in "\"'`":
        return True
    if _REFERENCE.match(word):
        return False
    if not strict:
        return True
    return not word.isalpha() or not word.islower()


@dataclass(frozen=True)
class Rule:
    kind: str  # what the marker says was there
    pattern: re.Pattern[str]
    # a cheap test of (text, text.lower()): False means the pattern cannot match
    hint: Callable[[str, str], bool]
    group: int = 0  # the group that is the secret (the rest, e.g. "password=", is kept)
    check: Callable[[re.Match[str]], bool] | None = None  # a match that fails it is kept


def _has(*needles: str) -> Callable[[str, str], bool]:
    return lambda text, lower: any(n in text for n in needles)


def _has_lower(*needles: str) -> Callable[[str, str], bool]:
    return lambda text, lower: any(n in lower for n in needles)


def _has_digit_run(text: str, lower: str) -> bool:
    return _DIGIT_RUN.search(text) is not None


_DIGIT_RUN = re.compile(r"\d{4}")

_PASSWORD_WORDS = r"(?:password|passwd|passphrase|passcode|pass ?word)"  # noqa: S105
# A password's name in configuration: the word itself, or joined to others by "_", "-", "." or
# camelCase (DB_PASSWORD, db.password, dbPassword, DB_PWD), never inside a word ("compass",
# "bypass", "passenger"). A bare "pwd" is the working directory.
_PASSWORD_NAME = (r"\b(?:[A-Za-z0-9]+[_.\-])*(?:[a-z0-9]+(?=[A-Z]))?"
                  rf"(?:(?i:{_PASSWORD_WORDS})|(?<=[_.\-])(?i:pwd)|(?i:pw))(?:[_.\-][A-Za-z0-9]+)*\b")

RULES: tuple[Rule, ...] = (
    # A private key: the whole block, or to the end of the text when it was cut off.
    Rule("private key", re.compile(
        r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?(?:-----END \1-----|\Z)",
        re.DOTALL), _has("PRIVATE KEY")),
    Rule("private key", re.compile(r"PuTTY-User-Key-File-\d:.*?(?:Private-MAC: \S+|\Z)",
                                   re.DOTALL), _has("PuTTY-User-Key-File")),
    Rule("Anthropic API key", re.compile(rf"\bsk-ant-{_TOKEN}{{20,}}"), _has("sk-ant-")),
    Rule("OpenAI API key", re.compile(
        rf"\bsk-(?:proj-|svcacct-|admin-|None-)?(?!ant-){_TOKEN}{{20,}}"), _has("sk-"),
        check=lambda m: _mixed(m.group(0))),
    Rule("GitHub token", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b"),
         _has("gh")),
    Rule("GitHub token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}"), _has("github_pat_")),
    # The secret half is 40 characters of base64 that only context tells from other base64: its
    # name nearby (aws_secret_access_key, "secret access key"), or an access key id before it.
    Rule("AWS secret access key", re.compile(
        r"(?i:aws.{0,20}?secret|secret.?access.?key|AKIA[A-Z0-9]{16}).{0,40}?"
        r"(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])", re.DOTALL),
        _has_lower("secret", "akia"), group=1, check=lambda m: _mixed(m.group(1))),
    # after the secret's rule, which finds the secret by the id before it
    Rule("AWS access key ID", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
         _has("AKIA", "ASIA", "ABIA", "ACCA", "A3T")),
    Rule("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), _has("xox")),
    Rule("Slack token", re.compile(r"\bxapp-\d-[A-Za-z0-9-]{10,}"), _has("xapp-")),
    Rule("Slack webhook", re.compile(
        r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+"),
        _has("hooks.slack.com")),
    Rule("Stripe secret key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
         _has("_live_", "_test_")),
    Rule("Stripe webhook secret", re.compile(r"\bwhsec_[A-Za-z0-9]{24,}"), _has("whsec_")),
    Rule("Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), _has("AIza")),
    Rule("Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}"), _has("hf_"),
         check=lambda m: _mixed(m.group(0))),
    Rule("npm token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), _has("npm_")),
    Rule("GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"), _has("glpat-")),
    Rule("SendGrid API key", re.compile(
        r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}(?![A-Za-z0-9_\-])"), _has("SG.")),
    Rule("Twilio API key", re.compile(r"\b(?:SK|AC)[0-9a-f]{32}\b"), _has("SK", "AC")),
    Rule("Discord bot token", re.compile(
        r"\b[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}(?![A-Za-z0-9_\-])"),
        _has("."), check=lambda m: _mixed(m.group(0))),
    Rule("JSON Web Token", re.compile(
        r"\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{8,}"), _has("eyJ")),
    Rule("bearer token", re.compile(r"(?i:\bbearer)\s+([A-Za-z0-9._~+/\-]{16,}=*)"),
         _has_lower("bearer"), group=1,
         check=lambda m: any(c.isdigit() for c in m.group(1))
         and any(c.isalpha() for c in m.group(1))),
    Rule("basic auth credentials", re.compile(
        r"(?i:\bauthorization:\s*basic)\s+([A-Za-z0-9+/]{8,}=*)"), _has_lower("basic"), group=1),
    Rule("password", re.compile(r"(?i:\b[a-z]+://[^\s:/@]+):([^\s@/]+)@"), _has("://"),
         group=1),
    # password=..., "password": "...", PASSWORD: ... (configuration, code, env files)
    Rule("password", re.compile(
        rf"{_PASSWORD_NAME}[\"']?\s*(?:=|:=|:)\s*"
        r"(\"[^\"\n]+\"|'[^'\n]+'|[^\s,;\"']+)"),
        _has_lower("pass", "pw"), group=1,
        check=lambda m: _password_value(m.group(1), strict=False)),
    # prose: "my password is ...", "the wifi password for the office is ..."
    Rule("password", re.compile(
        rf"(?i:\b(?:my|our|the|his|her|their|your|its)\s+(?:[\w-]+\s+){{0,3}}{_PASSWORD_WORDS}"
        r"(?:\s+(?:for|to|of|on)\s+(?:[\w.@-]+\s+){0,3}?)?\s*(?:is|was|are)\s*(?:now\s+|still\s+)?"
        r"(?::\s*)?)(\"[^\"\n]+\"|'[^'\n]+'|`[^`\n]+`|\S+)"),
        _has_lower("pass"), group=1,
        check=lambda m: _password_value(m.group(1), strict=False)),
    Rule("password", re.compile(
        rf"(?i:\b{_PASSWORD_WORDS}\s+(?:is|was)\s*(?::\s*)?)(\"[^\"\n]+\"|'[^'\n]+'|\S+)"),
        _has_lower("pass"), group=1,
        check=lambda m: _password_value(m.group(1), strict=True)),
    # a PIN: digits only, after "PIN is", "PIN:", "pin code ="
    Rule("PIN", re.compile(r"(?i:\bpin(?:\s+(?:code|number))?\s*(?:is|was|:|=)\s*)(\d{4,8})\b"),
         _has_lower("pin"), group=1),
    # api_key = ..., "client_secret": "...", TOKEN=...: a named secret with a random-looking value
    Rule("secret", re.compile(
        r"(?i:\b[A-Za-z_]*(?:api[_-]?key|secret|token|access[_-]?key|private[_-]?key|"
        r"auth[_-]?key|credential)s?)[\"']?\s*(?:=|:=|:)\s*[\"']?([A-Za-z0-9_\-./+=]{16,})"),
        _has_lower("key", "secret", "token", "credential"), group=1,
        check=lambda m: _mixed(m.group(1)) and not MARKER_RE.fullmatch(m.group(1))),
    # a card number stands alone: not a run of digits inside a hash or an id
    Rule("card number", re.compile(r"(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])"),
         _has_digit_run, check=_card),
)


def scrub(text: str) -> str:
    """``text`` with every secret found replaced by its marker."""
    if len(text) < 8:
        return text
    lower = text.lower()
    for rule in RULES:
        if rule.hint(text, lower):
            scrubbed = _apply(rule, text)
            if scrubbed is not text:
                text, lower = scrubbed, scrubbed.lower()
    return text


def _apply(rule: Rule, text: str) -> str:
    parts: list[str] = []
    last = 0
    for match in rule.pattern.finditer(text):
        if rule.check is not None and not rule.check(match):
            continue
        start, end = match.span(rule.group)
        if start < last:
            continue
        parts.append(text[last:start])
        parts.append(MARKER.format(rule.kind))
        last = end
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


def found(text: str) -> list[str]:
    """The kinds of secret in ``text``, in rule order (for tests and the benchmark)."""
    kinds = []
    lower = text.lower()
    for rule in RULES:
        if rule.hint(text, lower) and _apply(rule, text) != text:
            kinds.append(rule.kind)
    return kinds
