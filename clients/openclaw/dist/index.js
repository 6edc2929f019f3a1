// Zettelclaw as OpenClaw's memory plugin: a shim with no memory logic. It forwards OpenClaw's
// hooks and the memory tools to the Zettelclaw sidecar over its Unix socket (protocol.md), adds
// `openclaw zettelclaw ...` commands that run the `zettelclaw` command, and a service that
// connects to the sidecar when the gateway starts (and starts one when none answers).
//
// Two rules from how OpenClaw 2026.9 loads plugins:
// - register() runs in several module instances per process ("full", "discovery", ...): the
//   agent-turn hooks and the tool factory are served by a "discovery" instance. So hooks, tools
//   and the CLI are registered in every mode; only the service (child processes, cron clean-up)
//   is registered in "full" mode. Shared state lives on globalThis (see src/rpc.ts).
// - Nothing here may break or stall the host: every call has a deadline well under the hook's
//   budget, and while the sidecar is down the hooks do nothing and the tools answer memory-core's
//   "unavailable" shape.
import { spawn } from "node:child_process";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { hostModel } from "./src/host_model.js";
import { RpcError, SidecarUnavailableError, sharedClient } from "./src/rpc.js";
export const PLUGIN_ID = "zettelclaw";
const SLOW_CALL_MS = 15_000; // tools, the sweep, the CLI: not on a hook's clock
const FACT_TTL_MS = 30_000;
const READY_WAIT_MS = 20_000;
const STOP_WAIT_MS = 4_000;
const DREAMING_JOB_KEY = "memory-core:memory-dreaming-promotion";
const DREAMING_JOB_NAME = "Memory Dreaming Promotion";
const CLI_COMMANDS = {
    init: "Make Zettelclaw OpenClaw's memory: memory slot, hook access, memory-core off (zettelclaw init)",
    log: "Show the newest memory entries (zettelclaw log)",
    search: "Search memory by keywords and filters (zettelclaw search)",
    get: "Read one entry, memory file or session by its path (zettelclaw get)",
    call: "Call a sidecar protocol method and print its JSON result (zettelclaw call)",
    subjects: "List, add or rename subjects (zettelclaw subjects)",
    status: "Show where memory lives and the sidecar's state (zettelclaw status)",
    briefing: "Generate the MEMORY.md briefing (zettelclaw briefing)",
};
/** The sidecar's socket, resolved as the sidecar resolves it (README, "Where things live"). */
export function resolveSocketPath(config, env = process.env) {
    const expand = (p) => (p.startsWith("~/") ? join(homedir(), p.slice(2)) : p);
    const absolute = (p) => (isAbsolute(expand(p)) ? expand(p) : resolve(expand(p)));
    if (config.socketPath)
        return absolute(config.socketPath);
    if (env.ZETTELCLAW_SOCKET)
        return absolute(env.ZETTELCLAW_SOCKET);
    const state = env.OPENCLAW_STATE_DIR ? absolute(env.OPENCLAW_STATE_DIR) : join(homedir(), ".openclaw");
    const home = env.ZETTELCLAW_HOME ? absolute(env.ZETTELCLAW_HOME) : join(state, "zettelclaw");
    return join(home, "sidecar.sock");
}
/** The argv prefix that runs the `zettelclaw` command. */
export function zettelclawCommand(config) {
    const command = config.sidecarCommand ?? "zettelclaw";
    return typeof command === "string" ? [command] : [...command];
}
const FACTS = Symbol.for("zettelclaw.openclaw.turn-facts.v1");
function turnFacts() {
    const store = globalThis;
    return (store[FACTS] ??= new Map());
}
function noteFact(sessionKey, fact) {
    if (!sessionKey)
        return;
    const facts = turnFacts();
    const now = Date.now();
    for (const [key, old] of facts)
        if (now - old.at > FACT_TTL_MS)
            facts.delete(key);
    facts.set(sessionKey, { ...facts.get(sessionKey), ...fact, at: now });
}
/**
 * hook.beforePromptBuild's params from the hook ctx. The prompt hook's ctx carries no owner or
 * group bit, so these come from what the same process saw for this session just before: the tool
 * factory's `senderIsOwner` and before_dispatch's `isGroup`; and from the ctx, a chat whose id
 * differs from the sender's is a shared one. The sidecar decides what to do with them.
 */
export function promptParams(ctx, facts = turnFacts()) {
    const fact = ctx.sessionKey ? facts.get(ctx.sessionKey) : undefined;
    const fresh = fact && Date.now() - fact.at <= FACT_TTL_MS ? fact : undefined;
    const chat = ctx.channelContext?.chat?.id ?? ctx.chatId;
    const sender = ctx.channelContext?.sender?.id ?? ctx.senderId;
    const sharedByIds = chat != null && sender != null ? String(chat) !== String(sender) : undefined;
    let chatType;
    if (fresh?.isGroup === true || sharedByIds === true)
        chatType = "group";
    else if (fresh?.isGroup === false || sharedByIds === false)
        chatType = "direct";
    let senderIsOwner;
    if (typeof ctx.senderIsOwner === "boolean")
        senderIsOwner = ctx.senderIsOwner;
    else if (typeof fresh?.senderIsOwner === "boolean" && (!fresh.sessionId || fresh.sessionId === ctx.sessionId)) {
        senderIsOwner = fresh.senderIsOwner;
    }
    return compact({
        sessionKey: ctx.sessionKey,
        sessionId: ctx.sessionId,
        agentId: ctx.agentId,
        channel: ctx.channel,
        workspaceDir: ctx.workspaceDir,
        chatType,
        senderIsOwner,
    });
}
/**
 * Who will read a tool's answer, from the tool factory's ctx: the session key, whether the sender
 * is the owner, and a chat whose id differs from the requester's is a shared one. The sidecar
 * answers memory only to the owner's private session (protocol.md, memory.search).
 */
export function toolAudience(ctx, facts = turnFacts()) {
    const fact = ctx.sessionKey ? facts.get(ctx.sessionKey) : undefined;
    const fresh = fact && Date.now() - fact.at <= FACT_TTL_MS ? fact : undefined;
    const chat = ctx.nativeChannelId;
    const sender = ctx.requesterSenderId;
    const sharedByIds = chat != null && sender != null ? String(chat) !== String(sender) : undefined;
    let chatType;
    if (fresh?.isGroup === true || sharedByIds === true)
        chatType = "group";
    else if (fresh?.isGroup === false || sharedByIds === false)
        chatType = "direct";
    return compact({
        sessionKey: ctx.sessionKey,
        chatType,
        senderIsOwner: typeof ctx.senderIsOwner === "boolean" ? ctx.senderIsOwner : undefined,
    });
}
function compact(params) {
    return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined && value !== null));
}
async function openClawSessionStore() {
    return (await import("openclaw/plugin-sdk/session-store-runtime"));
}
/**
 * The user and assistant messages of a conversation, as OpenClaw message objects or transcript
 * events: the sidecar reads nothing else (tool results can be large; the socket takes 32 MiB).
 */
export function conversation(items) {
    return items.filter((item) => {
        const i = item;
        const role = i?.type === "message" ? i.message?.role : i?.role;
        return role === "user" || role === "assistant";
    });
}
/** A transcript's messages (all of them, across resets: the sidecar keeps what is new). */
function transcriptMessages(store, agentId, sessionId, sessionKey) {
    return conversation(store.loadTranscriptEventsSync(compact({ agentId, sessionId, sessionKey })));
}
function agentIds(config) {
    const agents = config?.agents;
    const ids = new Set(["main"]);
    if (agents?.entries && typeof agents.entries === "object")
        for (const id of Object.keys(agents.entries))
            ids.add(id);
    if (Array.isArray(agents?.list)) {
        for (const agent of agents.list)
            if (typeof agent?.id === "string")
                ids.add(agent.id);
    }
    return [...ids];
}
function toolResult(payload) {
    return { content: [{ type: "text", text: JSON.stringify(payload, null, 2) }], details: payload };
}
function unavailable(socketPath, error, extra = {}) {
    const reason = error instanceof Error ? error.message : String(error);
    const warning = `Zettelclaw memory is unavailable: its sidecar does not answer on ${socketPath}.`;
    const action = "Start the Zettelclaw sidecar: run `zettelclaw serve`, or restart the gateway, which starts it when " +
        "plugins.entries.zettelclaw.config.autostart is on (the default). `openclaw zettelclaw status` shows " +
        "its state. Memory comes back by itself once the sidecar answers.";
    return { ...extra, disabled: true, unavailable: true, error: reason, warning, action, debug: { warning, action, error: reason } };
}
const ENTRY_TYPES = ["task", "fact", "decision", "question", "handoff"];
const SEARCH_PARAMETERS = {
    type: "object",
    properties: {
        query: {
            type: "string",
            description: "Keywords. An empty string with filters lists the matching entries, newest first.",
        },
        maxResults: { type: "integer", minimum: 1, maximum: 1000, description: "At most this many results (default 10)." },
        minScore: { type: "number", minimum: 0, maximum: 1, description: "Leave out results scoring below this (0..1)." },
        corpus: {
            type: "string",
            enum: ["all", "log", "files", "memory", "sessions", "wiki"],
            description: "What to search: all (default), log (the entries), files (MEMORY.md and memory/*.md). memory-core's " +
                "names are accepted too: memory = all, sessions = log, wiki = files.",
        },
        type: { type: "string", enum: ENTRY_TYPES, description: "Only entries of this type." },
        subject: { type: "string", description: "Only entries about this subject (a kebab-case slug, e.g. auth-migration)." },
        status: { type: "string", enum: ["open", "done"], description: "Only tasks with this status." },
        includeReplaced: { type: "boolean", description: "Also return entries that were corrected later (default false)." },
    },
    required: ["query"],
    additionalProperties: false,
};
const GET_PARAMETERS = {
    type: "object",
    properties: {
        path: {
            type: "string",
            description: "An entry id from memory_search (12 characters), `session:<sessionId>` for the conversation an entry " +
                "came from, or MEMORY.md / memory/*.md.",
        },
        from: { type: "integer", minimum: 1, description: "First line to return (files and sessions)." },
        lines: { type: "integer", minimum: 1, description: "How many lines to return." },
        corpus: {
            type: "string",
            enum: ["memory", "wiki", "all"],
            description: "Accepted for compatibility with memory-core; ignored.",
        },
    },
    required: ["path"],
    additionalProperties: false,
};
// memory-core's corpus names, as the sidecar's (protocol.md, memory.search `corpus`).
const CORPUS = { all: "all", log: "log", files: "files", memory: "all", sessions: "log", wiki: "files" };
export function searchParams(input) {
    const query = typeof input.query === "string" ? input.query.trim() : "";
    return compact({
        query: query || undefined,
        type: input.type,
        subject: input.subject,
        status: input.status,
        includeReplaced: input.includeReplaced,
        maxResults: input.maxResults,
        minScore: input.minScore,
        corpus: typeof input.corpus === "string" ? (CORPUS[input.corpus] ?? input.corpus) : undefined,
    });
}
function memoryTools(client, audience = {}) {
    const search = {
        name: "memory_search",
        label: "Memory Search",
        description: "Mandatory recall step: search long-term memory (Zettelclaw's log of facts, decisions, tasks, questions " +
            "and session handoffs, and MEMORY.md / memory/*.md) before answering questions about prior work, " +
            "decisions, dates, people, preferences or todos. Best matches first; filter log entries by type, subject " +
            "and task status. Corrected entries are hidden unless includeReplaced. A log result's path is its entry " +
            "id, a file result's path its file: pass either to memory_get.",
        parameters: SEARCH_PARAMETERS,
        async execute(_toolCallId, params) {
            const input = (params ?? {});
            const rpc = client();
            try {
                return toolResult(await rpc.call("memory.search", { ...searchParams(input), ...audience }, SLOW_CALL_MS));
            }
            catch (error) {
                if (error instanceof RpcError)
                    return toolResult({ results: [], error: error.message, code: error.code, data: error.data });
                return toolResult(unavailable(rpc.socketPath, error, { results: [] }));
            }
        },
    };
    const get = {
        name: "memory_get",
        label: "Memory Get",
        description: "Safe exact read from memory: a log entry by its id (with the versions it replaced or that replaced it), " +
            "the conversation an entry came from (`session:<sessionId>`), or MEMORY.md and memory/*.md by path.",
        parameters: GET_PARAMETERS,
        async execute(_toolCallId, params) {
            const input = (params ?? {});
            const path = typeof input.path === "string" ? input.path : "";
            const rpc = client();
            try {
                const answer = await rpc.call("memory.get", { ...compact({ path, from: input.from, lines: input.lines }), ...audience }, SLOW_CALL_MS);
                return toolResult({ status: "ok", path, ...answer });
            }
            catch (error) {
                if (error instanceof RpcError) {
                    if (error.code === -32002)
                        return toolResult({ status: "not_found", path, text: "" });
                    return toolResult({ status: "error", path, text: "", code: error.code, error: error.message });
                }
                return toolResult(unavailable(rpc.socketPath, error, { path, text: "" }));
            }
        },
    };
    return [search, get];
}
export function createPlugin(deps = {}) {
    const loadStore = deps.sessionStore ?? openClawSessionStore;
    const spawnProcess = deps.spawnProcess ?? spawn;
    const env = deps.env ?? process.env;
    return {
        id: PLUGIN_ID,
        name: "Zettelclaw",
        description: "Long-term memory: an append-only event log served by the Zettelclaw sidecar",
        register(api) {
            const config = (api.pluginConfig ?? {});
            const socketPath = resolveSocketPath(config, env);
            const timeoutMs = config.timeoutMs ?? 2000;
            const client = () => sharedClient(socketPath, { timeoutMs });
            const log = api.logger;
            const outage = outageLogger(log);
            const quiet = outage.fail;
            // Send one stretch of conversation for extraction. Never throws.
            async function deliver(method, params, deadline) {
                try {
                    await client().call(method, compact(params), deadline);
                    outage.ok();
                }
                catch (error) {
                    quiet(`${method} for session ${String(params.sessionId)} not delivered`, error);
                }
            }
            async function readTranscript(agentId, sessionId, sessionKey) {
                try {
                    return transcriptMessages(await loadStore(), agentId, sessionId, sessionKey);
                }
                catch (error) {
                    log.warn(`zettelclaw: cannot read the transcript of session ${sessionId}: ${describe(error)}`);
                    return undefined;
                }
            }
            // -- hooks (every registration mode) --
            api.on("before_prompt_build", async (_event, ctx) => {
                try {
                    const answer = await client().call("hook.beforePromptBuild", promptParams(ctx), timeoutMs);
                    outage.ok();
                    return answer?.prependContext ? { prependContext: answer.prependContext } : undefined;
                }
                catch (error) {
                    quiet("no handoff for this turn", error);
                    return undefined;
                }
            }, { timeoutMs: timeoutMs + 1000 });
            api.on("before_dispatch", (event) => {
                if (typeof event.isGroup === "boolean")
                    noteFact(event.sessionKey, { isGroup: event.isGroup });
                return undefined;
            });
            api.on("before_reset", async (event, ctx) => {
                const sessionId = ctx.sessionId;
                if (!sessionId)
                    return;
                const messages = event.messages ? conversation(event.messages) : await readTranscript(ctx.agentId, sessionId, ctx.sessionKey);
                if (!messages)
                    return;
                await deliver("hook.beforeReset", { sessionId, sessionKey: ctx.sessionKey, agentId: ctx.agentId, reason: event.reason, workspaceDir: ctx.workspaceDir, messages }, timeoutMs);
            });
            api.on("session_end", async (event, ctx) => {
                const agentId = ctx.agentId;
                const messages = await readTranscript(agentId, event.sessionId, event.sessionKey);
                if (!messages)
                    return;
                await deliver("hook.sessionEnd", { sessionId: event.sessionId, sessionKey: event.sessionKey, agentId, reason: event.reason, messages }, timeoutMs);
            });
            // The start-up sweep: the sessions the sidecar has not fully received (ended while it or
            // the gateway was down). Runs in the background: it must not hold up the gateway's start.
            const sweep = singleFlight(async (why) => {
                const store = await loadStore();
                const sessions = [];
                for (const agentId of agentIds(api.config)) {
                    for (const { sessionKey, entry } of store.listSessionEntries({ agentId, readOnly: true })) {
                        const e = entry;
                        if (typeof e?.sessionId !== "string")
                            continue;
                        sessions.push(compact({ sessionId: e.sessionId, sessionKey, agentId, updatedAt: e.updatedAt }));
                    }
                }
                const answer = await client().call("hook.gatewayStart", { sessions }, SLOW_CALL_MS);
                const wanted = answer?.sessions ?? [];
                const byId = new Map(sessions.map((s) => [s.sessionId, s]));
                for (const { sessionId } of wanted) {
                    const session = byId.get(sessionId) ?? {};
                    const agentId = session.agentId;
                    const sessionKey = session.sessionKey;
                    try {
                        const messages = transcriptMessages(store, agentId, sessionId, sessionKey);
                        if (messages.length === 0)
                            continue;
                        await client().call("hook.sessionEnd", compact({ sessionId, sessionKey, agentId, reason: "sweep", messages }), SLOW_CALL_MS);
                    }
                    catch (error) {
                        if (error instanceof SidecarUnavailableError)
                            throw error; // the next connection sweeps again
                        log.warn(`zettelclaw: sweep: session ${sessionId} skipped: ${describe(error)}`);
                    }
                }
                log.info(`zettelclaw: sweep (${why}): ${sessions.length} session(s) listed, ${wanted.length} sent for extraction`);
            });
            const runSweep = (why) => {
                const done = sweep(why).catch((error) => {
                    // The sidecar is not up yet (or down): the sweep runs when it answers (onReconnect).
                    if (error instanceof SidecarUnavailableError)
                        log.info(`zettelclaw: sweep (${why}) waits for the sidecar`);
                    else
                        log.warn(`zettelclaw: sweep (${why}) failed: ${describe(error)}`);
                });
                setLastSweep(done);
                return done;
            };
            api.on("gateway_start", () => {
                void runSweep("gateway start");
            });
            // -- tools, memory capability, CLI (every registration mode) --
            api.registerTool((ctx) => {
                const owner = ctx.senderIsOwner;
                if (typeof owner === "boolean")
                    noteFact(ctx.sessionKey, { senderIsOwner: owner, sessionId: ctx.sessionId });
                return memoryTools(client, toolAudience(ctx));
            }, { names: ["memory_search", "memory_get"] });
            api.registerMemoryCapability({
                promptBuilder: ({ availableTools }) => availableTools.has("memory_search")
                    ? [
                        "## Memory (Zettelclaw)",
                        "Long-term memory is a log of facts, decisions, tasks, questions and session handoffs, written " +
                            "automatically after each conversation. The last handoff may appear before the user's message. " +
                            "Before answering about prior work, decisions, people, preferences or todos, call memory_search " +
                            "(filters: type, subject, status); read an entry or its source conversation with memory_get.",
                        "",
                    ]
                    : [],
            });
            api.registerCli(({ program }) => {
                const root = program.command("zettelclaw").description("Zettelclaw long-term memory");
                for (const [name, description] of Object.entries(CLI_COMMANDS)) {
                    root
                        .command(name)
                        .description(description)
                        .helpOption(false)
                        .allowUnknownOption(true)
                        .allowExcessArguments(true)
                        .argument("[args...]", "passed to `zettelclaw " + name + "`")
                        .action(async (args) => {
                        process.exitCode = await runCommand(name, args ?? []);
                    });
                }
            }, { descriptors: [{ name: "zettelclaw", description: "Zettelclaw long-term memory", hasSubcommands: true }] });
            function runCommand(name, args) {
                const [command, ...prefix] = zettelclawCommand(config);
                const socketArgs = name !== "init" && config.socketPath ? ["--socket", socketPath] : [];
                return new Promise((done) => {
                    // ZETTELCLAW_OPENCLAW_PLUGIN tells `zettelclaw init` that OpenClaw has loaded the plugin.
                    const childEnv = { ...env, ZETTELCLAW_OPENCLAW_PLUGIN: api.rootDir ?? "1" };
                    const child = spawnProcess(command, [...prefix, name, ...socketArgs, ...args], { stdio: "inherit", env: childEnv });
                    child.once("error", (error) => {
                        console.error(error.code === "ENOENT"
                            ? `openclaw zettelclaw: \`${command}\` not found. Install the Zettelclaw sidecar (README) or set ` +
                                "plugins.entries.zettelclaw.config.sidecarCommand."
                            : `openclaw zettelclaw: cannot run ${command}: ${error.message}`);
                        done(127);
                    });
                    child.once("exit", (code, signal) => done(code ?? (signal ? 128 + 15 : 1)));
                });
            }
            // -- the service: only the "full" instance starts processes --
            if (api.registrationMode !== "full")
                return;
            let child = null;
            let stopReconnect = null;
            let stopHostModel = null;
            // The host's model for the sidecar (protocol.md, "The host's model"): on every connection,
            // offer llm.complete, answered by OpenClaw's runtime with the agent's model, so that
            // extraction needs no Anthropic key. Only this instance offers: one offer per gateway.
            function offerHostModel(rpc) {
                const runtimeLlm = api.runtime?.llm;
                if (typeof runtimeLlm?.complete !== "function") {
                    log.info("zettelclaw: this OpenClaw has no runtime.llm.complete; extraction needs an Anthropic key");
                    return () => { };
                }
                const complete = (params) => runtimeLlm.complete(params);
                const unhandle = rpc.handle("llm.complete", hostModel(complete));
                const version = api.runtime?.version;
                const unlisten = rpc.onConnect(() => {
                    rpc
                        .call("host.offer", { capabilities: ["llm.complete"], client: compact({ name: "openclaw", version: typeof version === "string" ? version : undefined }) }, timeoutMs)
                        .then(() => log.info("zettelclaw: offered the agent's model to the sidecar (llm.complete)"))
                        .catch((error) => log.warn(`zettelclaw: host.offer failed: ${describe(error)}`));
                });
                return () => {
                    unlisten();
                    unhandle();
                };
            }
            api.registerService({
                id: "zettelclaw-sidecar",
                start: async (ctx) => {
                    const rpc = client();
                    stopReconnect = rpc.onReconnect(() => void runSweep("sidecar back"));
                    stopHostModel = offerHostModel(rpc);
                    void removeDreamingJob(ctx, log);
                    try {
                        await rpc.call("status", undefined, timeoutMs);
                        log.info(`zettelclaw: connected to the sidecar at ${socketPath}`);
                        return;
                    }
                    catch (error) {
                        if (!(error instanceof SidecarUnavailableError))
                            return;
                        if (config.autostart === false) {
                            log.warn(`zettelclaw: no sidecar answers on ${socketPath}; memory is off until \`zettelclaw serve\` runs`);
                            return;
                        }
                    }
                    child = startSidecar(ctx);
                    void waitUntilReady(rpc, child, log);
                },
                stop: async () => {
                    stopReconnect?.();
                    stopReconnect = null;
                    stopHostModel?.();
                    stopHostModel = null;
                    const running = child;
                    child = null;
                    if (running)
                        await stopProcess(running, log);
                },
            });
            function startSidecar(ctx) {
                const [command, ...prefix] = zettelclawCommand(config);
                const args = [...prefix, "serve", "--socket", socketPath];
                if (ctx.workspaceDir)
                    args.push("--workspace", ctx.workspaceDir);
                log.info(`zettelclaw: starting the sidecar: ${command} ${args.join(" ")}`);
                const proc = spawnProcess(command, args, { stdio: ["ignore", "pipe", "pipe"], env: env });
                const relay = (chunk) => {
                    for (const line of chunk.toString("utf8").split("\n"))
                        if (line.trim())
                            log.info(`zettelclaw sidecar: ${line}`);
                };
                proc.stdout?.on("data", relay);
                proc.stderr?.on("data", relay);
                proc.once("error", (error) => log.error(`zettelclaw: cannot start the sidecar (${command}): ${error.message}`));
                proc.once("exit", (code, signal) => {
                    log.info(`zettelclaw: the sidecar exited (${signal ?? `code ${code}`})`);
                    if (child === proc)
                        child = null;
                });
                return proc;
            }
        },
    };
}
async function waitUntilReady(rpc, proc, log) {
    const deadline = Date.now() + READY_WAIT_MS;
    while (Date.now() < deadline && proc.exitCode === null && proc.signalCode === null) {
        try {
            await rpc.call("status", undefined, 1000);
            log.info(`zettelclaw: the sidecar is ready on ${rpc.socketPath}`);
            return;
        }
        catch {
            await new Promise((r) => setTimeout(r, 200));
        }
    }
    log.warn(`zettelclaw: the sidecar did not answer on ${rpc.socketPath} within ${READY_WAIT_MS} ms`);
}
async function stopProcess(proc, log) {
    if (proc.exitCode !== null || proc.signalCode !== null)
        return;
    const exited = new Promise((r) => proc.once("exit", () => r()));
    proc.kill("SIGTERM"); // the sidecar finishes the writes in flight, removes its socket, exits 0
    const timer = new Promise((r) => setTimeout(() => r("late"), STOP_WAIT_MS).unref());
    if ((await Promise.race([exited, timer])) === "late") {
        log.warn("zettelclaw: the sidecar did not stop within 4 s; killing it");
        proc.kill("SIGKILL");
    }
}
/**
 * memory-core's "Memory Dreaming Promotion" cron job outlives memory-core being disabled (it lives
 * in the gateway's scheduler store, which only the gateway may change): remove it once memory-core
 * is disabled and Zettelclaw holds the memory slot, as `zettelclaw init` arranges.
 */
export async function removeDreamingJob(ctx, log) {
    const plugins = ctx.config
        ?.plugins;
    if (plugins?.slots?.memory !== PLUGIN_ID || plugins?.entries?.["memory-core"]?.enabled !== false)
        return 0;
    try {
        const cron = ctx.getCron?.();
        if (!cron)
            return 0;
        let removed = 0;
        for (const job of await cron.list({ includeDisabled: true })) {
            if (job.declarationKey === DREAMING_JOB_KEY || job.name === DREAMING_JOB_NAME) {
                await cron.remove(job.id);
                removed += 1;
                log.info(`zettelclaw: removed memory-core's "${DREAMING_JOB_NAME}" cron job (${job.id}): memory-core is disabled`);
            }
        }
        return removed;
    }
    catch (error) {
        log.warn(`zettelclaw: could not remove memory-core's dreaming cron job: ${describe(error)}`);
        return 0;
    }
}
// -- small helpers --------------------------------------------------------------------------------
function describe(error) {
    return error instanceof Error ? error.message : String(error);
}
/** Logs the first failure of a sidecar outage as a warning, the rest of it at debug level. */
function outageLogger(log) {
    let down = false;
    return {
        fail(what, error) {
            const outage = error instanceof SidecarUnavailableError;
            if (outage && down) {
                log.debug?.(`zettelclaw: ${what}: ${describe(error)}`);
                return;
            }
            down = outage;
            log.warn(`zettelclaw: ${what}: ${describe(error)}`);
        },
        ok() {
            down = false;
        },
    };
}
function singleFlight(run) {
    let running = null;
    let again = null;
    const go = (arg) => {
        if (running) {
            again = arg;
            return running;
        }
        running = run(arg).finally(() => {
            running = null;
            if (again !== null) {
                const next = again;
                again = null;
                void go(next).catch(() => { });
            }
        });
        return running;
    };
    return go;
}
const LAST_SWEEP = Symbol.for("zettelclaw.openclaw.last-sweep.v1");
function setLastSweep(done) {
    globalThis[LAST_SWEEP] = done;
}
/** The sweep started last in this process, if any (tests await it). */
export function lastSweep() {
    return globalThis[LAST_SWEEP];
}
export default createPlugin();
