// A JSON-RPC 2.0 client for the Zettelclaw sidecar: newline-delimited JSON over a Unix socket
// (protocol.md). One connection, shared by every call; responses matched by id; a deadline per
// call; after a failure, new connection attempts wait out an exponential backoff, so a sidecar
// that is down costs a hook nothing but an immediate "unavailable".
//
// JSON-RPC is symmetric: the sidecar may send requests on the same connection (protocol.md,
// "The host's model"); `handle` registers what answers them, and `onConnect` re-announces them
// (host.offer) on every new connection.
//
// OpenClaw evaluates a plugin's module several times in one process (one instance per
// registration mode) and shares no module state between them: `sharedClient` keeps one client
// per socket path on `globalThis`, so every instance uses the same connection.
import { createConnection } from "node:net";
import { ErrorCode } from "./protocol_constants.js";
// OpenClaw evaluates this module once per registration mode, and the client is shared between
// those copies (sharedClient): an error made by one copy's class must pass another copy's
// `instanceof`. So these classes recognize their errors by name, not by identity.
/** The sidecar could not be reached (no socket, refused, closed, or no answer in time). */
export class SidecarUnavailableError extends Error {
    name = "SidecarUnavailableError";
    static [Symbol.hasInstance](value) {
        return value instanceof Error && value.name === "SidecarUnavailableError";
    }
}
/** The sidecar answered with a JSON-RPC error object. */
export class RpcError extends Error {
    name = "RpcError";
    static [Symbol.hasInstance](value) {
        return value instanceof Error && value.name === "RpcError" && typeof value.code === "number";
    }
    code;
    data;
    constructor(code, message, data) {
        super(message);
        this.code = code;
        this.data = data;
    }
}
/** JSON-RPC codes that say the request itself is wrong (malformed, no such method, bad params):
 * sending it again would be refused again. */
const REFUSED_FOR_GOOD = new Set([ErrorCode.InvalidRequest, ErrorCode.MethodNotFound, ErrorCode.InvalidParams]);
export function refusedForGood(error) {
    return error instanceof RpcError && REFUSED_FOR_GOOD.has(error.code);
}
export class RpcClient {
    socketPath;
    timeoutMs;
    connectTimeoutMs;
    minBackoffMs;
    maxBackoffMs;
    now;
    socket = null;
    connecting = null;
    buffer = "";
    nextId = 1;
    pending = new Map();
    failures = 0;
    retryAt = 0;
    lastError = "";
    listeners = new Set();
    connectListeners = new Set();
    handlers = new Map();
    retryTimer = null;
    closed = false;
    unref;
    constructor(socketPath, options = {}) {
        this.socketPath = socketPath;
        this.timeoutMs = options.timeoutMs ?? 2000;
        this.connectTimeoutMs = options.connectTimeoutMs ?? 1000;
        this.minBackoffMs = options.minBackoffMs ?? 250;
        this.maxBackoffMs = options.maxBackoffMs ?? 5000;
        this.now = options.now ?? Date.now;
        this.unref = options.unref ?? false;
    }
    /** Whether a connection is open right now. */
    get connected() {
        return this.socket !== null;
    }
    /** Why the last attempt failed ("" when none has). */
    get lastFailure() {
        return this.lastError;
    }
    /** Call `method`; rejects with SidecarUnavailableError or RpcError, never hangs past the deadline. */
    async call(method, params, timeoutMs) {
        const deadline = timeoutMs ?? this.timeoutMs;
        const started = this.now();
        const socket = await this.connect(Math.min(this.connectTimeoutMs, deadline));
        const left = Math.max(1, deadline - (this.now() - started));
        const id = this.nextId++;
        const message = JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
                this.pending.delete(id);
                reject(new SidecarUnavailableError(`${method}: no answer from the sidecar within ${deadline} ms`));
            }, left);
            this.pending.set(id, { resolve: resolve, reject, timer });
            socket.write(message + "\n", (error) => {
                if (error)
                    this.fail(`write failed: ${error.message}`);
            });
        });
    }
    /**
     * Run `listener` after every successful connection that follows a failed attempt or a lost
     * connection (not after a first attempt that simply works). While a listener is registered, a lost connection is retried in the background (with
     * the same backoff), so the listener runs soon after the sidecar is back. Returns a remover.
     */
    onReconnect(listener) {
        this.listeners.add(listener);
        if (!this.socket)
            this.scheduleRetry();
        return () => {
            this.listeners.delete(listener);
            if (!this.keepAlive)
                this.clearRetry();
        };
    }
    /**
     * Run `listener` after every successful connection, the first included (now, when connected
     * already). While one is registered, the client stays connected: it connects in the
     * background and reconnects after a loss, with the usual backoff. Returns a remover.
     */
    onConnect(listener) {
        this.connectListeners.add(listener);
        if (this.socket)
            listener();
        else
            this.scheduleRetry();
        return () => {
            this.connectListeners.delete(listener);
            if (!this.keepAlive)
                this.clearRetry();
        };
    }
    /** Answer the sidecar's requests for `method` with `handler`. Returns a remover. */
    handle(method, handler) {
        this.handlers.set(method, handler);
        return () => {
            if (this.handlers.get(method) === handler)
                this.handlers.delete(method);
        };
    }
    get keepAlive() {
        return this.listeners.size + this.connectListeners.size > 0;
    }
    /** Close the connection and fail what is in flight; the client may be used again later. */
    close() {
        this.clearRetry();
        this.closed = true;
        this.drop(new SidecarUnavailableError("the client was closed"));
        this.closed = false;
    }
    async connect(timeoutMs) {
        if (this.socket)
            return this.socket;
        if (this.connecting)
            return this.connecting;
        const wait = this.retryAt - this.now();
        if (wait > 0) {
            throw new SidecarUnavailableError(`the sidecar is unavailable (${this.lastError}); next attempt in ${Math.ceil(wait)} ms`);
        }
        this.connecting = this.open(timeoutMs).finally(() => {
            this.connecting = null;
        });
        return this.connecting;
    }
    open(timeoutMs) {
        return new Promise((resolve, reject) => {
            const socket = createConnection({ path: this.socketPath });
            let settled = false;
            const timer = setTimeout(() => {
                finish(new Error(`connecting took over ${timeoutMs} ms`));
                socket.destroy();
            }, timeoutMs);
            const finish = (error) => {
                if (settled)
                    return;
                settled = true;
                clearTimeout(timer);
                if (error) {
                    this.noteFailure(error.message);
                    reject(new SidecarUnavailableError(`cannot connect to ${this.socketPath}: ${error.message}`));
                    return;
                }
                const recovered = this.failures > 0; // a failed attempt or a lost connection came before
                this.failures = 0;
                this.retryAt = 0;
                this.lastError = "";
                this.clearRetry();
                this.socket = socket;
                if (this.unref)
                    socket.unref();
                this.buffer = "";
                socket.setEncoding("utf8");
                socket.on("data", (chunk) => this.receive(chunk));
                socket.on("error", (err) => this.fail(err.message));
                socket.on("close", () => this.fail("the sidecar closed the connection"));
                resolve(socket);
                if (recovered)
                    for (const listener of [...this.listeners])
                        listener();
                for (const listener of [...this.connectListeners])
                    listener();
            };
            socket.once("connect", () => finish());
            socket.once("error", (err) => finish(new Error(err.code ?? err.message)));
        });
    }
    receive(chunk) {
        this.buffer += chunk;
        let newline = this.buffer.indexOf("\n");
        while (newline >= 0) {
            const line = this.buffer.slice(0, newline).trim();
            this.buffer = this.buffer.slice(newline + 1);
            if (line)
                this.dispatch(line);
            newline = this.buffer.indexOf("\n");
        }
    }
    dispatch(line) {
        let message;
        try {
            message = JSON.parse(line);
        }
        catch {
            return; // not ours to answer; the calls it may belong to time out
        }
        if (typeof message.method === "string") {
            this.serve(message.id, message.method, message.params);
            return;
        }
        if (typeof message.id !== "number")
            return;
        const pending = this.pending.get(message.id);
        if (!pending)
            return; // a call that already timed out
        this.pending.delete(message.id);
        clearTimeout(pending.timer);
        if (message.error) {
            const { code, message: text, data } = message.error;
            pending.reject(new RpcError(typeof code === "number" ? code : ErrorCode.Internal, String(text ?? "error"), data));
        }
        else {
            pending.resolve(message.result);
        }
    }
    /** A request from the sidecar: run its handler, answer on the connection it came on. */
    serve(id, method, params) {
        const socket = this.socket;
        const answer = (body) => {
            if (id === undefined || socket === null || this.socket !== socket)
                return; // gone: nobody waits
            socket.write(JSON.stringify({ jsonrpc: "2.0", id, ...body }) + "\n");
        };
        const handler = this.handlers.get(method);
        if (!handler) {
            answer({ error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${method}` } });
            return;
        }
        handler(params).then((result) => answer({ result: result ?? null }), (error) => {
            if (error instanceof RpcError) {
                answer({ error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } });
            }
            else {
                answer({ error: { code: ErrorCode.Internal, message: error instanceof Error ? error.message : String(error) } });
            }
        });
    }
    fail(reason) {
        if (!this.socket)
            return;
        this.noteFailure(reason);
        this.drop(new SidecarUnavailableError(`lost the sidecar connection: ${reason}`));
    }
    drop(error) {
        const socket = this.socket;
        this.socket = null;
        socket?.removeAllListeners();
        socket?.on("error", () => { }); // a late error on a dropped socket is not news
        socket?.destroy();
        for (const [id, pending] of this.pending) {
            clearTimeout(pending.timer);
            pending.reject(error);
            this.pending.delete(id);
        }
        if (!this.closed && this.keepAlive)
            this.scheduleRetry();
    }
    noteFailure(reason) {
        this.lastError = reason;
        this.failures += 1;
        const backoff = Math.min(this.maxBackoffMs, this.minBackoffMs * 2 ** (this.failures - 1));
        this.retryAt = this.now() + backoff;
        if (this.keepAlive)
            this.scheduleRetry();
    }
    scheduleRetry() {
        if (this.retryTimer || this.socket)
            return;
        const wait = Math.max(0, this.retryAt - this.now());
        this.retryTimer = setTimeout(() => {
            this.retryTimer = null;
            if (this.socket || !this.keepAlive)
                return;
            this.connect(this.connectTimeoutMs).catch(() => this.scheduleRetry());
        }, wait);
        this.retryTimer.unref?.();
    }
    clearRetry() {
        if (this.retryTimer)
            clearTimeout(this.retryTimer);
        this.retryTimer = null;
    }
}
const REGISTRY = Symbol.for("zettelclaw.openclaw.rpc-clients.v1");
/** The process-wide client for `socketPath` (created on first use, shared by module instances). */
export function sharedClient(socketPath, options) {
    const store = globalThis;
    const clients = (store[REGISTRY] ??= new Map());
    let client = clients.get(socketPath);
    if (!client) {
        client = new RpcClient(socketPath, options);
        clients.set(socketPath, client);
    }
    return client;
}
