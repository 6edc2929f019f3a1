"""The OpenClaw plugin's settings as openclaw.json holds them (``plugins.entries.zettelclaw``).

Two uses: the CLI finds the socket the plugin's sidecar listens on (``socket_path``, the plugin's
``socketPath``, resolved as clients/openclaw/src/settings.ts resolves it), and ``zettelclaw
init`` checks the settings against the plugin's own schema (``problems``: the ``configSchema``
of ``openclaw.plugin.json``, which OpenClaw enforces by refusing to start the gateway).
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from zettelclaw.openclaw.config_file import ConfigFileError, read_config, resolve_config_path

logger = logging.getLogger(__name__)

PLUGIN_ID = "zettelclaw"
MANIFEST = Path(__file__).parent / "shipped-plugin" / "openclaw.plugin.json"
_VARIABLE = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)\}")  # OpenClaw's env substitution in config


def plugin_settings(data: Mapping[str, Any]) -> Any:
    """``plugins.entries.zettelclaw.config`` of a parsed openclaw.json (None when absent)."""
    node: Any = data
    for part in ("plugins", "entries", PLUGIN_ID, "config"):
        if not isinstance(node, Mapping):
            return None
        node = node.get(part)
    return node


def socket_path(env: Mapping[str, str]) -> Path | None:
    """The plugin's ``socketPath`` in OpenClaw's config (found as OpenClaw finds it:
    ``resolve_config_path``), made absolute as the plugin makes it; None when it is not set, or
    the config cannot be read (then the default applies, and -v says why)."""
    config_path = resolve_config_path(None, env)
    try:
        config = read_config(config_path)
    except ConfigFileError as exc:
        logger.info("the plugin's socketPath not read: %s", exc)
        return None
    settings = plugin_settings(config.data)
    value = settings.get("socketPath") if isinstance(settings, Mapping) else None
    if not isinstance(value, str) or not value:
        return None
    missing = [name for name in _VARIABLE.findall(value) if name not in env]
    if missing:
        logger.info("the plugin's socketPath %s not used: $%s is not set", value, missing[0])
        return None
    value = _VARIABLE.sub(lambda m: env[m[1]], value)
    if value.startswith("~/"):
        value = os.path.join(os.path.expanduser("~"), value[2:])
    return Path(value).absolute()


@cache
def config_schema() -> dict[str, Any]:
    """The plugin's ``configSchema`` (from the plugin shipped with this package)."""
    schema = json.loads(MANIFEST.read_text())["configSchema"]
    assert isinstance(schema, dict)
    return schema


@dataclass(frozen=True)
class Problem:
    key: str  # the setting, e.g. "timeoutMS"
    message: str  # "unknown key; did you mean timeoutMs?"
    fix: str | None = None  # the key to move its value to, when one is a close match

    def __str__(self) -> str:
        return f"plugins.entries.{PLUGIN_ID}.config.{self.key}: {self.message}"


def problems(settings: Any) -> list[Problem]:
    """What OpenClaw would refuse in the plugin's settings, one problem per key, each naming the
    key (and the known key it is closest to). Checked with the schema itself (jsonschema), so
    the answer is the manifest's, not a copy of it."""
    import jsonschema

    if settings is None or (isinstance(settings, Mapping) and "$include" in settings):
        return []  # none; or in another file, which OpenClaw merges in: not ours to judge
    schema = config_schema()
    if not isinstance(settings, Mapping):
        return [Problem("", f"must be an object of settings, not {type(settings).__name__}")]
    known = list(schema.get("properties", {}))
    found: list[Problem] = []
    for key in settings:
        if key in known:
            continue
        close = difflib.get_close_matches(key, known, 1, 0.6) or [
            k for k in known if k.lower() == key.lower()]
        hint = f"; did you mean {close[0]}?" if close else f" (known: {', '.join(known)})"
        fix = close[0] if close and close[0] not in settings else None
        found.append(Problem(key, f"unknown key{hint}", fix))
    validator = jsonschema.Draft7Validator({**schema, "additionalProperties": True})
    for error in validator.iter_errors(dict(settings)):
        if isinstance(error.instance, str) and "${" in error.instance:
            continue  # an environment reference: its value is not known here
        key = ".".join(str(p) for p in error.absolute_path)
        found.append(Problem(key, error.message))
    return found
