// `openclaw zettelclaw <command> ...`: each runs the `zettelclaw` command with the same arguments.
import { zettelclawCommand } from "./settings.js";
const CLI_COMMANDS = {
    init: "Make Zettelclaw OpenClaw's memory: memory slot, hook access, memory-core off (zettelclaw init)",
    log: "Show the newest memory entries (zettelclaw log)",
    search: "Search memory by keywords and filters (zettelclaw search)",
    get: "Read one entry, memory file or session by its path (zettelclaw get)",
    call: "Call a sidecar protocol method and print its JSON result (zettelclaw call)",
    subjects: "List, add or rename subjects (zettelclaw subjects)",
    status: "Show where memory lives and the sidecar's state (zettelclaw status)",
    briefing: "Generate the MEMORY.md briefing (zettelclaw briefing)",
};
export function registerCli(shim) {
    shim.api.registerCli(({ program }) => {
        const root = program.command("zettelclaw").description("Zettelclaw long-term memory");
        for (const [name, description] of Object.entries(CLI_COMMANDS)) {
            root
                .command(name)
                .description(description)
                .helpOption(false)
                .allowUnknownOption(true)
                .allowExcessArguments(true)
                .argument("[args...]", "passed to `zettelclaw " + name + "`")
                .action(async (args) => {
                process.exitCode = await runCommand(shim, name, args ?? []);
            });
        }
    }, { descriptors: [{ name: "zettelclaw", description: "Zettelclaw long-term memory", hasSubcommands: true }] });
}
function runCommand(shim, name, args) {
    const { api, config, env, socketPath, spawnProcess } = shim;
    const [command, ...prefix] = zettelclawCommand(config);
    const socketArgs = name !== "init" && config.socketPath ? ["--socket", socketPath] : [];
    return new Promise((done) => {
        // ZETTELCLAW_OPENCLAW_PLUGIN tells `zettelclaw init` that OpenClaw has loaded the plugin.
        const childEnv = { ...env, ZETTELCLAW_OPENCLAW_PLUGIN: api.rootDir ?? "1" };
        const child = spawnProcess(command, [...prefix, name, ...socketArgs, ...args], { stdio: "inherit", env: childEnv });
        child.once("error", (error) => {
            console.error(error.code === "ENOENT"
                ? `openclaw zettelclaw: \`${command}\` not found. Install the Zettelclaw sidecar (README) or set ` +
                    "plugins.entries.zettelclaw.config.sidecarCommand."
                : `openclaw zettelclaw: cannot run ${command}: ${error.message}`);
            done(127);
        });
        child.once("exit", (code, signal) => done(code ?? (signal ? 128 + 15 : 1)));
    });
}
