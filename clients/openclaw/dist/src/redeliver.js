// A conversation's hook the sidecar did not take while it answered (past the deadline, an error)
// is sent again, the same call, after a backoff: that conversation and no other. A sweep here
// would send every agent's open conversations too, extracting them in their middle (the sidecar
// keeps only what is new, so a second copy of a delivered hook costs nothing).
import { request } from "./protocol.js";
import { SidecarUnavailableError, refusedForGood } from "./rpc.js";
import { SLOW_CALL_MS, compact, describe } from "./settings.js";
export const REDELIVER_FIRST_MS = 5_000; // doubles on each failure
export const REDELIVER_TRIES = 6; // 5 s to 160 s: about five minutes in all
/** Returns `again(method, params)`: sends the call again later, until it is taken or refused. */
export function redeliverer(shim, firstMs = REDELIVER_FIRST_MS) {
    const { api, client, log } = shim;
    const timers = new Set();
    const signal = api.lifecycle?.signal;
    signal?.addEventListener("abort", () => {
        for (const timer of timers)
            clearTimeout(timer);
        timers.clear();
    }, { once: true });
    const schedule = (method, params, tries, waitMs) => {
        if (signal?.aborted)
            return;
        const timer = setTimeout(() => {
            timers.delete(timer);
            void attempt(method, params, tries, waitMs);
        }, waitMs);
        timer.unref?.();
        timers.add(timer);
    };
    const attempt = async (method, params, tries, waitMs) => {
        const what = `${method} for session ${String(params.sessionId)}`;
        try {
            await request(client(), method, compact(params), SLOW_CALL_MS);
            log.info(`zettelclaw: ${what} delivered on try ${tries + 1}`);
        }
        catch (error) {
            if (error instanceof SidecarUnavailableError && !client().connected) {
                log.info(`zettelclaw: ${what} waits for the sidecar: the sweep when it is back sends it`);
            }
            else if (refusedForGood(error)) {
                log.warn(`zettelclaw: ${what} refused: ${describe(error)}`);
            }
            else if (tries + 1 >= REDELIVER_TRIES) {
                log.warn(`zettelclaw: ${what} not delivered after ${tries + 1} tries (${describe(error)}); the next gateway start's sweep sends it`);
            }
            else {
                log.warn(`zettelclaw: ${what} not delivered (${describe(error)}); trying again in ${(waitMs * 2) / 1000} s`);
                schedule(method, params, tries + 1, waitMs * 2);
            }
        }
    };
    return (method, params) => {
        log.info(`zettelclaw: trying ${method} for session ${String(params.sessionId)} again in ${firstMs / 1000} s`);
        schedule(method, params, 1, firstMs);
    };
}
