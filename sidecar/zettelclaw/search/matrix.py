"""``Matrix``: the embedding models' output (one float32 row a text), a type only: numpy is
imported only where a model runs. Its own module so that the models (``local_model.py``,
``http_embeddings.py``) and the vectors' user (``semantic.py``) need not import each other."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy as np
    import numpy.typing as npt

    Matrix: TypeAlias = npt.NDArray[np.float32]
