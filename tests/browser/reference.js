// The reference implementation of the Wiggum JSON-RPC spec (its section 3:
// client, server, transports), in plain JS, as a peer nobody here wrote. It
// reads single message objects only: `if (!("method" in msg)) return;` and
// `event.data?.jsonrpc !== "2.0"` drop a batch array on the floor.

export class RPCError extends Error {
  constructor(code, message, data) {
    super(message);
    this.name = "RPCError";
    this.code = code;
    this.data = data;
  }
}

export class JSONRPCClient {
  nextId = 0;
  pending = new Map();

  constructor(transport, options) {
    this.transport = transport;
    this.defaultTimeout = options?.timeout ?? 10_000;
    this.transport.onMessage((msg) => this.handleMessage(msg));
  }

  async request(method, params) {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`JSON-RPC timeout: ${method} (id=${id})`));
      }, this.defaultTimeout);
      this.pending.set(id, { resolve, reject, timer });
      this.transport.send({ jsonrpc: "2.0", method, params, id });
    });
  }

  notify(method, params) {
    this.transport.send({ jsonrpc: "2.0", method, params });
  }

  handleMessage(msg) {
    if (!("id" in msg) || !("result" in msg || "error" in msg)) return;
    const pending = this.pending.get(msg.id);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending.delete(msg.id);
    if ("error" in msg) pending.reject(new RPCError(msg.error.code, msg.error.message, msg.error.data));
    else pending.resolve(msg.result);
  }

  destroy() {
    for (const [, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new Error("JSON-RPC client destroyed"));
    }
    this.pending.clear();
    this.transport.destroy?.();
  }
}

export class JSONRPCServer {
  methods = new Map();
  notifications = new Map();

  constructor(transport) {
    this.transport = transport;
    this.transport.onMessage((msg) => this.handleMessage(msg));
  }

  method(name, handler) {
    this.methods.set(name, handler);
  }

  onNotify(name, handler) {
    this.notifications.set(name, handler);
  }

  async handleMessage(msg) {
    if (!("method" in msg)) return;
    if (!("id" in msg)) {
      this.notifications.get(msg.method)?.(msg.params);
      return;
    }
    const handler = this.methods.get(msg.method);
    if (!handler) {
      this.transport.send({ jsonrpc: "2.0", error: { code: -32601, message: `Method not found: ${msg.method}` }, id: msg.id });
      return;
    }
    try {
      const result = await handler(msg.params);
      this.transport.send({ jsonrpc: "2.0", result, id: msg.id });
    } catch (err) {
      this.transport.send({
        jsonrpc: "2.0",
        error: { code: err.code ?? -32603, message: err.message ?? "Internal error", data: err.data },
        id: msg.id,
      });
    }
  }

  destroy() {
    this.methods.clear();
    this.notifications.clear();
    this.transport.destroy?.();
  }
}

export function windowTransport(target, source = window, origin = "*") {
  let handler = null;
  const listener = (event) => {
    if (event.source !== target && event.source !== source) return;
    if (event.data?.jsonrpc !== "2.0") return;
    handler?.(event.data);
  };
  source.addEventListener("message", listener);
  return {
    send: (msg) => target.postMessage(msg, origin),
    onMessage: (h) => { handler = h; },
    destroy: () => source.removeEventListener("message", listener),
  };
}

export function portTransport(port) {
  let handler = null;
  port.onmessage = (event) => {
    if (event.data?.jsonrpc !== "2.0") return;
    handler?.(event.data);
  };
  return {
    send: (msg) => port.postMessage(msg),
    onMessage: (h) => { handler = h; },
    destroy: () => { port.onmessage = null; port.close(); },
  };
}

export function workerTransport(worker) {
  let handler = null;
  const listener = (event) => {
    if (event.data?.jsonrpc !== "2.0") return;
    handler?.(event.data);
  };
  worker.addEventListener("message", listener);
  return {
    send: (msg) => worker.postMessage(msg),
    onMessage: (h) => { handler = h; },
    destroy: () => worker.removeEventListener("message", listener),
  };
}

/** A hand-written worker-side boundary in the same style (inside a worker). */
export function selfTransport() {
  return workerTransport(self);
}

/** The methods the reference servers of the tests serve. */
export function serveReference(server) {
  server.method("add", ([a, b]) => a + b);
  server.method("addLater", ([a, b]) => new Promise((resolve) => setTimeout(() => resolve(a + b), 20)));
}
