// The OpenClaw versions this plugin supports, checked when OpenClaw registers it. Outside them
// the plugin says so in the gateway log and in `openclaw status` (the memory provider's status),
// never a silent half-working plugin: an OpenClaw older than the oldest lacks parts of the plugin
// API it uses, and the plugin then registers no hook, tool or service; one newer than the newest
// tested runs, with a warning. The oldest is the oldest release whose plugin API types the
// plugin's sources compile against (2026.9.1 lacks the service context's getCron);
// scripts/openclaw-env.sh pins both, and package.json declares the oldest to OpenClaw.

export const OLDEST_SUPPORTED = "2026.9.2";
export const NEWEST_TESTED = "2026.9.6";

export type HostCheck = { ok: true; warning?: string; note?: string } | { ok: false; problem: string };

type Version = { parts: number[]; pre: boolean };

/** OpenClaw's version (YYYY.M.D, maybe with -beta.N or -1 after), or null when it is not one. */
export function parseVersion(value: unknown): Version | null {
  if (typeof value !== "string") return null;
  const match = /^v?(\d+)\.(\d+)\.(\d+)(?:-(.+))?$/.exec(value.trim());
  if (!match) return null;
  // "-beta.1" comes before its release; "-1" (a re-publication on npm) is that release
  const suffix = match[4];
  return { parts: [Number(match[1]), Number(match[2]), Number(match[3])], pre: suffix !== undefined && !/^\d+$/.test(suffix) };
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i += 1) if (a.parts[i] !== b.parts[i]) return a.parts[i]! - b.parts[i]!;
  return a.pre === b.pre ? 0 : a.pre ? -1 : 1;
}

/** Whether this plugin supports the running OpenClaw (`api.runtime.version`). */
export function checkHostVersion(running: unknown): HostCheck {
  const range = `${OLDEST_SUPPORTED} to ${NEWEST_TESTED}`;
  const version = parseVersion(running);
  if (version === null) {
    return { ok: true, note: `OpenClaw did not say its version (${String(running)}); Zettelclaw supports OpenClaw ${range}` };
  }
  if (compare(version, parseVersion(OLDEST_SUPPORTED)!) < 0) {
    return {
      ok: false,
      problem: `Zettelclaw needs OpenClaw ${OLDEST_SUPPORTED} or newer (it supports ${range}); this gateway runs ${String(running)}, ` +
        "whose plugin API lacks parts Zettelclaw uses, so memory is off: update OpenClaw (`openclaw update`), or keep memory-core in the memory slot",
    };
  }
  if (compare(version, parseVersion(NEWEST_TESTED)!) > 0) {
    return { ok: true, warning: `OpenClaw ${String(running)} is newer than the newest Zettelclaw was tested with (${NEWEST_TESTED}); if memory misbehaves, update Zettelclaw` };
  }
  return { ok: true };
}

/** The memory runtime of a plugin that registered nothing else: `openclaw status` shows why. */
export function unsupportedRuntime(problem: string) {
  return {
    async getMemorySearchManager() {
      return { manager: null, error: `Zettelclaw: ${problem}` };
    },
    resolveMemoryBackendConfig: () => ({ backend: "builtin" as const }),
  };
}
