// memory_search and memory_get: memory-core's tools and result shapes, answered by the sidecar;
// memory_remember and memory_forget: the owner's own writes (the sidecar refuses them anywhere but
// the owner's private sessions). While the sidecar is down they answer an "unavailable" shape
// instead of failing.

import type { AnyAgentTool } from "openclaw/plugin-sdk/plugin-entry";
import type { ToolAudience } from "./audience.ts";
import { request } from "./protocol.ts";
import type { MethodName } from "./protocol_types.ts";
import { RpcError, type RpcClient } from "./rpc.ts";
import { SLOW_CALL_MS, compact } from "./settings.ts";
import { TOOLS, type ToolSpec } from "./tool_schemas.ts";
import { ErrorCode } from "./protocol_constants.ts";

// -- tool results in memory-core's shape ------------------------------------------------------

type ToolResult = { content: { type: "text"; text: string }[]; details: unknown };

function toolResult(payload: unknown): ToolResult {
  return { content: [{ type: "text", text: JSON.stringify(payload, null, 2) }], details: payload };
}

function unavailable(socketPath: string, error: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const reason = error instanceof Error ? error.message : String(error);
  const warning = `Zettelclaw memory is unavailable: its sidecar does not answer on ${socketPath}.`;
  const action =
    "Start the Zettelclaw sidecar: run `zettelclaw serve`, or restart the gateway, which starts it when " +
    "plugins.entries.zettelclaw.config.autostart is on (the default). `openclaw zettelclaw status` shows " +
    "its state. Memory comes back by itself once the sidecar answers.";
  return { ...extra, disabled: true, unavailable: true, error: reason, warning, action, debug: { warning, action, error: reason } };
}

// The model's input is held to the tool's parameter schema, generated with the MCP server's from
// the sidecar's params (tool_schemas.ts); it goes to the route's method as it is, and the sidecar
// validates it again (an invalid call answers an RpcError). memory-core's names are the sidecar's
// to take, as are a blank query and the defaults.
export function toolCall(spec: ToolSpec, input: Record<string, unknown>): { method: MethodName; params: Record<string, unknown> } {
  const route = spec.routes.find((r) => r.when === undefined || input[r.when] === true)!;
  return { method: route.method, params: compact(Object.fromEntries(route.params.map((name) => [name, input[name]]))) };
}

async function forward(rpc: RpcClient, spec: ToolSpec, input: unknown, extra: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { method, params } = toolCall(spec, (input ?? {}) as Record<string, unknown>);
  return (await request(rpc, method, { ...params, ...extra } as never, SLOW_CALL_MS)) as Record<string, unknown>;
}

function tool(spec: ToolSpec, execute: AnyAgentTool["execute"]): AnyAgentTool {
  return { name: spec.name, label: spec.label, description: spec.description, parameters: spec.parameters, execute } as AnyAgentTool;
}

/** The memory tools for one turn: `audience` goes with every call; `sessionId` (the turn's) is the session memory_remember writes under. */
export function memoryTools(client: () => RpcClient, audience: ToolAudience = {}, sessionId?: string): AnyAgentTool[] {
  const search = tool(TOOLS.memory_search, async (_toolCallId: string, params: unknown) => {
    const rpc = client();
    try {
      return toolResult(await forward(rpc, TOOLS.memory_search, params, audience));
    } catch (error) {
      if (error instanceof RpcError) return toolResult({ results: [], error: error.message, code: error.code, data: error.data });
      return toolResult(unavailable(rpc.socketPath, error, { results: [] }));
    }
  });
  const get = tool(TOOLS.memory_get, async (_toolCallId: string, params: unknown) => {
    const input = (params ?? {}) as Record<string, unknown>;
    const path = typeof input.path === "string" ? input.path : "";
    const rpc = client();
    try {
      return toolResult({ status: "ok", path, ...(await forward(rpc, TOOLS.memory_get, input, audience)) });
    } catch (error) {
      if (error instanceof RpcError) {
        if (error.code === ErrorCode.NotFound) return toolResult({ status: "not_found", path, text: "" });
        return toolResult({ status: "error", path, text: "", code: error.code, error: error.message });
      }
      return toolResult(unavailable(rpc.socketPath, error, { path, text: "" }));
    }
  });
  // a write: the owner's own, under the turn's session; the sidecar refuses it anywhere else
  const write = (spec: ToolSpec, extra: Record<string, unknown>) =>
    tool(spec, async (_toolCallId: string, params: unknown) => {
      const rpc = client();
      try {
        return toolResult({ status: "ok", ...(await forward(rpc, spec, params, { ...extra, ...audience })) });
      } catch (error) {
        if (error instanceof RpcError) return toolResult({ status: "error", error: error.message, code: error.code, data: error.data });
        return toolResult(unavailable(rpc.socketPath, error, { status: "error" }));
      }
    });
  return [search, get, write(TOOLS.memory_remember, compact({ sessionId })), write(TOOLS.memory_forget, {})];
}

/** The system prompt's memory section (memory-core's registerMemoryCapability promptBuilder). */
export const MEMORY_PROMPT = [
  "## Memory (Zettelclaw)",
  "Long-term memory is a log of facts, decisions, tasks, questions and session handoffs, written " +
    "automatically after each conversation. The last handoff may appear before the user's message. " +
    "Before answering about prior work, decisions, people, preferences or todos, call memory_search " +
    "(filters: type, subject, status); read an entry or its source conversation with memory_get. " +
    "When the user asks you to remember something, call memory_remember; to forget something, memory_forget.",
  "",
];
