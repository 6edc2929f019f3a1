// Who is reading a turn: the raw facts the host gives, passed as they are with each call. What
// they mean for privacy is the sidecar's decision (protocol.md, hook.beforePromptBuild), and so is
// what a missing fact means. The plugin keeps none of them: a fact the host gives only elsewhere
// (the owner bit to the tool factory, the group bit to before_dispatch) is passed from there with
// hook.turnFacts, and the sidecar keeps it for that session's later calls (protocol.md).
import { compact } from "./settings.js";
const id = (value) => (typeof value === "string" || typeof value === "number" ? value : undefined);
const bit = (value) => (typeof value === "boolean" ? value : undefined);
/** hook.beforePromptBuild's params from the hook ctx, as the host gives them. */
export function promptParams(ctx) {
    return compact({
        sessionKey: ctx.sessionKey,
        sessionId: ctx.sessionId,
        agentId: ctx.agentId,
        channel: ctx.channel,
        workspaceDir: ctx.workspaceDir,
        chatId: id(ctx.channelContext?.chat?.id ?? ctx.chatId),
        senderId: id(ctx.channelContext?.sender?.id ?? ctx.senderId),
        senderIsOwner: bit(ctx.senderIsOwner),
    });
}
/** Whose memory, and who will read a tool's answer, from the tool factory's ctx (every memory tool). */
export function toolAudience(ctx) {
    return compact({
        agentId: ctx.agentId,
        sessionKey: ctx.sessionKey,
        chatId: id(ctx.nativeChannelId),
        senderId: id(ctx.requesterSenderId),
        senderIsOwner: bit(ctx.senderIsOwner),
    });
}
/** hook.turnFacts's params from the tool factory's ctx, which alone has the owner bit; undefined: nothing to note. */
export function toolFacts(ctx) {
    if (!ctx.sessionKey || bit(ctx.senderIsOwner) === undefined)
        return undefined;
    return compact({ sessionKey: ctx.sessionKey, sessionId: ctx.sessionId, agentId: ctx.agentId, senderIsOwner: bit(ctx.senderIsOwner) });
}
/** hook.turnFacts's params from before_dispatch's event, which alone has the group bit; undefined: nothing to note. */
export function dispatchFacts(event) {
    if (!event.sessionKey || bit(event.isGroup) === undefined)
        return undefined;
    return compact({ sessionKey: event.sessionKey, isGroup: bit(event.isGroup), senderId: id(event.senderId), channel: event.channel });
}
