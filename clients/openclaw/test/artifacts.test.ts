import assert from "node:assert/strict";
import { test } from "node:test";
import { createPlugin } from "../index.ts";
import { HOST_KINDS } from "../src/artifacts.ts";
import { Fail, FakeApi, FakeSidecar, type Handler } from "./helpers.ts";

type Provider = { listArtifacts(params: { cfg: unknown }): Promise<Record<string, unknown>[]> };

async function provider(t: { after: (fn: () => unknown) => void }, handler: Handler) {
  const sidecar = await new FakeSidecar(handler).start();
  t.after(() => sidecar.dispose());
  const api = new FakeApi("full", { socketPath: sidecar.socketPath, autostart: false });
  createPlugin({ sessionStore: async () => ({ listSessionEntries: () => [], loadTranscriptEventsSync: () => [] }) as never }).register(api as never);
  const capability = api.capabilities[0] as { publicArtifacts?: Provider };
  assert.ok(capability.publicArtifacts, "the memory capability has publicArtifacts");
  return { sidecar, artifacts: capability.publicArtifacts };
}

const LISTED = {
  published: true,
  leftOut: 0,
  artifacts: [
    { kind: "briefing", root: "/ws", path: "MEMORY.md", absolutePath: "/ws/MEMORY.md", contentType: "markdown", memory: "main", agentIds: ["main", "phone"] },
    { kind: "vault-page", root: "/home/vault", path: "01 Notes/Auth.md", absolutePath: "/home/vault/01 Notes/Auth.md", contentType: "markdown", memory: "main", agentIds: ["main", "phone"] },
    { kind: "log-export", root: "/home", path: "exports/log.json", absolutePath: "/home/exports/log.json", contentType: "json", memory: "main", agentIds: ["main", "phone"] },
    { kind: "something-new", root: "/home", path: "x.md", absolutePath: "/home/x.md", contentType: "markdown", memory: "main", agentIds: ["main"] },
  ],
};

test("listArtifacts is the sidecar's artifacts.list in OpenClaw's shape, nothing added or dropped", async (t) => {
  const { sidecar, artifacts } = await provider(t, (r) => (r.method === "artifacts.list" ? LISTED : {}));
  const listed = await artifacts.listArtifacts({ cfg: { agents: { list: [{ id: "other" }] } } });
  assert.deepEqual(sidecar.calls("artifacts.list").map((r) => r.params), [{}]); // every agent's: the sidecar knows them
  assert.deepEqual(listed, [
    { kind: "memory-root", workspaceDir: "/ws", relativePath: "MEMORY.md", absolutePath: "/ws/MEMORY.md", agentIds: ["main", "phone"], contentType: "markdown" },
    { kind: "daily-note", workspaceDir: "/home/vault", relativePath: "01 Notes/Auth.md", absolutePath: "/home/vault/01 Notes/Auth.md", agentIds: ["main", "phone"], contentType: "markdown" },
    { kind: "event-log", workspaceDir: "/home", relativePath: "exports/log.json", absolutePath: "/home/exports/log.json", agentIds: ["main", "phone"], contentType: "json" },
    { kind: "something-new", workspaceDir: "/home", relativePath: "x.md", absolutePath: "/home/x.md", agentIds: ["main"], contentType: "markdown" },
  ]);
  assert.deepEqual(Object.keys(HOST_KINDS).sort(), ["briefing", "log-export", "vault-page"]);
});

test("nothing published: an empty list (the sidecar's reason stays the sidecar's)", async (t) => {
  const { artifacts } = await provider(t, () => ({ published: false, reason: "artifacts.publish is off", artifacts: [], leftOut: 0 }));
  assert.deepEqual(await artifacts.listArtifacts({ cfg: {} }), []);
});

test("the sidecar down or failing is an error, never an empty list (memory-wiki would drop its pages)", async (t) => {
  const { sidecar, artifacts } = await provider(t, () => new Fail(-32603, "disk full"));
  await assert.rejects(artifacts.listArtifacts({ cfg: {} }), /^Error: Zettelclaw sidecar: .*disk full/);
  await sidecar.dispose();
  await assert.rejects(artifacts.listArtifacts({ cfg: {} }), /^Error: Zettelclaw sidecar: /);
});
