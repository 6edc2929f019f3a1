// The sidecar's methods, typed: their params and results come from protocol_types.ts, which is
// generated from the sidecar's own schema (sidecar/zettelclaw/protocol/protocol.schema.json), so
// tsc holds every call made through here to the contract the sidecar checks (protocol.md).
/** Call `method` with params of its type; the answer has its result's type. */
export function request(client, method, params, timeoutMs) {
    return client.call(method, params, timeoutMs);
}
