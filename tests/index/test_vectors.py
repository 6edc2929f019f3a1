"""index/vectors.py: vectors kept per model and text, the other models' dropped; and the chunks'
stamp, which the chunks' matrix of semantic search is kept by, changes with every change of the
memory files' chunks, a chunk replaced under its own id included."""

from __future__ import annotations

import os
from pathlib import Path

from zettelclaw.home import Home
from zettelclaw.index import vectors
from zettelclaw.index.database import Index
from zettelclaw.index.file_chunks import WorkspaceIndexer
from zettelclaw.index.ingest import Ingester


def test_a_vector_is_kept_per_model_and_text(index: Index) -> None:
    with index.write() as conn:
        vectors.store(conn, [("m1", "h1", b"\x01\x02"), ("m2", "h1", b"\x03\x04")])
    with index.read() as conn:
        assert vectors.vector(conn, "m1", "h1") == b"\x01\x02"
        assert vectors.vector(conn, "m2", "h1") == b"\x03\x04"
        assert not vectors.has_vector(conn, "m1", "h2")
    with index.write() as conn:
        vectors.drop_other_models(conn, "m2")
    with index.read() as conn:
        assert not vectors.has_vector(conn, "m1", "h1")
        assert vectors.has_vector(conn, "m2", "h1")


def test_the_chunks_stamp_changes_with_every_change_of_the_chunks(
        index: Index, workspace: Path) -> None:
    files = WorkspaceIndexer(index, workspace)
    note = workspace / "MEMORY.md"

    def stamp() -> tuple[object, ...]:
        files.sync()
        with index.read() as conn:
            return vectors.chunks_stamp(conn)

    def rewrite(text: str) -> None:
        note.write_text(text)
        st = note.stat()  # a later mtime, as a second edit would have
        os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))

    empty = stamp()
    rewrite("# Preferences\n- Aisle seats on long flights\n")
    first = stamp()
    rewrite("# Preferences\n- Wide seats on long flights!\n")  # its one chunk replaced
    second = stamp()
    assert len({empty, first, second}) == 3
    assert first[:2] == second[:2], "the same count and highest id: the version tells"
    assert stamp() == second, "nothing changed"


def test_the_chunks_stamp_never_comes_back_after_an_index_reset(
        index: Index, home: Home, workspace: Path) -> None:
    """A reset (the log rewritten) forgets the index's meta but keeps the chunks: a version that
    counted from 0 again gave the next change the stamp of a matrix made before the reset."""
    files = WorkspaceIndexer(index, workspace)
    note = workspace / "MEMORY.md"
    note.write_text("# Preferences\n- Aisle seats on long flights\n")
    files.sync()
    with index.read() as conn:
        before = vectors.chunks_stamp(conn)
    Ingester(index, home.log).reset()
    note.write_text("# Preferences\n- Wide seats on long flights!\n")  # its one chunk replaced
    st = note.stat()
    os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    files.sync()
    with index.read() as conn:
        after = vectors.chunks_stamp(conn)
    assert after[:2] == before[:2], "the same count and highest id"
    assert after != before
