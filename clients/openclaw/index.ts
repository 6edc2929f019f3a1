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
import type { OpenClawPluginApi, OpenClawPluginToolContext } from "openclaw/plugin-sdk/plugin-entry";
import { publicArtifacts } from "./src/artifacts.ts";
import { openClawEmbeddingSdk, type EmbeddingSdk } from "./src/host_embeddings.ts";
import { toolAudience, toolFacts, type ToolCtx } from "./src/audience.ts";
import { registerCli } from "./src/cli.ts";
import { registerHooks } from "./src/hooks.ts";
import { checkHostVersion, unsupportedRuntime } from "./src/host_version.ts";
import { request } from "./src/protocol.ts";
import { memoryRuntime } from "./src/memory_runtime.ts";
import { RpcClient, sharedClient } from "./src/rpc.ts";
import { registerService } from "./src/service.ts";
import { PLUGIN_ID, resolveSocketPath, type Env, type PluginConfig } from "./src/settings.ts";
import type { Shim } from "./src/shim.ts";
import { sweeper } from "./src/sweep.ts";
import { TOOLS } from "./src/tool_schemas.ts";
import { MEMORY_PROMPT, memoryTools } from "./src/tools.ts";
import { openClawSessionStore, type SessionStore } from "./src/transcripts.ts";

export { dispatchFacts, promptParams, toolAudience, toolFacts } from "./src/audience.ts";
export { removeDreamingJob } from "./src/service.ts";
export { PLUGIN_ID, openclawStateDir, resolveSocketPath, zettelclawCommand, type PluginConfig } from "./src/settings.ts";
export { lastSweep } from "./src/sweep.ts";
export { NEWEST_TESTED, OLDEST_SUPPORTED, checkHostVersion } from "./src/host_version.ts";
export { TOOLS } from "./src/tool_schemas.ts";
export { toolCall } from "./src/tools.ts";
export { conversation, type SessionStore } from "./src/transcripts.ts";

export type PluginDeps = {
  /** OpenClaw's session store (transcripts); replaced in tests. */
  sessionStore?: () => Promise<SessionStore>;
  /** Starts processes (the sidecar, the `zettelclaw` command); replaced in tests. */
  spawnProcess?: typeof spawn;
  env?: Env;
  /** The first wait before a failed sweep, or a hook not delivered, is tried again (ms); shortened in tests. */
  sweepRetryMs?: number;
  /** The first wait before a sidecar that died is started again (ms); shortened in tests. */
  restartMs?: number;
  /** OpenClaw's memory-search settings and embedding providers; a stand-in in tests. */
  embeddingSdk?: () => Promise<EmbeddingSdk>;
};

export function createPlugin(deps: PluginDeps = {}) {
  return {
    id: PLUGIN_ID,
    name: "Zettelclaw",
    description: "Long-term memory: an append-only event log served by the Zettelclaw sidecar",
    register(api: OpenClawPluginApi) {
      // an OpenClaw outside the supported versions is said in the gateway log and `openclaw
      // status`; one too old gets nothing else (its plugin API lacks parts of what follows)
      const host = checkHostVersion((api.runtime as { version?: unknown } | undefined)?.version);
      if (!host.ok) {
        api.logger.error(`zettelclaw: ${host.problem}`);
        api.registerMemoryCapability?.({ promptBuilder: () => [], runtime: unsupportedRuntime(host.problem) });
        return;
      }
      if (host.warning) api.logger.warn(`zettelclaw: ${host.warning}`);
      if (host.note) api.logger.info(`zettelclaw: ${host.note}`);
      const config = (api.pluginConfig ?? {}) as PluginConfig;
      const env = deps.env ?? process.env;
      const socketPath = resolveSocketPath(config, env);
      const timeoutMs = config.timeoutMs ?? 2000;
      const shim: Shim = {
        api, config, env, socketPath, timeoutMs, log: api.logger,
        client: () => sharedClient(socketPath, { timeoutMs }),
        loadStore: deps.sessionStore ?? openClawSessionStore,
        spawnProcess: deps.spawnProcess ?? spawn,
        embeddingSdk: deps.embeddingSdk ?? openClawEmbeddingSdk,
      };
      const runSweep = sweeper(shim, deps.sweepRetryMs);
      registerHooks(shim, runSweep, deps.sweepRetryMs);
      api.registerTool(
        (ctx: OpenClawPluginToolContext) => {
          // the owner bit, which the prompt hook does not get, noted in the sidecar for this session
          const facts = toolFacts(ctx as ToolCtx);
          if (facts) void request(shim.client(), "hook.turnFacts", facts, timeoutMs).catch(() => undefined);
          return memoryTools(shim.client, toolAudience(ctx as ToolCtx), ctx.sessionId);
        },
        { names: Object.keys(TOOLS) },
      );
      const ownClient = () => new RpcClient(socketPath, { timeoutMs, unref: true });
      api.registerMemoryCapability({
        promptBuilder: ({ availableTools }) => (availableTools.has("memory_search") ? [...MEMORY_PROMPT] : []),
        runtime: memoryRuntime(ownClient, host.warning),
        publicArtifacts: publicArtifacts(ownClient),
      });
      registerCli(shim);
      if (api.registrationMode === "full") registerService(shim, runSweep, deps.restartMs);
    },
  };
}

export default createPlugin();
