// WebSocket plumbing (feature `websocket`): socket listeners that reach wasm in
// one call per event, and lifecycle events for users.

// Listens to a socket; `sink(kind, data)`: 0 open, 1 a message (its data),
// 2 close ({code, reason, wasClean}), 3 error. Returns what removes the listeners.
export function watchSocket(socket, sink) {
  const listeners = [
    ["open", () => sink(0)],
    ["message", (event) => sink(1, event.data)],
    ["close", (event) => sink(2, { code: event.code, reason: event.reason, wasClean: event.wasClean })],
    ["error", () => sink(3)],
  ];
  for (const [type, listener] of listeners) socket.addEventListener(type, listener);
  return () => {
    for (const [type, listener] of listeners) socket.removeEventListener(type, listener);
  };
}

export function openSocket(Socket, url, protocols) {
  const make = Socket ?? globalThis.WebSocket;
  if (typeof make !== "function") {
    throw new TypeError("webSocketTransport: no global WebSocket here; pass { WebSocket } (for example from the ws package)");
  }
  const socket = protocols === undefined ? new make(url) : new make(url, protocols);
  // Browsers hand text frames over as strings; ask for ArrayBuffers, not Blobs, for the rest.
  socket.binaryType = "arraybuffer";
  return socket;
}

// Listeners by event type; `on` returns the function that removes the listener.
export function eventHub() {
  const listeners = new Map();
  return {
    on(type, listener) {
      if (typeof listener !== "function") throw new TypeError("listener must be a function");
      let set = listeners.get(type);
      if (!set) listeners.set(type, (set = new Set()));
      set.add(listener);
      return () => set.delete(listener);
    },
    emit(type, detail) {
      for (const listener of [...(listeners.get(type) ?? [])]) {
        // A throwing listener is reported like any uncaught error, and the rest still run.
        try {
          listener(detail);
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    },
  };
}

// The object `webSocketTransport` returns: JSON text, events, a 60 s default timeout.
export function socketTransport(state, hub) {
  return {
    text: true,
    defaultTimeout: 60_000,
    send(message) {
      state.send(message);
    },
    onMessage(handler) {
      state.onMessage(handler);
    },
    offMessage(handler) {
      state.offMessage(handler);
    },
    on(type, listener) {
      return hub.on(type, listener);
    },
    destroy() {
      state.destroy();
    },
    get connected() {
      return state.connected;
    },
    get queued() {
      return state.queued;
    },
  };
}
