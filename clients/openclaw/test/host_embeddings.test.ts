// src/host_embeddings.ts: the sidecar's embeddings.embed answered by OpenClaw's own embedding
// provider. OpenClaw's real SDK (the cached openclaw@2026.9.6) with its real `openai` adapter,
// pointed by memory.search.remote at a fake OpenAI-compatible /v1/embeddings on 127.0.0.1; the
// service's offer through a fake sidecar on a real socket.

import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { createPlugin } from "../index.ts";
import { embeddingChoice, embedParams, HostEmbeddings, openClawEmbeddingSdk, type Choice } from "../src/host_embeddings.ts";
import { HOST_MODEL_FAILED, HOST_MODEL_UNAVAILABLE } from "../src/host_model.ts";
import { RpcError } from "../src/rpc.ts";
import { FakeApi, FakeSidecar, until } from "./helpers.ts";

/** A fake OpenAI-compatible embeddings server: a text's vector is [length, 1, 0]. */
class FakeEmbeddings {
  readonly requests: { model?: string; input?: unknown }[] = [];
  status = 200;
  private server: Server | null = null;

  async start(): Promise<string> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const parsed = JSON.parse(body) as { model?: string; input?: unknown };
        this.requests.push(parsed);
        const texts = Array.isArray(parsed.input) ? (parsed.input as string[]) : [String(parsed.input)];
        res.writeHead(this.status, { "content-type": "application/json" });
        res.end(JSON.stringify(this.status === 200
          ? { object: "list", model: parsed.model, data: texts.map((t, index) => ({ object: "embedding", index, embedding: [t.length, 1, 0] })) }
          : { error: { message: "fake failure" } }));
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

const openai = (baseUrl: string, more: Record<string, unknown> = {}) => ({
  memory: { search: { provider: "openai", remote: { baseUrl, apiKey: "sk-fake" }, ...more } },
});

test("the choice: OpenClaw's memory.search provider and model, or why none", async () => {
  const sdk = await openClawEmbeddingSdk();
  assert.equal(embeddingChoice(sdk, {}), "OpenClaw's memory.search.provider is not set");
  assert.equal(embeddingChoice(sdk, { memory: { search: { provider: "none" } } }), 'OpenClaw\'s memory.search.provider is "none"');
  assert.equal(embeddingChoice(sdk, { memory: { search: { provider: "no-such-provider" } } }), 'OpenClaw has no embedding provider "no-such-provider"');
  const chosen = embeddingChoice(sdk, openai("http://127.0.0.1:9/v1")) as Choice;
  assert.deepEqual([chosen.provider, chosen.model], ["openai", "text-embedding-3-small"], "the adapter's default model");
  const named = embeddingChoice(sdk, openai("http://127.0.0.1:9/v1", { model: "text-embedding-3-large" })) as Choice;
  assert.equal(named.model, "text-embedding-3-large");
  const own = { ...openai("http://127.0.0.1:9/v1"), agents: { entries: { main: { memory: { search: { provider: "none" } } } } } };
  assert.equal(embeddingChoice(sdk, own), 'OpenClaw\'s memory.search.provider is "none"', "the main agent's own setting first");
});

test("the params: texts, purpose and deadline; anything else is -32602", () => {
  const { texts, query, signal } = embedParams({ texts: ["a", "b"], purpose: "query", timeoutMs: 1000 });
  assert.deepEqual([texts, query, signal instanceof AbortSignal], [["a", "b"], true, true]);
  assert.equal(embedParams({ texts: ["a"] }).query, false);
  for (const bad of [undefined, {}, { texts: [] }, { texts: ["a", 1] }, { texts: "a" }]) {
    assert.throws(() => embedParams(bad), (e: unknown) => e instanceof RpcError && e.code === -32602);
  }
});

test("OpenClaw's openai provider embeds the sidecar's texts; its failures are -32013 or -32014", async (t) => {
  const server = new FakeEmbeddings();
  const url = await server.start();
  t.after(() => server.stop());
  const sdk = await openClawEmbeddingSdk();
  let config: unknown = openai(url);
  const changed: unknown[] = [];
  const embeddings = new HostEmbeddings(async () => embeddingChoice(sdk, config), () => "openai/text-embedding-3-small", (c) => changed.push(c));
  t.after(() => embeddings.close());
  const answer = await embeddings.embed({ texts: ["four", "sixsix"], purpose: "document", timeoutMs: 5000 });
  assert.deepEqual(answer, { vectors: [[4, 1, 0], [6, 1, 0]] });
  assert.deepEqual(server.requests.at(-1)?.input, ["four", "sixsix"]);
  assert.equal(server.requests.at(-1)?.model, "text-embedding-3-small");
  server.status = 500;
  await assert.rejects(embeddings.embed({ texts: ["x"] }), (e: unknown) => e instanceof RpcError && e.code === HOST_MODEL_FAILED);
  server.status = 429;
  await assert.rejects(embeddings.embed({ texts: ["x"] }), (e: unknown) => e instanceof RpcError && e.code === HOST_MODEL_UNAVAILABLE);
  server.status = 200;
  config = openai(url, { model: "text-embedding-3-large" }); // the user changed OpenClaw's config
  await assert.rejects(embeddings.embed({ texts: ["x"] }), (e: unknown) => e instanceof RpcError && e.code === HOST_MODEL_UNAVAILABLE && /offered anew/.test(e.message));
  assert.equal((changed[0] as Choice).model, "text-embedding-3-large", "the plugin is told to offer again");
  embeddings.stopped = true;
  await assert.rejects(embeddings.embed({ texts: ["x"] }), (e: unknown) => e instanceof RpcError && e.code === HOST_MODEL_UNAVAILABLE);
});

test("the service offers OpenClaw's embeddings with the model when memory.search names a provider, and answers", async (t) => {
  const server = new FakeEmbeddings();
  const url = await server.start();
  t.after(() => server.stop());
  const sidecar = await new FakeSidecar((r) => (r.method === "host.offer" ? { accepted: r.params?.capabilities } : { version: "0.1.0" })).start();
  t.after(() => sidecar.dispose());
  const api = new FakeApi("full", { socketPath: sidecar.socketPath }, openai(url));
  api.runtime = { version: "2026.9.6", llm: { complete: async () => ({ text: "x", provider: "p", model: "m" }) } };
  createPlugin({ spawnProcess: (() => assert.fail("a sidecar answers")) as never }).register(api as never);
  await api.services[0]!.start({ config: {}, stateDir: "/s", logger: api.logger });
  await until(() => sidecar.calls("host.offer").length === 1, "the offer", 20_000);
  assert.deepEqual(sidecar.calls("host.offer")[0]!.params, {
    capabilities: ["llm.complete", "embeddings.embed"],
    client: { name: "openclaw", version: "2026.9.6" },
    embeddings: { provider: "openai", model: "text-embedding-3-small" },
  });
  const started = performance.now();
  sidecar.ask("zc-1", "embeddings.embed", { texts: ["We went with Postgres"], purpose: "query", timeoutMs: 5000 });
  await until(() => sidecar.replies.length === 1, "the vectors");
  const took = performance.now() - started;
  assert.deepEqual(sidecar.replies[0], { jsonrpc: "2.0", id: "zc-1", result: { vectors: [[21, 1, 0]] } });
  console.log(`embeddings.embed through OpenClaw's openai provider (fake server, first call): ${took.toFixed(1)} ms`);
  await api.services[0]!.stop!({});
  assert.deepEqual(sidecar.calls("host.offer")[1]!.params, { capabilities: [], reason: "OpenClaw stopped the plugin (a reload, or the gateway stopping)" });
});

test("with no provider configured only the model is offered, and OpenClaw's embedding modules are not loaded", async (t) => {
  const sidecar = await new FakeSidecar((r) => (r.method === "host.offer" ? { accepted: ["llm.complete"] } : { version: "0.1.0" })).start();
  t.after(() => sidecar.dispose());
  const api = new FakeApi("full", { socketPath: sidecar.socketPath }, { memory: { search: { provider: "none" } } });
  api.runtime = { version: "2026.9.6", llm: { complete: async () => ({ text: "x", provider: "p", model: "m" }) } };
  let loads = 0;
  const embeddingSdk = async () => {
    loads += 1;
    return openClawEmbeddingSdk();
  };
  createPlugin({ spawnProcess: (() => assert.fail("a sidecar answers")) as never, embeddingSdk }).register(api as never);
  await api.services[0]!.start({ config: {}, stateDir: "/s", logger: api.logger });
  await until(() => sidecar.calls("host.offer").length === 1, "the offer");
  assert.deepEqual(sidecar.calls("host.offer")[0]!.params, { capabilities: ["llm.complete"], client: { name: "openclaw", version: "2026.9.6" } });
  assert.equal(loads, 0);
  assert.ok(api.logs.some((l) => /no embeddings: OpenClaw's memory.search.provider is "none"/.test(l)));
  sidecar.ask("zc-1", "embeddings.embed", { texts: ["x"] });
  await until(() => sidecar.replies.length === 1, "the answer");
  assert.equal(sidecar.replies[0]!.error!.code, HOST_MODEL_UNAVAILABLE, "not offered: cannot be asked");
  await api.services[0]!.stop!({});
});
