"""The sidecar's own requests to a client, and the client's replies to them. Pure: no I/O.

JSON-RPC 2.0 is symmetric: on one connection either side may send requests. A client announces
what it can do for the sidecar (``host.offer``), and the sidecar may then send it requests such
as ``llm.complete``. Their ids are strings (``"zc-1"``, ...), so a client's log tells them apart
from its own numeric ids. A reply is any object with an ``id`` and a ``result`` or an ``error``
and no ``method``: the connection hands it to the request waiting for it, not to the dispatcher.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from zettelclaw.errors import ZettelclawError, from_json


@dataclass(frozen=True, slots=True)
class Reply:
    request_id: str
    result: Any = None
    error: ZettelclawError | None = None


def request_line(request_id: str, method: str, params: dict[str, Any]) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": request_id, "method": method,
                         "params": params}) + b"\n"


def as_reply(decoded: Any) -> Reply | None:
    """The reply ``decoded`` is, or None when it is not one (a request, a notification, junk).

    Only string ids are the sidecar's; a reply with another id answers nothing it sent and is
    None here too (the dispatcher then answers it as an invalid request, as it did before)."""
    if not isinstance(decoded, dict) or "method" in decoded:
        return None
    request_id = decoded.get("id")
    if not isinstance(request_id, str) or ("result" in decoded) == ("error" in decoded):
        return None
    if "error" in decoded:
        error = decoded["error"]
        return Reply(request_id, error=from_json(error if isinstance(error, dict) else {}))
    return Reply(request_id, result=decoded["result"])
