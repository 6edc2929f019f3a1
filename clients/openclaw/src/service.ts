// The service, in the "full" instance only (one per gateway): connect to the sidecar when the
// gateway starts, start one when none answers (and stop it with the gateway), offer it the host's
// model, and remove memory-core's dreaming cron job once Zettelclaw holds the memory slot.

import { AsyncResource } from "node:async_hooks";
import type { ChildProcess } from "node:child_process";
import type { OpenClawPluginServiceContext } from "openclaw/plugin-sdk/plugin-entry";
import { EMBED, HostEmbeddings, embeddingChoice, keyOf, providerUnset, type Choice, type EmbeddingSdk } from "./host_embeddings.ts";
import type { LlmComplete } from "./host_model.ts";
import { completeLive, goLive } from "./live.ts";
import { request } from "./protocol.ts";
import type { AgentWorkspace } from "./protocol_types.ts";
import { RpcClient, SidecarUnavailableError } from "./rpc.ts";
import { PLUGIN_ID, compact, describe, zettelclawCommand, type Logger } from "./settings.ts";
import type { Shim } from "./shim.ts";
import { agentIds } from "./transcripts.ts";
import { MAIN_AGENT } from "./protocol_constants.ts";

const READY_WAIT_MS = 20_000;
const STOP_WAIT_MS = 4_000;
// A sidecar this service started that dies (SIGKILL, the OOM killer) is started again after
// RESTART_FIRST_MS, doubling up to RESTART_MAX_MS; one that had run RESTART_STEADY_MS resets the
// wait. After RESTART_GIVE_UP quick deaths in a row it is left down, said in the log.
export const RESTART_FIRST_MS = 1_000;
const RESTART_MAX_MS = 60_000;
const RESTART_STEADY_MS = 300_000;
const RESTART_GIVE_UP = 8;
const DREAMING_JOB_KEY = "memory-core:memory-dreaming-promotion";
const DREAMING_JOB_NAME = "Memory Dreaming Promotion";

export function registerService(shim: Shim, runSweep: (why: string) => Promise<void>, restartFirstMs = RESTART_FIRST_MS): void {
  const { api, config, env, log, socketPath, timeoutMs, client, spawnProcess, embeddingSdk } = shim;
  let child: ChildProcess | null = null;
  let running = false; // between the service's start and stop: a dead sidecar is started again
  let restartTimer: ReturnType<typeof setTimeout> | null = null;
  let restartMs = restartFirstMs;
  let quickDeaths = 0;
  let serviceCtx: OpenClawPluginServiceContext | null = null;
  let stopReconnect: (() => void) | null = null;
  let stopHostModel: (() => Promise<void>) | null = null;

  // The host's model for the sidecar (protocol.md, "The host's model"): on every connection,
  // offer llm.complete, answered by OpenClaw's runtime with the agent's model, so that
  // extraction needs no Anthropic key. Only the service offers: one offer per gateway. The
  // handle is the live registration's (src/live.ts): this start makes this api live; this
  // stop, or OpenClaw retiring this registration, withdraws the offer unless a newer one is live.
  function offerHostModel(rpc: RpcClient): () => Promise<void> {
    const runtimeLlm = (api.runtime as { llm?: { complete?: LlmComplete } } | undefined)?.llm;
    if (typeof runtimeLlm?.complete !== "function") {
      log.info("zettelclaw: this OpenClaw has no runtime.llm.complete; extraction needs an Anthropic key");
      return async () => {};
    }
    const complete: LlmComplete = (params) => runtimeLlm.complete!(params);
    const signal = (api as { lifecycle?: { signal?: AbortSignal } }).lifecycle?.signal;
    const { end } = goLive({ complete, signal, name: api.id ?? PLUGIN_ID, log: (m) => log.info(m) });
    // Answered while the plugin is loaded: with no live registration, "cannot be asked now".
    rpc.handle("llm.complete", completeLive);
    const version = (api.runtime as { version?: unknown } | undefined)?.version;
    const clientInfo = compact({ name: "openclaw", version: typeof version === "string" ? version : undefined });
    // OpenClaw's embedding provider (src/host_embeddings.ts), offered next to the model when
    // memory.search names one; the sidecar asks it only with search.embeddings = host. OpenClaw's
    // modules for it are loaded only then.
    let sdk: Promise<EmbeddingSdk | null> | null = null;
    let offered: string | null = null; // provider/model of the embeddings offered
    const choose = async (): Promise<Choice | string> => {
      const cfg = currentConfig(api);
      const unset = providerUnset(cfg);
      if (unset) return unset;
      sdk ??= embeddingSdk().catch((error) => {
        log.warn(`zettelclaw: OpenClaw's embedding providers cannot be reached: ${describe(error)}`);
        return null;
      });
      const loaded = await sdk;
      if (!loaded) return "OpenClaw's embedding providers cannot be reached (see the gateway's log)";
      const runtime = api.runtime as { agent?: { resolveAgentDir?: (cfg: unknown, agentId: string) => string } } | undefined;
      let agentDir: string | undefined;
      try {
        agentDir = runtime?.agent?.resolveAgentDir?.(cfg, MAIN_AGENT);
      } catch {
        agentDir = undefined; // the provider then reads the process-wide auth
      }
      return embeddingChoice(loaded, cfg, agentDir);
    };
    const offer = (choice: Choice | string) => {
      offered = typeof choice === "string" ? null : keyOf(choice);
      const params = typeof choice === "string"
        ? { capabilities: ["llm.complete"], client: clientInfo }
        : { capabilities: ["llm.complete", EMBED], client: clientInfo, embeddings: { provider: choice.provider, model: choice.model } };
      request(rpc, "host.offer", params, timeoutMs)
        .then(() => log.info(typeof choice === "string"
          ? `zettelclaw: offered the agent's model to the sidecar (llm.complete); no embeddings: ${choice}`
          : `zettelclaw: offered the agent's model (llm.complete) and OpenClaw's embeddings (${offered}) to the sidecar`))
        .catch((error) => log.warn(`zettelclaw: host.offer failed: ${describe(error)}`));
    };
    const embeddings = new HostEmbeddings(choose, () => offered, inThisStart2(offer));
    const unhandle = rpc.handle(EMBED, (params) => embeddings.embed(params));
    const unlisten = rpc.onConnect(inThisStart(() => {
      void choose().then(offer);
    }));
    let withdrawn = false;
    const withdraw = async (why: string) => {
      if (withdrawn) return;
      withdrawn = true;
      unlisten();
      if (!end()) return; // a newer registration is live: its offer stands
      if (!rpc.connected) return;
      try {
        await request(rpc, "host.offer", { capabilities: [], reason: why }, timeoutMs);
        log.info(`zettelclaw: withdrew the agent's model from the sidecar (${why})`);
      } catch (error) {
        log.warn(`zettelclaw: withdrawing the offer failed: ${describe(error)}`);
      }
    };
    const retired = () => void withdraw("OpenClaw retired the plugin's registration (a reload)");
    signal?.addEventListener("abort", retired, { once: true });
    return async () => {
      signal?.removeEventListener("abort", retired);
      embeddings.stopped = true;
      unhandle();
      await withdraw("OpenClaw stopped the plugin (a reload, or the gateway stopping)");
      await embeddings.close();
    };
  }

  // Each agent's workspace, as OpenClaw resolves it (protocol.md, agents.register): on every
  // connection, so a restarted sidecar knows them before the first turn. A workspace changed
  // in the config later reaches the sidecar with that agent's next hook (its workspaceDir).
  function registerAgents(rpc: RpcClient): () => void {
    return rpc.onConnect(inThisStart(() => {
      const agents = agentWorkspaces(api);
      if (agents.length === 0) return;
      request(rpc, "agents.register", { agents }, timeoutMs)
        .then(() => log.info(`zettelclaw: told the sidecar the workspaces of ${agents.length} agent(s)`))
        .catch((error) => log.warn(`zettelclaw: agents.register failed: ${describe(error)}`));
    }));
  }

  api.registerService({
    id: "zettelclaw-sidecar",
    start: async (ctx: OpenClawPluginServiceContext) => {
      const rpc = client();
      stopReconnect = rpc.onReconnect(inThisStart(() => void runSweep("sidecar back")));
      const stopAgents = registerAgents(rpc);
      const stopOffer = offerHostModel(rpc);
      stopHostModel = async () => {
        stopAgents();
        await stopOffer();
      };
      void removeDreamingJob(ctx, log);
      try {
        await request(rpc, "status", undefined, timeoutMs);
        log.info(`zettelclaw: connected to the sidecar at ${socketPath}`);
        return;
      } catch (error) {
        if (!(error instanceof SidecarUnavailableError)) return;
        if (config.autostart === false) {
          log.warn(`zettelclaw: no sidecar answers on ${socketPath}; memory is off until \`zettelclaw serve\` runs`);
          return;
        }
      }
      running = true;
      serviceCtx = ctx;
      restartMs = restartFirstMs;
      quickDeaths = 0;
      child = startSidecar(ctx);
      void waitUntilReady(rpc, child, log);
    },
    stop: async () => {
      running = false;
      if (restartTimer) clearTimeout(restartTimer);
      restartTimer = null;
      stopReconnect?.();
      stopReconnect = null;
      const stopping = stopHostModel;
      stopHostModel = null;
      await stopping?.(); // before the sidecar stops: it learns the offer is withdrawn
      const proc = child;
      child = null;
      if (proc) await stopProcess(proc, log);
    },
  });

  function startSidecar(ctx: OpenClawPluginServiceContext): ChildProcess {
    const [command, ...prefix] = zettelclawCommand(config);
    const args = [...prefix, "serve", "--socket", socketPath];
    if (ctx.workspaceDir) args.push("--workspace", ctx.workspaceDir);
    log.info(`zettelclaw: starting the sidecar: ${command} ${args.join(" ")}`);
    const proc = spawnProcess(command!, args, { stdio: ["ignore", "pipe", "pipe"], env: env as NodeJS.ProcessEnv });
    const relay = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n")) if (line.trim()) log.info(`zettelclaw sidecar: ${line}`);
    };
    proc.stdout?.on("data", relay);
    proc.stderr?.on("data", relay);
    const startedAt = Date.now();
    let ended = false;
    const end = (how: string, clean = false) => {
      if (ended) return;
      ended = true;
      if (child !== proc) {
        log.info(`zettelclaw: the sidecar exited (${how})`); // stopped by this service
        return;
      }
      child = null;
      if (clean) {
        // exit 0: someone stopped it (SIGTERM, as `kill` sends): a choice, not a death
        log.info(`zettelclaw: the sidecar was stopped (${how}); not starting it again until the gateway restarts`);
        return;
      }
      restartLater(how, Date.now() - startedAt);
    };
    proc.once("error", (error) => {
      log.error(`zettelclaw: cannot start the sidecar (${command}): ${error.message}`);
      end(`not started: ${error.message}`);
    });
    proc.once("exit", (code, signal) => end(signal ?? `code ${code}`, signal === null && code === 0));
    return proc;
  }

  // The sidecar this service started died (killed by a signal, or a non-zero exit) while the
  // gateway runs: start it again, after a
  // wait that doubles while it keeps dying young. The sidecar that comes up says in its
  // `status` that the one before it died (server.previousExit).
  function restartLater(how: string, ranMs: number): void {
    if (!running || (api as { lifecycle?: { signal?: AbortSignal } }).lifecycle?.signal?.aborted) {
      log.info(`zettelclaw: the sidecar exited (${how})`);
      return;
    }
    if (ranMs >= RESTART_STEADY_MS) {
      restartMs = restartFirstMs;
      quickDeaths = 0;
    }
    quickDeaths += 1;
    if (quickDeaths > RESTART_GIVE_UP) {
      log.error(`zettelclaw: the sidecar exited (${how}) ${RESTART_GIVE_UP} times in a row soon after starting; ` +
        "not starting it again: memory is off until the gateway restarts or `zettelclaw serve` runs (its log above says why)");
      return;
    }
    const wait = restartMs;
    restartMs = Math.min(restartMs * 2, RESTART_MAX_MS);
    log.warn(`zettelclaw: the sidecar exited (${how}) while the gateway runs; starting it again in ${wait / 1000} s (restart ${quickDeaths})`);
    restartTimer = setTimeout(() => {
      restartTimer = null;
      void (async () => {
        if (!running || child || !serviceCtx) return;
        // one started meanwhile (a person's `zettelclaw serve`): a second would be refused. Asked
        // on a connection of its own: the shared one may be waiting out its reconnection backoff
        const probe = new RpcClient(socketPath, { timeoutMs: 1000, unref: true });
        try {
          await request(probe, "status", undefined, 1000);
          log.info(`zettelclaw: a sidecar answers on ${socketPath} again; not starting one`);
          return;
        } catch {
          // none answers: start it
        } finally {
          probe.close();
        }
        if (!running || child) return;
        child = startSidecar(serviceCtx);
        void waitUntilReady(client(), child, log);
      })();
    }, wait);
    restartTimer.unref?.();
  }
}

/**
 * `listener`, run in the async context of the caller (a service start): the connection's events
 * run in the context of whatever opened it, maybe a registration OpenClaw has retired since, where
 * runtime calls fail (src/live.ts). Called synchronously in start().
 */
function inThisStart(listener: () => void): () => void {
  return AsyncResource.bind(listener);
}

/** The same, for a listener with an argument. */
function inThisStart2<T>(listener: (value: T) => void): (value: T) => void {
  return AsyncResource.bind(listener);
}

type AgentRuntime = { resolveAgentWorkspaceDir?: (cfg: unknown, agentId: string) => string };

/** OpenClaw's config as it is now (the runtime's live one), else the one register() got. */
function currentConfig(api: Shim["api"]): unknown {
  const runtime = api.runtime as { config?: { current?: () => unknown } } | undefined;
  return (typeof runtime?.config?.current === "function" ? runtime.config.current() : undefined) ?? api.config;
}

/** Every configured agent with its workspace, resolved by OpenClaw (`main` always). */
export function agentWorkspaces(api: Shim["api"]): AgentWorkspace[] {
  const runtime = api.runtime as { agent?: AgentRuntime } | undefined;
  const resolve = runtime?.agent?.resolveAgentWorkspaceDir;
  if (typeof resolve !== "function") return [];
  const config = currentConfig(api);
  const found: { agentId: string; workspace: string }[] = [];
  for (const agentId of agentIds(config)) {
    try {
      found.push({ agentId, workspace: resolve(config, agentId) });
    } catch {
      // an agent OpenClaw cannot resolve has no workspace to tell
    }
  }
  return found;
}

async function waitUntilReady(rpc: RpcClient, proc: ChildProcess, log: Logger): Promise<void> {
  const deadline = Date.now() + READY_WAIT_MS;
  while (Date.now() < deadline && proc.exitCode === null && proc.signalCode === null) {
    try {
      await request(rpc, "status", undefined, 1000);
      log.info(`zettelclaw: the sidecar is ready on ${rpc.socketPath}`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  log.warn(`zettelclaw: the sidecar did not answer on ${rpc.socketPath} within ${READY_WAIT_MS} ms`);
}

async function stopProcess(proc: ChildProcess, log: Logger): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  proc.kill("SIGTERM"); // the sidecar finishes the writes in flight, removes its socket, exits 0
  const timer = new Promise<"late">((r) => setTimeout(() => r("late"), STOP_WAIT_MS).unref());
  if ((await Promise.race([exited, timer])) === "late") {
    log.warn("zettelclaw: the sidecar did not stop within 4 s; killing it");
    proc.kill("SIGKILL");
  }
}

/**
 * memory-core's "Memory Dreaming Promotion" cron job outlives memory-core being disabled (it lives
 * in the gateway's scheduler store, which only the gateway may change): remove it once memory-core
 * is disabled and Zettelclaw holds the memory slot, as `zettelclaw init` arranges.
 */
export async function removeDreamingJob(ctx: Pick<OpenClawPluginServiceContext, "config" | "getCron">, log: Logger): Promise<number> {
  const plugins = (ctx.config as { plugins?: { slots?: { memory?: unknown }; entries?: Record<string, { enabled?: unknown }> } })
    ?.plugins;
  if (plugins?.slots?.memory !== PLUGIN_ID || plugins?.entries?.["memory-core"]?.enabled !== false) return 0;
  try {
    const cron = ctx.getCron?.();
    if (!cron) return 0;
    let removed = 0;
    for (const job of await cron.list({ includeDisabled: true })) {
      if (job.declarationKey === DREAMING_JOB_KEY || job.name === DREAMING_JOB_NAME) {
        await cron.remove(job.id);
        removed += 1;
        log.info(`zettelclaw: removed memory-core's "${DREAMING_JOB_NAME}" cron job (${job.id}): memory-core is disabled`);
      }
    }
    return removed;
  } catch (error) {
    log.warn(`zettelclaw: could not remove memory-core's dreaming cron job: ${describe(error)}`);
    return 0;
  }
}
