"""The trio dispatcher: one JSON-RPC message (a line) in, one response line (or none) out.

The JSON-RPC 2.0 objects are ``jsonrpc.py``'s; on top, this module adds orjson, params
validated by pydantic models (-32602 with field-level detail), the domain errors of
``zettelclaw.errors``, one answer per batch element, and batches run concurrently in a trio
nursery (why not a JSON-RPC library: docs/decisions/0011-libraries-and-what-is-kept.md).
"""

from __future__ import annotations

import errno
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
import trio
from jsonschema.validators import validator_for
from pydantic import BaseModel, ValidationError

from zettelclaw.errors import (
    DataDirError,
    InternalError,
    InvalidParamsError,
    InvalidRequestError,
    MethodNotFoundError,
    ParseError,
    ResponseTooLargeError,
    ZettelclawError,
)
from zettelclaw.machine_state import machine_state
from zettelclaw.panics import is_panic
from zettelclaw.protocol import jsonrpc
from zettelclaw.protocol.framing import DEFAULT_MAX_MESSAGE_BYTES
from zettelclaw.protocol.limits import MAX_BATCH, MAX_DEPTH, inexact_id, nesting_exceeds
from zettelclaw.protocol.params import invalid_params
from zettelclaw.protocol.results import Wire

logger = logging.getLogger(__name__)

_validator = validator_for(jsonrpc.REQUEST_SCHEMA)(jsonrpc.REQUEST_SCHEMA)


def plainly_valid(obj: Any) -> bool:
    """A request the schema accepts, told without it: the common case, in a small fraction of
    the schema's time (which was a tenth of a hook's time on the sidecar's thread; protocol.md).
    Accepts only what the schema accepts (tests/protocol/test_dispatcher.py checks it over generated
    objects); anything else is left to the schema, which says what is wrong."""
    if type(obj) is not dict or not obj.keys() <= jsonrpc.REQUEST_KEYS:
        return False
    request_id = obj.get("id")
    return (type(obj.get("jsonrpc")) is str and obj["jsonrpc"] == "2.0"
            and type(obj.get("method")) is str
            and type(obj.get("params", {})) in {dict, list}
            and (request_id is None or type(request_id) in {str, int, float}))

Handler = Callable[[Any], Awaitable[Any]]


@dataclass(frozen=True)
class Method:
    params: type[BaseModel]
    handler: Handler


def error_response(exc: ZettelclawError, request_id: Any) -> dict[str, Any]:
    return jsonrpc.error(exc.code, exc.message, exc.data, request_id)


def encode(response: dict[str, Any] | list[dict[str, Any]]) -> bytes:
    return orjson.dumps(response) + b"\n"


class Dispatcher:
    def __init__(self, methods: Mapping[str, Method],
                 max_response_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        self.methods = dict(methods)
        self.max_response_bytes = max_response_bytes

    async def dispatch(self, message: bytes) -> bytes | None:
        """The response line for one message, or None when nothing is to be sent back."""
        try:
            decoded = orjson.loads(message)
        except orjson.JSONDecodeError as exc:
            return encode(error_response(ParseError(data=str(exc)), None))
        return await self.dispatch_decoded(decoded)

    async def dispatch_decoded(self, decoded: Any) -> bytes | None:
        """``dispatch`` for a message already parsed (the connection parses each line once, to
        tell replies to the sidecar's own requests from requests)."""
        if nesting_exceeds(decoded):
            error = InvalidRequestError(f"Invalid request: nested deeper than {MAX_DEPTH} levels",
                                        {"limit": MAX_DEPTH})
            return encode(error_response(error, None))
        if isinstance(decoded, list):
            if not decoded:
                return encode(error_response(InvalidRequestError(data="empty batch"), None))
            if len(decoded) > MAX_BATCH:
                error = InvalidRequestError(
                    f"Invalid request: a batch of {len(decoded)} requests; at most {MAX_BATCH}",
                    {"limit": MAX_BATCH, "length": len(decoded)})
                return encode(error_response(error, None))
            responses: list[dict[str, Any] | None] = [None] * len(decoded)

            async def run(i: int, element: Any) -> None:
                responses[i] = await self.dispatch_object(element)

            async with trio.open_nursery() as nursery:
                for i, element in enumerate(decoded):
                    nursery.start_soon(run, i, element)
            return self._batch_line([r for r in responses if r is not None])
        response = await self.dispatch_object(decoded)
        return None if response is None else self._batch_line([response], batch=False)

    def _batch_line(self, responses: list[dict[str, Any]], batch: bool = True) -> bytes | None:
        """The response line, at most ``max_response_bytes``: when the answers do not fit, the
        largest are replaced by a -32015 error for their id (ties: the later first) until they
        do; if even every answer as its error would not fit (a long batch under a small limit),
        the line is one -32015 error with id null. Room is not kept ahead for an error an answer:
        under a small limit a batch of small answers would all become errors, and that line
        exceed the limit itself (tests/protocol/test_limits.py)."""
        if not responses:
            return None
        limit = self.max_response_bytes
        parts = [orjson.dumps(response) for response in responses]
        frame = 1 if not batch else 2 + len(parts)  # the newline; brackets and commas
        total = frame + sum(len(part) for part in parts)
        if total > limit:
            for i in sorted(range(len(parts)), key=lambda i: (len(parts[i]), i), reverse=True):
                error = ResponseTooLargeError(
                    f"the response would exceed {limit} bytes; ask for less",
                    {"limit": limit, "bytes": len(parts[i])})
                replaced = orjson.dumps(error_response(error, responses[i].get("id")))
                if len(replaced) < len(parts[i]):
                    total += len(replaced) - len(parts[i])
                    parts[i] = replaced
                    if total <= limit:
                        break
            if total > limit:
                whole = ResponseTooLargeError(
                    f"the batch's {len(parts)} answers would exceed {limit} bytes even as "
                    "errors; send fewer requests a batch", {"limit": limit,
                                                            "answers": len(parts)})
                return encode(error_response(whole, None))
        if not batch:
            return parts[0] + b"\n"
        return b"[" + b",".join(parts) + b"]\n"

    async def dispatch_object(self, obj: Any) -> dict[str, Any] | None:
        """Dispatch one decoded request object; None for a notification."""
        error = None if plainly_valid(obj) else next(_validator.iter_errors(obj), None)
        if error is not None:
            request_id = obj.get("id") if isinstance(obj, dict) else None
            if (not isinstance(request_id, str | int | float) or isinstance(request_id, bool)
                    or inexact_id(request_id)):
                request_id = None
            return error_response(InvalidRequestError(data=_describe(error)), request_id)
        if inexact_id(obj.get("id")):
            return error_response(InvalidRequestError(
                "Invalid request: the id is a number too large to send back exactly; use a "
                "string or an integer below 2**53", {"field": "id"}), None)
        request = jsonrpc.Request.of(obj)
        try:
            result = await self.call(request.method, request.params)
        except ZettelclawError as exc:
            if request.notification:
                logger.info("notification %s failed: %s", request.method, exc.message)
                return None
            return error_response(exc, request.id)
        if request.notification:
            return None
        return jsonrpc.success(result, request.id)

    async def call(self, method_name: str, params: Any) -> Any:
        """Validate ``params`` for ``method_name`` and run its handler. Raises ZettelclawError."""
        method = self.methods.get(method_name)
        if method is None:
            raise MethodNotFoundError(f"Method not found: {method_name}",
                                      {"method": method_name, "methods": sorted(self.methods)})
        if isinstance(params, list):
            if params:
                raise InvalidParamsError("params must be an object (by name), not an array")
            params = {}
        try:
            model = method.params.model_validate(params)
        except ValidationError as exc:
            raise invalid_params(exc) from None
        try:
            result = await method.handler(model)
            if isinstance(result, Wire):  # built directly, for speed (protocol/results/)
                return result.wire
            if isinstance(result, BaseModel):  # protocol/results/: camelCase, unset left out
                return result.model_dump(by_alias=True, exclude_unset=True)
            return result  # a test's own table (the sidecar's: tests/protocol/test_results.py)
        except ZettelclawError:
            raise
        except (OSError, sqlite3.OperationalError) as exc:
            known = _os_error(method_name, exc)
            if known is None:
                logger.exception("%s failed", method_name)
                raise InternalError(f"Internal error in {method_name}: {type(exc).__name__}: "
                                    f"{exc}") from exc
            logger.warning("%s: %s", method_name, known.message)
            raise known from exc
        except Exception as exc:
            # A bug or an unexpected OS error: logged with its traceback, answered as -32603,
            # and the connection and the server go on.
            logger.exception("%s failed", method_name)
            raise InternalError(f"Internal error in {method_name}: {type(exc).__name__}: {exc}"
                                ) from exc
        except BaseException as exc:
            if not is_panic(exc):  # KeyboardInterrupt, Cancelled: not the method's to answer
                raise
            # A Rust panic (pyo3's PanicException, a BaseException): no thread could be made
            # for a memory's term index, say. That call fails; the server goes on (panics.py).
            logger.error("%s failed: a Rust panic: %s", method_name, exc, exc_info=exc)
            raise InternalError(f"Internal error in {method_name}: PanicException: {exc}"
                                ) from exc


def _os_error(method_name: str, exc: OSError | sqlite3.OperationalError
              ) -> ZettelclawError | None:
    """The protocol's error for an OSError (or SQLite's) that says something about the caller's
    input or the machine (-32602, -32010); None for one that is a bug (-32603)."""
    filename = getattr(exc, "filename", None)
    where = f" ({filename})" if filename else ""
    if isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG:
        return InvalidParamsError(f"Invalid params: a name in the path is too long{where}",
                                  [{"field": "path", "message": "file name too long",
                                    "type": "value_error"}])
    cause = machine_state(exc)
    if cause is None:
        return None
    code = (errno.errorcode.get(exc.errno or 0) if isinstance(exc, OSError)
            else getattr(exc, "sqlite_errorname", None))
    return DataDirError(f"{method_name} could not complete: {cause}{where}", {"errno": code})


def _describe(error: Any) -> str:
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else str(error.message)
