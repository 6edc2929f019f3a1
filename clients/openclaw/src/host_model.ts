// The host's model for the sidecar: answers the sidecar's `llm.complete` requests (protocol.md,
// "The host's model") with OpenClaw's `api.runtime.llm.complete`, which runs the agent's
// configured model with the credentials OpenClaw holds, so memory needs no Anthropic key.
//
// OpenClaw's errors are sorted into the protocol's two codes: the model cannot be asked now
// (-32013: not authorized, no model, the provider unreachable or rate limited, the plugin's
// handle retired by a reload; the job waits),
// or it was asked and failed (-32014: a timeout, an error reply; the job's attempt counts).

import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { RpcError } from "./rpc.ts";
import { ErrorCode } from "./protocol_constants.ts";

export const HOST_MODEL_UNAVAILABLE = ErrorCode.HostModelUnavailable;
export const HOST_MODEL_FAILED = ErrorCode.HostModelFailed;
const DEFAULT_TIMEOUT_MS = 120_000;

export type LlmComplete = OpenClawPluginApi["runtime"]["llm"]["complete"];
type Message = { role: "system" | "user" | "assistant"; content: string };

const UNAVAILABLE_CODES = new Set(["LLM_COMPLETION_NOT_AUTHORIZED", "LLM_RUNTIME_UNAVAILABLE", "LLM_ISOLATED_UNSUPPORTED"]);
/** OpenClaw's error for a call made with state a hot reload retired (src/live.ts). */
export const RETIRED_HANDLE = /inventory has retired/i;

// ... and OpenClaw's words for a handle retired by a hot reload (src/live.ts): the reloaded
// plugin's offer comes next, and the job must wait for it, not count a failed attempt.
const UNAVAILABLE_TEXT =
  /no model configured|injected runtime config|\b(401|403|429|503|529)\b|rate.?limit|overloaded|ECONNREFUSED|ENOTFOUND|fetch failed|inventory has retired|runtime is no longer active|async work scope is closed/i;

/** The sidecar's llm.complete params as OpenClaw's, or an RpcError (-32602) saying what is wrong. */
export function completeParams(params: unknown): Parameters<LlmComplete>[0] {
  const p = (params ?? {}) as Record<string, unknown>;
  const messages: Message[] = [];
  for (const m of Array.isArray(p.messages) ? p.messages : []) {
    const { role, content } = (m ?? {}) as Record<string, unknown>;
    if ((role === "user" || role === "assistant" || role === "system") && typeof content === "string") {
      messages.push({ role, content });
    }
  }
  if (messages.length === 0) throw new RpcError(ErrorCode.InvalidParams, "llm.complete: messages must hold at least one {role, content}");
  const timeoutMs = typeof p.timeoutMs === "number" && p.timeoutMs > 0 ? p.timeoutMs : DEFAULT_TIMEOUT_MS;
  return {
    messages,
    ...(typeof p.system === "string" ? { systemPrompt: p.system } : {}),
    ...(typeof p.maxTokens === "number" ? { maxTokens: p.maxTokens } : {}),
    ...(typeof p.model === "string" && p.model ? { model: p.model } : {}),
    purpose: `zettelclaw ${typeof p.purpose === "string" ? p.purpose : "memory"}`,
    signal: AbortSignal.timeout(timeoutMs),
  };
}

/** OpenClaw's error as the protocol's: -32013 (ask again later) or -32014 (a failed attempt). */
export function hostModelError(error: unknown): RpcError {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const unavailable = (typeof code === "string" && UNAVAILABLE_CODES.has(code)) || UNAVAILABLE_TEXT.test(message);
  return new RpcError(unavailable ? HOST_MODEL_UNAVAILABLE : HOST_MODEL_FAILED, message, typeof code === "string" ? { code } : undefined);
}

/** The handler of the sidecar's llm.complete. */
export function hostModel(complete: LlmComplete) {
  return async (params: unknown): Promise<Record<string, unknown>> => {
    const request = completeParams(params);
    try {
      const result = await complete(request);
      return {
        text: result.text,
        model: result.model.includes("/") ? result.model : `${result.provider}/${result.model}`,
        usage: result.usage,
      };
    } catch (error) {
      throw hostModelError(error);
    }
  };
}
