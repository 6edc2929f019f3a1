import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { createPlugin } from "../index.ts";
import { Fail, FakeApi, FakeSidecar, until, type Handler } from "./helpers.ts";

type Manager = {
  status(): Record<string, any>;
  search(query: string, opts?: Record<string, unknown>): Promise<Record<string, unknown>[]>;
  readFile(params: { relPath: string; from?: number; lines?: number }): Promise<Record<string, unknown>>;
  probeVectorAvailability(): Promise<boolean>;
};
type Runtime = {
  getMemorySearchManager(params: { cfg: unknown; agentId: string; purpose?: string }): Promise<{ manager: Manager | null; error?: string }>;
  resolveMemoryBackendConfig(params: unknown): unknown;
};

const STATUS = {
  version: "0.1.0", workspace: "/ws", paths: { index: "/home/index.sqlite" },
  entries: { total: 7, current: 6, replaced: 1, byType: { fact: 4, task: 3 } }, subjects: 2,
  index: { indexing: false },
  search: { memoryFiles: 2, chunks: 5, semantic: { on: true, state: "ready", reason: null, model: "minilm" } },
  extraction: { jobs: { pending: 0, waiting: 0, failed: 1 } },
  briefing: { lastRun: "2026-11-26T03:00:00Z", nextRun: "2026-11-27T03:00:00Z" },
};

async function runtime(t: { after: (fn: () => unknown) => void }, handler: Handler) {
  const sidecar = await new FakeSidecar(handler).start();
  t.after(() => sidecar.dispose());
  const api = new FakeApi("full", { socketPath: sidecar.socketPath, autostart: false });
  createPlugin({ sessionStore: async () => ({ listSessionEntries: () => [], loadTranscriptEventsSync: () => [] }) as never }).register(api as never);
  const capability = api.capabilities[0] as { runtime?: Runtime };
  assert.ok(capability.runtime, "the memory capability has a runtime");
  return { sidecar, runtime: capability.runtime };
}

test("the status manager shows the sidecar's counts for the agent asked about", async (t) => {
  const { sidecar, runtime: rt } = await runtime(t, (r) => (r.method === "status" ? STATUS : {}));
  const { manager } = await rt.getMemorySearchManager({ cfg: {}, agentId: "work", purpose: "status" });
  assert.ok(manager);
  assert.deepEqual(sidecar.calls("status").map((r) => r.params), [{ agentId: "work" }]);
  const status = manager.status();
  assert.equal(status.backend, "builtin");
  assert.equal(status.provider, "zettelclaw");
  assert.equal(status.files, 2);
  assert.equal(status.chunks, 5);
  assert.equal(status.workspaceDir, "/ws");
  assert.deepEqual(status.vector, { enabled: true, available: true, semanticAvailable: true });
  assert.equal(status.custom.entries, 6);
  assert.deepEqual(status.custom.jobs, { pending: 0, waiting: 0, failed: 1 });
  assert.equal(await manager.probeVectorAvailability(), true);
  assert.deepEqual(rt.resolveMemoryBackendConfig({}), { backend: "builtin" });
});

test("search and readFile forward to the sidecar with the agent and the requester's session", async (t) => {
  const { sidecar, runtime: rt } = await runtime(t, (r) => {
    if (r.method === "status") return { ...STATUS, search: { ...STATUS.search, semantic: { on: false, state: "off", reason: "turned off" } } };
    if (r.method === "memory.search") return { mode: "keyword", results: [{ path: "e00000000001", startLine: 3, endLine: 3, score: 0.9, snippet: "hi", source: "log", citation: "log.jsonl#L3", content: "hi" }] };
    if (r.method === "memory.get") return r.params?.path === "MEMORY.md" ? { path: "MEMORY.md", text: "# Memory\n", from: 1, lines: 1, truncated: false } : new Fail(-32002, "no such entry");
    return {};
  });
  const { manager } = await rt.getMemorySearchManager({ cfg: {}, agentId: "main" });
  assert.ok(manager);
  assert.equal(manager.status().vector.available, false);
  assert.equal(manager.status().vector.loadError, "turned off");
  const hits = await manager.search("  hello ", { maxResults: 3, sessionKey: "agent:main:main" });
  assert.deepEqual(sidecar.calls("memory.search").map((r) => r.params), [{ agentId: "main", query: "hello", maxResults: 3, sessionKey: "agent:main:main" }]);
  assert.deepEqual(hits, [{ path: "e00000000001", startLine: 3, endLine: 3, score: 0.9, snippet: "hi", source: "memory", citation: "log.jsonl#L3" }]);
  assert.deepEqual(await manager.readFile({ relPath: "MEMORY.md", from: 1, lines: 1 }), { status: "ok", path: "MEMORY.md", text: "# Memory\n", truncated: false, from: 1, lines: 1 });
  assert.deepEqual(await manager.readFile({ relPath: "memory/none.md" }), { status: "not_found", path: "memory/none.md", text: "" });
});

test("sidecar down: no manager, and the error says why", async (t) => {
  const { sidecar, runtime: rt } = await runtime(t, () => ({}));
  await sidecar.dispose();
  const answer = await rt.getMemorySearchManager({ cfg: {}, agentId: "main", purpose: "status" });
  assert.equal(answer.manager, null);
  assert.match(answer.error ?? "", /^Zettelclaw sidecar: /);
});

test("a CLI process that asked for a manager exits without closing it (`openclaw status --all`)", async (t) => {
  const { sidecar } = await runtime(t, (r) => (r.method === "status" ? STATUS : {}));
  const script = `
    import { createPlugin } from ${JSON.stringify(new URL("../index.ts", import.meta.url).href)};
    let capability;
    const api = { registrationMode: "cli-metadata", pluginConfig: { socketPath: ${JSON.stringify(sidecar.socketPath)} }, config: {},
      logger: { debug() {}, info() {}, warn() {}, error() {} }, on() {}, registerTool() {}, registerCli() {}, registerService() {},
      registerMemoryCapability(c) { capability = c; } };
    createPlugin().register(api);
    const { manager } = await capability.runtime.getMemorySearchManager({ cfg: {}, agentId: "main", purpose: "status" });
    console.log(JSON.stringify(manager.status().custom));`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill(); reject(new Error(`still running after 20 s; stderr: ${err}`)); }, 20_000);
    child.on("exit", (c) => { clearTimeout(timer); resolve(c); });
  });
  assert.equal(code, 0, err);
  assert.equal(JSON.parse(out).entries, 6);
});

test("closing the manager closes its connection", async (t) => {
  const { sidecar, runtime: rt } = await runtime(t, (r) => (r.method === "status" ? STATUS : {}));
  const { manager } = await rt.getMemorySearchManager({ cfg: {}, agentId: "main" });
  assert.ok(manager);
  await (manager as unknown as { close(): Promise<void> }).close();
  await until(() => (sidecar as unknown as { sockets: Set<unknown> }).sockets.size === 0, "the connection to close");
});
