// Generated from sidecar/zettelclaw/errors.py and agent_ids.py by
// `python -m zettelclaw.protocol.constants --write`: do not edit
// (tests/protocol/test_protocol_constants.py fails when this file is not what they generate).

/** The sidecar's JSON-RPC error codes (protocol.md, "Errors"). */
export const ErrorCode = {
  Parse: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
  MessageTooLarge: -32001,
  NotFound: -32002,
  PathNotAllowed: -32003,
  SubjectExists: -32004,
  SubjectNotFound: -32005,
  LockTimeout: -32006,
  IndexNotReady: -32007,
  LogRewrite: -32008,
  Forbidden: -32009,
  DataDir: -32010,
  Markers: -32011,
  Restricted: -32012,
  HostModelUnavailable: -32013,
  HostModelFailed: -32014,
  ResponseTooLarge: -32015,
  MessageTimeout: -32016,
  UnknownAgent: -32017,
  Sync: -32018,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;

/** The agent a call that names none is for (and whose memory is the data directory). */
export const MAIN_AGENT = "main";

/** A canonical agent id: what the sidecar accepts (after trimming and lower-casing ASCII). */
export const AGENT_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
