// registerMemoryCapability's `publicArtifacts`: the files companion plugins may read (OpenClaw's
// bundled memory-wiki, in bridge mode, imports them as wiki source pages). Which files exist,
// whose they are and whether the owner publishes them at all is the sidecar's answer
// (`artifacts.list`, protocol.md; its paths are checked inside their roots there); this file
// only reshapes it into the host's MemoryPluginPublicArtifact.

import { request } from "./protocol.ts";
import type { Artifact } from "./protocol_types.ts";
import type { RpcClient } from "./rpc.ts";
import { SLOW_CALL_MS } from "./settings.ts";

// `kind` widened: a kind this plugin does not know yet goes through as the sidecar names it.
type SidecarArtifact = Omit<Artifact, "kind"> & { kind: string };

type HostArtifact = {
  kind: string;
  workspaceDir: string;
  relativePath: string;
  absolutePath: string;
  agentIds: string[];
  contentType: "markdown" | "json" | "text";
};

// The sidecar's kinds as OpenClaw names them: memory-wiki 2026.9.6 imports only "memory-root",
// "daily-note", "dream-report" and "event-log" (each behind a bridge.* switch). memory-core names
// every memory/*.md outside memory/dreaming "daily-note", so a vault page is one; the log's
// export is a JSON journal of entries, as memory-core's "event-log" is. A kind not listed here
// goes through as the sidecar names it (memory-wiki counts it and imports nothing of it).
export const HOST_KINDS: Readonly<Record<string, string>> = {
  briefing: "memory-root",
  "vault-page": "daily-note",
  "log-export": "event-log",
};

export function hostArtifact(artifact: SidecarArtifact): HostArtifact {
  return {
    kind: HOST_KINDS[artifact.kind] ?? artifact.kind,
    workspaceDir: artifact.root,
    relativePath: artifact.path,
    absolutePath: artifact.absolutePath,
    agentIds: [...artifact.agentIds],
    contentType: artifact.contentType,
  };
}

/**
 * The provider: one `artifacts.list` call per listing, on a connection of its own closed after it
 * (a CLI process such as `openclaw wiki status` must be free to exit). A sidecar that does not
 * answer is an error, not an empty list: memory-wiki removes the bridge pages of artifacts no
 * longer listed, and an outage must not look like "nothing published".
 */
export function publicArtifacts(client: () => RpcClient) {
  return {
    async listArtifacts(_params: { cfg: unknown }): Promise<HostArtifact[]> {
      const rpc = client();
      try {
        const answer = await request(rpc, "artifacts.list", {}, SLOW_CALL_MS);
        return (answer.artifacts ?? []).map(hostArtifact);
      } catch (error) {
        throw new Error(`Zettelclaw sidecar: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        rpc.close();
      }
    },
  };
}
