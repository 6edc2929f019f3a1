"""Every error the sidecar can answer with: one class per JSON-RPC error code, code on the class.

The standard JSON-RPC codes come first, then Zettelclaw's own in -32000..-32099. protocol.md lists
the same table; ``tests/test_errors.py`` checks that the two agree. The client maps codes back to
these classes, so a Python caller catches ``SubjectNotFoundError`` whether it called the sidecar
over the socket or worked on the files directly. Each class also carries the CLI's exit code
for it (``exit_code``), so the table of codes is this file, not a chain of isinstance tests.
"""

from __future__ import annotations

from typing import Any, ClassVar

# The CLI's exit codes (``zettelclaw --help`` lists them)
EXIT_OK = 0
EXIT_NO_RESULTS = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_CONFLICT = 4
EXIT_UNAVAILABLE = 5
EXIT_INTERNAL = 70


class PeerGone(Exception):
    """The client the sidecar sent a request to (``protocol/peer.py``) went away, or could not
    be written to, before it replied."""


class ZettelclawError(Exception):
    """Base class: an error that has a JSON-RPC code and a message for a person."""

    code: ClassVar[int] = -32603
    exit_code: ClassVar[int] = EXIT_INTERNAL  # a bug, or a state the CLI cannot help with
    default_message: ClassVar[str] = "Internal error"

    def __init__(self, message: str | None = None, data: Any = None) -> None:
        self.message = message or self.default_message
        self.data = data
        super().__init__(self.message)

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


# -- JSON-RPC 2.0 standard codes -------------------------------------------------------------


class ParseError(ZettelclawError):
    code = -32700
    default_message = "Parse error: the message is not valid JSON"


class InvalidRequestError(ZettelclawError):
    code = -32600
    default_message = "Invalid request: not a JSON-RPC 2.0 request object"


class MethodNotFoundError(ZettelclawError):
    code = -32601
    exit_code = EXIT_USAGE
    default_message = "Method not found"


class InvalidParamsError(ZettelclawError):
    code = -32602
    exit_code = EXIT_USAGE
    default_message = "Invalid params"


class InternalError(ZettelclawError):
    code = -32603
    default_message = "Internal error"


# -- Zettelclaw's own codes (-32000..-32099) ---------------------------------------------------


class MessageTooLargeError(ZettelclawError):
    code = -32001
    default_message = "Message too large"


class NotFoundError(ZettelclawError):
    code = -32002
    exit_code = EXIT_NOT_FOUND
    default_message = "Not found"


class PathNotAllowedError(ZettelclawError):
    code = -32003
    exit_code = EXIT_USAGE
    default_message = "Path not allowed: outside the workspace's memory files"


class SubjectExistsError(ZettelclawError):
    code = -32004
    exit_code = EXIT_CONFLICT
    default_message = "Subject already exists"


class SubjectNotFoundError(ZettelclawError):
    code = -32005
    exit_code = EXIT_NOT_FOUND
    default_message = "Subject not found"


class LockTimeoutError(ZettelclawError):
    code = -32006
    exit_code = EXIT_UNAVAILABLE
    default_message = "The data directory is locked by another writer"


class IndexNotReadyError(ZettelclawError):
    code = -32007
    default_message = "The search index is still being built"


class LogRewriteError(ZettelclawError):
    code = -32008
    default_message = "The log rewrite was abandoned; the log is unchanged"


class ForbiddenError(ZettelclawError):
    code = -32009
    default_message = "Connection refused: the peer is another user"


class DataDirError(ZettelclawError):
    code = -32010
    exit_code = EXIT_UNAVAILABLE
    default_message = "The data directory cannot be used"


class ConfigError(DataDirError):
    """A setting is wrong (``config.json``, ``ZETTELCLAW_<SECTION>_<KEY>``, ``serve --set``): the
    person's input, so the CLI exits 2 (bad usage or input), not 5. It stays a DataDirError (its
    code, -32010) for callers that catch that: the data directory cannot be served as set."""

    exit_code = EXIT_USAGE
    default_message = "A setting is invalid"


class MarkersError(ZettelclawError):
    code = -32011
    exit_code = EXIT_USAGE
    default_message = "MEMORY.md's briefing markers are malformed; nothing was written"


class RestrictedError(ZettelclawError):
    code = -32012
    default_message = "Memory is not available in this chat: it is the owner's private memory"


class HostModelUnavailableError(ZettelclawError):
    """Answered by a client to the sidecar's ``llm.complete``: its model cannot be asked now."""

    code = -32013
    default_message = "The host's model cannot be asked now (none configured, not authorized, " \
        "unreachable)"


class HostModelFailedError(ZettelclawError):
    """Answered by a client to the sidecar's ``llm.complete``: its model was asked and failed."""

    code = -32014
    default_message = "The host's model was asked and the call failed"


class ResponseTooLargeError(ZettelclawError):
    code = -32015
    default_message = "The response would exceed the size limit; ask for less"


class MessageTimeoutError(ZettelclawError):
    code = -32016
    default_message = "A message was not completed in time; the connection is closed"


class UnknownAgentError(ZettelclawError):
    code = -32017
    exit_code = EXIT_NOT_FOUND
    default_message = "No such agent here"


class SyncError(ZettelclawError):
    """The sync repository could not be used (unreachable, refused, not one of ours, corrupt,
    encrypted with a key this machine lacks): nothing local was changed."""

    code = -32018
    exit_code = EXIT_UNAVAILABLE
    default_message = "The sync repository could not be used"


ALL_ERRORS: tuple[type[ZettelclawError], ...] = (
    ParseError,
    InvalidRequestError,
    MethodNotFoundError,
    InvalidParamsError,
    InternalError,
    MessageTooLargeError,
    NotFoundError,
    PathNotAllowedError,
    SubjectExistsError,
    SubjectNotFoundError,
    LockTimeoutError,
    IndexNotReadyError,
    LogRewriteError,
    ForbiddenError,
    DataDirError,
    MarkersError,
    RestrictedError,
    HostModelUnavailableError,
    HostModelFailedError,
    ResponseTooLargeError,
    MessageTimeoutError,
    UnknownAgentError,
    SyncError,
)

BY_CODE: dict[int, type[ZettelclawError]] = {cls.code: cls for cls in ALL_ERRORS}


def from_json(error: dict[str, Any]) -> ZettelclawError:
    """Rebuild the exception a server answered with (the client side of ``to_json``)."""
    code = error.get("code")
    message, data = str(error.get("message", "")), error.get("data")
    if not isinstance(code, int):
        return InternalError(f"malformed error object: {error!r}")
    cls = BY_CODE.get(code)
    if cls is None:  # a code from a newer server: keep it rather than invent another
        cls = type("UnknownServerError", (ZettelclawError,), {"code": code})
    return cls(message, data)
