"""Keys and tokens known by their own shape: the providers' prefixes and formats, private keys,
JWTs, bearer and basic credentials, a password inside a URL.

The patterns are this package's own. Yelp's ``detect-secrets`` was measured on the same corpus
(``bench/scrubber.py``): its regex plugins find AWS key ids, GitHub's classic tokens, GitLab,
Slack, Stripe's live keys, SendGrid, Twilio, Discord, npm, JWTs, OpenAI's legacy keys and the
first line of a private key, but not Anthropic keys, OpenAI project keys, fine-grained GitHub
tokens, Google API keys, Hugging Face tokens, AWS secret keys outside quotes, bearer tokens, a
private key's whole block, passwords in prose, PINs or card numbers; its plugins import
``requests`` to verify secrets over the network, which must never happen here. What it covers
is a regex each, written here again with the span the marker needs.
"""

from __future__ import annotations

import re

from zettelclaw.scrub.rules import Pick, Rule, group, has, has_lower, mixed

# A token's character set, for the rules that take "the rest of the token".
_TOKEN = r"[A-Za-z0-9_\-]"  # noqa: S105  (a character class, not a password)


def _mixed_at(index: int) -> Pick:
    return group(index, lambda m: mixed(m.group(index)))


def _cased(match: re.Match[str]) -> bool:
    """A Hugging Face token: 34 random base62 characters, so both cases (digits may be
    missing: an all-letter token is as valid as any)."""
    token = match.group(0)[3:]
    return any(c.isupper() for c in token) and any(c.islower() for c in token)


# words run together (InvalidBase64Defect, getHTTPResponse2): code, not a token
_CAMEL_WORDS = re.compile(r"[a-z]*(?:[A-Z][a-z]{2,}|[A-Z]{2,}(?![a-z])|\d+)+")


def _random_body(match: re.Match[str]) -> bool:
    body = match.group(1)
    return mixed(body) and _CAMEL_WORDS.fullmatch(body) is None


def _bearer(match: re.Match[str]) -> bool:
    value = match.group(1)
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


RULES: tuple[Rule, ...] = (
    # A private key: the whole block, or to the end of the text when it was cut off.
    Rule("private key", re.compile(
        r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?(?:-----END \1-----|\Z)",
        re.DOTALL), has("PRIVATE KEY"), group()),
    Rule("private key", re.compile(r"PuTTY-User-Key-File-\d:.*?(?:Private-MAC: \S+|\Z)",
                                   re.DOTALL), has("PuTTY-User-Key-File"), group()),
    Rule("Anthropic API key", re.compile(rf"\bsk-ant-{_TOKEN}{{20,}}"), has("sk-ant-"), group()),
    Rule("OpenAI API key", re.compile(
        rf"\bsk-(?:proj-|svcacct-|admin-|None-)?(?!ant-){_TOKEN}{{20,}}"), has("sk-"),
        _mixed_at(0)),
    Rule("GitHub token", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b"),
         has("gh"), group()),
    Rule("GitHub token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}"), has("github_pat_"),
         group()),
    # The secret half is 40 characters of base64 that only context tells from other base64: its
    # name nearby (aws_secret_access_key, "secret access key"), or an access key id before it.
    Rule("AWS secret access key", re.compile(
        r"(?i:aws.{0,20}?secret|secret.?access.?key|AKIA[A-Z0-9]{16}).{0,40}?"
        r"(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])", re.DOTALL),
        has_lower("secret", "akia"), _mixed_at(1)),
    # after the secret's rule, which finds the secret by the id before it
    Rule("AWS access key ID", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
         has("AKIA", "ASIA", "ABIA", "ACCA", "A3T"), group()),
    Rule("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), has("xox"), group()),
    Rule("Slack token", re.compile(r"\bxapp-\d-[A-Za-z0-9-]{10,}"), has("xapp-"), group()),
    Rule("Slack webhook", re.compile(
        r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+"),
        has("hooks.slack.com"), group()),
    Rule("Stripe secret key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
         has("_live_", "_test_"), group()),
    Rule("Stripe webhook secret", re.compile(r"\bwhsec_[A-Za-z0-9]{24,}"), has("whsec_"),
         group()),
    Rule("Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), has("AIza"), group()),
    Rule("Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{34,}\b"), has("hf_"),
         group(0, _cased)),
    Rule("npm token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), has("npm_"), group()),
    Rule("GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"), has("glpat-"), group()),
    Rule("SendGrid API key", re.compile(
        r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}(?![A-Za-z0-9_\-])"), has("SG."), group()),
    Rule("Twilio API key", re.compile(r"\b(?:SK|AC)[0-9a-f]{32}\b"), has("SK", "AC"), group()),
    Rule("Discord bot token", re.compile(
        r"\b[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}(?![A-Za-z0-9_\-])"),
        has("."), _mixed_at(0)),
    Rule("JSON Web Token", re.compile(
        r"\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{8,}"), has("eyJ"),
        group()),
    Rule("bearer token", re.compile(r"(?i:\bbearer)\s+([A-Za-z0-9._~+/\-]{16,}=*)"),
         has_lower("bearer"), group(1, _bearer)),
    Rule("basic auth credentials", re.compile(
        r"(?i:\bauthorization:\s*basic)\s+([A-Za-z0-9+/]{8,}=*)"), has_lower("basic"), group(1)),
    Rule("password", re.compile(r"(?i:\b[a-z][a-z0-9+.\-]*://[^\s:/@]+):([^\s@/]+)@"),
         has("://"), group(1)),
    # "-u user -p secret" on a command line (docker login, psexec, mysql)
    Rule("password", re.compile(r"(?<!\S)-u\s+\S+\s+(?:-p\s*|--password[= ])([^\s\[-]\S*)"),
         has("-u"), group(1)),
    # Any other provider's token by the shape most now share: a short lower-case prefix and an
    # underscore (aio_, dckr_pat_, odt_, dop_v1_, pypi-), then 24+ random characters.
    Rule("token", re.compile(
        r"(?<![\w.\-])(?:[a-z]{2,10}[_\-]){1,3}(?:v\d[_\-])?([A-Za-z0-9]{24,})(?![\w\-])"),
        lambda text, lower: "_" in text or "-" in text, group(0, _random_body)),
)
