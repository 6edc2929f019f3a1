import assert from "node:assert/strict";
import { AsyncLocalStorage, AsyncResource } from "node:async_hooks";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import {
  conversation,
  createPlugin,
  lastSweep,
  dispatchFacts,
  promptParams,
  removeDreamingJob,
  toolCall,
  toolFacts,
  TOOLS,
  type SessionStore,
} from "../index.ts";
import {
  checkAgainstSchema,
  Fail,
  FakeApi,
  FakeCommand,
  FakeSidecar,
  NO_ANSWER,
  payloads,
  schemaViolations,
  until,
  type Handler,
  type Reply,
} from "./helpers.ts";

const ctxOf = (name: string) => structuredClone(payloads[name].ctx);
const compactOf = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));
const HANDOFF = "## Last Session Handoff\nSession: abc (2026-11-21T05:00:00Z)\nShipped it";

function fakeStore(): SessionStore & { loads: unknown[] } {
  const loads: unknown[] = [];
  return {
    loads,
    listSessionEntries: ({ agentId }) => (agentId === "main" ? structuredClone(payloads["listSessionEntries.main"]) : []),
    loadTranscriptEventsSync: (params) => {
      loads.push(params);
      return structuredClone(payloads["transcript.agent:main:main"].events);
    },
  };
}

async function setup(t: { after: (fn: () => unknown) => void }, mode: string, handler: Handler = () => ({}), pluginConfig: Record<string, unknown> = {}) {
  const sidecar = await new FakeSidecar(handler).start();
  t.after(() => sidecar.dispose());
  const store = fakeStore();
  const api = new FakeApi(mode, { socketPath: sidecar.socketPath, ...pluginConfig });
  createPlugin({ sessionStore: async () => store }).register(api as never);
  return { sidecar, api, store };
}

test("hooks, tools and the CLI are registered in every mode; the service only in full mode", async (t) => {
  for (const mode of ["full", "discovery", "tool-discovery", "cli-metadata"]) {
    const { api } = await setup(t, mode);
    assert.deepEqual(api.hookNames(), ["before_dispatch", "before_prompt_build", "before_reset", "gateway_start", "session_end"]);
    assert.deepEqual(api.toolFactories.map((f) => f.opts), [{ names: ["memory_search", "memory_get", "memory_remember", "memory_forget"] }]);
    assert.deepEqual(Object.keys(api.tools()), ["memory_search", "memory_get", "memory_remember", "memory_forget"]);
    assert.equal(api.cli.length, 1);
    assert.equal(api.capabilities.length, 1);
    assert.equal(api.services.length, mode === "full" ? 1 : 0, mode);
  }
});

test("before_prompt_build returns the sidecar's handoff as prependContext", async (t) => {
  const { api, sidecar } = await setup(t, "discovery", (r) => ({ prependContext: r.method === "hook.beforePromptBuild" ? HANDOFF : null }));
  const ctx = ctxOf("before_prompt_build.cli-main");
  assert.deepEqual(await api.fire("before_prompt_build", { prompt: "hi", messages: [] }, ctx), { prependContext: HANDOFF });
  assert.deepEqual(sidecar.calls("hook.beforePromptBuild")[0]?.params, {
    sessionKey: "agent:main:main",
    sessionId: ctx.sessionId,
    agentId: "main",
    workspaceDir: ctx.workspaceDir,
  });
});

test("no handoff from the sidecar: the hook returns nothing", async (t) => {
  const { api } = await setup(t, "discovery", () => ({ prependContext: null }));
  assert.equal(await api.fire("before_prompt_build", {}, ctxOf("before_prompt_build.cli-main")), undefined);
});

test("the prompt hook's params pass the raw facts the host has about the chat and the sender", () => {
  const group = promptParams(ctxOf("before_prompt_build.telegram-group"));
  assert.equal(group.chatId, "-1001234567890");
  assert.equal(group.senderId, "222");
  assert.equal(group.channel, "telegram");
  assert.equal(group.chatType, undefined, "what the facts mean is the sidecar's decision");
  const routed = promptParams(ctxOf("before_prompt_build.telegram-group-routed-to-main"));
  assert.equal(routed.sessionKey, "agent:main:main");
  assert.deepEqual([routed.chatId, routed.senderId], ["-1001234567890", "222"], "a group routed into main keeps its ids");
  const dm = promptParams(ctxOf("before_prompt_build.telegram-owner-dm"));
  assert.deepEqual([dm.chatId, dm.senderId], ["111", "111"]);
  const cron = promptParams(ctxOf("before_prompt_build.cron"));
  assert.equal(cron.chatId, undefined);
  assert.equal(cron.senderIsOwner, undefined);
  assert.match(String(cron.sessionKey), /^agent:main:cron:/);
  assert.equal(promptParams(ctxOf("before_prompt_build.cli-main")).isGroup, undefined);
});

test("the owner bit (tool factory) and the group bit (before_dispatch) go to the sidecar raw; the plugin keeps neither", async (t) => {
  const { api, sidecar } = await setup(t, "discovery", () => ({ prependContext: null }));
  const factory = ctxOf("tool_factory.telegram-group");
  api.tools(factory);
  await until(() => sidecar.calls("hook.turnFacts").length === 1, "the owner bit noted");
  assert.deepEqual(sidecar.calls("hook.turnFacts")[0]?.params, {
    sessionKey: factory.sessionKey, sessionId: factory.sessionId, agentId: factory.agentId, senderIsOwner: false });
  await api.fire("before_prompt_build", {}, ctxOf("before_prompt_build.telegram-group"));
  assert.equal(sidecar.calls("hook.beforePromptBuild")[0]?.params?.senderIsOwner, undefined, "not remembered by the plugin");

  const dispatch = payloads["before_dispatch.telegram-group"];
  await api.fire("before_dispatch", dispatch.event, dispatch.ctx); // a group message routed to agent:main:main
  assert.deepEqual(sidecar.calls("hook.turnFacts")[1]?.params, compactOf({
    sessionKey: dispatch.event.sessionKey, isGroup: true, senderId: dispatch.event.senderId, channel: dispatch.event.channel }));
  await api.fire("before_prompt_build", {}, ctxOf("before_prompt_build.cli-main"));
  assert.equal(sidecar.calls("hook.beforePromptBuild")[1]?.params?.isGroup, undefined, "the sidecar completes it, not the plugin");

  const send = payloads["before_dispatch.cli-chat-send"];
  await api.fire("before_dispatch", send.event, send.ctx);
  assert.equal(sidecar.calls("hook.turnFacts")[2]?.params?.isGroup, false);
  assert.equal(toolFacts(ctxOf("tool_factory.cron")), undefined, "no owner bit: nothing to note");
  assert.equal(dispatchFacts({ sessionKey: "agent:main:main" }), undefined, "no group bit: nothing to note");
});

test("the sidecar down: before_dispatch passes nothing and does not throw", async (t) => {
  const { api, sidecar } = await setup(t, "discovery");
  await sidecar.stop();
  const dispatch = payloads["before_dispatch.telegram-group"];
  assert.equal(await api.fire("before_dispatch", dispatch.event, dispatch.ctx), undefined);
});

test("sidecar down: the prompt hook gives nothing at once, and warns once per outage", async (t) => {
  const { api, sidecar } = await setup(t, "discovery");
  await sidecar.stop();
  const started = Date.now();
  for (let i = 0; i < 3; i++) assert.equal(await api.fire("before_prompt_build", {}, ctxOf("before_prompt_build.cli-main")), undefined);
  assert.ok(Date.now() - started < 1000);
  assert.equal(api.logs.filter((l) => l.startsWith("warn")).length, 1);
});

test("a sidecar that hangs costs the prompt hook its deadline, no more", async (t) => {
  const { api } = await setup(t, "discovery", () => NO_ANSWER, { timeoutMs: 150 });
  const started = Date.now();
  assert.equal(await api.fire("before_prompt_build", {}, ctxOf("before_prompt_build.cli-main")), undefined);
  const took = Date.now() - started;
  assert.ok(took >= 140 && took < 1000, `took ${took} ms`);
  assert.deepEqual(api.hooks.find((h) => h.name === "before_prompt_build")?.opts, { timeoutMs: 1150 });
});

test("before_reset sends the event's messages to hook.beforeReset", async (t) => {
  const { api, sidecar, store } = await setup(t, "full");
  const { event, ctx } = structuredClone(payloads["before_reset.sessions-reset-second"]);
  const before = Date.now();
  await api.fire("before_reset", event, ctx);
  const [call] = sidecar.calls("hook.beforeReset");
  const { readAt, ...params } = call?.params ?? {};
  assert.ok(typeof readAt === "number" && readAt >= before && readAt <= Date.now(), `readAt ${readAt}: when the transcript was read`);
  assert.deepEqual(params, {
    sessionId: ctx.sessionId,
    sessionKey: "agent:main:main",
    agentId: "main",
    reason: "reset",
    workspaceDir: ctx.workspaceDir,
    messages: event.messages.filter((m: { role: string }) => m.role !== "system"), // the "Reset" marker goes
  });
  assert.equal(event.messages[0].role, "system");
  assert.equal(store.loads.length, 0, "no transcript read when the event carries the messages");
});

test("session_end reads the transcript through the session store and sends its messages", async (t) => {
  const { api, sidecar, store } = await setup(t, "full");
  const { event, ctx } = payloads["session_end.reset"];
  await api.fire("session_end", event, ctx);
  assert.deepEqual(store.loads, [{ agentId: "main", sessionId: event.sessionId, sessionKey: "agent:main:main" }]);
  const params = sidecar.calls("hook.sessionEnd")[0]?.params;
  assert.equal(params?.reason, "reset");
  assert.equal(typeof params?.readAt, "number");
  const messages = params?.messages as { type: string; message: { role: string } }[];
  assert.ok(messages.length > 0);
  assert.ok(messages.every((m) => m.type === "message" && ["user", "assistant"].includes(m.message.role)));
});

test("sidecar down: the transcript hooks return quietly", async (t) => {
  const { api, sidecar } = await setup(t, "full");
  await sidecar.stop();
  const { event, ctx } = payloads["before_reset.sessions-reset-second"];
  assert.equal(await api.fire("before_reset", event, ctx), undefined);
  assert.equal(await api.fire("session_end", payloads["session_end.reset"].event, ctx), undefined);
});

test("conversation keeps user and assistant messages and the memory tools' results, in either shape", () => {
  const items = [
    { role: "user", content: "a" },
    { role: "toolResult", content: [] },
    { type: "message", message: { role: "assistant", content: [] } },
    { type: "message", message: { role: "toolResult" } },
    { type: "reset" },
    { role: "system", content: "Reset" },
    { role: "toolResult", toolName: "memory_get", content: [{ type: "text", text: '{"path": "Ab3_x9Qz-K1m"}' }] },
    { type: "message", message: { role: "toolResult", toolName: "memory_search", content: [] } },
    { role: "toolResult", toolName: "exec", content: [{ type: "text", text: "a large output" }] },
  ];
  // the memory tools' results carry the ids of what the conversation read (extraction/context.py)
  assert.deepEqual(conversation(items), [items[0], items[2], items[6], items[7]]);
});

test("a sweep goes on past a session the sidecar refuses", async (t) => {
  const { api, sidecar } = await setup(t, "full", (r) => {
    if (r.method === "hook.gatewayStart") return { sessions: [{ sessionId: "bad" }, { sessionId: "58c12dc3-73d9-4119-ba35-8cba66b35ac5" }] };
    return r.params?.sessionId === "bad" ? new Fail(-32602, "bad session id") : { accepted: true };
  });
  await api.fire("gateway_start", {}, {});
  await lastSweep();
  assert.deepEqual(sidecar.calls("hook.sessionEnd").map((c) => c.params?.sessionId), ["bad", "58c12dc3-73d9-4119-ba35-8cba66b35ac5"]);
  assert.ok(api.logs.some((l) => /session bad skipped: bad session id/.test(l)));
});

const SWEPT = "58c12dc3-73d9-4119-ba35-8cba66b35ac5";

async function sweepSetup(t: { after: (fn: () => unknown) => void }, handler: Handler, store: SessionStore = fakeStore(),
  config: Record<string, unknown> = {}, pluginConfig: Record<string, unknown> = {}) {
  const sidecar = await new FakeSidecar(handler).start();
  t.after(() => sidecar.dispose());
  const api = new FakeApi("full", { socketPath: sidecar.socketPath, ...pluginConfig }, config);
  createPlugin({ sessionStore: async () => store, sweepRetryMs: 20 }).register(api as never);
  return { sidecar, api };
}

test("a sweep the sidecar fails, or answers in part, while connected is tried again; one that finds it down waits for it", async (t) => {
  const answers: unknown[] = [
    new Fail(-32603, "Internal error: OSError"),
    { sessions: [{ sessionId: SWEPT, after: null }], errors: [{ agentId: "family", message: "DataDirError: cannot use data directory" }] },
  ];
  // The sweep's retry timer is a fake: each sweep is awaited, each retry is a tick, and a
  // retry that should not come is shown absent by ticking far past any backoff.
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const { sidecar, api } = await sweepSetup(t, (r) =>
    r.method === "hook.gatewayStart" ? (answers.shift() ?? { sessions: [{ sessionId: SWEPT, after: null }], errors: [] }) : { accepted: true },
  );
  await api.fire("gateway_start", {}, {});
  await lastSweep(); // a failure: tried again in 20 ms
  t.mock.timers.tick(20);
  await lastSweep(); // an answer in part, its session sent: tried again in 40 ms
  t.mock.timers.tick(40);
  await lastSweep(); // a whole one
  assert.equal(sidecar.calls("hook.sessionEnd").length, 2, "the sweep, tried again, sent the transcript");
  const whole = lastSweep();
  t.mock.timers.tick(600_000);
  assert.equal(lastSweep(), whole, "no sweep after a whole one");
  assert.equal(sidecar.calls("hook.gatewayStart").length, 3, "a failure, an answer in part (its sessions sent), then a whole one; no more");
  assert.ok(api.logs.some((l) => /sweep \(gateway start\) failed: .*OSError; trying again in 0.02 s/.test(l)), api.logs.join("\n"));
  assert.ok(api.logs.some((l) => /sweep \(retry\) failed: the sweep is not complete: agent family \(DataDirError.*trying again in 0.04 s/.test(l)), "the wait doubles");

  await sidecar.stop(); // down: the reconnection runs the sweep, not a timer
  const before = sidecar.requests.length;
  await api.fire("gateway_start", {}, {});
  await lastSweep();
  assert.ok(api.logs.some((l) => /sweep \(gateway start\) waits for the sidecar/.test(l)));
  const waiting = lastSweep();
  t.mock.timers.tick(600_000);
  assert.equal(lastSweep(), waiting, "no timer while the sidecar is down");
  assert.equal(api.logs.filter((l) => /trying again/.test(l)).length, 2);
  assert.equal(sidecar.requests.length, before);
});

test("a transcript the store could not read, or the sidecar could not spool, is sent by the next sweep", async (t) => {
  const store = fakeStore();
  const read = store.loadTranscriptEventsSync;
  let busy = 1;
  store.loadTranscriptEventsSync = (params) => {
    if (busy-- > 0) throw new Error("SQLITE_BUSY: database is locked");
    return read(params);
  };
  let spoolFails = 1;
  const { sidecar, api } = await sweepSetup(t, (r) => {
    if (r.method === "hook.gatewayStart") return { sessions: [{ sessionId: SWEPT, after: null }], errors: [] };
    return spoolFails-- > 0 ? new Fail(-32603, "Internal error: LockTimeoutError") : { accepted: true, jobId: "j1" };
  }, store);
  await api.fire("gateway_start", {}, {});
  await until(() => api.logs.some((l) => /sweep \(retry\): 4 session\(s\) listed, 1 sent/.test(l)), "the third sweep to send it");
  assert.equal(sidecar.calls("hook.gatewayStart").length, 3, "busy store, refused spool, then sent");
  assert.equal(sidecar.calls("hook.sessionEnd").length, 2, "the first sweep read nothing to send");
  assert.ok(api.logs.some((l) => /session 58c12dc3-\S+ not sent: .*SQLITE_BUSY/.test(l)), api.logs.join("\n"));
  assert.ok(api.logs.some((l) => /sweep \(gateway start\) failed: the sweep is not complete: 1 session\(s\) not sent; trying again/.test(l)));
});

test("a reset the sidecar takes too slowly is sent again, that one: no sweep sends another agent's open conversation", async (t) => {
  // The sidecar answers the reset past the plugin's deadline. A sweep then would list every
  // agent's sessions and send the open ones, extracting another agent's conversation in its
  // middle (a "nothing lasting" handoff in its log); the reset itself is what was not delivered.
  const store = fakeStore();
  store.listSessionEntries = ({ agentId }) =>
    agentId === "main"
      ? structuredClone(payloads["listSessionEntries.main"])
      : agentId === "family" ? [{ sessionKey: "agent:family:main", entry: { sessionId: "family-open", updatedAt: Date.now() } }] : [];
  let slow = 1;
  const { sidecar, api } = await sweepSetup(t, async (r) => {
    if (r.method === "hook.beforeReset" && slow-- > 0) return NO_ANSWER; // past the deadline
    if (r.method === "hook.gatewayStart") return { sessions: [{ sessionId: "family-open", after: null }], errors: [] };
    return { accepted: true, jobId: "j1" };
  }, store, { agents: { list: [{ id: "main" }, { id: "family" }] } }, { timeoutMs: 50 });
  const { event, ctx } = structuredClone(payloads["before_reset.sessions-reset-second"]);
  await api.fire("before_reset", event, ctx);
  await until(() => sidecar.calls("hook.beforeReset").length === 2, "the reset sent again");
  const [first, second] = sidecar.calls("hook.beforeReset");
  assert.deepEqual(second?.params, first?.params, "the same call: its messages and readAt");
  assert.equal(sidecar.calls("hook.gatewayStart").length, 0, "no sweep");
  assert.equal(sidecar.calls("hook.sessionEnd").length, 0, "no other conversation sent");
  await until(() => api.logs.some((l) => /hook.beforeReset for session \S+ delivered on try 2/.test(l)), "the log line");
});

test("a reset refused for its params is not sent again, nor swept", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] }); // a retry put off by a timer would show below
  const { sidecar, api } = await sweepSetup(t, (r) => (r.method === "hook.beforeReset" ? new Fail(-32602, "Invalid params: messages") : { accepted: true }));
  const { event, ctx } = structuredClone(payloads["before_reset.sessions-reset-second"]);
  await api.fire("before_reset", event, ctx); // the hook's delivery, and its failure, awaited
  t.mock.timers.tick(600_000);
  assert.equal(sidecar.calls("hook.beforeReset").length, 1);
  assert.equal(sidecar.calls("hook.gatewayStart").length, 0);
});

test("a sweep refused for its params is not tried again: asking again would not help", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] }); // a retry, however late, would show below
  const { sidecar, api } = await sweepSetup(t, (r) => (r.method === "hook.gatewayStart" ? new Fail(-32602, "Invalid params: sessions.0.sessionId") : { accepted: true }));
  await api.fire("gateway_start", {}, {});
  const refused = lastSweep();
  await refused;
  t.mock.timers.tick(600_000);
  assert.equal(lastSweep(), refused, "not tried again");
  assert.equal(sidecar.calls("hook.gatewayStart").length, 1);
  assert.ok(api.logs.some((l) => /sweep \(gateway start\) failed: .*Invalid params/.test(l)));
  assert.ok(!api.logs.some((l) => /trying again/.test(l)));
});

test("gateway_start sweeps: lists the sessions, then sends the transcripts the sidecar asks for", async (t) => {
  const { api, sidecar } = await setup(t, "full", (r) =>
    r.method === "hook.gatewayStart" ? { sessions: [{ sessionId: "58c12dc3-73d9-4119-ba35-8cba66b35ac5", after: null }], skipped: [], retried: [] } : { accepted: true },
  );
  await api.fire("gateway_start", payloads["gateway_start"].event, payloads["gateway_start"].ctx);
  await lastSweep();
  const listed = sidecar.calls("hook.gatewayStart")[0]?.params?.sessions as Record<string, unknown>[];
  assert.deepEqual(
    listed.map((s) => s.sessionKey),
    payloads["listSessionEntries.main"].map((s: { sessionKey: string }) => s.sessionKey),
  );
  assert.deepEqual(listed[1], { sessionId: "58c12dc3-73d9-4119-ba35-8cba66b35ac5", sessionKey: "agent:main:main", agentId: "main", updatedAt: 1795238865019 });
  const sent = sidecar.calls("hook.sessionEnd");
  assert.equal(sent.length, 1);
  assert.equal(sent[0]?.params?.sessionKey, "agent:main:main");
  assert.equal(sent[0]?.params?.reason, "sweep");
  assert.equal(typeof sent[0]?.params?.readAt, "number", "so the next sweep leaves it out");
});

test("a session listed under two agents is sent to the agent whose memory asked for it", async (t) => {
  const store = fakeStore();
  const shared = { sessionKey: "global", entry: { sessionId: "shared-1", updatedAt: 1795238865019 } };
  store.listSessionEntries = ({ agentId }) => (agentId === "main" || agentId === "family" ? [structuredClone(shared)] : []);
  const { sidecar, api } = await sweepSetup(t, (r) =>
    r.method === "hook.gatewayStart" ? { sessions: [{ sessionId: "shared-1", after: null, agentId: "main" }], errors: [] } : { accepted: true },
  store, { agents: { list: [{ id: "main" }, { id: "family" }] } });
  await api.fire("gateway_start", {}, {});
  await lastSweep();
  assert.deepEqual(sidecar.calls("hook.sessionEnd").map((c) => c.params?.agentId), ["main"]);
});

test("a session the sidecar asks for whose transcript reads empty is not counted as sent", async (t) => {
  const store = fakeStore();
  store.loadTranscriptEventsSync = () => [{ type: "message", message: { role: "system", content: "Reset" } }];
  const { sidecar, api } = await sweepSetup(
    t,
    (r) => (r.method === "hook.gatewayStart" ? { sessions: [{ sessionId: SWEPT, after: null }], skipped: [], retried: [] } : { accepted: true }),
    store,
  );
  await api.fire("gateway_start", {}, {});
  await lastSweep();
  assert.equal(sidecar.calls("hook.sessionEnd").length, 0, "nothing to send");
  assert.ok(api.logs.some((l) => /sweep \(gateway start\): 4 session\(s\) listed, 0 sent for extraction, 1 with no message to send/.test(l)), api.logs.join("\n"));
});

test("memory_search forwards the query, the filters and memory-core's corpus names as they are: the sidecar reads them", async (t) => {
  const answer = { results: [{ path: "a", score: 0.9 }], mode: "keyword" };
  const { api, sidecar } = await setup(t, "discovery", () => answer);
  const result = await api.tools().memory_search!.execute("call-1", { query: " webhook retries ", type: "decision", subject: "auth", status: "open", includeReplaced: true, maxResults: 5, minScore: 0.5, corpus: "sessions" });
  assert.deepEqual(sidecar.calls("memory.search")[0]?.params, { query: " webhook retries ", type: "decision", subject: "auth", status: "open", includeReplaced: true, maxResults: 5, minScore: 0.5, corpus: "sessions" });
  assert.deepEqual(result.details, answer);
  assert.deepEqual(JSON.parse(result.content[0]!.text), result.details);
  await api.tools().memory_search!.execute("call-2", { query: "", type: "task", corpus: "files" });
  assert.deepEqual(sidecar.calls("memory.search")[1]?.params, { query: "", type: "task", corpus: "files" });
  await api.tools().memory_get!.execute("call-3", { path: "MEMORY.md", from: 2, corpus: "wiki" });
  assert.deepEqual(sidecar.calls("memory.get")[0]?.params, { path: "MEMORY.md", from: 2, corpus: "wiki" });
});

test("the tools are the generated definition's, the sidecar's params", async (t) => {
  const { api } = await setup(t, "discovery");
  const tools = api.tools() as unknown as Record<string, { name: string; label: string; description: string; parameters: unknown }>;
  assert.deepEqual(Object.keys(tools), Object.keys(TOOLS));
  for (const spec of Object.values(TOOLS)) {
    const { name, label, description, parameters } = tools[spec.name]!;
    assert.deepEqual({ name, label, description, parameters }, { name: spec.name, label: spec.label, description: spec.description, parameters: spec.parameters });
  }
  assert.deepEqual(toolCall(TOOLS.memory_forget, { ids: ["Qm2vT8_xLp0a"], undo: true, text: "ignored", dryRun: null }), { method: "memory.unforget", params: { ids: ["Qm2vT8_xLp0a"] } });
});

test("the tools tell the sidecar who will read the answer", async (t) => {
  const { api, sidecar } = await setup(t, "discovery", () => ({ results: [], mode: "restricted", restricted: { reason: "group session: others can read it" } }));
  const group = { sessionKey: "agent:main:telegram:group:-1001234567890", senderIsOwner: false, nativeChannelId: "-1001234567890", requesterSenderId: "222" };
  const answer = await api.tools(group).memory_search!.execute("1", { query: "x" });
  assert.deepEqual(sidecar.calls("memory.search")[0]?.params, { query: "x", sessionKey: group.sessionKey, chatId: "-1001234567890", senderId: "222", senderIsOwner: false });
  assert.deepEqual(answer.details.results, [], "a restricted answer passes through as it is");
  await api.tools({ sessionKey: "agent:main:scratch-7", senderIsOwner: true }).memory_get!.execute("2", { path: "MEMORY.md" });
  assert.deepEqual(sidecar.calls("memory.get")[0]?.params, { path: "MEMORY.md", sessionKey: "agent:main:scratch-7", senderIsOwner: true });
});

test("memory_remember and memory_forget forward what the user asked, with the turn's audience and session", async (t) => {
  const { api, sidecar } = await setup(t, "discovery", (request) => (request.method === "memory.remember" ? { id: "Qm2vT8_xLp0a", line: 3, entry: {} } : { action: "hide", changed: 1, entries: [] }));
  const ctx = { agentId: "main", sessionKey: "agent:main:notes-42", sessionId: "sess-42", senderIsOwner: true };
  const tools = api.tools(ctx);
  const said = await tools.memory_remember!.execute("1", { type: "fact", content: "The boiler is serviced in May", subject: "house" });
  assert.deepEqual(sidecar.calls("memory.remember")[0]?.params, { agentId: "main", type: "fact", content: "The boiler is serviced in May", subject: "house", sessionId: "sess-42", sessionKey: "agent:main:notes-42", senderIsOwner: true });
  assert.equal((said.details as Record<string, unknown>).id, "Qm2vT8_xLp0a");
  await tools.memory_forget!.execute("2", { text: "boiler", dryRun: true });
  assert.deepEqual(sidecar.calls("memory.forget")[0]?.params, { agentId: "main", text: "boiler", dryRun: true, sessionKey: "agent:main:notes-42", senderIsOwner: true });
  await tools.memory_forget!.execute("3", { ids: ["Qm2vT8_xLp0a"], undo: true, text: "ignored" });
  assert.deepEqual(sidecar.calls("memory.unforget")[0]?.params, { agentId: "main", ids: ["Qm2vT8_xLp0a"], sessionKey: "agent:main:notes-42", senderIsOwner: true });
  for (const name of ["memory_remember", "memory_forget"]) {
    const description = (tools[name] as unknown as { description: string }).description;
    assert.match(description, /asks/, `${name} says when to use it`);
  }
});

test("the tools name the agent whose memory they read", async (t) => {
  const { api, sidecar } = await setup(t, "discovery", () => ({ results: [] }));
  const ctx = { agentId: "family", sessionKey: "agent:family:main", senderIsOwner: true };
  await api.tools(ctx).memory_search!.execute("1", { query: "x" });
  assert.deepEqual(sidecar.calls("memory.search")[0]?.params, { agentId: "family", query: "x", sessionKey: "agent:family:main", senderIsOwner: true });
  await api.tools(ctx).memory_get!.execute("2", { path: "e00000000001" });
  assert.equal(sidecar.calls("memory.get")[0]?.params?.agentId, "family");
});

test("the service tells the sidecar every agent's workspace, as OpenClaw resolves it, on every connection", async (t) => {
  const sidecar = await new FakeSidecar((r) => (r.method === "agents.register" ? { changed: [], agents: [] } : { version: "0.1.0" })).start();
  t.after(() => sidecar.dispose());
  const config = { agents: { entries: { main: {}, family: { workspace: "/w/family" } } } };
  const api = new FakeApi("full", { socketPath: sidecar.socketPath }, config);
  const resolved: string[] = [];
  api.runtime = {
    agent: {
      resolveAgentWorkspaceDir: (cfg: typeof config, id: string) => {
        resolved.push(id);
        return (cfg.agents.entries as Record<string, { workspace?: string }>)[id]?.workspace ?? `/w/${id}-default`;
      },
    },
  };
  createPlugin({ spawnProcess: (() => assert.fail("a sidecar answers")) as never, sessionStore: async () => fakeStore() }).register(api as never);
  await api.services[0]!.start({ config: {}, stateDir: "/s", logger: api.logger });
  await until(() => sidecar.calls("agents.register").length === 1, "the registration");
  assert.deepEqual(sidecar.calls("agents.register")[0]!.params, {
    agents: [{ agentId: "main", workspace: "/w/main-default" }, { agentId: "family", workspace: "/w/family" }],
  });
  await sidecar.stop(); // a restarted sidecar hears it again
  await sidecar.start();
  await until(() => sidecar.calls("agents.register").length === 2, "the registration after reconnecting");
  await api.services[0]!.stop!({});
});

test("memory_get answers in memory-core's shapes", async (t) => {
  const { api } = await setup(t, "discovery", (r) =>
    r.params?.path === "missing000000" ? new Fail(-32002, "no entry") : r.params?.path === "../etc" ? new Fail(-32003, "not allowed") : { entry: { id: "r7Wp3nKx_mZe" }, current: true },
  );
  const get = api.tools().memory_get!;
  assert.deepEqual((await get.execute("1", { path: "r7Wp3nKx_mZe" })).details, { status: "ok", path: "r7Wp3nKx_mZe", entry: { id: "r7Wp3nKx_mZe" }, current: true });
  assert.deepEqual((await get.execute("2", { path: "missing000000" })).details, { status: "not_found", path: "missing000000", text: "" });
  assert.deepEqual((await get.execute("3", { path: "../etc" })).details, { status: "error", path: "../etc", text: "", code: -32003, error: "not allowed" });
});

test("sidecar down: both tools answer memory-core's unavailable shape, with an action", async (t) => {
  const { api, sidecar } = await setup(t, "discovery");
  await sidecar.stop();
  const search = (await api.tools().memory_search!.execute("1", { query: "x" })).details;
  assert.equal(search.unavailable, true);
  assert.equal(search.disabled, true);
  assert.deepEqual(search.results, []);
  assert.match(search.action, /zettelclaw serve/);
  assert.match(search.warning, /unavailable/);
  const get = (await api.tools().memory_get!.execute("2", { path: "MEMORY.md" })).details;
  assert.equal(get.unavailable, true);
  assert.equal(get.path, "MEMORY.md");
});

class FakeChild extends EventEmitter {
  exitCode: number | null = null;
  signalCode: string | null = null;
  readonly signals: string[] = [];
  stdout = new EventEmitter();
  stderr = new EventEmitter();
  kill(signal: string) {
    this.signals.push(signal);
    setImmediate(() => {
      this.signalCode = signal;
      this.emit("exit", null, signal);
    });
    return true;
  }
}

test("the CLI runs the zettelclaw command with the subcommand and its arguments", async (t) => {
  const runs: { command: string; args: string[] }[] = [];
  const sidecar = await new FakeSidecar().start();
  t.after(() => sidecar.dispose());
  const api = new FakeApi("discovery", { sidecarCommand: ["/opt/zc/bin/python", "-m", "zettelclaw"], socketPath: sidecar.socketPath });
  const spawnProcess = ((command: string, args: string[]) => {
    runs.push({ command, args });
    const child = new FakeChild();
    setImmediate(() => child.emit("exit", 3, null));
    return child;
  }) as never;
  createPlugin({ spawnProcess, sessionStore: async () => fakeStore() }).register(api as never);
  const program = new FakeCommand();
  api.cli[0]!.registrar({ program });
  for (const name of ["init", "log", "search", "get", "call", "subjects", "status", "briefing"]) assert.ok(program.find(["zettelclaw", name])?.action_, name);
  const exit = process.exitCode;
  t.after(() => {
    process.exitCode = exit;
  });
  await program.find(["zettelclaw", "search"])!.action_!(["webhook", "--type", "decision"]);
  assert.equal(process.exitCode, 3);
  await program.find(["zettelclaw", "init"])!.action_!(["--dry-run"]);
  assert.deepEqual(runs, [
    { command: "/opt/zc/bin/python", args: ["-m", "zettelclaw", "search", "--socket", sidecar.socketPath, "webhook", "--type", "decision"] },
    { command: "/opt/zc/bin/python", args: ["-m", "zettelclaw", "init", "--dry-run"] },
  ]);
});

test("the service starts a sidecar when none answers, and stops it with the gateway", async (t) => {
  const sidecar = new FakeSidecar(); // not started: nothing answers
  t.after(() => sidecar.dispose());
  const api = new FakeApi("full", { socketPath: sidecar.socketPath });
  const children: FakeChild[] = [];
  const runs: string[][] = [];
  const spawnProcess = ((command: string, args: string[]) => {
    runs.push([command, ...args]);
    const child = new FakeChild();
    children.push(child);
    void sidecar.start(); // the "sidecar" comes up
    return child;
  }) as never;
  createPlugin({ spawnProcess, sessionStore: async () => fakeStore() }).register(api as never);
  const [service] = api.services;
  await service!.start({ config: {}, stateDir: "/state", workspaceDir: "/state/workspace", logger: api.logger });
  assert.deepEqual(runs, [["zettelclaw", "serve", "--socket", sidecar.socketPath, "--workspace", "/state/workspace"]]);
  await service!.stop!({});
  assert.deepEqual(children[0]?.signals, ["SIGTERM"]);
});

test("a sidecar the service started that dies is started again, with a growing wait; not after the service stops", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const sidecar = new FakeSidecar(); // nothing answers: every start is the service's
  t.after(() => sidecar.dispose());
  const api = new FakeApi("full", { socketPath: sidecar.socketPath });
  const children: FakeChild[] = [];
  const spawnProcess = (() => {
    const child = new FakeChild();
    children.push(child);
    return child;
  }) as never;
  createPlugin({ spawnProcess, sessionStore: async () => fakeStore(), restartMs: 1000 }).register(api as never);
  const [service] = api.services;
  await service!.start({ config: {}, stateDir: "/state", logger: api.logger });
  assert.equal(children.length, 1);
  children[0]!.emit("exit", null, "SIGKILL"); // kill -9, or the OOM killer
  assert.ok(api.logs.some((l) => /the sidecar exited \(SIGKILL\) while the gateway runs; starting it again in 1 s \(restart 1\)/.test(l)), api.logs.join("\n"));
  // before starting one, the service asks whether a sidecar answers (none here): I/O, not timers
  const settled = async (count: number) => {
    for (let i = 0; i < 500 && children.length < count; i += 1) await new Promise((r) => setImmediate(r));
  };
  t.mock.timers.tick(999);
  await settled(2);
  assert.equal(children.length, 1, "not before the wait");
  t.mock.timers.tick(1);
  await settled(2);
  assert.equal(children.length, 2, "started again");
  children[1]!.emit("exit", 137, null); // dies young again: the wait doubles
  t.mock.timers.tick(1999);
  await settled(3);
  assert.equal(children.length, 2);
  t.mock.timers.tick(1);
  await settled(3);
  assert.equal(children.length, 3);
  assert.ok(api.logs.some((l) => /exited \(code 137\) while the gateway runs; starting it again in 2 s \(restart 2\)/.test(l)));
  await service!.stop!({}); // SIGTERM, which the fake answers with its exit
  assert.deepEqual(children[2]?.signals, ["SIGTERM"]);
  t.mock.timers.tick(600_000);
  assert.equal(children.length, 3, "a sidecar the service stopped is not started again");
});

test("a sidecar the service started that someone stops (exit 0, as after SIGTERM) is not started again", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const sidecar = new FakeSidecar();
  t.after(() => sidecar.dispose());
  const api = new FakeApi("full", { socketPath: sidecar.socketPath });
  const children: FakeChild[] = [];
  createPlugin({ spawnProcess: (() => (children.push(new FakeChild()), children.at(-1))) as never, sessionStore: async () => fakeStore(), restartMs: 1000 }).register(api as never);
  await api.services[0]!.start({ config: {}, stateDir: "/state", logger: api.logger });
  children[0]!.emit("exit", 0, null); // `kill PID`: the sidecar finished its writes and exited 0
  t.mock.timers.tick(600_000);
  for (let i = 0; i < 50; i += 1) await new Promise((r) => setImmediate(r));
  assert.equal(children.length, 1, "a stop is a choice, not a death");
  assert.ok(api.logs.some((l) => /the sidecar was stopped \(code 0\); not starting it again/.test(l)), api.logs.join("\n"));
  await api.services[0]!.stop!({});
});

test("a sidecar that died is not started again when another answers by then (a person's zettelclaw serve)", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const sidecar = new FakeSidecar(() => ({ version: "0.1.0" }));
  t.after(() => sidecar.dispose());
  const api = new FakeApi("full", { socketPath: sidecar.socketPath });
  const children: FakeChild[] = [];
  createPlugin({ spawnProcess: (() => (children.push(new FakeChild()), children.at(-1))) as never, sessionStore: async () => fakeStore(), restartMs: 1000 }).register(api as never);
  await api.services[0]!.start({ config: {}, stateDir: "/state", logger: api.logger });
  children[0]!.emit("exit", null, "SIGKILL");
  await sidecar.start(); // someone started one meanwhile
  t.mock.timers.tick(1000);
  for (let i = 0; i < 500 && !api.logs.some((l) => /answers .* again; not starting one/.test(l)); i += 1) await new Promise((r) => setImmediate(r));
  assert.equal(children.length, 1, "no second sidecar");
  assert.ok(api.logs.some((l) => /a sidecar answers on .* again; not starting one/.test(l)), api.logs.join("\n"));
  await api.services[0]!.stop!({});
});

test("the service does not start a sidecar when one answers, nor when autostart is off", async (t) => {
  for (const [answering, autostart] of [[true, true], [false, false]] as const) {
    const sidecar = new FakeSidecar(() => ({ version: "0.1.0" }));
    if (answering) await sidecar.start();
    t.after(() => sidecar.dispose());
    const api = new FakeApi("full", { socketPath: sidecar.socketPath, autostart });
    let spawned = 0;
    createPlugin({ spawnProcess: (() => (spawned += 1)) as never, sessionStore: async () => fakeStore() }).register(api as never);
    await api.services[0]!.start({ config: {}, stateDir: "/s", logger: api.logger });
    await api.services[0]!.stop!({});
    assert.equal(spawned, 0);
    if (!answering) assert.ok(api.logs.some((l) => /no sidecar answers/.test(l)));
  }
});

test("the service offers the agent's model (llm.complete) on every connection and answers with runtime.llm", async (t) => {
  const sidecar = await new FakeSidecar((r) => (r.method === "host.offer" ? { accepted: ["llm.complete"] } : { version: "0.1.0" })).start();
  t.after(() => sidecar.dispose());
  const api = new FakeApi("full", { socketPath: sidecar.socketPath });
  const asked: unknown[] = [];
  api.runtime = {
    version: "2026.9.6",
    llm: {
      complete: async (params: unknown) => {
        asked.push(params);
        return { text: "FROM THE AGENT'S MODEL", provider: "fake", model: "fake-model", usage: { inputTokens: 5 } };
      },
    },
  };
  createPlugin({ spawnProcess: (() => assert.fail("a sidecar answers")) as never, sessionStore: async () => fakeStore() }).register(api as never);
  await api.services[0]!.start({ config: {}, stateDir: "/s", logger: api.logger });
  await until(() => sidecar.calls("host.offer").length === 1, "the offer");
  assert.deepEqual(sidecar.calls("host.offer")[0]!.params, { capabilities: ["llm.complete"], client: { name: "openclaw", version: "2026.9.6" } });
  sidecar.ask("zc-1", "llm.complete", { messages: [{ role: "user", content: "extract" }], maxTokens: 100, purpose: "extraction", timeoutMs: 5000 });
  await until(() => sidecar.replies.length === 1, "the answer");
  assert.deepEqual(sidecar.replies[0], { jsonrpc: "2.0", id: "zc-1", result: { text: "FROM THE AGENT'S MODEL", model: "fake/fake-model", usage: { inputTokens: 5 } } });
  assert.equal((asked[0] as { purpose: string }).purpose, "zettelclaw extraction");
  await sidecar.stop(); // the sidecar restarts: the plugin reconnects and offers again
  await sidecar.start();
  await until(() => sidecar.calls("host.offer").length === 2, "the offer after reconnecting");
  await api.services[0]!.stop!({});
  assert.deepEqual(sidecar.calls("host.offer")[2]!.params, { capabilities: [], reason: "OpenClaw stopped the plugin (a reload, or the gateway stopping)" });
  sidecar.ask("zc-2", "llm.complete", { messages: [{ role: "user", content: "x" }] });
  await until(() => sidecar.replies.length === 2, "the answer after stop");
  assert.equal(sidecar.replies[1]!.error!.code, -32013, "stopped: the agent's model cannot be asked now");
  assert.equal(asked.length, 1);
});

test("a hot reload: the reloaded registration answers llm.complete, never the retired one", async (t) => {
  // OpenClaw 2026.9.6, as the plugin meets it on the gateway: a runtime call fails in the async
  // context of a retired registration, and a retired api's runtime is gone. A reload stops the
  // service, retires the registration (its lifecycle signal aborts), then registers the plugin
  // again with a new api and starts the new service; after it, calls fail from every plugin
  // context until one runs from OpenClaw's context-free root (it refreshes the stale process
  // state). The sidecar's connection, opened by the first registration, stays open throughout.
  const frame = new AsyncLocalStorage<{ generation: number }>();
  const retired = new Set<number>();
  let stale = false;
  const asked: number[] = [];
  const rootKey = Symbol.for("openclaw.detachedAsyncContext");
  (globalThis as unknown as Record<symbol, unknown>)[rootKey] = new AsyncResource("openclaw.detached-async-context");
  t.after(() => delete (globalThis as unknown as Record<symbol, unknown>)[rootKey]);
  const sidecar = await new FakeSidecar((r) => (r.method === "host.offer" ? { accepted: r.params?.capabilities } : { version: "0.1.0" })).start();
  t.after(() => sidecar.dispose());
  const registration = (generation: number) => {
    const api = new FakeApi("full", { socketPath: sidecar.socketPath });
    const lifecycle = new AbortController();
    const runtime = {
      version: "2026.9.6",
      llm: {
        complete: async () => {
          const scope = frame.getStore();
          if (scope && (stale || retired.has(scope.generation))) throw new Error("Plugin inventory has retired; begin a new plugin operation.");
          if (!scope) stale = false; // from the root: the process state is rebuilt
          asked.push(generation);
          return { text: `FROM REGISTRATION ${generation}`, provider: "fake", model: "fake-model" };
        },
      },
    };
    Object.defineProperty(api, "runtime", {
      get: () => {
        if (lifecycle.signal.aborted) throw new Error('Plugin "zettelclaw" runtime is no longer active.');
        return runtime;
      },
    });
    Object.assign(api, { lifecycle: { signal: lifecycle.signal } });
    const inScope = <T>(run: () => T): T => frame.run({ generation }, run);
    inScope(() => createPlugin({ spawnProcess: (() => assert.fail("a sidecar answers")) as never, sessionStore: async () => fakeStore() }).register(api as never));
    const service = api.services[0]!;
    return {
      logs: () => api.logs,
      start: () => inScope(() => service.start({ config: {}, stateDir: "/s", logger: api.logger })),
      stop: () => inScope(() => service.stop!({})),
      retire: () => {
        retired.add(generation);
        stale = true;
        lifecycle.abort();
      },
    };
  };
  const ask = async (id: string) => {
    const before = sidecar.replies.length;
    sidecar.ask(id, "llm.complete", { messages: [{ role: "user", content: "extract" }], timeoutMs: 5000 });
    await until(() => sidecar.replies.length > before, `the answer to ${id}`);
    return sidecar.replies.at(-1)!;
  };
  const offers = () => sidecar.calls("host.offer").map((r) => r.params?.capabilities);
  const textOf = (reply: Reply) => (reply.result as { text?: unknown } | undefined)?.text;

  const first = registration(1);
  await first.start();
  await until(() => offers().length === 1, "the first offer");
  assert.equal(textOf(await ask("zc-1")), "FROM REGISTRATION 1");

  await first.stop(); // the reload begins: the offer is withdrawn before the old api goes
  first.retire();
  assert.deepEqual(offers(), [["llm.complete"], []]);
  const between = await ask("zc-2");
  assert.equal(between.error?.code, -32013, `between the registrations: ${JSON.stringify(between)}`);

  const second = registration(2);
  await second.start();
  await until(() => offers().length === 3, "the reloaded plugin's offer");
  assert.deepEqual(offers()[2], ["llm.complete"]);
  const after = await ask("zc-3");
  assert.deepEqual(after.result, { text: "FROM REGISTRATION 2", model: "fake/fake-model" }, `after the reload: ${JSON.stringify(after)}`);
  assert.equal(textOf(await ask("zc-4")), "FROM REGISTRATION 2");
  assert.equal(second.logs().filter((l) => /asked again from OpenClaw's root/.test(l)).length, 1);
  assert.deepEqual(asked, [1, 2, 2], "the retired registration was never asked again");
  await second.stop();
});

test("an OpenClaw without runtime.llm.complete offers nothing", async (t) => {
  const sidecar = await new FakeSidecar(() => ({ version: "0.1.0" })).start();
  t.after(() => sidecar.dispose());
  const api = new FakeApi("full", { socketPath: sidecar.socketPath });
  createPlugin({ spawnProcess: (() => assert.fail("a sidecar answers")) as never, sessionStore: async () => fakeStore() }).register(api as never);
  await api.services[0]!.start({ config: {}, stateDir: "/s", logger: api.logger });
  await api.services[0]!.stop!({});
  assert.equal(sidecar.calls("host.offer").length, 0);
  assert.ok(api.logs.some((l) => /no runtime.llm.complete/.test(l)));
});

test("memory-core's dreaming cron job is removed once memory-core is off and Zettelclaw holds the slot", async () => {
  const jobs = [
    { id: "1", name: "heartbeat-main", declarationKey: "heartbeat:main" },
    { id: "2", name: "Memory Dreaming Promotion", declarationKey: "memory-core:memory-dreaming-promotion" },
  ];
  const removed: string[] = [];
  const cron = { list: async () => jobs, remove: async (id: string) => void removed.push(id) };
  const api = new FakeApi("full", {});
  const config = (coreEnabled: boolean) => ({ plugins: { slots: { memory: "zettelclaw" }, entries: { "memory-core": { enabled: coreEnabled } } } });
  assert.equal(await removeDreamingJob({ config: config(true), getCron: () => cron } as never, api.logger), 0);
  assert.equal(await removeDreamingJob({ config: config(false), getCron: () => cron } as never, api.logger), 1);
  assert.deepEqual(removed, ["2"]);
});

test("the schema check sees an unknown method and an unknown param", () => {
  assert.deepEqual(checkAgainstSchema({ method: "memory.search", params: { query: "x", agentId: "main" } }), []);
  assert.equal(checkAgainstSchema({ method: "memory.serch" }).length, 1);
  assert.equal(checkAgainstSchema({ method: "memory.search", params: { qurey: "x" } }).length, 1);
});

// last: every request the tests above made the plugin send is one the sidecar accepts
test("every request the plugin sent is a method and params of protocol.schema.json", () => {
  assert.deepEqual(schemaViolations, []);
});
