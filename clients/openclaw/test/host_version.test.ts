import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { NEWEST_TESTED, OLDEST_SUPPORTED, checkHostVersion, createPlugin } from "../index.ts";
import { FakeApi, FakeSidecar } from "./helpers.ts";

const here = new URL(".", import.meta.url);
const store = async () => ({ listSessionEntries: () => [], loadTranscriptEventsSync: () => [] }) as never;

type Runtime = { getMemorySearchManager(params: { agentId: string }): Promise<{ manager: { status(): Record<string, any> } | null; error?: string }> };

function registered(version: unknown, socketPath = "/nonexistent/zc.sock") {
  const api = new FakeApi("full", { socketPath, autostart: false });
  api.runtime = { version };
  createPlugin({ sessionStore: store }).register(api as never);
  return api;
}

test("an OpenClaw older than the oldest supported gets no hook, tool or service, and says why in the log and status", async () => {
  const api = registered("2026.8.2");
  assert.deepEqual(api.hookNames(), []);
  assert.equal(api.toolFactories.length, 0);
  assert.equal(api.services.length, 0);
  assert.ok(api.logs.some((l) => l.startsWith("error zettelclaw: Zettelclaw needs OpenClaw 2026.9.2 or newer") && l.includes("this gateway runs 2026.8.2")), api.logs.join("\n"));
  const runtime = (api.capabilities[0] as { runtime: Runtime }).runtime;
  const { manager, error } = await runtime.getMemorySearchManager({ agentId: "main" });
  assert.equal(manager, null);
  assert.match(error ?? "", /needs OpenClaw 2026\.9\.2 or newer .* memory is off/);
});

test("an OpenClaw newer than the newest tested runs, with a warning in the log and in status", async (t) => {
  const sidecar = await new FakeSidecar((r) => (r.method === "status" ? { version: "0.1.0", server: { previousExit: "the sidecar before this one (pid 7) ended without stopping" } } : {})).start();
  t.after(() => sidecar.dispose());
  const api = registered("2026.10.1", sidecar.socketPath);
  assert.ok(api.hookNames().includes("before_reset"));
  assert.ok(api.logs.some((l) => /^warn zettelclaw: OpenClaw 2026\.10\.1 is newer than the newest Zettelclaw was tested with \(2026\.9\.6\)/.test(l)), api.logs.join("\n"));
  const runtime = (api.capabilities[0] as { runtime: Runtime }).runtime;
  const { manager } = await runtime.getMemorySearchManager({ agentId: "main" });
  const custom = manager!.status().custom;
  assert.match(custom.hostVersion, /newer than the newest/);
  assert.match(custom.sidecarPreviousExit, /pid 7\) ended without stopping/);
  await (manager as unknown as { close(): Promise<void> }).close();
});

test("the supported versions: the oldest, the newest tested, betas before their release", () => {
  assert.deepEqual(checkHostVersion("2026.9.2"), { ok: true });
  assert.deepEqual(checkHostVersion(NEWEST_TESTED), { ok: true });
  assert.equal(checkHostVersion("2026.9.2-beta.1").ok, false);
  assert.equal(checkHostVersion("2026.9.1").ok, false);
  assert.equal(checkHostVersion("2025.12.30").ok, false);
  assert.deepEqual(checkHostVersion("2026.9.6-1"), { ok: true }, "a re-publication of a release is that release");
  assert.ok(checkHostVersion("2027.1.1").ok);
  const unknown = checkHostVersion(undefined);
  assert.ok(unknown.ok && unknown.note && !unknown.warning, "an OpenClaw that says no version is not refused");
});

test("package.json and scripts/openclaw-env.sh declare the same versions as the check", () => {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", here), "utf8"));
  assert.equal(pkg.peerDependencies.openclaw, `>=${OLDEST_SUPPORTED}`);
  assert.equal(pkg.openclaw.compat.minGatewayVersion, OLDEST_SUPPORTED);
  const env = readFileSync(new URL("../../../scripts/openclaw-env.sh", here), "utf8");
  assert.match(env, new RegExp(`^ZC_OPENCLAW_OLDEST=${OLDEST_SUPPORTED.replaceAll(".", "\\.")}$`, "m"));
  assert.match(env, new RegExp(`^ZC_OPENCLAW_NEWEST=${NEWEST_TESTED.replaceAll(".", "\\.")}$`, "m"));
});
