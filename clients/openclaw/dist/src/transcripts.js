// Transcripts, through OpenClaw's session store (they live in SQLite; the SDK reads them).
import { compact } from "./settings.js";
import { AGENT_ID, MAIN_AGENT } from "./protocol_constants.js";
export async function openClawSessionStore() {
    return (await import("openclaw/plugin-sdk/session-store-runtime"));
}
/**
 * The user and assistant messages of a conversation, as OpenClaw message objects or transcript
 * events, and the memory tools' results (the sidecar reads the entry ids in them: what the
 * conversation read is shown to extraction); no other tool's (they can be large; the socket
 * takes 32 MiB).
 */
export function conversation(items) {
    return items.filter((item) => {
        const i = item;
        const message = i?.type === "message" ? i.message : i;
        const role = message?.role;
        if (role === "toolResult")
            return typeof message?.toolName === "string" && message.toolName.startsWith("memory_");
        return role === "user" || role === "assistant";
    });
}
/** A transcript's messages (all of them, across resets: the sidecar keeps what is new). */
export function transcriptMessages(store, agentId, sessionId, sessionKey) {
    return conversation(store.loadTranscriptEventsSync(compact({ agentId, sessionId, sessionKey })));
}
/**
 * The agents of the gateway's config: `main` and every configured one, as the sidecar reads them
 * (tests/cases/openclaw_agents.json) and as OpenClaw does: `agents.entries` (keyed by id) when
 * the key is there, else `agents.list`; each id canonical (trimmed, ASCII lower-cased), others
 * left out.
 */
export function agentIds(config) {
    const agents = config?.agents;
    const ids = new Set([MAIN_AGENT]);
    const entries = agents?.entries;
    let named = [];
    if (agents && typeof agents === "object" && Object.hasOwn(agents, "entries") && entries !== undefined) {
        // it owns the roster, even when malformed (OpenClaw's rule)
        if (entries && typeof entries === "object" && !Array.isArray(entries)) {
            named = Object.entries(entries).filter(([, entry]) => entry && typeof entry === "object").map(([id]) => id);
        }
    }
    else if (Array.isArray(agents?.list)) {
        named = agents.list.map((agent) => agent?.id);
    }
    for (const id of named) {
        const canonical = typeof id === "string" && /^[\x00-\x7f]*$/.test(id) ? id.trim().toLowerCase() : "";
        if (AGENT_ID.test(canonical))
            ids.add(canonical);
    }
    return [...ids];
}
