import assert from "node:assert/strict";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { test } from "node:test";
import { RpcClient, RpcError, SidecarUnavailableError, sharedClient } from "../src/rpc.ts";
import { Fail, FakeSidecar, NO_ANSWER, until } from "./helpers.ts";

test("a call gets the result of its own id, even when answers come back out of order", async (t) => {
  const sidecar = await new FakeSidecar(async (r) => {
    if (r.params?.slow) await new Promise((res) => setTimeout(res, 50));
    return { echo: r.params?.n };
  }).start();
  t.after(() => sidecar.dispose());
  const client = new RpcClient(sidecar.socketPath);
  t.after(() => client.close());
  const [slow, fast] = await Promise.all([client.call("x", { n: 1, slow: true }), client.call("x", { n: 2 })]);
  assert.deepEqual(slow, { echo: 1 });
  assert.deepEqual(fast, { echo: 2 });
  assert.equal(sidecar.requests.length, 2);
  assert.ok(client.connected, "one connection, kept open");
});

test("a JSON-RPC error becomes an RpcError with its code", async (t) => {
  const sidecar = await new FakeSidecar(() => new Fail(-32002, "no such entry")).start();
  t.after(() => sidecar.dispose());
  const client = new RpcClient(sidecar.socketPath);
  t.after(() => client.close());
  await assert.rejects(client.call("memory.get", { path: "x" }), (e: unknown) => e instanceof RpcError && e.code === -32002);
});

test("no answer within the deadline: unavailable, and the connection still serves later calls", async (t) => {
  const sidecar = await new FakeSidecar((r) => (r.method === "hang" ? NO_ANSWER : "ok")).start();
  t.after(() => sidecar.dispose());
  const client = new RpcClient(sidecar.socketPath);
  t.after(() => client.close());
  const started = Date.now();
  await assert.rejects(client.call("hang", undefined, 100), SidecarUnavailableError);
  assert.ok(Date.now() - started < 1000);
  assert.equal(await client.call("status"), "ok");
});

test("no sidecar: fails at once, then waits out a growing backoff before trying again", async () => {
  let now = 1_000_000;
  const client = new RpcClient(join(tmpdir(), `zc-missing-${process.pid}.sock`), { now: () => now, minBackoffMs: 100 });
  await assert.rejects(client.call("status"), /cannot connect.*ENOENT/);
  await assert.rejects(client.call("status"), /next attempt in 100 ms/);
  now += 100;
  await assert.rejects(client.call("status"), /cannot connect/);
  await assert.rejects(client.call("status"), /next attempt in 200 ms/);
  assert.match(client.lastFailure, /ENOENT/);
});

test("a lost connection fails what is in flight, and reconnection runs the reconnect listeners", async (t) => {
  const sidecar = await new FakeSidecar((r) => (r.method === "hang" ? NO_ANSWER : "ok")).start();
  t.after(() => sidecar.dispose());
  const client = new RpcClient(sidecar.socketPath, { minBackoffMs: 20, maxBackoffMs: 50 });
  t.after(() => client.close());
  let reconnects = 0;
  const remove = client.onReconnect(() => (reconnects += 1));
  t.after(remove);
  assert.equal(await client.call("status"), "ok");
  assert.equal(reconnects, 0, "the first connection is not a reconnection");
  const inFlight = client.call("hang", undefined, 5000);
  await until(() => sidecar.calls("hang").length === 1, "the call to arrive");
  await sidecar.stop();
  await assert.rejects(inFlight, /lost the sidecar connection/);
  // a background attempt fails (the socket is gone): that is no reconnection
  await until(() => /ENOENT|ECONNREFUSED/.test(client.lastFailure), "a background attempt to fail");
  assert.equal(reconnects, 0);
  await sidecar.start();
  await until(() => reconnects === 1, "the background reconnection");
  assert.ok(client.connected);
  assert.equal(await client.call("status"), "ok");
});

test("module instances share one client per socket path", () => {
  const path = join(tmpdir(), `zc-shared-${process.pid}.sock`);
  assert.equal(sharedClient(path), sharedClient(path));
  assert.notEqual(sharedClient(path), sharedClient(path + ".other"));
});

test("the sidecar's requests are answered by their handler on the same connection", async (t) => {
  const sidecar = await new FakeSidecar(() => "ok").start();
  t.after(() => sidecar.dispose());
  const client = new RpcClient(sidecar.socketPath);
  t.after(() => client.close());
  client.handle("llm.complete", async (params) => ({ text: `echo ${(params as { n: number }).n}` }));
  client.handle("refuses", async () => {
    throw new RpcError(-32013, "no model", { code: "LLM_COMPLETION_NOT_AUTHORIZED" });
  });
  client.handle("breaks", async () => {
    throw new Error("a bug");
  });
  assert.equal(await client.call("status"), "ok");
  sidecar.ask("zc-1", "llm.complete", { n: 7 });
  sidecar.ask("zc-2", "refuses", {});
  sidecar.ask("zc-3", "breaks", {});
  sidecar.ask("zc-4", "nobody.handles", {});
  await until(() => sidecar.replies.length === 4, "four replies");
  const byId = Object.fromEntries(sidecar.replies.map((r) => [String(r.id), r]));
  assert.deepEqual(byId["zc-1"]!.result, { text: "echo 7" });
  assert.deepEqual(byId["zc-2"]!.error, { code: -32013, message: "no model", data: { code: "LLM_COMPLETION_NOT_AUTHORIZED" } });
  assert.deepEqual(byId["zc-3"]!.error, { code: -32603, message: "a bug" });
  assert.equal(byId["zc-4"]!.error!.code, -32601);
  assert.equal(sidecar.calls("status").length, 1, "replies are not taken for requests");
});

test("onConnect runs on every connection, the first included, and keeps the client connected", async (t) => {
  const sidecar = await new FakeSidecar(() => "ok").start();
  t.after(() => sidecar.dispose());
  // its clock read at each use, so that the fake clock below is the client's too
  const client = new RpcClient(sidecar.socketPath, { minBackoffMs: 20, maxBackoffMs: 50, now: () => Date.now() });
  t.after(() => client.close());
  let connects = 0;
  const remove = client.onConnect(() => (connects += 1));
  t.after(remove);
  await until(() => connects === 1, "the first connection, made in the background");
  assert.ok(client.connected);
  await sidecar.stop();
  await until(() => !client.connected, "the loss to be seen");
  await sidecar.start();
  await until(() => connects === 2, "the reconnection");
  remove();
  // From here the clock and a retry timer, if the client armed one, are fakes: ticked far past
  // any backoff below, it would have fired and connected.
  t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: Date.now() });
  await sidecar.stop();
  for (let turns = 0; client.connected; turns++) {
    assert.ok(turns < 10_000, "the loss to be seen");
    await new Promise((r) => setImmediate(r));
  }
  await sidecar.start();
  const before = sidecar.connections;
  t.mock.timers.tick(600_000);
  // A connection the client had started would be in the listening socket's queue ahead of the
  // probe's, so the fake has accepted it by the time the probe has its answer.
  const probe = new RpcClient(sidecar.socketPath);
  assert.equal(await probe.call("status"), "ok");
  probe.close();
  assert.equal(sidecar.connections, before + 1, "the probe's only: no background reconnection");
  assert.equal(connects, 2, "removed: no more listener calls");
  assert.equal(client.connected, false);
});

test("errors are recognized across copies of the module (OpenClaw loads it once per registration mode)", async () => {
  const copy = await import(`../src/rpc.ts?copy=${Date.now()}`);
  assert.notEqual(copy.RpcError, RpcError, "a second copy of the module");
  const fromCopy = new copy.RpcError(-32002, "no entry", { path: "x" });
  assert.ok(fromCopy instanceof RpcError);
  assert.ok(new copy.SidecarUnavailableError("down") instanceof SidecarUnavailableError);
  assert.ok(!(new copy.SidecarUnavailableError("down") instanceof RpcError));
  assert.ok(!(new Error("plain") instanceof RpcError));
  assert.ok(!(fromCopy instanceof SidecarUnavailableError));
});
