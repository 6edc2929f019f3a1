"""What start-up and large imports made, kept out of the garbage collector's full passes.

CPython's full (generation 2) collection walks every tracked object, and holds the GIL while it
does. With the Anthropic SDK imported the sidecar tracks a great many objects (its modules,
classes and pydantic schemas), and a hook that came during a full pass waited for all of it
(bench/README.md#search-at-a-million-entries). ``gc.freeze()`` moves every object that exists to a
permanent generation that collections skip, so a full pass sees only what was made since. It is
called once start-up is done and after each large import made later (the SDK, the embedding
model). A frozen object is still freed by reference counting; only garbage cycles among frozen
objects would stay, and what exists at those points lives as long as the process.
"""

from __future__ import annotations

import gc


def freeze() -> None:
    """Everything tracked now is left out of future collections."""
    gc.freeze()
