// The sidecar's methods, typed: their params and results come from protocol_types.ts, which is
// generated from the sidecar's own schema (sidecar/zettelclaw/protocol/protocol.schema.json), so
// tsc holds every call made through here to the contract the sidecar checks (protocol.md).

import type { MethodName, ParamsOf, ResultOf } from "./protocol_types.ts";
import type { RpcClient } from "./rpc.ts";

export type { MethodName, ParamsOf, ResultOf } from "./protocol_types.ts";

// A method none of whose params is required may be called without params (none are sent).
type Optional<M extends MethodName> = Record<never, never> extends ParamsOf<M> ? undefined : never;

/** Call `method` with params of its type; the answer has its result's type. */
export function request<M extends MethodName>(client: RpcClient, method: M, params: ParamsOf<M> | Optional<M>, timeoutMs?: number): Promise<ResultOf<M>> {
  return client.call<ResultOf<M>>(method, params as Record<string, unknown> | undefined, timeoutMs);
}
