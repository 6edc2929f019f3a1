// What every part of the shim is given by register(): the host's api and the way to the sidecar.

import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import type { spawn } from "node:child_process";
import type { EmbeddingSdk } from "./host_embeddings.ts";
import type { RpcClient } from "./rpc.ts";
import type { Env, Logger, PluginConfig } from "./settings.ts";
import type { SessionStore } from "./transcripts.ts";

export type Shim = {
  api: OpenClawPluginApi;
  config: PluginConfig;
  env: Env;
  log: Logger;
  socketPath: string;
  timeoutMs: number;
  client: () => RpcClient;
  loadStore: () => Promise<SessionStore>;
  spawnProcess: typeof spawn;
  embeddingSdk: () => Promise<EmbeddingSdk>;
};
