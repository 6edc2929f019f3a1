// The start-up sweep: the sessions the sidecar has not fully received (ended while it or the
// gateway was down) are listed from OpenClaw's session store and sent for extraction. It runs in
// the background, one at a time (a request during a run runs once more after it).

import { SidecarUnavailableError } from "./rpc.ts";
import { SLOW_CALL_MS, compact, describe } from "./settings.ts";
import type { Shim } from "./shim.ts";
import { agentIds, transcriptMessages } from "./transcripts.ts";

const LAST_SWEEP = Symbol.for("zettelclaw.openclaw.last-sweep.v1");

/** Returns `run(why)`: starts a sweep (or queues one) and never rejects. */
export function sweeper(shim: Shim): (why: string) => Promise<void> {
  const { api, client, log, loadStore } = shim;
  const sweep = singleFlight(async (why: string) => {
    const store = await loadStore();
    const sessions: Record<string, unknown>[] = [];
    for (const agentId of agentIds(api.config)) {
      for (const { sessionKey, entry } of store.listSessionEntries({ agentId, readOnly: true })) {
        const e = entry as { sessionId?: unknown; updatedAt?: unknown };
        if (typeof e?.sessionId !== "string") continue;
        sessions.push(compact({ sessionId: e.sessionId, sessionKey, agentId, updatedAt: e.updatedAt }));
      }
    }
    const answer = await client().call<{ sessions?: { sessionId: string }[] }>("hook.gatewayStart", { sessions }, SLOW_CALL_MS);
    const wanted = answer?.sessions ?? [];
    const byId = new Map(sessions.map((s) => [s.sessionId, s]));
    for (const { sessionId } of wanted) {
      const session = byId.get(sessionId) ?? {};
      const agentId = session.agentId as string | undefined;
      const sessionKey = session.sessionKey as string | undefined;
      try {
        const messages = transcriptMessages(store, agentId, sessionId, sessionKey);
        if (messages.length === 0) continue;
        await client().call("hook.sessionEnd", compact({ sessionId, sessionKey, agentId, reason: "sweep", messages }), SLOW_CALL_MS);
      } catch (error) {
        if (error instanceof SidecarUnavailableError) throw error; // the next connection sweeps again
        log.warn(`zettelclaw: sweep: session ${sessionId} skipped: ${describe(error)}`);
      }
    }
    log.info(`zettelclaw: sweep (${why}): ${sessions.length} session(s) listed, ${wanted.length} sent for extraction`);
  });
  return (why: string) => {
    const done = sweep(why).catch((error) => {
      // The sidecar is not up yet (or down): the sweep runs when it answers (onReconnect).
      if (error instanceof SidecarUnavailableError) log.info(`zettelclaw: sweep (${why}) waits for the sidecar`);
      else log.warn(`zettelclaw: sweep (${why}) failed: ${describe(error)}`);
    });
    (globalThis as unknown as Record<symbol, Promise<void>>)[LAST_SWEEP] = done;
    return done;
  };
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
