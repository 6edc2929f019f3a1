"""Rust panics that reach Python: pyo3's ``PanicException``, a ``BaseException``.

tantivy (index/term_shard.py) and the other Rust extensions panic where Rust code cannot go on;
pyo3 raises that in Python as ``pyo3_runtime.PanicException``, which derives from
``BaseException`` so that ``except Exception`` does not swallow it. A thread that could not be
made (the process out of threads or address space: "Failed to spawn meta file watcher thread")
is such a panic, and once passed every ``except Exception`` wall of the sidecar: exit 1 for
every client (tests/test_panics.py). The method boundary (protocol/dispatcher.py), the background's
supervisor (supervise.py) and a memory's background work (agents/background.py) catch it with
``is_panic``, and only it: KeyboardInterrupt, SystemExit and trio's Cancelled go on.

Each pyo3 extension has a class of its own, of the module ``pyo3_runtime``, which is not
importable: it is told by name.
"""

from __future__ import annotations


def is_panic(exc: BaseException) -> bool:
    """Whether ``exc`` is a Rust panic raised through pyo3."""
    kind = type(exc)
    return kind.__name__ == "PanicException" and kind.__module__ == "pyo3_runtime"
