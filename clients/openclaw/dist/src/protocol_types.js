// Generated from sidecar/zettelclaw/protocol/protocol.schema.json by
// `python -m zettelclaw.protocol.typescript --write`: do not edit
// (tests/protocol/test_typescript.py fails when this file is not what the schema generates).
// The sidecar's pydantic models are the source: protocol/params/ and protocol/results/,
// paired by protocol/contract.py.
export {};
