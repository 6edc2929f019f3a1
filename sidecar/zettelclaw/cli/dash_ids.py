"""Entry ids that begin with a dash: ``-`` is one of the id alphabet's 64 symbols, so one id in
64 does, and argparse reads ``zettelclaw forget -4xTq9LmZ_a0`` as an unknown option (exit 2).
A word of an id's exact shape that is no option the parser knows is passed through parsing
under a mask (``mask``) and given back in the parsed values (``unmask``)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence

from zettelclaw.log.schema import ID_ALPHABET, ID_LENGTH

_SHAPE = re.compile(f"-[{re.escape(ID_ALPHABET)}]{{{ID_LENGTH - 1}}}")
_MASK = "\x00entry-id:"


def option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string of the parser and of its sub-commands' parsers."""
    found: set[str] = set()
    for action in parser._actions:  # argparse lists its actions nowhere else
        found.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= option_strings(sub)
    return found


def mask(argv: Sequence[str], known: set[str]) -> list[str]:
    """``argv`` with each dash-led id masked (none after a ``--``: argparse reads those as they
    are)."""
    out: list[str] = []
    for i, word in enumerate(argv):
        if word == "--":
            return [*out, *argv[i:]]
        is_id = _SHAPE.fullmatch(word) is not None and word not in known \
            and not any(option.startswith(word) for option in known if option.startswith("--"))
        out.append(_MASK + word if is_id else word)
    return out


def unmask(args: argparse.Namespace) -> None:
    """The masked ids in the parsed values given back as they were typed."""
    for name, value in vars(args).items():
        if isinstance(value, str) and value.startswith(_MASK):
            setattr(args, name, value.removeprefix(_MASK))
        elif isinstance(value, list):
            setattr(args, name, [v.removeprefix(_MASK) if isinstance(v, str) else v
                                 for v in value])
