// Test doubles: a fake sidecar (newline-delimited JSON-RPC on a real Unix socket), a fake
// OpenClaw plugin api that records what the plugin registers, and the recorded payloads.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export type Request = { id?: number; method: string; params?: Record<string, unknown> };
export type Handler = (request: Request) => unknown | Promise<unknown>;

/** A JSON-RPC error the fake sidecar answers with. */
export class Fail {
  readonly code: number;
  readonly message: string;
  constructor(code: number, message: string) {
    this.code = code;
    this.message = message;
  }
}

export type Reply = { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

// The sidecar's params, as sidecar/zettelclaw/protocol/protocol.schema.json says (generated from
// its pydantic models): every request the plugin sends a fake sidecar is checked against it, so a
// method or a param the sidecar does not know fails the plugin's tests, not a user's gateway.
const SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "sidecar", "zettelclaw", "protocol", "protocol.schema.json");
type Schema = { methods: Record<string, { params: { $ref: string } }>; $defs: Record<string, { properties?: Record<string, unknown> }> };
const SCHEMA = JSON.parse(readFileSync(SCHEMA_FILE, "utf8")) as Schema;

/** Requests sent to a fake sidecar that the sidecar would refuse: an unknown method or param. */
export const schemaViolations: string[] = [];

export function checkAgainstSchema(request: Request): string[] {
  const method = SCHEMA.methods[request.method];
  if (method === undefined) return [`${request.method}: no such method in protocol.schema.json`];
  const model = SCHEMA.$defs[method.params.$ref.split("/").pop() ?? ""];
  const known = new Set(Object.keys(model?.properties ?? {}));
  return Object.keys(request.params ?? {})
    .filter((key) => !known.has(key))
    .map((key) => `${request.method}: param ${key} is not in protocol.schema.json`);
}

export class FakeSidecar {
  readonly requests: Request[] = [];
  /** The client's replies to the requests this fake sent it (`ask`). */
  readonly replies: Reply[] = [];
  /** Connections accepted, all starts counted. */
  connections = 0;
  readonly socketPath: string;
  private readonly dir: string;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  handler: Handler;

  constructor(handler: Handler = () => ({})) {
    this.dir = mkdtempSync(join(tmpdir(), "zc-plugin-test-"));
    this.socketPath = join(this.dir, "sidecar.sock");
    this.handler = handler;
  }

  /** Requests for one method, in order. */
  calls(method: string): Request[] {
    return this.requests.filter((r) => r.method === method);
  }

  async start(): Promise<this> {
    this.server = createServer((socket) => {
      this.connections += 1;
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
      let buffer = "";
      socket.setEncoding("utf8");
      socket.on("data", async (chunk: string) => {
        buffer += chunk;
        let newline: number;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          const message = JSON.parse(line) as Request & Reply;
          if (typeof message.method !== "string") {
            this.replies.push(message);
            continue;
          }
          const request = message as Request;
          this.requests.push(request);
          schemaViolations.push(...checkAgainstSchema(request));
          const answer = await this.handler(request);
          if (answer === NO_ANSWER || socket.destroyed) continue;
          const body = answer instanceof Fail ? { error: { code: answer.code, message: answer.message } } : { result: answer };
          socket.write(JSON.stringify({ jsonrpc: "2.0", id: request.id ?? null, ...body }) + "\n");
        }
      });
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(this.socketPath, resolve));
    return this;
  }

  /** Send a request to every connected client, as the sidecar does with llm.complete. */
  ask(id: string, method: string, params: Record<string, unknown>): void {
    for (const socket of this.sockets) socket.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A handler result that sends nothing back (a sidecar that hangs). */
export const NO_ANSWER = Symbol("no answer");

type Hook = { name: string; handler: (event: unknown, ctx: unknown) => unknown; opts?: unknown };
type ToolFactory = (ctx: unknown) => Tool[];
export type Tool = { name: string; parameters: unknown; execute: (id: string, params: unknown) => Promise<{ content: { text: string }[]; details: any }> };
type Service = { id: string; start: (ctx: unknown) => Promise<void> | void; stop?: (ctx: unknown) => Promise<void> | void };

/** The parts of OpenClawPluginApi the plugin uses, recording every registration. */
export class FakeApi {
  readonly hooks: Hook[] = [];
  readonly toolFactories: { factory: ToolFactory; opts: unknown }[] = [];
  readonly services: Service[] = [];
  readonly cli: { registrar: (ctx: { program: unknown }) => void; opts: unknown }[] = [];
  readonly capabilities: unknown[] = [];
  readonly logs: string[] = [];
  readonly logger = {
    debug: (m: string) => this.logs.push(`debug ${m}`),
    info: (m: string) => this.logs.push(`info ${m}`),
    warn: (m: string) => this.logs.push(`warn ${m}`),
    error: (m: string) => this.logs.push(`error ${m}`),
  };
  readonly registrationMode: string;
  readonly pluginConfig: Record<string, unknown>;
  readonly config: Record<string, unknown>;
  /** OpenClaw's runtime helpers, where a test gives some (runtime.llm.complete). */
  runtime: Record<string, unknown> | undefined = undefined;

  constructor(mode: string, pluginConfig: Record<string, unknown>, config: Record<string, unknown> = {}) {
    this.registrationMode = mode;
    this.pluginConfig = pluginConfig;
    this.config = config;
  }

  on(name: string, handler: Hook["handler"], opts?: unknown): void {
    this.hooks.push({ name, handler, opts });
  }
  registerTool(factory: ToolFactory, opts: unknown): void {
    this.toolFactories.push({ factory, opts });
  }
  registerService(service: Service): void {
    this.services.push(service);
  }
  registerCli(registrar: (ctx: { program: unknown }) => void, opts: unknown): void {
    this.cli.push({ registrar, opts });
  }
  registerMemoryCapability(capability: unknown): void {
    this.capabilities.push(capability);
  }

  hookNames(): string[] {
    return this.hooks.map((h) => h.name).sort();
  }

  /** Fire a hook as the host does: every handler registered for it, in order; the last result. */
  async fire(name: string, event: unknown, ctx: unknown): Promise<unknown> {
    let result: unknown;
    for (const hook of this.hooks.filter((h) => h.name === name)) result = await hook.handler(event, ctx);
    return result;
  }

  tools(ctx: unknown = {}): Record<string, Tool> {
    const tools = this.toolFactories.flatMap(({ factory }) => factory(ctx));
    return Object.fromEntries(tools.map((t) => [t.name, t]));
  }
}

/** A commander stand-in: records commands, options and actions. */
export class FakeCommand {
  readonly name: string;
  readonly children: FakeCommand[] = [];
  action_: ((...args: unknown[]) => unknown) | null = null;
  constructor(name = "openclaw") {
    this.name = name;
  }
  command(name: string): FakeCommand {
    const child = new FakeCommand(name);
    this.children.push(child);
    return child;
  }
  description(): this {
    return this;
  }
  helpOption(): this {
    return this;
  }
  allowUnknownOption(): this {
    return this;
  }
  allowExcessArguments(): this {
    return this;
  }
  argument(): this {
    return this;
  }
  action(fn: (...args: unknown[]) => unknown): this {
    this.action_ = fn;
    return this;
  }
  find(path: string[]): FakeCommand | undefined {
    let node: FakeCommand | undefined = this;
    for (const part of path) node = node?.children.find((c) => c.name === part);
    return node;
  }
}

const here = new URL(".", import.meta.url);
export const payloads = JSON.parse(readFileSync(new URL("fixtures/payloads.json", here), "utf8")) as Record<string, any>;

export async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
