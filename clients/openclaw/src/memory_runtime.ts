// The memory slot's runtime (registerMemoryCapability's `runtime`), as OpenClaw 2026.9.6 calls it:
// `openclaw status --all` (and its --json) asks getMemorySearchManager({purpose: "status"}) and shows
// the manager's status(): files, chunks, sources, vector and FTS state. Everything comes from the
// sidecar (`status`, `memory.search`, `memory.get`); this file only reshapes its answers into the
// host's types. No rule lives here: who may see what is the sidecar's (the search names the
// requester's sessionKey, and the sidecar answers for that audience).

import { request } from "./protocol.ts";
import type { EntryWithChain, LogResult, MemoryResult, SemanticStatus, Status, TextSlice } from "./protocol_types.ts";
import type { RpcClient } from "./rpc.ts";
import { SLOW_CALL_MS, compact } from "./settings.ts";
import { ErrorCode } from "./protocol_constants.ts";

// The sidecar's answer, read defensively (an older sidecar may leave a part out): hence the `?.`.
type SidecarStatus = Status;
type Hit = LogResult | MemoryResult;

/** The host's MemoryProviderStatus, from the sidecar's `status` (protocol.md). */
export function providerStatus(status: SidecarStatus, hostWarning?: string): Record<string, unknown> {
  const semantic: Partial<SemanticStatus> = status.search?.semantic ?? {};
  const semanticReady = semantic.on === true && semantic.state === "ready";
  return compact({
    backend: "builtin",
    provider: "zettelclaw",
    model: semantic.model,
    files: status.search?.memoryFiles ?? 0,
    chunks: status.search?.chunks ?? 0,
    dirty: status.index?.indexing === true,
    workspaceDir: status.workspace,
    dbPath: status.paths?.index,
    sources: ["memory"],
    sourceCounts: [{ source: "memory", files: status.search?.memoryFiles ?? 0, chunks: status.search?.chunks ?? 0 }],
    fts: { enabled: true, available: true },
    vector: compact({
      enabled: semantic.on === true,
      available: semanticReady,
      semanticAvailable: semanticReady,
      loadError: semanticReady ? undefined : (semantic.reason ?? undefined),
    }),
    custom: compact({
      zettelclaw: status.version,
      entries: status.entries?.current,
      entriesTotal: status.entries?.total,
      replaced: status.entries?.replaced,
      byType: status.entries?.byType,
      subjects: status.subjects,
      jobs: status.extraction?.jobs,
      briefingLastRun: status.briefing?.lastRun,
      briefingNextRun: status.briefing?.nextRun,
      // the sidecar before this one died without stopping (a restart followed: src/service.ts)
      sidecarPreviousExit: status.server?.previousExit ?? undefined,
      hostVersion: hostWarning, // this OpenClaw is outside what the plugin was tested with
    }),
  });
}

/** A sidecar result as the host's MemorySearchResult (log entries and file chunks alike are "memory"). */
function searchResult(hit: Hit): Record<string, unknown> {
  return compact({
    path: hit.path,
    startLine: hit.startLine,
    endLine: hit.endLine,
    score: hit.score,
    vectorScore: hit.vectorScore,
    textScore: hit.textScore,
    snippet: hit.snippet,
    source: "memory",
    citation: hit.citation,
  });
}

/** A search manager for one agent, its status read once from the sidecar when it is made. */
export async function searchManager(rpc: RpcClient, agentId: string, hostWarning?: string): Promise<Record<string, unknown>> {
  const status = await request(rpc, "status", { agentId }, SLOW_CALL_MS);
  const semantic: Partial<SemanticStatus> = status.search?.semantic ?? {};
  const semanticReady = semantic.on === true && semantic.state === "ready";
  return {
    async search(query: string, opts: { maxResults?: number; minScore?: number; sessionKey?: string } = {}) {
      const answer = await request(
        rpc,
        "memory.search",
        compact({ agentId, query: query.trim() || undefined, maxResults: opts.maxResults, minScore: opts.minScore, sessionKey: opts.sessionKey }),
        SLOW_CALL_MS,
      );
      return (answer.results ?? []).map(searchResult);
    },
    async readFile(params: { relPath: string; from?: number; lines?: number }) {
      try {
        const answer: Partial<TextSlice> & Partial<EntryWithChain> = await request(
          rpc,
          "memory.get",
          compact({ agentId, path: params.relPath, from: params.from, lines: params.lines }),
          SLOW_CALL_MS,
        );
        // a file's or a session's lines (TextSlice); an entry id answers the entry with its chain, shown as JSON
        return compact({ status: "ok", path: params.relPath, text: String(answer.text ?? JSON.stringify(answer)), truncated: answer.truncated, from: answer.from, lines: answer.lines });
      } catch (error) {
        if ((error as { code?: unknown }).code === ErrorCode.NotFound) return { status: "not_found", path: params.relPath, text: "" };
        throw error;
      }
    },
    status: () => providerStatus(status, hostWarning),
    async sync() {}, // the sidecar indexes the log and the memory files by itself
    getCachedEmbeddingAvailability: () => ({ ok: semanticReady, checked: true, cached: true, error: semanticReady ? undefined : (semantic.reason ?? undefined) }),
    probeEmbeddingAvailability: async () => ({ ok: semanticReady, checked: true, error: semanticReady ? undefined : (semantic.reason ?? undefined) }),
    probeVectorStoreAvailability: async () => semanticReady,
    probeVectorAvailability: async () => semanticReady,
  };
}

/**
 * registerMemoryCapability's `runtime`: every call asks the sidecar. Each manager has a client of
 * its own (`client()` makes one), closed with the manager, whose connection does not keep a CLI
 * process alive (`openclaw status --all` loads this runtime in its own process and then exits).
 */
export function memoryRuntime(client: () => RpcClient, hostWarning?: string) {
  return {
    async getMemorySearchManager(params: { agentId: string }) {
      const rpc = client();
      try {
        const manager = await searchManager(rpc, params.agentId, hostWarning);
        return { manager: { ...manager, close: async () => rpc.close() } as never };
      } catch (error) {
        rpc.close();
        return { manager: null, error: `Zettelclaw sidecar: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
    resolveMemoryBackendConfig: () => ({ backend: "builtin" as const }),
  };
}
