// The plugin's settings (plugins.entries.zettelclaw.config), where the sidecar listens, how the
// `zettelclaw` command is run, and the small helpers every part of the shim shares.

import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { SidecarUnavailableError } from "./rpc.ts";

export const PLUGIN_ID = "zettelclaw";
export const SLOW_CALL_MS = 15_000; // tools, the sweep, the CLI: not on a hook's clock

export type PluginConfig = {
  socketPath?: string;
  autostart?: boolean;
  sidecarCommand?: string | string[];
  timeoutMs?: number;
};

export type Env = Record<string, string | undefined>;
export type Logger = OpenClawPluginApi["logger"];

/**
 * The sidecar's socket, by the one rule the `zettelclaw` command follows too (docs/08-operations.md,
 * "Where things live"; the CLI's `socket_path`): `$ZETTELCLAW_SOCKET`, then this plugin's `socketPath`,
 * then `HOME/sidecar.sock`. (The CLI's `--socket` comes first there; the plugin has no flag.)
 * Both are held to one case table: tests/cases/openclaw_paths.json.
 */
export function resolveSocketPath(config: PluginConfig, env: Env = process.env): string {
  const expand = (p: string) => (p.startsWith("~/") ? join(homedir(), p.slice(2)) : p);
  const absolute = (p: string) => (isAbsolute(expand(p)) ? expand(p) : resolve(expand(p)));
  if (env.ZETTELCLAW_SOCKET) return absolute(env.ZETTELCLAW_SOCKET);
  if (config.socketPath) return absolute(config.socketPath);
  const home = env.ZETTELCLAW_HOME ? absolute(env.ZETTELCLAW_HOME) : join(openclawStateDir(env), "zettelclaw");
  return join(home, "sidecar.sock");
}

const unset = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed && trimmed !== "undefined" && trimmed !== "null" ? trimmed : undefined;
};

const withTilde = (value: string, home: string): string =>
  value === "~" || value.startsWith("~/") || value.startsWith("~\\") ? resolve(home + value.slice(1)) : resolve(value);

/**
 * OpenClaw's state directory, by OpenClaw's own rule (its docs/help/environment.md and
 * `resolveStateDir`; the sidecar's home.py says the same): `$OPENCLAW_STATE_DIR` (a leading `~`
 * being OpenClaw's home), else `OPENCLAW_HOME/.openclaw`, where OpenClaw's home is
 * `$OPENCLAW_HOME` (a leading `~` being the OS home; blank, `undefined` and `null` are unset), else
 * the OS home (tests/cases/openclaw_paths.json, which the sidecar's tests read too).
 */
export function openclawStateDir(env: Env = process.env): string {
  const osHome = unset(env.HOME) ?? unset(env.USERPROFILE) ?? homedir();
  const explicit = unset(env.OPENCLAW_HOME);
  const home = explicit ? withTilde(explicit, osHome) : resolve(osHome);
  const state = env.OPENCLAW_STATE_DIR?.trim();
  return state ? withTilde(state, home) : join(home, ".openclaw");
}

/** The argv prefix that runs the `zettelclaw` command. */
export function zettelclawCommand(config: PluginConfig): string[] {
  const command = config.sidecarCommand ?? "zettelclaw";
  return typeof command === "string" ? [command] : [...command];
}

/** The params without their undefined and null fields (the sidecar rejects unknown nulls). */
export function compact<T extends object>(params: T): T {
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined && value !== null)) as T;
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Logs the first failure of a sidecar outage as a warning, the rest of it at debug level. */
export function outageLogger(log: Logger) {
  let down = false;
  return {
    fail(what: string, error: unknown): void {
      const outage = error instanceof SidecarUnavailableError;
      if (outage && down) {
        log.debug?.(`zettelclaw: ${what}: ${describe(error)}`);
        return;
      }
      down = outage;
      log.warn(`zettelclaw: ${what}: ${describe(error)}`);
    },
    ok(): void {
      down = false;
    },
  };
}
