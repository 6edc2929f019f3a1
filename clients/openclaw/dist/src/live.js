// The live registration: which of the plugin's api handles may answer the sidecar's llm.complete.
//
// OpenClaw 2026.9.6 hot-reloads a plugin whose config changed (`openclaw config set
// plugins.entries.zettelclaw...`, `zettelclaw init`): it stops the service, retires the old
// registration (its `api.lifecycle.signal` aborts; its runtime then answers "Plugin ... runtime
// is no longer active"), calls register() again with a new api and starts the new service. The
// sidecar connection is one per process (src/rpc.ts), so it outlives registrations. Two things
// must then hold for the agent's model to keep serving the sidecar:
//
// - the handle used is the newest started service's, never a retired one: the service start
//   makes itself live, its stop (or its retirement) makes nothing live and withdraws the offer;
// - the call runs in the live service's async context (a socket's events run in the context of
//   whatever opened it: a hook whose work scope has closed, a retired registration), and when
//   OpenClaw still answers "Plugin inventory has retired; begin a new plugin operation." it is
//   asked once more from OpenClaw's context-free root. Observed on the gateway (2026.9.6): after
//   a reload, llm.complete fails from every plugin context, the new start's included, until one
//   call runs from that root; it refreshes the process's stale model-runtime state, and every
//   context works again. With no such root (another OpenClaw), the error stands as -32013: the
//   job waits, it does not fail.
import { AsyncResource } from "node:async_hooks";
import { hostModel, HOST_MODEL_UNAVAILABLE, RETIRED_HANDLE } from "./host_model.js";
import { RpcError } from "./rpc.js";
const LIVE = Symbol.for("zettelclaw.openclaw.live-host.v1");
// OpenClaw's "context-free async root initialized before managed work can begin" (its
// async-work-scope module keeps it on globalThis under this key). Not an SDK export: used only to
// ask again after the retired-inventory error, and only when present.
const OPENCLAW_ROOT = Symbol.for("openclaw.detachedAsyncContext");
function openClawRoot() {
    const root = globalThis[OPENCLAW_ROOT];
    return typeof root?.runInAsyncScope === "function" ? root : null;
}
function slot() {
    const store = globalThis;
    return (store[LIVE] ??= { host: null });
}
/** Make `host` the live one (a service start). Returns the function that ends it, if still live. */
export function goLive(host) {
    const live = { ...host, context: new AsyncResource("zettelclaw.live-host") };
    slot().host = live;
    return {
        host: live,
        end: () => {
            if (slot().host !== live)
                return false; // a newer registration is live already
            slot().host = null;
            return true;
        },
    };
}
/** The live host, or null when OpenClaw stopped or retired the last one. */
export function liveHost() {
    const host = slot().host;
    if (host?.signal?.aborted) {
        slot().host = null;
        return null;
    }
    return host;
}
/** The handler of the sidecar's llm.complete: always through the live registration. */
export async function completeLive(params) {
    const host = liveHost();
    if (!host) {
        throw new RpcError(HOST_MODEL_UNAVAILABLE, "the OpenClaw plugin is not running (stopped, or being reloaded): the agent's model cannot be asked now");
    }
    const ask = () => hostModel(host.complete)(params);
    try {
        return await host.context.runInAsyncScope(ask);
    }
    catch (error) {
        const root = openClawRoot();
        if (!root || !(error instanceof RpcError) || !RETIRED_HANDLE.test(error.message))
            throw error;
        const answer = await root.runInAsyncScope(ask); // throws as before when this fails too
        host.log?.("zettelclaw: llm.complete met OpenClaw's retired plugin inventory (a reload); asked again from OpenClaw's root: answered");
        return answer;
    }
}
