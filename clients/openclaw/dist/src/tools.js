// memory_search and memory_get: memory-core's tools and result shapes, answered by the sidecar;
// memory_remember and memory_forget: the owner's own writes (the sidecar refuses them anywhere but
// the owner's private sessions). While the sidecar is down they answer an "unavailable" shape
// instead of failing.
import { request } from "./protocol.js";
import { RpcError } from "./rpc.js";
import { SLOW_CALL_MS, compact } from "./settings.js";
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
const REMEMBER_PARAMETERS = {
    type: "object",
    properties: {
        type: { type: "string", enum: ENTRY_TYPES, description: "fact (learned), decision (chosen, why in detail), task, question (open), handoff." },
        content: { type: "string", description: "The entry, one sentence to a short paragraph, in the user's terms." },
        detail: { type: "string", description: "Why, background, constraints (optional)." },
        subject: { type: "string", description: "A kebab-case slug, e.g. auth-migration (optional)." },
        status: { type: "string", enum: ["open", "done"], description: "A task's status (default open)." },
        replaces: { type: "string", description: "The id of the entry this one corrects (from memory_search)." },
    },
    required: ["type", "content"],
    additionalProperties: false,
};
const FORGET_PARAMETERS = {
    type: "object",
    properties: {
        ids: { type: "array", items: { type: "string" }, description: "Entry ids (from memory_search or a receipt line)." },
        session: { type: "string", description: "Every entry of this session id." },
        subject: { type: "string", description: "Every entry of this subject slug." },
        text: { type: "string", description: "Entries whose content contains this text (any case, at least 3 characters)." },
        purge: { type: "boolean", description: "Remove from disk (cannot be undone) instead of hiding (default false). Only when the user asks to erase or delete for good." },
        dryRun: { type: "boolean", description: "List what would be forgotten and change nothing. Use it first unless the user named exact ids." },
        undo: { type: "boolean", description: "Give hidden entries back (ids only): the user changed their mind." },
    },
    additionalProperties: false,
};
// memory-core's corpus names, as the sidecar's (protocol.md, memory.search `corpus`).
const CORPUS = { all: "all", log: "log", files: "files", memory: "all", sessions: "log", wiki: "files" };
// The model's input is held to the tool's parameter schema above, which says what the sidecar's
// params say; the sidecar validates each call again (an invalid one answers an RpcError).
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
/** The memory tools for one turn: `audience` goes with every call; `sessionId` (the turn's) is the session memory_remember writes under. */
export function memoryTools(client, audience = {}, sessionId) {
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
                return toolResult(await request(rpc, "memory.search", { ...searchParams(input), ...audience }, SLOW_CALL_MS));
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
                const answer = await request(rpc, "memory.get", { ...compact({ path, from: input.from, lines: input.lines }), ...audience }, SLOW_CALL_MS);
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
    const remember = {
        name: "memory_remember",
        label: "Memory Remember",
        description: "Write one entry to long-term memory now, when the user explicitly asks you to remember something " +
            "(\"remember that...\", \"note this\", \"don't forget...\"). Do not use it for things merely mentioned: " +
            "conversations are extracted into memory automatically when they end, and an entry written here is not " +
            "extracted again. One fact or decision per call. Answers the entry's id: tell the user it was remembered.",
        parameters: REMEMBER_PARAMETERS,
        async execute(_toolCallId, params) {
            const input = (params ?? {});
            const rpc = client();
            try {
                const answer = await request(rpc, "memory.remember", { ...compact({ type: input.type, content: input.content, detail: input.detail, subject: input.subject, status: input.status, replaces: input.replaces, sessionId }), ...audience }, SLOW_CALL_MS);
                return toolResult({ status: "ok", ...answer });
            }
            catch (error) {
                if (error instanceof RpcError)
                    return toolResult({ status: "error", error: error.message, code: error.code, data: error.data });
                return toolResult(unavailable(rpc.socketPath, error, { status: "error" }));
            }
        },
    };
    const forget = {
        name: "memory_forget",
        label: "Memory Forget",
        description: "Remove entries from long-term memory when the user asks to forget something (\"forget that\", \"that's " +
            "wrong, drop it\", after a \"Remembered from your last conversation\" line). Choose by ids (from " +
            "memory_search or the receipt line), session, subject or text; call with dryRun first and confirm with " +
            "the user unless they named exact ids. By default entries are hidden from recall (undo: true gives them " +
            "back); purge: true erases them from disk for good, only when the user asks for that. To correct an " +
            "entry instead, use memory_remember with replaces.",
        parameters: FORGET_PARAMETERS,
        async execute(_toolCallId, params) {
            const input = (params ?? {});
            const rpc = client();
            try {
                const answer = input.undo === true
                    ? await request(rpc, "memory.unforget", { ...compact({ ids: input.ids, dryRun: input.dryRun }), ...audience }, SLOW_CALL_MS)
                    : await request(rpc, "memory.forget", { ...compact({ ids: input.ids, session: input.session, subject: input.subject, text: input.text, purge: input.purge, dryRun: input.dryRun }), ...audience }, SLOW_CALL_MS);
                return toolResult({ status: "ok", ...answer });
            }
            catch (error) {
                if (error instanceof RpcError)
                    return toolResult({ status: "error", error: error.message, code: error.code, data: error.data });
                return toolResult(unavailable(rpc.socketPath, error, { status: "error" }));
            }
        },
    };
    return [search, get, remember, forget];
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
