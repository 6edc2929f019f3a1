"""The command line of each file generated from the protocol's models (the JSON Schema, the
plugin's TypeScript types, the agents' tool schemas): print it, or write it over the committed
copy with ``--write``; the tests compare the committed copy with the text."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def write_or_print(prog: str, target: Path, text: Callable[[], str],
                   argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--write", action="store_true", help=f"write {target}")
    if parser.parse_args(argv).write:
        target.write_text(text())
    else:
        sys.stdout.write(text())
    return 0
