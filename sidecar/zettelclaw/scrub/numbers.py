"""Numbers that are secrets by their own checksum: card numbers (Luhn, with a card network's
leading digits) and IBANs (ISO 13616: the country's length, and mod 97 of the rearranged
number is 1), so an order number or a phone number of the same length is kept."""

from __future__ import annotations

import re

from zettelclaw.scrub.rules import Rule, group, luhn

# Issuer prefixes of the card networks (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay,
# Maestro): a Luhn-valid number that starts otherwise is an order or account number.
_CARD_PREFIX = re.compile(r"4|5[1-5]|2[2-7]|3[47]|3[05689]|6[0-9]")
_CARD_LENGTHS = range(13, 20)
_DIGIT_RUN = re.compile(r"\d{4}")


def _card(match: re.Match[str]) -> bool:
    digits = re.sub(r"[ -]", "", match.group(0))
    return (len(digits) in _CARD_LENGTHS and _CARD_PREFIX.match(digits) is not None
            and luhn(digits))


# The IBAN length of each country that issues them (the SWIFT IBAN registry).
IBAN_LENGTHS = {c: int(n) for c, n in (pair.split(":") for pair in """
AD:24 AE:23 AL:28 AT:20 AZ:28 BA:20 BE:16 BG:22 BH:22 BI:27 BR:29 BY:28 CH:21 CR:22 CY:28 CZ:24
DE:22 DJ:27 DK:18 DO:28 EE:20 EG:29 ES:24 FI:18 FK:18 FO:18 FR:27 GB:22 GE:22 GI:23 GL:18 GR:27
GT:28 HR:21 HU:28 IE:22 IL:23 IQ:23 IS:26 IT:27 JO:30 KW:30 KZ:20 LB:28 LC:32 LI:21 LT:20 LU:20
LV:21 LY:25 MC:27 MD:24 ME:22 MK:19 MN:20 MR:27 MT:31 MU:30 NI:28 NL:18 NO:15 OM:23 PK:24 PL:28
PS:29 PT:25 QA:29 RO:24 RS:22 RU:33 SA:24 SC:31 SD:18 SE:24 SI:19 SK:24 SM:27 SO:23 ST:25 SV:28
TL:23 TN:24 TR:26 UA:29 VA:22 VG:24 XK:20
""".split())}


def iban_valid(text: str) -> bool:
    """Whether ``text`` (spaces allowed) is an IBAN: a known country, its length, mod 97."""
    compact = text.replace(" ", "").upper()
    if IBAN_LENGTHS.get(compact[:2]) != len(compact) or not compact[2:4].isdigit():
        return False
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(c, 36)) for c in rearranged)
    return int(number) % 97 == 1


def _iban(match: re.Match[str]) -> bool:
    return iban_valid(match.group(0))


def _has_iban_start(text: str, lower: str) -> bool:
    # a digit first: a scan for one is ten times cheaper than the expression on chat text
    return any(d in text for d in "0123456789") and _IBAN_START.search(text) is not None


_IBAN_START = re.compile(r"[A-Z][A-Z]\d\d")

RULES: tuple[Rule, ...] = (
    # printed in groups of four (DE89 3704 0044 0532 0130 00) or in one piece
    Rule("IBAN", re.compile(
        r"(?<![\w-])[A-Z]{2}\d{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?)"
        r"(?![\w-])"), _has_iban_start, group(0, _iban)),
    # a card number stands alone: not a run of digits inside a hash, an id or an IBAN
    Rule("card number", re.compile(r"(?<![\w-])(?<![A-Z]{2}\d\d )\d(?:[ -]?\d){12,18}(?![\w-])"),
         lambda text, lower: _DIGIT_RUN.search(text) is not None, group(0, _card)),
)
