// Transcripts, through OpenClaw's session store (they live in SQLite; the SDK reads them).
import { compact } from "./settings.js";
export async function openClawSessionStore() {
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
export function transcriptMessages(store, agentId, sessionId, sessionKey) {
    return conversation(store.loadTranscriptEventsSync(compact({ agentId, sessionId, sessionKey })));
}
/** The agents of the gateway's config: `main` and every configured one. */
export function agentIds(config) {
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
