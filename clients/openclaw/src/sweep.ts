// The start-up sweep: the sessions the sidecar has not fully received (ended while it or the
// gateway was down) are listed from OpenClaw's session store and sent for extraction. It runs in
// the background, one at a time (a request during a run runs once more after it). A sweep the
// sidecar did not finish while the connection stayed up (a call past its deadline, an error, an
// agent it could not sweep) is tried again after a backoff: no reconnection would come to run it.

import { SidecarUnavailableError, refusedForGood } from "./rpc.ts";
import { SLOW_CALL_MS, compact, describe } from "./settings.ts";
import { request } from "./protocol.ts";
import type { GatewaySession } from "./protocol_types.ts";
import type { Shim } from "./shim.ts";
import { agentIds, transcriptMessages } from "./transcripts.ts";

const LAST_SWEEP = Symbol.for("zettelclaw.openclaw.last-sweep.v1");
const SWEEP_RETRY_MS = 5_000; // the first wait after a failed sweep; doubles up to the max
const SWEEP_RETRY_MAX_MS = 300_000;

/** Returns `run(why)`: starts a sweep (or queues one) and never rejects. */
export function sweeper(shim: Shim, firstRetryMs = SWEEP_RETRY_MS): (why: string) => Promise<void> {
  const { api, client, log, loadStore } = shim;
  let retryMs = firstRetryMs;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  // A registration OpenClaw retired (a hot reload) sweeps no more: its api is dead, and the
  // reloaded plugin's sweeper has taken over. Its retry timer goes with it.
  const signal = (api as { lifecycle?: { signal?: AbortSignal } }).lifecycle?.signal;
  signal?.addEventListener(
    "abort",
    () => {
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
    },
    { once: true },
  );

  const once = async (why: string) => {
    const store = await loadStore();
    const sessions: GatewaySession[] = [];
    for (const agentId of agentIds(api.config)) {
      for (const { sessionKey, entry } of store.listSessionEntries({ agentId, readOnly: true })) {
        const e = entry as { sessionId?: unknown; updatedAt?: unknown };
        if (typeof e?.sessionId !== "string") continue;
        const updatedAt = typeof e.updatedAt === "number" || typeof e.updatedAt === "string" ? e.updatedAt : undefined;
        sessions.push(compact({ sessionId: e.sessionId, sessionKey, agentId, updatedAt }));
      }
    }
    const answer = await request(client(), "hook.gatewayStart", { sessions }, SLOW_CALL_MS);
    const wanted = answer?.sessions ?? [];
    // by agent and id: a store shared by agents lists a session under each, and each memory asks
    // for its own (an answer naming no agent, from an older sidecar: by id alone)
    const byAgent = new Map(sessions.map((s) => [`${s.agentId}\u0000${s.sessionId}`, s]));
    const byId = new Map(sessions.map((s) => [s.sessionId, s]));
    const unsent: string[] = []; // not sent for a reason that may pass: the next sweep sends them
    let empty = 0; // asked for, but the store gave no message: nothing sent (said in the log)
    for (const { sessionId, agentId: askedBy } of wanted) {
      const session = askedBy ? (byAgent.get(`${askedBy}\u0000${sessionId}`) ?? byId.get(sessionId)) : byId.get(sessionId);
      const agentId = session?.agentId ?? undefined;
      const sessionKey = session?.sessionKey ?? undefined;
      try {
        const readAt = Date.now(); // before the read: a message written meanwhile is newer
        const messages = transcriptMessages(store, agentId, sessionId, sessionKey);
        if (messages.length === 0) {
          empty += 1;
          continue;
        }
        await request(client(), "hook.sessionEnd", compact({ sessionId, sessionKey, agentId, reason: "sweep", messages, readAt }), SLOW_CALL_MS);
      } catch (error) {
        if (error instanceof SidecarUnavailableError) throw error; // the next connection sweeps again
        if (refusedForGood(error)) {
          log.warn(`zettelclaw: sweep: session ${sessionId} skipped: ${describe(error)}`);
          continue;
        }
        // the transcript could not be read (the store busy), or the sidecar failed to spool it
        log.warn(`zettelclaw: sweep: session ${sessionId} not sent: ${describe(error)}`);
        unsent.push(sessionId);
      }
    }
    // A session asked for whose transcript reads empty is counted apart, not as sent: the
    // sidecar marks nothing read for it, so a later sweep or hook sends what it has then.
    const none = empty > 0 ? `, ${empty} with no message to send` : "";
    log.info(`zettelclaw: sweep (${why}): ${sessions.length} session(s) listed, ${wanted.length - unsent.length - empty} sent for extraction${none}`);
    // What is left is swept again later (the retry below); the rest is not sent twice: the
    // sidecar no longer asks for a session whose messages it has.
    const left = (answer?.errors ?? []).map((e) => `agent ${e.agentId} (${e.message})`);
    if (unsent.length > 0) left.push(`${unsent.length} session(s) not sent`);
    if (left.length > 0) throw new Error(`the sweep is not complete: ${left.join(", ")}`);
  };

  // Each run, the first or one queued behind another, settles its own failure here.
  const sweep = singleFlight(async (why: string) => {
    if (retryTimer) clearTimeout(retryTimer); // this run, the retry or a newer sweep, replaces it
    retryTimer = null;
    try {
      await once(why);
      retryMs = firstRetryMs;
    } catch (error) {
      if (error instanceof SidecarUnavailableError && !client().connected) {
        // The sidecar is not up yet (or down): the sweep runs when it answers (onReconnect).
        log.info(`zettelclaw: sweep (${why}) waits for the sidecar`);
        return;
      }
      if (refusedForGood(error)) {
        log.warn(`zettelclaw: sweep (${why}) failed: ${describe(error)}`); // asking again would not help
        return;
      }
      log.warn(`zettelclaw: sweep (${why}) failed: ${describe(error)}; trying again in ${retryMs / 1000} s`);
      retryTimer = setTimeout(() => void run("retry"), retryMs);
      retryTimer.unref?.();
      retryMs = Math.min(retryMs * 2, SWEEP_RETRY_MAX_MS);
    }
  });
  const run = (why: string): Promise<void> => {
    if (signal?.aborted) return Promise.resolve();
    const done = sweep(why);
    (globalThis as unknown as Record<symbol, Promise<void>>)[LAST_SWEEP] = done;
    return done;
  };
  return run;
}

/** The sweep started last in this process, if any (tests await it). */
export function lastSweep(): Promise<void> | undefined {
  return (globalThis as unknown as Record<symbol, Promise<void> | undefined>)[LAST_SWEEP];
}

function singleFlight<A>(run: (arg: A) => Promise<void>): (arg: A) => Promise<void> {
  let running: Promise<void> | null = null;
  let again: A | null = null;
  const go = (arg: A): Promise<void> => {
    if (running) {
      again = arg;
      return running;
    }
    running = run(arg).finally(() => {
      running = null;
      if (again !== null) {
        const next = again;
        again = null;
        void go(next).catch(() => {});
      }
    });
    return running;
  };
  return go;
}
