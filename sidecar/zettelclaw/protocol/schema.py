"""The JSON Schema of every method's params and result, generated from the pydantic models of
``contract.py``: ``python -m zettelclaw.protocol.schema --write`` writes ``protocol.schema.json``
(beside this module); without ``--write`` it prints it. tests/protocol/test_protocol_schema.py
fails when the committed file is not what the models generate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from zettelclaw.protocol.contract import CONTRACT
from zettelclaw.protocol.generated import write_or_print

SCHEMA_FILE = Path(__file__).with_name("protocol.schema.json")
REF = "#/$defs/{model}"


def result_models(result: Any) -> list[type[BaseModel]]:
    """The models of a contract's result: itself, or the members of a union."""
    return list(get_args(result)) if get_args(result) else [result]


def schema() -> dict[str, Any]:
    """``{"methods": {name: {"params": {$ref}, "result": {$ref} or {anyOf}}}, "$defs": {...}}``,
    as the wire spells the fields (camelCase): params as accepted, results as sent."""
    params = {sig.params for sig in CONTRACT.values()}
    results = {m for sig in CONTRACT.values() for m in result_models(sig.result)}
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        *((m, "validation") for m in sorted(params, key=lambda m: m.__name__)),
        *((m, "serialization") for m in sorted(results, key=lambda m: m.__name__))]
    _, defs = models_json_schema(models, ref_template=REF)
    methods: dict[str, Any] = {}
    for name, sig in sorted(CONTRACT.items()):
        refs = [{"$ref": REF.format(model=m.__name__)} for m in result_models(sig.result)]
        methods[name] = {"params": {"$ref": REF.format(model=sig.params.__name__)},
                         "result": refs[0] if len(refs) == 1 else {"anyOf": refs}}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Zettelclaw sidecar protocol (protocol.md)",
            "methods": methods, "$defs": dict(sorted(defs.get("$defs", {}).items()))}


def text() -> str:
    return json.dumps(schema(), indent=1, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    return write_or_print("python -m zettelclaw.protocol.schema", SCHEMA_FILE, text, argv)


if __name__ == "__main__":
    raise SystemExit(main())
