// `openclaw zettelclaw <command> ...`: each runs the `zettelclaw` command with the same arguments.
// The commands are every `zettelclaw` command (cli_commands.ts, generated from the CLI's parser).
// OpenClaw's own CLI start-up comes first (several seconds; README, With OpenClaw): `zettelclaw`
// runs the same commands without it.
import { CLI_COMMANDS } from "./cli_commands.js";
import { zettelclawCommand } from "./settings.js";
const ROOT_DESCRIPTION = "Zettelclaw long-term memory: runs `zettelclaw <command>` with the same arguments. " +
    "Running `zettelclaw` directly is faster: it skips OpenClaw's CLI start-up.";
export function registerCli(shim) {
    shim.api.registerCli(({ program }) => {
        const root = program.command("zettelclaw").description(ROOT_DESCRIPTION);
        for (const [name, help] of Object.entries(CLI_COMMANDS)) {
            root
                .command(name)
                .description(`${help} (zettelclaw ${name})`)
                .helpOption(false)
                .allowUnknownOption(true)
                .allowExcessArguments(true)
                .argument("[args...]", "passed to `zettelclaw " + name + "`")
                .action(async (args) => {
                process.exitCode = await runCommand(shim, name, args ?? []);
            });
        }
    }, { descriptors: [{ name: "zettelclaw", description: ROOT_DESCRIPTION, hasSubcommands: true }] });
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
