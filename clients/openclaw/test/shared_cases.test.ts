// The rules the plugin and the sidecar both compute, held to the case tables the sidecar's tests
// read too (tests/cases/, tests/openclaw/test_shared_cases.py): OpenClaw's state directory, the sidecar's
// socket, the agents openclaw.json configures.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { openclawStateDir, resolveSocketPath } from "../src/settings.ts";
import { agentIds } from "../src/transcripts.ts";
import { MAIN_AGENT } from "../src/protocol_constants.ts";

type Env = Record<string, string>;
type PathCase = { env: Env; socketPath?: string; expected: string };
const table = (name: string) => JSON.parse(readFileSync(new URL(`../../../tests/cases/${name}`, import.meta.url), "utf8"));
const paths = table("openclaw_paths.json") as { stateDir: PathCase[]; socket: PathCase[] };
const agents = table("openclaw_agents.json") as { cases: { config: unknown; agents: string[] }[] };
const expected = (c: PathCase) => c.expected.replace("{cwd}", process.cwd());

test("OpenClaw's state directory is where the sidecar finds it", () => {
  for (const c of paths.stateDir) assert.equal(openclawStateDir(c.env), expected(c), JSON.stringify(c.env));
});

test("the sidecar's socket is where the sidecar's command line finds it", () => {
  for (const c of paths.socket) {
    const config = c.socketPath === undefined ? {} : { socketPath: c.socketPath };
    assert.equal(resolveSocketPath(config, c.env), expected(c), JSON.stringify(c));
  }
});

test("the configured agents are the ones the sidecar reads, and main", () => {
  for (const c of agents.cases) {
    assert.deepEqual(agentIds(c.config), [...new Set([MAIN_AGENT, ...c.agents])], JSON.stringify(c.config));
  }
});
