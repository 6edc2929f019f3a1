"""A sealed segment's int8 vectors (``search/ann.py``): a file of ``DIMENSIONS`` bytes a row,
nothing else, whose rows a query gathers to rank what the segment's graph of signs found."""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DIMENSIONS = 384


class Vectors:
    """A segment's int8 vectors (``DIMENSIONS`` bytes a row, nothing else), mapped, of which a
    query gathers a few hundred rows and then lets the pages go (``MADV_DONTNEED``: they stay in
    the kernel's page cache, out of the process's resident size). The mapping holds the file
    while the segment is used (a merge may delete it meanwhile) and closes with the segment."""

    def __init__(self, path: Path, rows: int) -> None:
        import mmap

        self.rows = rows
        if path.stat().st_size != rows * DIMENSIONS:
            raise ValueError(f"{path.name} does not hold {rows} rows")
        with path.open("rb") as f:
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        weakref.finalize(self, self._map.close)

    def read(self, rows: Any) -> Any:
        """int8 (len(rows), DIMENSIONS): the vectors of ``rows`` (numpy int64)."""
        import mmap

        import numpy as np

        view = np.frombuffer(self._map, dtype=np.int8).reshape(self.rows, DIMENSIONS)
        out = view[rows]  # a copy
        del view
        if hasattr(mmap, "MADV_DONTNEED"):
            self._map.madvise(mmap.MADV_DONTNEED)
        return out

    def all(self, chunk: int) -> Iterator[Any]:
        """int8 matrices of every row, ``chunk`` rows at a time (a merge's)."""
        import numpy as np

        for start in range(0, self.rows, chunk):
            yield self.read(np.arange(start, min(start + chunk, self.rows), dtype=np.int64))

    def similarities(self, rows: Any, query: Any) -> Any:
        """Cosine of ``query`` (a unit vector) to the vectors of ``rows``."""
        import numpy as np

        vectors = self.read(rows).astype(np.float32)
        norms = np.maximum(np.linalg.norm(vectors, axis=1), 1e-12)
        return (vectors @ query / norms).astype(np.float32)


def quantize(matrix: Any) -> Any:
    """int8 rows of unit vectors (as usearch's i8: x 127); int8 rows are kept as they are."""
    import numpy as np

    if matrix.dtype == np.int8:
        return matrix
    return np.clip(np.rint(np.asarray(matrix, dtype=np.float32) * 127), -127, 127).astype(
        np.int8)
