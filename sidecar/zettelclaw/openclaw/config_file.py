"""Reading and writing OpenClaw's ``openclaw.json`` without losing anything but comments.

OpenClaw reads its config as **JSON5** (comments, trailing commas, unquoted keys, single quotes)
and writes it back itself as plain JSON (``JSON.stringify(config, null, 2)``), warning that
comments are stripped. We do the same: the file is parsed with a JSON5 parser (strict JSON is
tried first, so a plain-JSON config is recognised as such), edited as data, and written back as
2-space-indented JSON, the format OpenClaw writes; when the original used JSON5 syntax, the
caller is told that comments go (the backup keeps them). A file that is not JSON5, or not an
object, is refused: nothing is written then. Values are kept as they are (``${VAR}``
references, secret refs); a non-finite number (JSON5 allows ``Infinity``) is refused, as
OpenClaw refuses to write one.

Writes are atomic (temp file, fsync, rename, fsync of the directory) and go to the real file
when the config path is a symbolic link. The previous file is first copied beside it as
``openclaw.json.zettelclaw-backup-<UTC time>``.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import json5

from zettelclaw.files import atomic_write_bytes
from zettelclaw.home import resolve_openclaw_path, resolve_openclaw_state_dir


class ConfigFileError(Exception):
    """The config cannot be read or used as it is; nothing was written."""


@dataclass(frozen=True)
class ConfigFile:
    path: Path  # as given (maybe a link)
    data: dict[str, Any]
    exists: bool
    json5_syntax: bool  # the file needed JSON5 (comments etc.): rewriting drops its comments


def resolve_config_path(explicit: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Path:
    """``--config``, else ``$OPENCLAW_CONFIG_PATH``, else ``openclaw.json`` in OpenClaw's state
    directory (``$OPENCLAW_STATE_DIR``, else ``$OPENCLAW_HOME/.openclaw``, else
    ``~/.openclaw``: home.py, OpenClaw's own order)."""
    if explicit:
        return Path(explicit).expanduser().absolute()
    if (env.get("OPENCLAW_CONFIG_PATH") or "").strip():
        return resolve_openclaw_path(env["OPENCLAW_CONFIG_PATH"], env)
    return resolve_openclaw_state_dir(env) / "openclaw.json"


def read_config(path: Path) -> ConfigFile:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return ConfigFile(path, {}, exists=False, json5_syntax=False)
    except OSError as exc:
        raise ConfigFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"cannot parse {path}: not UTF-8 text ({exc})") from exc
    json5_syntax = False
    if not text.strip():
        data: Any = {}
    else:
        try:
            data = json.loads(text)
        except ValueError:
            try:
                data = json5.loads(text)
            except ValueError as exc:
                raise ConfigFileError(f"cannot parse {path} as JSON5: {exc}") from exc
            json5_syntax = True
    if not isinstance(data, dict):
        raise ConfigFileError(f"cannot use {path}: it holds a {type(data).__name__}, "
                              "not a JSON object")
    return ConfigFile(path, data, exists=True, json5_syntax=json5_syntax)


def render(data: Mapping[str, Any]) -> bytes:
    """The config as OpenClaw writes it: 2-space JSON, UTF-8, a final newline."""
    try:
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:  # Infinity or NaN, which JSON5 allows and OpenClaw refuses
        raise ConfigFileError(f"the config holds a number JSON cannot write ({exc})") from exc
    return (text + "\n").encode()


def backup(path: Path, now: datetime | None = None) -> Path:
    """Copy the config beside itself, keeping its mode; returns the copy's path."""
    real = Path(os.path.realpath(path))
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    target = real.with_name(f"{real.name}.zettelclaw-backup-{stamp}")
    n = 1
    while target.exists():
        target = real.with_name(f"{real.name}.zettelclaw-backup-{stamp}-{n}")
        n += 1
    shutil.copy2(real, target)
    return target


def write_config(path: Path, data: Mapping[str, Any]) -> None:
    """Replace the config atomically, keeping the old file's mode (0600 for a new one)."""
    real = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(real.stat().st_mode)
    except FileNotFoundError:
        mode = 0o600
        real.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    atomic_write_bytes(real, render(data), mode)
