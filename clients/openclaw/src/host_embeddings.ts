// The host's embeddings for the sidecar: answers the sidecar's `embeddings.embed` requests
// (protocol.md) with the embedding provider the user configured for OpenClaw's memory search
// (`memory.search.provider` / `model` / `remote`, with the main agent's overrides), so that
// `search.embeddings = host` reuses it. The sidecar decides whether to ask (its setting); the
// plugin offers whenever a provider is configured.
//
// OpenClaw 2026.9.6 has no typed plugin API that embeds with the configured provider. What it
// has: `resolveMemorySearchConfig(cfg, agentId)` (typed, `plugin-sdk/memory-core-host-engine-
// foundation`: the settings as memory-core reads them) and `getEmbeddingProvider(id, cfg)`
// (`plugin-sdk/embedding-providers`, exported as JavaScript only, "private-local" in
// docs/plugins/sdk-subpaths.md; the same adapter lookup memory-core and the official
// memory-lancedb plugin use). Its adapter's type is the public one plugins register
// (`registerEmbeddingProvider`). Both are loaded when the service starts; when either is
// missing (another OpenClaw), nothing is offered and the log says why.

import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { HOST_MODEL_FAILED, HOST_MODEL_UNAVAILABLE, hostModelError } from "./host_model.ts";
import { RpcError } from "./rpc.ts";
import { ErrorCode, MAIN_AGENT } from "./protocol_constants.ts";

export const EMBED = "embeddings.embed";
const DEFAULT_TIMEOUT_MS = 30_000;

export type Adapter = Parameters<OpenClawPluginApi["registerEmbeddingProvider"]>[0];
type CreateOptions = Parameters<Adapter["create"]>[0];
export type Provider = NonNullable<Awaited<ReturnType<Adapter["create"]>>["provider"]>;

type Settings = {
  provider: string;
  model?: string;
  remote?: CreateOptions["remote"];
  inputType?: string;
  queryInputType?: string;
  documentInputType?: string;
  outputDimensionality?: number;
  local?: CreateOptions["local"];
};

/** What the plugin needs of OpenClaw's SDK; replaced in tests by a stand-in provider. */
export type EmbeddingSdk = {
  resolveMemorySearchConfig(cfg: unknown, agentId: string): Settings | null;
  getEmbeddingProvider(id: string, cfg: unknown): Adapter | undefined;
};

/** OpenClaw's, or why it cannot be had. */
export async function openClawEmbeddingSdk(): Promise<EmbeddingSdk> {
  // the specifiers are variables: one of the modules ships no types (see above)
  const foundationPath = "openclaw/plugin-sdk/memory-core-host-engine-foundation";
  const providersPath = "openclaw/plugin-sdk/embedding-providers";
  const foundation = (await import(foundationPath)) as Partial<EmbeddingSdk>;
  const providers = (await import(providersPath)) as Partial<EmbeddingSdk>;
  if (typeof foundation.resolveMemorySearchConfig !== "function" || typeof providers.getEmbeddingProvider !== "function") {
    throw new Error("this OpenClaw has no resolveMemorySearchConfig / getEmbeddingProvider");
  }
  return {
    resolveMemorySearchConfig: foundation.resolveMemorySearchConfig,
    getEmbeddingProvider: providers.getEmbeddingProvider,
  };
}

export type Choice = { provider: string; model: string; create: CreateOptions; adapter: Adapter };

/**
 * The provider and model OpenClaw's memory search is configured with (the main agent's), or why
 * none is offered: `memory.search.provider` unset (`zettelclaw init` sets "none" when it was) or
 * "none", memory search disabled, or an id no adapter answers.
 */
export function embeddingChoice(sdk: EmbeddingSdk, cfg: unknown, agentDir?: string): Choice | string {
  const unset = providerUnset(cfg);
  if (unset) return unset;
  const settings = sdk.resolveMemorySearchConfig(cfg, MAIN_AGENT);
  if (!settings) return "OpenClaw's memory search is disabled (memory.search.enabled = false)";
  const adapter = sdk.getEmbeddingProvider(settings.provider, cfg);
  if (!adapter) return `OpenClaw has no embedding provider "${settings.provider}"`;
  const create: CreateOptions = {
    config: cfg as CreateOptions["config"],
    provider: settings.provider,
    model: settings.model?.trim() || adapter.defaultModel || "",
    ...(agentDir ? { agentDir } : {}),
    ...(settings.remote ? { remote: settings.remote } : {}),
    ...(settings.inputType ? { inputType: settings.inputType } : {}),
    ...(settings.queryInputType ? { queryInputType: settings.queryInputType } : {}),
    ...(settings.documentInputType ? { documentInputType: settings.documentInputType } : {}),
    ...(typeof settings.outputDimensionality === "number" ? { dimensions: settings.outputDimensionality } : {}),
    ...(settings.local ? { local: settings.local } : {}),
  };
  const model = adapter.normalizeModel?.(create) ?? create.model;
  if (!model) return `OpenClaw's embedding provider "${settings.provider}" names no model (memory.search.model)`;
  return { provider: settings.provider, model, create: { ...create, model }, adapter };
}

/** Why no provider is configured (the main agent's memory.search.provider), or null. */
export function providerUnset(cfg: unknown): string | null {
  const memory = (cfg as { memory?: { search?: { provider?: unknown } } } | undefined)?.memory?.search;
  const own = (cfg as { agents?: { entries?: Record<string, { memory?: { search?: { provider?: unknown } } }> } } | undefined)
    ?.agents?.entries?.[MAIN_AGENT]?.memory?.search;
  const configured = own?.provider ?? memory?.provider;
  if (typeof configured === "string" && configured.trim() && configured.trim() !== "none") return null;
  return `OpenClaw's memory.search.provider is ${typeof configured === "string" && configured.trim() ? `"${configured}"` : "not set"}`;
}

/** The texts and the deadline of the sidecar's embeddings.embed, or an RpcError (-32602). */
export function embedParams(params: unknown): { texts: string[]; query: boolean; signal: AbortSignal } {
  const p = (params ?? {}) as Record<string, unknown>;
  const texts = p.texts;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === "string")) {
    throw new RpcError(ErrorCode.InvalidParams, "embeddings.embed: texts must be a non-empty array of strings");
  }
  const timeoutMs = typeof p.timeoutMs === "number" && p.timeoutMs > 0 ? p.timeoutMs : DEFAULT_TIMEOUT_MS;
  return { texts: texts as string[], query: p.purpose === "query", signal: AbortSignal.timeout(timeoutMs) };
}

/**
 * The handler of the sidecar's embeddings.embed: the choice is made again from the live config at
 * each call; its provider is created once and kept while the choice stays the same (a new one
 * closes the old). `changed(choice)` is told when the choice is not the one offered (the plugin
 * offers again), and the call is answered -32013, so the sidecar waits for the new offer.
 */
export class HostEmbeddings {
  private made: { key: string; provider: Promise<Provider> } | null = null;
  stopped = false;

  private readonly choose: () => Promise<Choice | string>;
  private readonly offered: () => string | null;
  private readonly changed: (choice: Choice | string) => void;

  constructor(choose: () => Promise<Choice | string>, offered: () => string | null, changed: (choice: Choice | string) => void) {
    this.choose = choose;
    this.offered = offered;
    this.changed = changed;
  }

  async embed(params: unknown): Promise<Record<string, unknown>> {
    if (this.stopped) throw new RpcError(HOST_MODEL_UNAVAILABLE, "the OpenClaw plugin is not running (stopped, or being reloaded)");
    const { texts, query, signal } = embedParams(params);
    const choice = await this.choose();
    if (typeof choice === "string") {
      if (this.offered() !== null) this.changed(choice); // no longer: the offer is withdrawn
      throw new RpcError(HOST_MODEL_UNAVAILABLE, choice);
    }
    const key = keyOf(choice);
    if (key !== this.offered()) {
      this.changed(choice);
      throw new RpcError(HOST_MODEL_UNAVAILABLE, `OpenClaw now embeds with ${key}: offered anew`);
    }
    const chosen = choice;
    let vectors: number[][];
    try {
      const provider = await this.provider(chosen);
      vectors = await provider.embedBatch(texts, { signal, inputType: query ? "query" : "document" });
    } catch (error) {
      throw hostModelError(error);
    }
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw new RpcError(HOST_MODEL_FAILED, `OpenClaw's ${key} answered ${Array.isArray(vectors) ? vectors.length : "no"} vectors for ${texts.length} texts`);
    }
    return { vectors };
  }

  private provider(choice: Choice): Promise<Provider> {
    const key = keyOf(choice);
    if (this.made?.key === key) return this.made.provider;
    void this.close();
    const provider = choice.adapter.create(choice.create).then((result) => {
      if (!result.provider) throw new RpcError(HOST_MODEL_UNAVAILABLE, `OpenClaw's embedding provider "${choice.provider}" is not available`);
      return result.provider;
    });
    provider.catch(() => {
      if (this.made?.provider === provider) this.made = null; // asked again next time
    });
    this.made = { key, provider };
    return provider;
  }

  /** Let the provider go (the service stops, or another one is chosen). */
  async close(): Promise<void> {
    const made = this.made;
    this.made = null;
    if (!made) return;
    try {
      await (await made.provider).close?.();
    } catch {
      // a provider that failed to start, or to close, has nothing more to give back
    }
  }
}

/** `provider/model`, as the offer names it (the sidecar's vectors are kept under it). */
export function keyOf(choice: Pick<Choice, "provider" | "model">): string {
  return `${choice.provider}/${choice.model}`;
}
