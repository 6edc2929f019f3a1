// `openclaw zettelclaw <command>`: every `zettelclaw` command (src/cli_commands.ts, generated
// from the CLI's parser; tests/cli/test_plugin_commands.py keeps it current) is registered and runs
// `zettelclaw <command>` with the arguments.

import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import { createPlugin } from "../index.ts";
import { CLI_COMMANDS } from "../src/cli_commands.ts";
import { FakeApi, FakeCommand } from "./helpers.ts";

class FakeChild extends EventEmitter {
  kill(): boolean {
    return true;
  }
}

test("every zettelclaw command is an openclaw zettelclaw command, jobs, agents and reindex too", async (t) => {
  const runs: string[][] = [];
  const api = new FakeApi("cli-metadata", { sidecarCommand: "zettelclaw" });
  const spawnProcess = ((command: string, args: string[]) => {
    runs.push([command, ...args]);
    const child = new FakeChild();
    setImmediate(() => child.emit("exit", 0, null));
    return child;
  }) as never;
  createPlugin({ spawnProcess, sessionStore: async () => ({}) as never }).register(api as never);
  const program = new FakeCommand();
  api.cli[0]!.registrar({ program });
  const exit = process.exitCode;
  t.after(() => {
    process.exitCode = exit;
  });
  for (const name of ["jobs", "agents", "reindex", "status", "init"]) assert.ok(name in CLI_COMMANDS, name);
  for (const name of Object.keys(CLI_COMMANDS)) {
    const command = program.find(["zettelclaw", name]);
    assert.ok(command?.action_, `openclaw zettelclaw ${name} is not registered`);
    await command.action_(["--json"]);
  }
  assert.deepEqual(
    runs,
    Object.keys(CLI_COMMANDS).map((name) => ["zettelclaw", name, "--json"]),
  );
});
