// Transcripts, through OpenClaw's session store (they live in SQLite; the SDK reads them).

import { compact } from "./settings.ts";
import { AGENT_ID, MAIN_AGENT } from "./protocol_constants.ts";

export type SessionStore = {
  listSessionEntries(params: { agentId?: string; readOnly?: boolean }): { sessionKey: string; entry: unknown }[];
  loadTranscriptEventsSync(params: { agentId?: string; sessionId: string; sessionKey?: string }): unknown[];
};

export async function openClawSessionStore(): Promise<SessionStore> {
  return (await import("openclaw/plugin-sdk/session-store-runtime")) as unknown as SessionStore;
}

/**
 * The user and assistant messages of a conversation, as OpenClaw message objects or transcript
 * events, and the memory tools' results (the sidecar reads the entry ids in them: what the
 * conversation read is shown to extraction); no other tool's (they can be large; the socket
 * takes 32 MiB).
 */
export function conversation(items: readonly unknown[]): unknown[] {
  return items.filter((item) => {
    const i = item as { type?: unknown; role?: unknown; toolName?: unknown; message?: { role?: unknown; toolName?: unknown } };
    const message = i?.type === "message" ? i.message : i;
    const role = message?.role;
    if (role === "toolResult") return typeof message?.toolName === "string" && message.toolName.startsWith("memory_");
    return role === "user" || role === "assistant";
  });
}

/** A transcript's messages (all of them, across resets: the sidecar keeps what is new). */
export function transcriptMessages(store: SessionStore, agentId: string | undefined, sessionId: string, sessionKey?: string): unknown[] {
  return conversation(store.loadTranscriptEventsSync(compact({ agentId, sessionId, sessionKey }) as { sessionId: string }));
}

/**
 * The agents of the gateway's config: `main` and every configured one, as the sidecar reads them
 * (tests/cases/openclaw_agents.json) and as OpenClaw does: `agents.entries` (keyed by id) when
 * the key is there, else `agents.list`; each id canonical (trimmed, ASCII lower-cased), others
 * left out.
 */
export function agentIds(config: unknown): string[] {
  const agents = (config as { agents?: { entries?: unknown; list?: unknown } } | undefined)?.agents;
  const ids = new Set<string>([MAIN_AGENT]);
  const entries = agents?.entries;
  let named: unknown[] = [];
  if (agents && typeof agents === "object" && Object.hasOwn(agents, "entries") && entries !== undefined) {
    // it owns the roster, even when malformed (OpenClaw's rule)
    if (entries && typeof entries === "object" && !Array.isArray(entries)) {
      named = Object.entries(entries).filter(([, entry]) => entry && typeof entry === "object").map(([id]) => id);
    }
  } else if (Array.isArray(agents?.list)) {
    named = agents.list.map((agent: { id?: unknown } | null | undefined) => agent?.id);
  }
  for (const id of named) {
    const canonical = typeof id === "string" && /^[\x00-\x7f]*$/.test(id) ? id.trim().toLowerCase() : "";
    if (AGENT_ID.test(canonical)) ids.add(canonical);
  }
  return [...ids];
}
