"""An encrypted sync repository: the remote holds only age ciphertext (every version, every
file of a machine's lines); a machine without the key, or with another, gets a clear error
and changes nothing; the key file given to a new machine is all it needs; a purge rewrites
sealed batches."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.replicate.sync_machines import Machine, bare, remote_blobs
from zettelclaw.errors import SyncError
from zettelclaw.replicate import crypt, git_sync

pytestmark = pytest.mark.slow


def test_the_remote_holds_only_ciphertext(tmp_path: Path) -> None:
    remote = bare(tmp_path / "remote.git")
    a, b, c = (Machine(tmp_path, n) for n in "abc")
    made = git_sync.init(a.home, str(remote), new_key=True)
    assert made["encrypted"]
    key_file = crypt.key_path(a.home)
    assert key_file.stat().st_mode & 0o777 == 0o600
    written = a.write(30, "the pantry code is mango")
    a.sync()
    blobs = remote_blobs(remote)
    assert b"mango" not in blobs
    assert written[0]["id"].encode() not in blobs  # ids too: only ciphertext
    assert b"age:" in blobs

    git_sync.init(b.home, str(remote))  # no key
    before = b.texts()
    with pytest.raises(SyncError, match="encrypted and this machine has no key"):
        b.sync()
    assert b.texts() == before
    git_sync.init(c.home, str(remote), new_key=True)  # another key
    with pytest.raises(SyncError, match="another key"):
        c.sync()

    git_sync.init(b.home, str(remote), key=key_file.read_text())
    assert b.sync().pulled == 30
    assert sorted(b.ids()) == sorted(e["id"] for e in written)
    from_b = b.write(5, "b's line about kiwi")
    b.sync()
    a.sync()
    assert set(a.ids()) >= {e["id"] for e in from_b}
    assert b"kiwi" not in remote_blobs(remote)

    # a purge opens the sealed batches and seals them again without the purged lines
    gone = written[3]["id"]
    from zettelclaw import lock
    from zettelclaw.forget.purge import rewrite_without_locked
    from zettelclaw.replicate.ingest import record_purged_locked
    with lock.exclusive(a.home.lock):
        record_purged_locked(a.home, [gone])
        rewrite_without_locked(a.home, frozenset({gone}))
    assert a.sync().purges_published == 1
    b.sync()
    assert gone not in b.ids()
    assert len(b.ids()) == 34
    identity = crypt.load(a.home)
    sealed = [line for line in remote_blobs(remote).split(b"\n") if line.startswith(b"age:")]
    opened = b"".join(b"".join(crypt.unseal(line, identity, "remote")) for line in sealed)
    assert written[4]["id"].encode() in opened
    assert gone.encode() not in opened  # in no version, reachable or not
    fresh = Machine(tmp_path, "d")
    git_sync.init(fresh.home, str(remote), key=key_file.read_text())
    fresh.sync()
    assert gone not in fresh.ids()
    assert len(fresh.ids()) == 34
