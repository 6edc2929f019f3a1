"""Loading the prompts in ``prompts/`` and filling their ``{{placeholders}}``.

Prompts are Markdown files, never strings in code. A placeholder left unfilled, or a value for a
placeholder the prompt does not have, is an error: a prompt edit and the code cannot drift apart
silently.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from importlib.resources import files

PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


def load(name: str) -> str:
    return (files("zettelclaw") / "prompts" / f"{name}.md").read_text(encoding="utf-8")


def fill(template: str, values: Mapping[str, str]) -> str:
    wanted = set(PLACEHOLDER.findall(template))
    if wanted != set(values):
        missing, extra = sorted(wanted - set(values)), sorted(set(values) - wanted)
        raise ValueError(f"prompt placeholders do not match: missing {missing}, unknown {extra}")
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
