"""The secret scrubber (scrub/): every kind of the corpus is replaced by a marker naming it,
look-alikes come through unchanged, and it is idempotent. The corpus is
tests/scrub/secrets_corpus.py (bench/scrubber.py prints the rates over several seeds)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.scrub.secrets_corpus import lookalikes, luhn_complete, secrets
from zettelclaw.config import ExtractionConfig
from zettelclaw.extraction.intake import HookCall, Intake
from zettelclaw.extraction.provenance import Provenance
from zettelclaw.extraction.spool import Spool
from zettelclaw.home import Home
from zettelclaw.log.schema import parse_entry_json, validate_entry
from zettelclaw.scrub import MARKER, luhn, scrub

CORPUS = secrets(seed=7, per_kind=8)
KINDS = sorted({s.kind for s in CORPUS})


@pytest.mark.parametrize("kind", KINDS)
def test_every_secret_of_each_kind_is_replaced_by_its_marker(kind: str) -> None:
    for case in (s for s in CORPUS if s.kind == kind):
        out = scrub(case.text)
        assert case.secret not in out, case.text
        assert MARKER.format(kind) in out, (case.text, out)


def test_the_marker_says_what_was_there_and_the_sentence_stays() -> None:
    key = "sk-ant-api03-" + "aB3" * 31 + "AA"
    assert scrub(f"my key is {key}, use it for the bot") == \
        "my key is [redacted: Anthropic API key], use it for the bot"
    assert scrub("DB_PASSWORD=hunter22 and PORT=5432") == \
        "DB_PASSWORD=[redacted: password] and PORT=5432"
    assert scrub("my password is sunshine.") == "my password is [redacted: password]."


def test_lookalikes_come_through_unchanged() -> None:
    changed = [(t, scrub(t)) for t in lookalikes(seed=11, per_kind=10) if scrub(t) != t]
    assert changed == []


def test_scrubbing_twice_changes_nothing_more() -> None:
    for case in CORPUS:
        once = scrub(case.text)
        assert scrub(once) == once


def test_a_private_key_goes_whole_even_when_cut_off() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc\n-----END RSA PRIVATE KEY-----"
    assert scrub(f"key:\n{block}\nthanks") == "key:\n[redacted: private key]\nthanks"
    cut = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\nbm9uZQ"
    assert scrub(f"here {cut}") == "here [redacted: private key]"


def test_an_aws_secret_is_known_by_its_context_only() -> None:
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # noqa: S105  (a made-up one)
    assert scrub(f"aws_secret_access_key = {secret}") == \
        "aws_secret_access_key = [redacted: AWS secret access key]"
    # the same shape with nothing saying what it is: kept (it could be any base64)
    assert scrub(f"checksum {secret}") == f"checksum {secret}"


def test_card_numbers_only_when_luhn_and_a_card_prefix_agree() -> None:
    import random

    rng = random.Random(1)
    card = luhn_complete(rng, "4", 16)
    assert scrub(f"card {card}") == "card [redacted: card number]"
    spaced = " ".join(card[i:i + 4] for i in range(0, 16, 4))
    assert scrub(f"card {spaced}!") == "card [redacted: card number]!"
    bad = card[:-1] + str((int(card[-1]) + 1) % 10)
    assert not luhn(bad)
    assert scrub(f"order {bad}") == f"order {bad}"
    not_a_card = luhn_complete(rng, "1", 16)  # Luhn-valid, but no network starts with 1
    assert scrub(f"order {not_a_card}") == f"order {not_a_card}"


@given(st.text(max_size=300))
def test_any_text_scrubs_without_error_and_idempotently(text: str) -> None:
    once = scrub(text)
    assert scrub(once) == once


def test_validate_entry_scrubs_content_and_detail() -> None:
    key = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"
    entry = validate_entry({"id": "r7Wp3nKx_mZe", "timestamp": "2026-02-20T14:35:00Z",
                            "type": "fact", "content": f"The CI token is {key}",
                            "detail": "password: Tr0ub4dor&3", "session": "s1"})
    assert entry.content == "The CI token is [redacted: GitHub token]"
    assert entry.detail == "password: [redacted: password]"


def test_a_line_written_by_hand_is_read_as_written() -> None:
    """The log's hand-written lines are the person's: reading them does not rewrite them."""
    key = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"
    line = ('{"id":"r7Wp3nKx_mZe","timestamp":"2026-02-20T14:35:00Z","type":"fact",'
            f'"content":"token {key}","session":"manual"}}')
    assert parse_entry_json(line).content == f"token {key}"


# -- at intake: nothing of a secret reaches the spool or the transcript copy --------------------


def test_intake_keeps_no_secret_in_the_spool_or_the_transcript(home: Home) -> None:
    key = "sk-ant-api03-" + "Zq9" * 31 + "AA"
    card = "4111 1111 1111 1111"
    messages = [
        {"role": "user", "content": f"Use {key} for the bot; bill my card {card}",
         "timestamp": 1_795_000_000_000},
        {"role": "assistant", "content": [{"type": "text", "text": f"Stored {key}."}],
         "timestamp": 1_795_000_001_000}]
    intake = Intake(home, ExtractionConfig(), Provenance(home), Spool(home), [])
    call = HookCall(trigger="sessionEnd", session_id="s-secret", session_key="agent:main:main",
                    messages=messages)
    result = intake.accept(call)
    assert result.messages == 2
    kept = b"".join(p.read_bytes() for d in ("spool", "transcripts")
                    for p in (home.root / d).iterdir())
    assert key.encode() not in kept
    assert b"1111 1111" not in kept
    assert b"[redacted: Anthropic API key]" in kept
    assert b"[redacted: card number]" in kept
    [job] = intake.spool.jobs()
    assert job.messages[0]["text"] == ("Use [redacted: Anthropic API key] for the bot; bill my "
                                       "card [redacted: card number]")
    # the same stretch again (session_end after before_reset) is recognised as received
    assert intake.accept(call).messages == 0


def test_a_luhn_valid_run_of_digits_inside_a_hash_is_kept() -> None:
    digest = "be783f8cc6b36a64c29a4ba32d09a5410700419076a58652367d3528c5296b89"
    assert luhn("5410700419076")  # a Mastercard prefix, and Luhn agrees: but inside a hash
    assert scrub(f"sha256: {digest}") == f"sha256: {digest}"


# -- labels: a value after what names it, in any of the languages people write ---------------

@pytest.mark.parametrize(("said", "kept"), [
    ("Passwort: Geheim123!", "Passwort: [redacted: password]"),
    ("Mein Kennwort ist Sommer2024", "Mein Kennwort ist [redacted: password]"),
    ("Kennwort Geheim123", "Kennwort [redacted: password]"),
    ('Das WLAN-Passwort lautet "Haus am See 7".',
     'Das WLAN-Passwort lautet "[redacted: password]".'),
    ("mot de passe : Soleil2024", "mot de passe : [redacted: password]"),
    ("mon mot de passe est Soleil2024.", "mon mot de passe est [redacted: password]."),
    ("mi contraseña es Sol2024", "mi contraseña es [redacted: password]"),
    ("мой пароль qwerty123", "мой пароль [redacted: password]"),
    ("пароль от почты — qwerty123", "пароль от почты — [redacted: password]"),
    ("私のパスワードはhunter2です。", "私のパスワードは[redacted: password]です。"),
    ("pw is hunter2!", "pw is [redacted: password]"),
    ("the wifi password for the office is CorrectHorse9, ok",
     "the wifi password for the office is [redacted: password], ok"),
    ("the door code is 4821", "the door code is [redacted: access code]"),
    ("alarm code 4821", "alarm code [redacted: access code]"),
    ("gate code: 4821#.", "gate code: [redacted: access code]#."),
    ("I changed the door code to 5930 today",
     "I changed the door code to [redacted: access code] today"),
    ("then set the password to Hunter22.", "then set the password to [redacted: password]."),
    ("password: sunshine", "password: [redacted: password]"),
    ("my password is sunshine and I love it", "my password is [redacted: password] and I love it"),
    ("cvv 123", "cvv [redacted: card security code]"),
    ('api_key = "0123456789abcdef0123456789abcdef"', 'api_key = "[redacted: API key]"'),
    ("X-Api-Key: 0123456789abcdef0123456789abcdef", "X-Api-Key: [redacted: API key]"),
    ("SECRET_KEY=" + "ab12" * 16, "SECRET_KEY=[redacted: secret]"),
    ("hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "[redacted: Hugging Face token]"),
    ("my IBAN is DE89 3704 0044 0532 0130 00.", "my IBAN is [redacted: IBAN]."),
    ('"AdminPassword" : "t0pS3cret",', '"AdminPassword" : "[redacted: password]",'),
    ("AccountKey=1gy3lpE7Du1j5ljKiupgKzywSw2isjsa69s;", "AccountKey=[redacted: secret];"),
])
def test_a_labelled_value_is_replaced_exactly(said: str, kept: str) -> None:
    assert scrub(said) == kept


def test_a_key_after_a_label_is_named_for_what_it_is_and_replaced_whole() -> None:
    key = "sk-ant-api03-" + "aB3" * 31 + "AA"
    assert scrub(f"Passwort: {key}.") == "Passwort: [redacted: Anthropic API key]."
    assert scrub(f'api_key = "{key}"') == 'api_key = "[redacted: Anthropic API key]"'
    card = "4111 1111 1111 1111"
    assert scrub(f"PIN 4821, card {card}, cvv 123") == \
        "PIN [redacted: PIN], card [redacted: card number], cvv [redacted: card security code]"


@pytest.mark.parametrize("said", [
    "the code is in main.py", "password reset link", "the password is required",
    "I ran 4821 meters", "the alarm code was changed", "PIN 17 on the Arduino board",
    "the password manager I use is Bitwarden", "the password is 12 characters long",
    "my password is twelve characters long", "Passwort vergessen? Klick hier",
    "le mot de passe est obligatoire", "パスワードは必要です", "api_key_header = X-Api-Key",
    "the cvv field is required", "in 2026 we had 1234 users", "token ring was 1989's network",
    "Password: ask Sam for it", "I need to reset my password tomorrow",
    "my password to the bank is not working", "the password to access it is in the vault",
    "I sent my password to Sam yesterday", "she gave the door code to Anna",
])
def test_talk_about_secrets_and_numbers_in_prose_are_kept(said: str) -> None:
    assert scrub(said) == said


def test_an_iban_needs_its_countrys_length_and_the_mod_97_check() -> None:
    assert scrub("IBAN DE89370400440532013000") == "IBAN [redacted: IBAN]"
    assert scrub("IBAN DE89370400440532013001") == "IBAN DE89370400440532013001"  # check fails
    assert scrub("IBAN DE8937040044053201300") == "IBAN DE8937040044053201300"  # one short
    assert scrub("IBAN DE89 3704 0044 0532 0130 01") == "IBAN DE89 3704 0044 0532 0130 01"


def test_keep_lines_leaves_a_private_keys_line_breaks() -> None:
    block = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\nIDx\n-----END EC PRIVATE KEY-----"
    out = scrub(f"a\n{block}\nb", keep_lines=True)
    assert out == "a\n[redacted: private key]\n\n\n\nb"
    assert out.count("\n") == f"a\n{block}\nb".count("\n")


def test_a_providers_token_by_its_shape_and_credentials_on_a_command_line() -> None:
    token = "dckr_pat_" + "hc8VxYclixyTr2rDFsa2rqzkP3Y"
    assert scrub(f"docker login -u rosa -p {token}") == \
        "docker login -u rosa -p [redacted: password]"
    assert scrub(f"the token {token}.") == "the token [redacted: token]."
    assert scrub("mongodb+srv://app:Pa55word9@cluster0.example.net/db") == \
        "mongodb+srv://app:[redacted: password]@cluster0.example.net/db"
    hexed = "dop_v1_" + "ef0e04edc13918192246e0c90f0735c7f4db7a5a036a857e48d6cc98f1c9576b"
    assert scrub(f'token = "{hexed}"') == 'token = "[redacted: secret]"'


@pytest.mark.parametrize("code", [
    "password = self.password", "self.passwd = passwd", "pw = pw + c",
    "'HAVE_STRUCT_PASSWD_PW_PASSWD': 1,", "self.user, self.password = user, password",
    "errors.InvalidBase64PaddingDefect()", "use get_HTTPResponseCodeFor404Errors now",
    '"""Utilities to get a password and/or the current user name.',
    'sb.append("MasterUserPassword: " + getMasterUserPassword() + ",");',
])
def test_code_that_names_passwords_is_kept(code: str) -> None:
    assert scrub(code) == code


_PIECES = ["password", "Passwort", "mot de passe", "пароль", "パスワード", "door code", "cvv",
           "api_key", "X-Api-Key", "SECRET_KEY", "PIN", "my", "the", "is", "ist", ":", "=", "は",
           " ", " ", "\n", '"', "'", "Hunter22!", "4821", "123", "sunshine", "[redacted: PIN]",
           "0123456789abcdef0123456789abcdef", "DE89 3704 0044 0532 0130 00", "to", "for",
           "-u", "-p", "dckr_pat_hc8VxYclixyTr2rDFsa2rqzkP3Y", ".", ","]


@given(st.lists(st.sampled_from(_PIECES), max_size=14))
def test_labelled_text_scrubs_idempotently_and_keeps_what_is_around_a_value(
        pieces: list[str]) -> None:
    text = " ".join(pieces)
    once = scrub(text)
    assert scrub(once) == once
    # a marker only replaces: what is left of the text keeps its order
    kept = [part for part in re.split(r"\[redacted: [A-Za-z0-9 ]+\]", once) if part]
    at = 0
    for part in kept:
        found_at = text.find(part, at)
        assert found_at >= 0, (text, once)
        at = found_at + len(part)


def test_what_a_match_took_beyond_its_secret_is_looked_at_again() -> None:
    """"Passwort:Passwortパスワード:Geheim1" took the whole token as the first value, cut it
    at the kana, and left the second password for a second pass."""
    text = "Passwort:Hunter22パスワード:Geheim123"
    assert scrub(text) == "Passwort:[redacted: password]パスワード:[redacted: password]"
