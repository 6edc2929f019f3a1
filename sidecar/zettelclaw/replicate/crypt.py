"""Encryption of the sync repository's lines: age (age-encryption.org/v1), through pyrage.

Every machine of one memory holds the same X25519 identity (``HOME/replicate/key``, 0600: the
one secret sync keeps on disk, like an ssh key). A batch of lines is one age message, armored as
one line of the machine's file: ``age:`` and the message in base64. The files stay append-only
(a batch is a new line), and the Git host sees only ciphertext and the lines' count and sizes.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path

import pyrage
from pyrage import x25519

from zettelclaw.errors import SyncError
from zettelclaw.files import atomic_write_bytes
from zettelclaw.home import FILE_MODE, Home
from zettelclaw.replicate.machine import directory

PREFIX = b"age:"


def key_path(home: Home) -> Path:
    return directory(home) / "key"


def load(home: Home) -> x25519.Identity | None:
    try:
        text = key_path(home).read_text().strip()
    except FileNotFoundError:
        return None
    return parse_key(text, str(key_path(home)))


def parse_key(text: str, where: str) -> x25519.Identity:
    lines = [line.strip() for line in text.splitlines()
             if line.strip() and not line.startswith("#")]
    if len(lines) != 1 or not lines[0].startswith("AGE-SECRET-KEY-1"):
        raise SyncError(f"{where}: not an age secret key (one line, AGE-SECRET-KEY-1...)")
    try:
        return x25519.Identity.from_str(lines[0])
    except Exception as exc:  # pyrage raises its own error types
        raise SyncError(f"{where}: not a valid age secret key ({exc})") from None


def save(home: Home, identity: x25519.Identity) -> None:
    recipient = identity.to_public()
    atomic_write_bytes(key_path(home), f"# zettelclaw sync key; public key: {recipient}\n"
                       f"{identity}\n".encode(), FILE_MODE)


def generate(home: Home) -> x25519.Identity:
    identity = x25519.Identity.generate()
    save(home, identity)
    return identity


def recipient(identity: x25519.Identity) -> str:
    return str(identity.to_public())


def seal(lines: list[bytes], identity: x25519.Identity) -> bytes:
    """One line (no newline) holding ``lines`` encrypted."""
    message = pyrage.encrypt(b"\n".join(lines), [identity.to_public()])
    return PREFIX + base64.b64encode(message)


def unseal(line: bytes, identity: x25519.Identity | None, where: str) -> list[bytes]:
    """The lines a file's line holds: itself when plain, the batch when sealed."""
    if not line.startswith(PREFIX):
        return [line]
    if identity is None:
        raise SyncError(f"{where} is encrypted and this machine has no key: copy the key file "
                        "from a machine that syncs this memory and run "
                        "`zettelclaw sync init REMOTE --key-file FILE` (docs/14-sync.md)")
    try:
        plain = pyrage.decrypt(base64.b64decode(line[len(PREFIX):], validate=True), [identity])
    except (binascii.Error, ValueError) as exc:
        raise SyncError(f"{where}: a line is not a valid age message ({exc})") from None
    except Exception as exc:  # pyrage.DecryptError: the wrong key, or bytes altered
        raise SyncError(f"{where}: a line cannot be decrypted with this machine's key ({exc}); "
                        "is it the key the other machines use?") from None
    return plain.split(b"\n")
