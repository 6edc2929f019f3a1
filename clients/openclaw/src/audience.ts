// Who is reading a turn: the raw facts the host gives, passed as they are with each call. What
// they mean for privacy is the sidecar's decision (protocol.md, hook.beforePromptBuild), and so is
// what a missing fact means. The plugin keeps none of them: a fact the host gives only elsewhere
// (the owner bit to the tool factory, the group bit to before_dispatch) is passed from there with
// hook.turnFacts, and the sidecar keeps it for that session's later calls (protocol.md).

import type { BeforePromptBuildParams, SearchParams, TurnFactsParams } from "./protocol_types.ts";
import { compact } from "./settings.ts";

const id = (value: unknown) => (typeof value === "string" || typeof value === "number" ? value : undefined);
const bit = (value: unknown) => (typeof value === "boolean" ? value : undefined);

export type AgentCtx = {
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
  workspaceDir?: string;
  channel?: string;
  chatId?: string;
  senderId?: string;
  channelContext?: { sender?: { id?: unknown }; chat?: { id?: unknown } };
  senderIsOwner?: unknown;
};

/** hook.beforePromptBuild's params from the hook ctx, as the host gives them. */
export function promptParams(ctx: AgentCtx): BeforePromptBuildParams {
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

export type ToolCtx = {
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
  senderIsOwner?: unknown;
  nativeChannelId?: unknown;
  requesterSenderId?: unknown;
};

/** The audience fields every memory tool's params share (the sidecar's AudienceParams). */
export type ToolAudience = Pick<SearchParams, "agentId" | "sessionKey" | "chatType" | "isGroup" | "chatId" | "senderId" | "senderIsOwner">;

/** Whose memory, and who will read a tool's answer, from the tool factory's ctx (every memory tool). */
export function toolAudience(ctx: ToolCtx): ToolAudience {
  return compact({
    agentId: ctx.agentId,
    sessionKey: ctx.sessionKey,
    chatId: id(ctx.nativeChannelId),
    senderId: id(ctx.requesterSenderId),
    senderIsOwner: bit(ctx.senderIsOwner),
  });
}

/** hook.turnFacts's params from the tool factory's ctx, which alone has the owner bit; undefined: nothing to note. */
export function toolFacts(ctx: ToolCtx): TurnFactsParams | undefined {
  if (!ctx.sessionKey || bit(ctx.senderIsOwner) === undefined) return undefined;
  return compact({ sessionKey: ctx.sessionKey, sessionId: ctx.sessionId, agentId: ctx.agentId, senderIsOwner: bit(ctx.senderIsOwner) });
}

export type DispatchEvent = { sessionKey?: string; isGroup?: unknown; senderId?: unknown; channel?: string };

/** hook.turnFacts's params from before_dispatch's event, which alone has the group bit; undefined: nothing to note. */
export function dispatchFacts(event: DispatchEvent): TurnFactsParams | undefined {
  if (!event.sessionKey || bit(event.isGroup) === undefined) return undefined;
  return compact({ sessionKey: event.sessionKey, isGroup: bit(event.isGroup), senderId: id(event.senderId), channel: event.channel });
}
