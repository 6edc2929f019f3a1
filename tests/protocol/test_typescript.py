"""protocol/typescript.py: the plugin's TypeScript types come from the protocol's JSON Schema,
and the committed clients/openclaw/src/protocol_types.ts is what it generates (as
tests/protocol/test_protocol_schema.py holds protocol.schema.json to the models)."""

from __future__ import annotations

import pytest

from zettelclaw.protocol import typescript
from zettelclaw.protocol.contract import CONTRACT


def test_the_committed_types_are_what_the_schema_generates() -> None:
    assert typescript.TS_FILE.read_text() == typescript.text(), (
        "clients/openclaw/src/protocol_types.ts is stale: run "
        "`python -m zettelclaw.protocol.typescript --write` (after the schema's --write)")


def test_every_method_is_typed() -> None:
    generated = typescript.text()
    for method, signature in CONTRACT.items():
        assert f'"{method}": {{ params: {signature.params.__name__}; result: ' in generated


@pytest.mark.parametrize(("node", "expected"), [
    ({"type": "string"}, "string"),
    ({"type": "integer"}, "number"),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "string | null"),
    ({"enum": ["a", "b"]}, '"a" | "b"'),
    ({"const": "log"}, '"log"'),
    ({"$ref": "#/$defs/Reason"}, "Reason"),
    ({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
     "(string | number)[]"),
    ({"type": "object", "additionalProperties": {"type": "integer"}}, "Record<string, number>"),
    ({"type": "object", "additionalProperties": False, "properties": {}}, "Record<string, never>"),
    ({}, "unknown"),
])
def test_schema_nodes(node: dict[str, object], expected: str) -> None:
    assert typescript.ts_type(node, "") == expected


def test_an_object_names_its_optional_fields_and_quotes_odd_keys() -> None:
    node = {"type": "object", "required": ["a"], "properties": {
        "a": {"type": "string", "description": "the  first\n field"}, "b-c": {"type": "boolean"}}}
    assert typescript.ts_type(node, "") == (
        '{\n  /** the first field */\n  a: string;\n  "b-c"?: boolean;\n}')
