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
var __rewriteRelativeImportExtension = (this && this.__rewriteRelativeImportExtension) || function (path, preserveJsx) {
    if (typeof path === "string" && /^\.\.?\//.test(path)) {
        return path.replace(/\.(tsx)$|((?:\.d)?)((?:\.[^./]+?)?)\.([cm]?)ts$/i, function (m, tsx, d, ext, cm) {
            return tsx ? preserveJsx ? ".jsx" : ".js" : d && (!ext || !cm) ? m : (d + ext + "." + cm.toLowerCase() + "js");
        });
    }
    return path;
};
import { HOST_MODEL_FAILED, HOST_MODEL_UNAVAILABLE, hostModelError } from "./host_model.js";
import { RpcError } from "./rpc.js";
import { ErrorCode, MAIN_AGENT } from "./protocol_constants.js";
export const EMBED = "embeddings.embed";
const DEFAULT_TIMEOUT_MS = 30_000;
/** OpenClaw's, or why it cannot be had. */
export async function openClawEmbeddingSdk() {
    // the specifiers are variables: one of the modules ships no types (see above)
    const foundationPath = "openclaw/plugin-sdk/memory-core-host-engine-foundation";
    const providersPath = "openclaw/plugin-sdk/embedding-providers";
    const foundation = (await import(__rewriteRelativeImportExtension(foundationPath)));
    const providers = (await import(__rewriteRelativeImportExtension(providersPath)));
    if (typeof foundation.resolveMemorySearchConfig !== "function" || typeof providers.getEmbeddingProvider !== "function") {
        throw new Error("this OpenClaw has no resolveMemorySearchConfig / getEmbeddingProvider");
    }
    return {
        resolveMemorySearchConfig: foundation.resolveMemorySearchConfig,
        getEmbeddingProvider: providers.getEmbeddingProvider,
    };
}
/**
 * The provider and model OpenClaw's memory search is configured with (the main agent's), or why
 * none is offered: `memory.search.provider` unset (`zettelclaw init` sets "none" when it was) or
 * "none", memory search disabled, or an id no adapter answers.
 */
export function embeddingChoice(sdk, cfg, agentDir) {
    const unset = providerUnset(cfg);
    if (unset)
        return unset;
    const settings = sdk.resolveMemorySearchConfig(cfg, MAIN_AGENT);
    if (!settings)
        return "OpenClaw's memory search is disabled (memory.search.enabled = false)";
    const adapter = sdk.getEmbeddingProvider(settings.provider, cfg);
    if (!adapter)
        return `OpenClaw has no embedding provider "${settings.provider}"`;
    const create = {
        config: cfg,
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
    if (!model)
        return `OpenClaw's embedding provider "${settings.provider}" names no model (memory.search.model)`;
    return { provider: settings.provider, model, create: { ...create, model }, adapter };
}
/** Why no provider is configured (the main agent's memory.search.provider), or null. */
export function providerUnset(cfg) {
    const memory = cfg?.memory?.search;
    const own = cfg
        ?.agents?.entries?.[MAIN_AGENT]?.memory?.search;
    const configured = own?.provider ?? memory?.provider;
    if (typeof configured === "string" && configured.trim() && configured.trim() !== "none")
        return null;
    return `OpenClaw's memory.search.provider is ${typeof configured === "string" && configured.trim() ? `"${configured}"` : "not set"}`;
}
/** The texts and the deadline of the sidecar's embeddings.embed, or an RpcError (-32602). */
export function embedParams(params) {
    const p = (params ?? {});
    const texts = p.texts;
    if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === "string")) {
        throw new RpcError(ErrorCode.InvalidParams, "embeddings.embed: texts must be a non-empty array of strings");
    }
    const timeoutMs = typeof p.timeoutMs === "number" && p.timeoutMs > 0 ? p.timeoutMs : DEFAULT_TIMEOUT_MS;
    return { texts: texts, query: p.purpose === "query", signal: AbortSignal.timeout(timeoutMs) };
}
/**
 * The handler of the sidecar's embeddings.embed: the choice is made again from the live config at
 * each call; its provider is created once and kept while the choice stays the same (a new one
 * closes the old). `changed(choice)` is told when the choice is not the one offered (the plugin
 * offers again), and the call is answered -32013, so the sidecar waits for the new offer.
 */
export class HostEmbeddings {
    made = null;
    stopped = false;
    choose;
    offered;
    changed;
    constructor(choose, offered, changed) {
        this.choose = choose;
        this.offered = offered;
        this.changed = changed;
    }
    async embed(params) {
        if (this.stopped)
            throw new RpcError(HOST_MODEL_UNAVAILABLE, "the OpenClaw plugin is not running (stopped, or being reloaded)");
        const { texts, query, signal } = embedParams(params);
        const choice = await this.choose();
        if (typeof choice === "string") {
            if (this.offered() !== null)
                this.changed(choice); // no longer: the offer is withdrawn
            throw new RpcError(HOST_MODEL_UNAVAILABLE, choice);
        }
        const key = keyOf(choice);
        if (key !== this.offered()) {
            this.changed(choice);
            throw new RpcError(HOST_MODEL_UNAVAILABLE, `OpenClaw now embeds with ${key}: offered anew`);
        }
        const chosen = choice;
        let vectors;
        try {
            const provider = await this.provider(chosen);
            vectors = await provider.embedBatch(texts, { signal, inputType: query ? "query" : "document" });
        }
        catch (error) {
            throw hostModelError(error);
        }
        if (!Array.isArray(vectors) || vectors.length !== texts.length) {
            throw new RpcError(HOST_MODEL_FAILED, `OpenClaw's ${key} answered ${Array.isArray(vectors) ? vectors.length : "no"} vectors for ${texts.length} texts`);
        }
        return { vectors };
    }
    provider(choice) {
        const key = keyOf(choice);
        if (this.made?.key === key)
            return this.made.provider;
        void this.close();
        const provider = choice.adapter.create(choice.create).then((result) => {
            if (!result.provider)
                throw new RpcError(HOST_MODEL_UNAVAILABLE, `OpenClaw's embedding provider "${choice.provider}" is not available`);
            return result.provider;
        });
        provider.catch(() => {
            if (this.made?.provider === provider)
                this.made = null; // asked again next time
        });
        this.made = { key, provider };
        return provider;
    }
    /** Let the provider go (the service stops, or another one is chosen). */
    async close() {
        const made = this.made;
        this.made = null;
        if (!made)
            return;
        try {
            await (await made.provider).close?.();
        }
        catch {
            // a provider that failed to start, or to close, has nothing more to give back
        }
    }
}
/** `provider/model`, as the offer names it (the sidecar's vectors are kept under it). */
export function keyOf(choice) {
    return `${choice.provider}/${choice.model}`;
}
