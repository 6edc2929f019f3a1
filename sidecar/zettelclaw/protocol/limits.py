"""What one message may be, beyond its size (framing.py): how deep, how many in a batch, what id.

Checked on the parsed message before any validation library sees it: jsonschema and pydantic
recurse, and a message nested a thousand levels deep (orjson parses up to 1,024) made the
error's repr overflow Python's stack. No request of this protocol nests beyond a dozen levels.
A batch runs its elements concurrently, so its length is bounded too; and an id must come back
exactly as it was sent, which a float made from a 30-digit integer cannot.
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 64  # arrays and objects inside one another
MAX_BATCH = 64  # elements of one batch
_EXACT_FLOAT_ID = 2.0**53  # beyond this, a float id is not the integer that was sent


def nesting_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` holds containers nested more than ``limit`` deep. Iterative (no
    recursion to overflow), and stops at the first path that is too deep."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, dict | list))
    return False


def inexact_id(request_id: Any) -> bool:
    """An id that cannot be echoed as sent: a number past 2**53 (orjson reads an integer past
    64 bits as a float, which has lost its digits)."""
    return isinstance(request_id, float) and abs(request_id) >= _EXACT_FLOAT_ID
