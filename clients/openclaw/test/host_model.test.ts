import assert from "node:assert/strict";
import { test } from "node:test";
import { HOST_MODEL_FAILED, HOST_MODEL_UNAVAILABLE, completeParams, hostModel, hostModelError, type LlmComplete } from "../src/host_model.ts";
import { RpcError } from "../src/rpc.ts";

const SIDECAR_PARAMS = {
  messages: [{ role: "user", content: "You are the memory extraction agent..." }],
  maxTokens: 4096,
  purpose: "extraction",
  timeoutMs: 120000,
};

test("the sidecar's params become OpenClaw's llm.complete params", () => {
  const params = completeParams({ ...SIDECAR_PARAMS, model: "anthropic/claude-sonnet-4-6" });
  assert.deepEqual(params.messages, SIDECAR_PARAMS.messages);
  assert.equal(params.maxTokens, 4096);
  assert.equal(params.model, "anthropic/claude-sonnet-4-6");
  assert.equal(params.purpose, "zettelclaw extraction");
  assert.ok(params.signal instanceof AbortSignal);
  assert.equal("model" in completeParams(SIDECAR_PARAMS), false, "no model: the agent's own");
});

test("params without a usable message are refused with -32602", () => {
  for (const bad of [undefined, {}, { messages: [] }, { messages: [{ role: "robot", content: "x" }] }, { messages: [{ role: "user" }] }]) {
    assert.throws(() => completeParams(bad), (e: unknown) => e instanceof RpcError && e.code === -32602);
  }
});

test("OpenClaw's errors: cannot be asked now (-32013) or asked and failed (-32014)", () => {
  const llmError = (code: string, message: string) => Object.assign(new Error(message), { code });
  const cases: [unknown, number][] = [
    [llmError("LLM_COMPLETION_NOT_AUTHORIZED", "Plugin LLM completion cannot override the target model."), HOST_MODEL_UNAVAILABLE],
    [llmError("LLM_COMPLETION_FAILED", "No model configured for agent main."), HOST_MODEL_UNAVAILABLE],
    [llmError("LLM_RUNTIME_UNAVAILABLE", "Configured agent runtime is unavailable."), HOST_MODEL_UNAVAILABLE],
    [new Error("429 Too Many Requests"), HOST_MODEL_UNAVAILABLE],
    [new Error("fetch failed"), HOST_MODEL_UNAVAILABLE],
    [new Error("Plugin inventory has retired; begin a new plugin operation."), HOST_MODEL_UNAVAILABLE], // a hot reload
    [new Error('Plugin "zettelclaw" runtime is no longer active.'), HOST_MODEL_UNAVAILABLE],
    [llmError("LLM_COMPLETION_TIMEOUT", "Plugin LLM completion timed out after 120000ms."), HOST_MODEL_FAILED],
    [llmError("LLM_COMPLETION_FAILED", "Plugin LLM completion failed."), HOST_MODEL_FAILED],
    ["a string", HOST_MODEL_FAILED],
  ];
  for (const [error, code] of cases) assert.equal(hostModelError(error).code, code, String((error as Error).message ?? error));
  assert.deepEqual(hostModelError(cases[0]![0]).data, { code: "LLM_COMPLETION_NOT_AUTHORIZED" });
});

test("the handler answers with the text, the provider's model and the usage", async () => {
  const seen: unknown[] = [];
  const complete = (async (params: unknown) => {
    seen.push(params);
    return { text: "{\"type\":\"handoff\",\"content\":\"x\"}", provider: "fake", model: "fake-model", usage: { inputTokens: 12, outputTokens: 3 } };
  }) as unknown as LlmComplete;
  const answer = await hostModel(complete)(SIDECAR_PARAMS);
  assert.deepEqual(answer, { text: "{\"type\":\"handoff\",\"content\":\"x\"}", model: "fake/fake-model", usage: { inputTokens: 12, outputTokens: 3 } });
  assert.equal(seen.length, 1);
  const failing = (async () => {
    throw Object.assign(new Error("No model configured for agent main."), { code: "LLM_COMPLETION_FAILED" });
  }) as unknown as LlmComplete;
  await assert.rejects(hostModel(failing)(SIDECAR_PARAMS), (e: unknown) => e instanceof RpcError && e.code === HOST_MODEL_UNAVAILABLE);
});
