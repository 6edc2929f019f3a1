// Zettelclaw as OpenClaw's memory plugin: wiring only. The hooks (src/hooks.ts), the memory tools
// (src/tools.ts), the `openclaw zettelclaw` commands (src/cli.ts), the start-up sweep
// (src/sweep.ts) and the sidecar process (src/service.ts) forward to the Zettelclaw sidecar over
// its Unix socket (protocol.md); memory and privacy decisions are the sidecar's.
//
// register() runs in several module instances per process ("full", "discovery", ...): the
// agent-turn hooks and the tool factory are served by a "discovery" instance. So hooks, tools and
// the CLI are registered in every mode; only the service (child processes, cron clean-up) in
// "full" mode. Shared state lives on globalThis (src/rpc.ts, src/sweep.ts); the turn's facts live in
// the sidecar (hook.turnFacts).
import { spawn } from "node:child_process";
import { publicArtifacts } from "./src/artifacts.js";
import { openClawEmbeddingSdk } from "./src/host_embeddings.js";
import { toolAudience, toolFacts } from "./src/audience.js";
import { registerCli } from "./src/cli.js";
import { registerHooks } from "./src/hooks.js";
import { checkHostVersion, unsupportedRuntime } from "./src/host_version.js";
import { request } from "./src/protocol.js";
import { memoryRuntime } from "./src/memory_runtime.js";
import { RpcClient, sharedClient } from "./src/rpc.js";
import { registerService } from "./src/service.js";
import { PLUGIN_ID, resolveSocketPath } from "./src/settings.js";
import { sweeper } from "./src/sweep.js";
import { TOOLS } from "./src/tool_schemas.js";
import { MEMORY_PROMPT, memoryTools } from "./src/tools.js";
import { openClawSessionStore } from "./src/transcripts.js";
export { dispatchFacts, promptParams, toolAudience, toolFacts } from "./src/audience.js";
export { removeDreamingJob } from "./src/service.js";
export { PLUGIN_ID, openclawStateDir, resolveSocketPath, zettelclawCommand } from "./src/settings.js";
export { lastSweep } from "./src/sweep.js";
export { NEWEST_TESTED, OLDEST_SUPPORTED, checkHostVersion } from "./src/host_version.js";
export { TOOLS } from "./src/tool_schemas.js";
export { toolCall } from "./src/tools.js";
export { conversation } from "./src/transcripts.js";
export function createPlugin(deps = {}) {
    return {
        id: PLUGIN_ID,
        name: "Zettelclaw",
        description: "Long-term memory: an append-only event log served by the Zettelclaw sidecar",
        register(api) {
            // an OpenClaw outside the supported versions is said in the gateway log and `openclaw
            // status`; one too old gets nothing else (its plugin API lacks parts of what follows)
            const host = checkHostVersion(api.runtime?.version);
            if (!host.ok) {
                api.logger.error(`zettelclaw: ${host.problem}`);
                api.registerMemoryCapability?.({ promptBuilder: () => [], runtime: unsupportedRuntime(host.problem) });
                return;
            }
            if (host.warning)
                api.logger.warn(`zettelclaw: ${host.warning}`);
            if (host.note)
                api.logger.info(`zettelclaw: ${host.note}`);
            const config = (api.pluginConfig ?? {});
            const env = deps.env ?? process.env;
            const socketPath = resolveSocketPath(config, env);
            const timeoutMs = config.timeoutMs ?? 2000;
            const shim = {
                api, config, env, socketPath, timeoutMs, log: api.logger,
                client: () => sharedClient(socketPath, { timeoutMs }),
                loadStore: deps.sessionStore ?? openClawSessionStore,
                spawnProcess: deps.spawnProcess ?? spawn,
                embeddingSdk: deps.embeddingSdk ?? openClawEmbeddingSdk,
            };
            const runSweep = sweeper(shim, deps.sweepRetryMs);
            registerHooks(shim, runSweep, deps.sweepRetryMs);
            api.registerTool((ctx) => {
                // the owner bit, which the prompt hook does not get, noted in the sidecar for this session
                const facts = toolFacts(ctx);
                if (facts)
                    void request(shim.client(), "hook.turnFacts", facts, timeoutMs).catch(() => undefined);
                return memoryTools(shim.client, toolAudience(ctx), ctx.sessionId);
            }, { names: Object.keys(TOOLS) });
            const ownClient = () => new RpcClient(socketPath, { timeoutMs, unref: true });
            api.registerMemoryCapability({
                promptBuilder: ({ availableTools }) => (availableTools.has("memory_search") ? [...MEMORY_PROMPT] : []),
                runtime: memoryRuntime(ownClient, host.warning),
                publicArtifacts: publicArtifacts(ownClient),
            });
            registerCli(shim);
            if (api.registrationMode === "full")
                registerService(shim, runSweep, deps.restartMs);
        },
    };
}
export default createPlugin();
