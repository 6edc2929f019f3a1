"""zstd decoding with what is installed: a good frame, a wrong size, garbage, no decoder."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from zettelclaw.importing import zstd


def frame(data: bytes) -> bytes:
    command = shutil.which("zstd")
    if command is None or zstd.decoder() is None:
        pytest.skip("no zstd here")
    return subprocess.run([command, "-c", "-q"], input=data, capture_output=True,
                          check=True).stdout


def test_a_frame_is_decoded_and_checked_against_its_size() -> None:
    data = '{"type":"message","text":"héllo"}'.encode()
    assert zstd.decompress(frame(data), len(data)) == data.decode()
    assert zstd.decompress(frame(data), len(data) + 1) is None
    assert zstd.decompress(frame(b"\xff\xfe"), 2) is None  # not UTF-8


def test_garbage_and_no_decoder_give_none(monkeypatch: pytest.MonkeyPatch) -> None:
    assert zstd.decompress(b"not zstd at all", 15) is None
    monkeypatch.setattr(zstd, "decoder", lambda: None)
    assert zstd.decompress(b"anything", 8) is None
