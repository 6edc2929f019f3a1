"""The error classes: one JSON-RPC code each, mapped back by the client, listed in protocol.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zettelclaw import errors
from zettelclaw.errors import (
    ALL_ERRORS,
    BY_CODE,
    InternalError,
    SubjectNotFoundError,
    ZettelclawError,
    from_json,
)

PROTOCOL_DOC = Path(__file__).resolve().parent.parent / "protocol.md"

STANDARD = {
    "ParseError": -32700,
    "InvalidRequestError": -32600,
    "MethodNotFoundError": -32601,
    "InvalidParamsError": -32602,
    "InternalError": -32603,
}

# | -32001 | MessageTooLargeError | meaning |   (the class name may be in backticks)
ERROR_ROW = re.compile(r"^\|\s*(-32\d{3})\s*\|\s*`?([A-Za-z_]\w*)`?\s*\|", re.MULTILINE)


def test_every_code_is_unique() -> None:
    codes = [cls.code for cls in ALL_ERRORS]
    assert len(codes) == len(set(codes))
    assert len(BY_CODE) == len(ALL_ERRORS)


def test_all_errors_lists_every_error_class_of_the_module() -> None:
    # one class per code (ALL_ERRORS); a refinement that only changes the CLI's exit code
    # (ConfigError: a bad setting is bad input, exit 2) keeps its base's code and is rebuilt
    # from the wire as that base
    defined = {obj for obj in vars(errors).values()
               if isinstance(obj, type) and issubclass(obj, ZettelclawError)
               and obj is not ZettelclawError and obj.__module__ == errors.__name__}
    refinements = defined - set(ALL_ERRORS)
    assert set(ALL_ERRORS) <= defined
    for cls in refinements:
        assert BY_CODE[cls.code] in cls.__mro__[1:], f"{cls.__name__} has a code of its own"


def test_standard_codes_are_the_json_rpc_ones() -> None:
    assert {cls.__name__: cls.code for cls in ALL_ERRORS if cls.code <= -32600} == STANDARD


def test_zettelclaws_own_codes_are_in_the_server_error_range() -> None:
    own = [cls for cls in ALL_ERRORS if cls.__name__ not in STANDARD]
    assert own
    for cls in own:
        assert -32099 <= cls.code <= -32000, cls


@pytest.mark.parametrize("cls", ALL_ERRORS, ids=lambda cls: cls.__name__)
def test_from_json_maps_each_code_back_to_its_class(cls: type[ZettelclawError]) -> None:
    original = cls("something specific", {"slug": "auth"})
    rebuilt = from_json(original.to_json())
    assert type(rebuilt) is cls
    assert (rebuilt.code, rebuilt.message, rebuilt.data) == (cls.code, "something specific",
                                                              {"slug": "auth"})


def test_to_json_leaves_out_absent_data_and_uses_the_default_message() -> None:
    assert SubjectNotFoundError().to_json() == {"code": -32005, "message": "Subject not found"}
    assert SubjectNotFoundError("no 'x'", {"slug": "x"}).to_json() == {
        "code": -32005, "message": "no 'x'", "data": {"slug": "x"}}


def test_an_error_is_an_exception_with_its_message() -> None:
    error = SubjectNotFoundError("no subject 'x'")
    assert isinstance(error, Exception)
    assert str(error) == "no subject 'x'"


def test_from_json_keeps_an_unknown_code() -> None:
    error = from_json({"code": -32050, "message": "from a newer server", "data": [1]})
    assert isinstance(error, ZettelclawError)
    assert type(error) not in ALL_ERRORS
    assert (error.code, error.message, error.data) == (-32050, "from a newer server", [1])
    assert error.to_json() == {"code": -32050, "message": "from a newer server", "data": [1]}
    assert BY_CODE.get(-32050) is None  # nothing was registered on the way


@pytest.mark.parametrize("malformed", [{}, {"code": "-32005", "message": "x"}, {"code": None}])
def test_from_json_of_a_malformed_error_is_an_internal_error(malformed: dict[str, object]
                                                            ) -> None:
    error = from_json(malformed)
    assert type(error) is InternalError
    assert "malformed error object" in error.message


def test_protocol_md_lists_exactly_the_error_classes() -> None:
    rows = [(int(code), name) for code, name in ERROR_ROW.findall(PROTOCOL_DOC.read_text())]
    assert rows, "protocol.md has no error table rows of the form | -32001 | ClassName | ... |"
    codes = [code for code, _ in rows]
    assert len(codes) == len(set(codes)), f"a code is listed twice in protocol.md: {rows}"
    assert set(rows) == {(cls.code, cls.__name__) for cls in ALL_ERRORS}


def test_each_error_carries_its_exit_code() -> None:
    from zettelclaw.errors import (
        EXIT_CONFLICT,
        EXIT_INTERNAL,
        EXIT_NOT_FOUND,
        EXIT_UNAVAILABLE,
        EXIT_USAGE,
    )
    from zettelclaw.server.listener import AlreadyServingError

    expected = {-32601: EXIT_USAGE, -32602: EXIT_USAGE, -32003: EXIT_USAGE, -32011: EXIT_USAGE,
                -32002: EXIT_NOT_FOUND, -32005: EXIT_NOT_FOUND, -32017: EXIT_NOT_FOUND,
                -32004: EXIT_CONFLICT,
                -32010: EXIT_UNAVAILABLE, -32006: EXIT_UNAVAILABLE,
                -32018: EXIT_UNAVAILABLE}
    for cls in ALL_ERRORS:
        assert cls("x").exit_code == expected.get(cls.code, EXIT_INTERNAL), cls.__name__
    assert AlreadyServingError("x").exit_code == EXIT_CONFLICT  # a DataDirError, but a conflict
