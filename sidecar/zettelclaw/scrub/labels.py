"""Secrets known by what names them: a label (``password``, ``Kennwort``, ``mot de passe``,
``пароль``, ``door code``, ``cvv``, ``api_key``, ``X-Api-Key``), maybe a few words (``for the
office``), a binder (``:``, ``=``, ``is``, ``ist``, ``est``, ``es``, ``—``, ``は``, or none),
then the value. The value's span is what is replaced, exactly: quotes around it and the
punctuation after it stay.

How much a value must look like a secret depends on how it is bound. After ``:``/``=``, after a
possessive (``my password is ...``) or in quotes, any value but a word that talks about the
password (``required``, ``falsch``, ``incorrect``) or a reference (``$VAR``, ``getpass()``).
After a bare ``is`` (``the password is ...``), not a plain lower-case word. With no binder at
all (``Kennwort Geheim123``), only a value with a digit, or a symbol and a capital. A code
(``PIN``, ``door code``, ``alarm code``, ``cvv``) is digits, with or without a binder.
"""

from __future__ import annotations

import re

from zettelclaw.scrub.rules import MARKER_RE, Rule, Span, has_lower, random_looking

# The labels of a password, by language; a Latin one is a word of its own or the end of a
# compound ("WLAN-Passwort", "wifi password"), never inside a word ("compass", "bypass").
_PASSWORD_LATIN = (
    r"password|passwort|passwd|passphrase|passcode|pass ?word|pw|kennwort|mot de passe|mdp|"  # noqa: S105
    r"contrase[ñn]a|clave|senha|wachtwoord|has[łl]o|[şs]ifre|l[öo]senord|salasana|adgangskode|"
    r"passordet|passord|jelsz[óo]")
_PASSWORD_OTHER = r"пароль|пароля|паролем|パスワード|暗証番号|密码|密碼|비밀번호"  # noqa: S105
# Codes that open something: digits only.
_CODE = (r"(?:door|alarm|gate|garage|safe|lock|keypad|entry|access|building|lockbox|key ?box|"
         r"locker|padlock|bike lock|front door|house|security system|burglar alarm)"
         r"[ -](?:code|pin|combination|combo)|"
         r"t[üu]rcode|zugangscode|alarmcode|tresorcode|torcode|geheimzahl|digicode|"
         r"code (?:de la porte|d'acc[èe]s|de l'alarme|du portail|d'entr[ée]e|secret)|"
         r"c[óo]digo (?:de la puerta|de acceso|de la alarma|del portal)|"
         r"код (?:от двери|домофона|сигнализации|от сейфа)")
_CARD_CODE = (r"cvv2?|cvc2?|cvn|csc|card security code|card verification (?:code|value)|"
              r"kartenpr[üu]fnummer|pr[üu]fnummer|cryptogramme")
# A key by its name in configuration, headers or prose: API_KEY, X-Api-Key, SECRET_KEY,
# client_secret, "auth token". The name may be longer (OPENAI_API_KEY, stripeSecretKey).
_NAME_HEAD = r"(?:[A-Za-z0-9]+[_.\-])*[A-Za-z0-9]*"
_API_KEY_NAME = rf"{_NAME_HEAD}(?i:api[_\- ]?(?:key|token))"
_SECRET_NAME = (rf"{_NAME_HEAD}(?i:secret[_\- ]?key|client[_\- ]?secret|app[_\- ]?secret|"
                r"access[_\- ]?token|auth[_\- ]?token|refresh[_\- ]?token|access[_\- ]?key|"
                r"private[_\- ]?key|auth[_\- ]?key|account[_\- ]?key|secret|token|credentials?|"
                r"(?<=[_.\-])pat)")

# Possessives that make "<label> is <value>" a statement of the value.
_OWN = (r"my|our|his|her|their|your|mein\w*|unser\w*|dein\w*|sein\w*|ihr\w*|mon|ma|mes|notre|"
        r"votre|son|sa|mi|mis|nuestr\w+|tu|su|meu|minha|mijn|onze|мой|моя|мои|наш\w*|твой|"
        r"твоя")
# "is" and its kin, and "to" ("I changed the password to ..."); a ":" may follow.
_VERB = (r"is|was|are|is now|is still|to|ist|lautet|war|hei[ßs]t|est|était|c'est|es|era|è|é|"
         r"это|—|\u2013|->|→|=>")
_QUOTED = r"\"[^\"\n]+\"|'[^'\n]+'|`[^`\n]+`|«[^»\n]+»|„[^“”\n]+[“”]|“[^”\n]+”|「[^」\n]+」"
# an unquoted value is a whole token: it is not cut short to let what follows it match
_VALUE = rf"(?P<value>{_QUOTED}|[^\s\"'`]+(?![^\s\"'`]))"
# "<label> for the office wifi is": what it is for, between a label and a verb
_BETWEEN = (r"(?:[ \t]+(?i:for|to|of|on|at|from|für|zum|zur|vom|von|des|der|du|de|del|da|do|"
            r"от|для|к)(?:[ \t]+[^\s:=]+){1,4}?)?")
# Words of a unit after the value: "the password is 12 characters long" says no password.
_UNIT = (r"(?![ \t]+(?:characters?|chars?|digits?|letters?|symbols?|long|Zeichen|Stellen|"
         r"caract[èe]res|caracteres|символ\w*)\b)")


def _labelled(label: str) -> re.Pattern[str]:
    """``label`` then its value, bound by ``:``/``=`` (bind), a verb (verb) or nothing."""
    return re.compile(
        rf"(?P<own>(?i:\b(?:{_OWN})\b)[ \t]+(?:[\w-]+[ \t]+){{0,3}}?)?{label}"
        rf"(?:(?P<bind>[\"']?[ \t]*(?::=|=>|=|:|\uff1a)[ \t]*)"
        rf"|(?P<verb>{_BETWEEN}[ \t]+(?i:{_VERB})(?!\w)(?:[ \t]*:)?[ \t]*)"
        rf"|(?P<ja>[ \t]*(?:は|が|\uff1a)[ \t]*)"
        rf"|(?P<bare>[ \t]+))"
        rf"{_VALUE}{_UNIT}")


# Words after a password's label that talk about it: not a password.
NOT_A_PASSWORD = frozenset("""
a an the not no now still too very also just only required incorrect correct wrong right
stored saved kept hashed encrypted set reset changed expired invalid valid missing empty
weak strong long short there here in on at for of to from with by it this that same
different one protected needed necessary optional rotated updated shared known unknown
being been case sensitive hidden visible good bad fine ok okay done
true false yes none null nil undefined manager field policy hint prompt protected
credentials user username
nicht kein keine falsch richtig erforderlich notwendig geändert abgelaufen gespeichert
ungültig gültig leer vergessen ist
pas faux requis obligatoire incorrect correct oublié expiré changé vide
requerido obligatorio incorrecta correcta olvidada cambiada vacía
не неверный неправильный верный нужен
""".split())

# What comes after "password=" in code and templates without being a password: a path, a
# variable or template reference, a call or an index (getpass(), os.environ["X"]).
_REFERENCE = re.compile(r"[/~$%{<]|[A-Za-z_][\w.]*[(\[]")
# code, not a value: an attribute path (self.password, settings.DB_PASSWORD) or a name that
# is itself a password's name (passwd, password_mgr, pwd)
_CODE_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|(?:[a-z]+_)*(?:pass[a-z]*|pwd|pw)"
                        r"(?:_[a-z]+)*")


def code_not_value(word: str) -> bool:
    """An unquoted value after ``password =`` that is code or too short to be a password
    ("password = self.password", "pw = pw + c", "PW_PASSWD': 1")."""
    return len(word) < 3 or _CODE_NAME.fullmatch(word) is not None


def code_in_quotes(inner: str) -> bool:
    """A quoted "value" that is code: the gap between two strings concatenated
    ("Password: " + get() + ",") or a resource name (arn:aws:iam::...)."""
    return inner[:1].isspace() or inner[-1:].isspace() or inner.startswith("arn:")


_PROSE_GOES_ON = re.compile(r"[ \t]+[A-Za-z]+\b")


def prose_goes_on(text: str, value: str, end: int) -> bool:
    """A lower-case word after ``password:`` that a sentence goes on from ("Password: ask Sam
    for it"): prose, not a password ("password: sunshine" stays one)."""
    return value.isalpha() and value.islower() and _PROSE_GOES_ON.match(text, end) is not None


_CJK = re.compile(r"[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]")
_TRAILING = ".,;:?)]}>"
_QUOTES = "\"'`«„“「"


def _value_span(match: re.Match[str]) -> Span | None:
    """The value's span without its quotes, without what follows it in CJK text
    ("hunter2です") and without the sentence's punctuation after it."""
    start, end = match.span("value")
    value = match.group("value")
    if value[0] in _QUOTES:
        return (start + 1, end - 1) if end - start > 2 else None
    cjk = _CJK.search(value)
    if cjk is not None:
        end = start + cjk.start()
    while end > start and match.string[end - 1] in _TRAILING:
        end -= 1
    return (start, end) if end > start else None


def _password(match: re.Match[str]) -> Span | None:
    span = _value_span(match)
    if span is None:
        return None
    value = match.string[span[0]:span[1]]
    quoted = span[0] != match.start("value")
    talk = (value.startswith("[redacted") or MARKER_RE.search(value) is not None
            or value.lower() in NOT_A_PASSWORD or "://" in value)
    if talk or (not quoted and (_REFERENCE.match(value) or code_not_value(value))):
        return None
    if quoted:
        ok = not code_in_quotes(value)
    elif match.group("bare") is not None:  # "Kennwort Geheim123": a digit, or a symbol
        # with a capital ("P@ssword"); not "and/or", "anonymous@"
        ok = len(value) >= 4 and (any(c.isdigit() for c in value) or (
            any(c.isupper() for c in value) and any(not c.isalnum() for c in value)))
    elif (verb := match.group("verb")) is not None and verb.split()[-1].lower() == "to":
        # "changed the password to Hunter22", not "sent my password to Sam"
        ok = any(not c.isalpha() for c in value)
    elif verb is not None:  # "my password is sunshine"; "the password is" needs more
        ok = match.group("own") is not None or (
            not (value.isdigit() and len(value) < 4) and not (value.isalpha() and value.islower()))
    else:  # after ":" or "=": not the first word of a sentence ("Password: ask Sam for it")
        ok = not prose_goes_on(match.string, value, span[1])
    return span if ok else None


def _code(match: re.Match[str]) -> Span | None:
    span = _value_span(match)
    if span is None:
        return None
    value = match.string[span[0]:span[1]].rstrip("#*")
    if not value.isdigit() or not 3 <= len(value) <= 10:
        return None
    return span[0], span[0] + len(value)


def _pin(match: re.Match[str]) -> Span | None:
    span = _code(match)
    return span if span is not None and span[1] - span[0] >= 4 else None


def _card_code(match: re.Match[str]) -> Span | None:
    span = _code(match)
    return span if span is not None and span[1] - span[0] in (3, 4) else None


def _key(match: re.Match[str]) -> Span | None:
    span = _value_span(match)
    if span is None:
        return None
    value = match.string[span[0]:span[1]]
    if len(value) < 16 or MARKER_RE.search(value) or _REFERENCE.match(value) or "://" in value:
        return None
    # the value, or a part of it after a provider's prefix (dop_v1_<hex>, key-<hex>)
    parts = [value, *(p for p in _PARTS.split(value) if len(p) >= 16)]
    if any(random_looking(p) for p in parts):
        return span
    if match.group("bare") is not None or match.group("verb") is not None:
        return None
    # quoted or bound: also a long value with symbols (Django's SECRET_KEY), or of lower-case
    # letters and digits (base32: Azure DevOps tokens)
    symbols = any(not c.isalnum() and c not in "-_." for c in value)
    digits = sum(c.isdigit() for c in value)
    letters = any(c.isalpha() for c in value)
    lower_random = value.isalnum() and value.islower() and digits >= 3 and len(value) >= 24
    return span if lower_random or (symbols and letters and digits and len(value) >= 24) \
        else None


_PARTS = re.compile(r"[_\-.:]")
_LATIN_EDGE = r"(?<![^\W\d_])"  # not after a letter: "compass" and "bypass" carry no label
_LATIN_END = r"(?![^\W\d_])"

RULES: tuple[Rule, ...] = (
    Rule("password", _labelled(
        rf"(?i:{_LATIN_EDGE}(?:{_PASSWORD_LATIN}){_LATIN_END}|(?:{_PASSWORD_OTHER}))"),
        has_lower("pass", "pw", "kennwort", "mdp", "contrase", "clave", "senha", "wachtwoord",
                  "hasło", "haslo", "ifre", "senord", "salasana", "adgangskode", "jelsz", "пароль",
                  "パスワード", "暗証番号", "密码", "密碼", "비밀번호"), _password),
    Rule("PIN", _labelled(r"(?i:\b(?:pin(?:[ -]?(?:code|number|nummer))?|pin-?code)\b)"),
         has_lower("pin"), _pin),
    Rule("access code", _labelled(rf"(?i:\b(?:{_CODE})\b)"),
         has_lower("code", "pin", "combination", "combo", "zahl", "код"), _code),
    Rule("card security code", _labelled(rf"(?i:\b(?:{_CARD_CODE})\b)"),
         has_lower("cvv", "cvc", "cvn", "csc", "security code", "verification", "nummer",
                   "cryptogramme"), _card_code),
    Rule("API key", _labelled(rf"\b{_API_KEY_NAME}\b"), has_lower("api"), _key),
    Rule("secret", _labelled(rf"\b{_SECRET_NAME}\b"),
         has_lower("key", "secret", "token", "credential"), _key),
)
