// Who is reading a turn: the raw facts the host gives, gathered once for hooks and tools alike.
// What they mean for privacy is the sidecar's decision (protocol.md, hook.beforePromptBuild):
// the shim passes isGroup, the chat's and the sender's ids and the owner bit as it finds them.
//
// The prompt hook's ctx carries no owner or group bit, so those come from what the same process
// saw for this session just before: the tool factory's `senderIsOwner` and before_dispatch's
// `isGroup`, kept for a short while on globalThis (module instances share them).
import { compact } from "./settings.js";
const FACT_TTL_MS = 30_000;
const FACTS = Symbol.for("zettelclaw.openclaw.turn-facts.v1");
export function turnFacts() {
    const store = globalThis;
    return (store[FACTS] ??= new Map());
}
export function noteFact(sessionKey, fact) {
    if (!sessionKey)
        return;
    const facts = turnFacts();
    const now = Date.now();
    for (const [key, old] of facts)
        if (now - old.at > FACT_TTL_MS)
            facts.delete(key);
    facts.set(sessionKey, { ...facts.get(sessionKey), ...fact, at: now });
}
/** The audience facts of a turn: what the ctx says, completed by what was noted for its session. */
export function audienceFacts(seen, facts = turnFacts()) {
    const fact = seen.sessionKey ? facts.get(seen.sessionKey) : undefined;
    const fresh = fact && Date.now() - fact.at <= FACT_TTL_MS ? fact : undefined;
    let senderIsOwner;
    if (typeof seen.senderIsOwner === "boolean")
        senderIsOwner = seen.senderIsOwner;
    else if (typeof fresh?.senderIsOwner === "boolean" && (!fresh.sessionId || fresh.sessionId === seen.sessionId)) {
        senderIsOwner = fresh.senderIsOwner;
    }
    const id = (value) => (typeof value === "string" || typeof value === "number" ? value : undefined);
    return compact({
        sessionKey: seen.sessionKey,
        isGroup: fresh?.isGroup,
        chatId: id(seen.chatId),
        senderId: id(seen.senderId),
        senderIsOwner,
    });
}
/** hook.beforePromptBuild's params from the hook ctx. */
export function promptParams(ctx, facts = turnFacts()) {
    return compact({
        sessionId: ctx.sessionId,
        agentId: ctx.agentId,
        channel: ctx.channel,
        workspaceDir: ctx.workspaceDir,
        ...audienceFacts({
            sessionKey: ctx.sessionKey,
            sessionId: ctx.sessionId,
            chatId: ctx.channelContext?.chat?.id ?? ctx.chatId,
            senderId: ctx.channelContext?.sender?.id ?? ctx.senderId,
            senderIsOwner: ctx.senderIsOwner,
        }, facts),
    });
}
/** Whose memory, and who will read a tool's answer, from the tool factory's ctx (memory.search and memory.get). */
export function toolAudience(ctx, facts = turnFacts()) {
    return {
        ...compact({ agentId: ctx.agentId }),
        ...audienceFacts({ sessionKey: ctx.sessionKey, chatId: ctx.nativeChannelId, senderId: ctx.requesterSenderId, senderIsOwner: ctx.senderIsOwner }, facts),
    };
}
