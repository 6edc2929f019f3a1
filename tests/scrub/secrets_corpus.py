"""A corpus for the scrubber (sidecar/zettelclaw/scrub/): secrets of each kind, generated in
their providers' shapes, inside the sentences people write them in; and look-alikes that must
come through unchanged. Deterministic for a seed. Used by tests/scrub/test_scrub.py and
bench/scrubber.py (detection and false-positive rates)."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from dataclasses import dataclass

B62 = string.ascii_letters + string.digits
URLSAFE = B62 + "_-"


@dataclass(frozen=True)
class Secret:
    kind: str  # the marker's kind the scrubber should write
    secret: str  # what must not survive
    text: str  # the message it appears in


def _s(rng: random.Random, n: int, alphabet: str = B62) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def luhn_complete(rng: random.Random, prefix: str, length: int) -> str:
    body = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    for check in string.digits:
        candidate = body + check
        total = 0
        for i, ch in enumerate(reversed(candidate)):
            d = int(ch) * (2 if i % 2 else 1)
            total += d - 9 if d > 9 else d
        if total % 10 == 0:
            return candidate
    raise AssertionError("unreachable")


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _jwt(rng: random.Random) -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": str(rng.randrange(10**9)), "name": "Ada",
                                  "iat": 1700000000 + rng.randrange(10**7)}).encode())
    return f"{header}.{payload}.{_b64url(rng.randbytes(32))}"


def _pem(rng: random.Random, label: str) -> str:
    body = base64.b64encode(rng.randbytes(rng.choice((120, 300, 600)))).decode()
    lines = "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----"


# IBANs from the countries' published examples: valid by mod 97, and no one's account.
IBANS = ("DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432", "FR1420041010050500013M02606",
         "NL91ABNA0417164300", "ES9121000418450200051332", "CH9300762011623852957")


def secrets(seed: int = 7, per_kind: int = 20) -> list[Secret]:
    rng = random.Random(seed)
    out: list[Secret] = []

    def add(kind: str, make_secret, sentences) -> None:  # type: ignore[no-untyped-def]
        for i in range(per_kind):
            secret = make_secret()
            out.append(Secret(kind, secret, sentences[i % len(sentences)].format(s=secret)))

    add("Anthropic API key", lambda: f"sk-ant-api03-{_s(rng, 93, URLSAFE)}AA",
        ["my key is {s}", "export ANTHROPIC_API_KEY={s}", "use {s} for the bot",
         'client = Anthropic(api_key="{s}")'])
    add("Anthropic API key", lambda: f"sk-ant-admin01-{_s(rng, 93, URLSAFE)}AA",
        ["the admin key: {s}."])
    add("OpenAI API key", lambda: f"sk-proj-{_s(rng, 58, URLSAFE)}T3BlbkFJ{_s(rng, 58, URLSAFE)}",
        ["OPENAI_API_KEY={s}", "here's the openai key {s} thanks", "({s})"])
    add("OpenAI API key", lambda: f"sk-{_s(rng, 20)}T3BlbkFJ{_s(rng, 20)}",
        ["old key {s}", "openai.api_key = '{s}'"])
    add("OpenAI API key", lambda: f"sk-svcacct-{_s(rng, 74, URLSAFE)}",
        ["service account key {s}"])
    add("GitHub token", lambda: f"ghp_{_s(rng, 36)}",
        ["git clone https://{s}@github.com/acme/api.git", "token {s}", "GH_TOKEN={s}"])
    add("GitHub token", lambda: f"gho_{_s(rng, 36)}", ["oauth: {s}"])
    add("GitHub token", lambda: f"github_pat_{_s(rng, 22)}_{_s(rng, 59)}",
        ["fine-grained PAT {s} expires in May", "set GITHUB_TOKEN to {s}"])
    add("AWS access key ID", lambda: "AKIA" + _s(rng, 16, string.ascii_uppercase + string.digits),
        ["the access key id is {s}", "aws_access_key_id = {s}"])
    add("AWS secret access key", lambda: _s(rng, 38, B62 + "/+") + rng.choice("ab") + "7",
        ["aws_secret_access_key = {s}", "AWS secret: {s}",
         "keys: AKIAIOSFODNN7EXAMPLE / {s}"])
    add("Slack token", lambda: f"xoxb-{rng.randrange(10**11, 10**12)}-"
        f"{rng.randrange(10**12, 10**13)}-{_s(rng, 24)}", ["slack bot token {s}"])
    add("Slack token", lambda: f"xoxp-{rng.randrange(10**11, 10**12)}-"
        f"{rng.randrange(10**11, 10**12)}-{rng.randrange(10**12, 10**13)}-"
        f"{_s(rng, 32, 'abcdef0123456789')}",
        ["SLACK_USER_TOKEN={s}"])
    add("Stripe secret key", lambda: f"sk_live_{_s(rng, 99)}", ["stripe live key {s}"])
    add("Stripe secret key", lambda: f"rk_live_{_s(rng, 24)}", ["restricted key {s}."])
    add("Google API key", lambda: f"AIza{_s(rng, 35, URLSAFE)}",
        ["maps key {s}", "GOOGLE_API_KEY={s}", "?key={s}&q=cafe"])
    add("Hugging Face token", lambda: f"hf_{_s(rng, 34)}", ["HF_TOKEN={s}", "hub token {s}"])
    add("npm token", lambda: f"npm_{_s(rng, 36)}", ["//registry.npmjs.org/:_authToken={s}"])
    add("GitLab token", lambda: f"glpat-{_s(rng, 20, URLSAFE)}", ["gitlab token {s}"])
    add("SendGrid API key", lambda: f"SG.{_s(rng, 22, URLSAFE)}.{_s(rng, 43, URLSAFE)}",
        ["SENDGRID_API_KEY={s}"])
    add("Twilio API key", lambda: "SK" + _s(rng, 32, "0123456789abcdef"), ["twilio key {s}"])
    add("Discord bot token", lambda: f"M{_s(rng, 25, URLSAFE)}.{_s(rng, 6, URLSAFE)}."
        f"{_s(rng, 38, URLSAFE)}", ["discord bot token {s}"])
    add("JSON Web Token", lambda: _jwt(rng), ["session cookie {s}", "jwt={s}"])
    add("bearer token", lambda: _s(rng, 40, URLSAFE + "."),
        ["curl -H 'Authorization: Bearer {s}' https://api.example.com",
         "use bearer {s} for the staging API"])
    add("private key", lambda: _pem(rng, "RSA PRIVATE KEY"), ["the deploy key:\n{s}\nkeep it"])
    add("private key", lambda: _pem(rng, "OPENSSH PRIVATE KEY"), ["{s}"])
    add("private key", lambda: _pem(rng, "EC PRIVATE KEY"), ["here: {s}"])
    add("private key", lambda: _pem(rng, "PRIVATE KEY"), ["pasted {s} by mistake"])
    add("password", lambda: rng.choice(["hunter2", "Tr0ub4dor&3", "correcthorse", "s3cret!",
                                        "P@ssw0rd2026", "letmein", "dragon88", "qwerty!"])
        + _s(rng, 2, string.digits),
        ["password={s}", "my password is {s}", "The wifi password is {s}",
         'DB_PASSWORD="{s}"', "password: {s}", "my gmail password is {s} don't share it",
         "postgres://admin:{s}@db.internal:5432/app", "our router password for the office is {s}"])
    add("password", lambda: rng.choice(["sunshine", "monkey", "football", "princess"]),
        ["my password is {s}", "her password was {s}."])
    add("PIN", lambda: str(rng.randrange(1000, 99999999)),
        ["my PIN is {s}", "PIN: {s}", "the pin code = {s}"])
    add("password", lambda: "Zx" + _s(rng, 10),
        ["dbPassword: {s}", "db.password={s}", "DB_PWD={s}", "mysql -u root --password={s}",
         "login: rosa / pw: {s}"])
    # a label in another language, or a code that opens something
    add("password", lambda: rng.choice(["Geheim", "Sommer", "Soleil", "Gato", "Tigr", "Sakura"])
        + _s(rng, 3, string.digits) + rng.choice(["", "!", "#"]),
        ["Passwort: {s}", "Mein Kennwort ist {s}", "Kennwort {s}", "Das WLAN-Passwort lautet {s}.",
         "mon mot de passe est {s}", "mot de passe : {s}", "mi contraseña es {s}",
         "contraseña: {s}", "мой пароль {s}", "пароль от почты — {s}", "パスワードは{s}です。",
         "パスワード\uff1a{s}", "pw is {s}", "senha: {s}", "het wachtwoord is {s}"])
    add("access code", lambda: str(rng.randrange(1000, 999999)),
        ["the door code is {s}", "alarm code {s}", "gate code: {s}#", "Türcode {s}",
         "le digicode est {s}", "the garage code for mum's house is {s}.",
         "I changed the door code to {s} today"])
    add("card security code", lambda: str(rng.randrange(100, 1000)),
        ["cvv {s}", "CVC: {s}", "card 4111 1111 1111 1111, CVV2 {s}"])
    add("API key", lambda: _s(rng, 32, "0123456789abcdef"),
        ['api_key = "{s}"', "X-Api-Key: {s}", "curl -H 'x-api-key: {s}'", "API key {s}"])
    add("secret", lambda: _s(rng, 64, "0123456789abcdef"),
        ["SECRET_KEY={s}", "client_secret: '{s}'", "access_token={s}&scope=read"])
    add("Hugging Face token", lambda: "hf_" + _s(rng, 34, string.ascii_letters),
        ["HF_TOKEN={s}", "hub token {s}"])
    add("IBAN", lambda: rng.choice(IBANS), ["my IBAN is {s}.", "IBAN: {s}", "send it to {s}"])
    for prefix, length in (("4", 16), ("51", 16), ("55", 16), ("34", 15), ("37", 15),
                           ("6011", 16), ("35", 16), ("2221", 16)):
        for _ in range(max(1, per_kind // 4)):
            number = luhn_complete(rng, prefix, length)
            spaced = " ".join(number[i:i + 4] for i in range(0, len(number), 4))
            for form, sentence in ((number, "card {s} exp 04/29"),
                                   (spaced, "my card number is {s}, cvc on the back")):
                out.append(Secret("card number", form, sentence.format(s=form)))
    return out


def lookalikes(seed: int = 11, per_kind: int = 20) -> list[str]:
    """Texts with nothing secret in them, shaped like secrets: they must come through as sent."""
    rng = random.Random(seed)
    out: list[str] = []
    for _ in range(per_kind):
        out.append(f"request id {uuid.UUID(int=rng.getrandbits(128))} failed")
        out.append(f"fixed in commit {hashlib.sha1(rng.randbytes(8)).hexdigest()}")  # noqa: S324
        out.append(f"short sha {hashlib.sha1(rng.randbytes(8)).hexdigest()[:7]} on main")  # noqa: S324
        out.append(f"sha256: {hashlib.sha256(rng.randbytes(8)).hexdigest()}")
        out.append(f"md5 {hashlib.md5(rng.randbytes(8)).hexdigest()} matches")  # noqa: S324
        out.append(f"upgrade to v{rng.randrange(1, 30)}.{rng.randrange(0, 40)}."
                   f"{rng.randrange(0, 200)}-rc.{rng.randrange(1, 9)} next week")
        out.append(f"see entry {''.join(rng.choice(URLSAFE) for _ in range(12))} for context")
        out.append(f"call me at +1 ({rng.randrange(200, 999)}) {rng.randrange(200, 999)}-"
                   f"{rng.randrange(1000, 9999)} or +44 20 {rng.randrange(1000, 9999)} "
                   f"{rng.randrange(1000, 9999)}")
        # order numbers of card length that fail Luhn, or start like no card network
        while True:
            order = str(rng.randrange(10**15, 10**16))
            digits = [int(c) for c in order]
            total = sum(d if i % 2 == 0 else (d * 2 - 9 if d * 2 > 9 else d * 2)
                        for i, d in enumerate(reversed(digits)))
            if total % 10:
                break
        out.append(f"order #{order} shipped")
        out.append(f"invoice 1{rng.randrange(10**14, 10**15)} is paid")  # starts with 1
        out.append(f"tracking number 9{rng.randrange(10**19, 10**20)}")
        out.append(f"timestamp {rng.randrange(1_600_000_000_000, 1_900_000_000_000)} ms")
        out.append("image data:image/png;base64,"
                   + base64.b64encode(rng.randbytes(300)).decode())
        out.append(f"the build artifact {base64.b64encode(rng.randbytes(30)).decode()} "
                   "was uploaded")
    out += [
        "Pneumonoultramicroscopicsilicovolcanoconiosis and antidisestablishmentarianism",
        "The password is stored in 1Password, in the team vault",
        "the password is required for the admin panel",
        "my password is not working after the reset",
        "Reset your password in settings; the password is case sensitive",
        "password reset links expire after 24 hours",
        "Use a password manager: passwords are long and random",
        "the API key is in the vault, ask Sam for it",
        "tokens expire after 3600 seconds; refresh_token rotation is on",
        "set the secret in the environment, not in the code",
        "the task-management-service-for-the-billing-team is ready",
        "desk-reservation-system-v2 shipped",
        "Use sk-learn? No, scikit-learn is the package name",
        "ghost_protocol_enabled = true",
        "eyJ is how base64 of a JSON object starts",
        "Bearer tokens go in the Authorization header",
        "the bearer of this letter is my friend",
        "AKIA is the prefix of AWS access key ids",
        "see https://docs.example.com/api/v2/auth#tokens for the token format",
        "postgres://db.internal:5432/app has no credentials in it",
        "the PIN pad was replaced",
        "git rebase -i HEAD~3 then git push --force-with-lease",
        "ISBN 978-0-306-40615-7 and ISSN 0317-8471",
        "coordinates 48.858844, 2.294351",
        "IBAN DE89 3704 0044 0532 0130 01 (a checksum that fails)",
        "the code is in main.py", "the code is 200 lines long", "password reset link sent",
        "the password reset link expires in 24 hours", "I ran 4821 meters today",
        "the alarm code was changed last week", "call the gate code hotline",
        "our order number is 48210 and the room is 4821", "PIN 17 on the Arduino board",
        "the cvv field is required", "Passwort vergessen? Dann klick auf den Link",
        "le mot de passe est obligatoire", "la contraseña es incorrecta",
        "пароль не подходит", "パスワードは必要です", "the password is 12 characters long",
        "my password is twelve characters long", "the password manager I use is great",
        "api key rotation is on", "the secret is out: we ship on Friday",
        "token ring networks were popular in 1989", "the door code works again",
        "version 4821 of the API key format", "in 2026 we had 1234 users and 5678 sessions",
        "my api_key is in the vault", "Password: ask Sam for it",
        "I need to reset my password tomorrow", "my password to the bank is not working",
        "the password to access it is in the vault",
        "api_key_header = X-Api-Key",
        "token_count = 15000",
        "secret_santa_group = family2026",
        "the meeting is 2026-11-26 14:30 in room 4B",
        "Blake2b digest 7f0e3c2a9d8b1e4f6a5c3d2e1f0a9b8c of the file",
        "shipping: 5 days, mapping: done, typing: fast, topping: cheese",
        "compass: north; bypass: on; passenger: Ana Lima",
        "PWD=/home/rosa/projects and pwd: /tmp",
        "password: ${DB_PASSWORD} comes from the environment",
        'password = os.environ["DB_PASSWORD"]',
        "password = getpass()",
        "pin: true, pinned: yes",
        "Pin the message: the pin is on the board",
        "the bearer authentication-mechanism-explained in the docs",
        "remember_password = false",
    ]
    return out
