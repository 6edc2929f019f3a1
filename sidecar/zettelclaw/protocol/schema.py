"""The JSON Schema of every method's params and result, generated from the pydantic models of
``contract.py``: ``python -m zettelclaw.protocol.schema --write`` writes ``protocol.schema.json``
(beside this module); without ``--write`` it prints it. tests/test_protocol_schema.py fails when
the committed file is not what the models generate."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from zettelclaw.protocol.contract import CONTRACT

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
    parser = argparse.ArgumentParser(prog="python -m zettelclaw.protocol.schema")
    parser.add_argument("--write", action="store_true", help=f"write {SCHEMA_FILE}")
    args = parser.parse_args(argv)
    if args.write:
        SCHEMA_FILE.write_text(text())
    else:
        sys.stdout.write(text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
