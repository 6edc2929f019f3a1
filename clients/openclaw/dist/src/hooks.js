// OpenClaw's hooks, forwarded to the sidecar: the handoff before each turn, the conversation at a
// reset or a session's end, the group bit before dispatch (hook.turnFacts), the sweep at gateway start. Nothing
// here may break or stall the host: every call has a deadline under the hook's budget, and while
// the sidecar is down the hooks do nothing (the sweep catches up when it is back).
import { dispatchFacts, promptParams } from "./audience.js";
import { request } from "./protocol.js";
import { redeliverer } from "./redeliver.js";
import { refusedForGood } from "./rpc.js";
import { compact, describe, outageLogger } from "./settings.js";
import { conversation, transcriptMessages } from "./transcripts.js";
export function registerHooks(shim, runSweep, redeliverMs) {
    const { api, client, log, timeoutMs, loadStore } = shim;
    const outage = outageLogger(log);
    const again = redeliverer(shim, redeliverMs);
    // Send one stretch of conversation for extraction. Never throws.
    async function deliver(method, params) {
        try {
            await request(client(), method, compact(params), timeoutMs);
            outage.ok();
        }
        catch (error) {
            outage.fail(`${method} for session ${String(params.sessionId)} not delivered`, error);
            // The sidecar answers, but not this (past the deadline, an error): no reconnection will
            // come to sweep the conversation up, so this call is sent again (src/redeliver.ts).
            if (client().connected && !refusedForGood(error))
                again(method, params);
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
    api.on("before_prompt_build", async (_event, ctx) => {
        try {
            const answer = await request(client(), "hook.beforePromptBuild", promptParams(ctx), timeoutMs);
            outage.ok();
            return answer?.prependContext ? { prependContext: answer.prependContext } : undefined;
        }
        catch (error) {
            outage.fail("no handoff for this turn", error);
            return undefined;
        }
    }, { timeoutMs: timeoutMs + 1000 });
    // The group bit reaches the sidecar before the turn's prompt hook asks: awaited here.
    api.on("before_dispatch", async (event) => {
        const facts = dispatchFacts(event);
        if (!facts)
            return undefined;
        try {
            await request(client(), "hook.turnFacts", facts, timeoutMs);
            outage.ok();
        }
        catch (error) {
            outage.fail("the chat's group bit not passed on", error);
        }
        return undefined;
    }, { timeoutMs: timeoutMs + 1000 });
    // readAt: taken before the transcript is read (here or by OpenClaw for the event), so that a
    // message written meanwhile is newer than it and the sweep still sends it (protocol.md).
    api.on("before_reset", async (event, ctx) => {
        const sessionId = ctx.sessionId;
        if (!sessionId)
            return;
        const readAt = Date.now();
        const messages = event.messages ? conversation(event.messages) : await readTranscript(ctx.agentId, sessionId, ctx.sessionKey);
        if (!messages)
            return;
        await deliver("hook.beforeReset", {
            sessionId,
            sessionKey: ctx.sessionKey,
            agentId: ctx.agentId,
            reason: event.reason,
            workspaceDir: ctx.workspaceDir,
            messages,
            readAt,
        });
    });
    api.on("session_end", async (event, ctx) => {
        const agentId = ctx.agentId;
        const readAt = Date.now();
        const messages = await readTranscript(agentId, event.sessionId, event.sessionKey);
        if (!messages)
            return;
        await deliver("hook.sessionEnd", { sessionId: event.sessionId, sessionKey: event.sessionKey, agentId, reason: event.reason, messages, readAt });
    });
    api.on("gateway_start", () => {
        void runSweep("gateway start");
    });
}
