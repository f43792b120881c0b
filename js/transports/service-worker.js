// A page's transport to its service worker (`serviceWorkerTransport`), and
// the worker's side of each page (`ClientLink`, for the hub's
// `serveClients()`): messages go as events that wake the worker, answers
// come back over a MessageChannel, and a stopped worker is noticed and
// connected to again.

import { Transport } from "./wiggum_rpc.js";
import { whenGone } from "./locks.js";

// The key of what a page and its service worker say to each other: a page
// connects (`connect`, with its MessagePort), sends each message (`message`)
// as an event that wakes the worker; the worker answers over the port, says
// `connected` (with the name of the Web Lock it holds while it lives), or
// `unknown` to a page it has forgotten (it was stopped since).
export const SERVICE_WORKER = "wiggum-rpc/service-worker";

/** A client page, seen from its service worker: answers go over its port. */
export class ClientLink extends Transport {
  #port;
  /** What resolves once the endpoint has answered all it was serving (for `waitUntil`). */
  #waiting = [];

  constructor(port) {
    super();
    this.#port = port;
  }

  send(message, transfer) {
    this.#port.postMessage(message, transfer ?? []);
  }

  /**
   * Hands a message over; resolves once the endpoint has answered every
   * call it was serving, this message's included (it says so by `idle()`).
   */
  receive(message) {
    const answered = new Promise((resolve) => this.#waiting.push(resolve));
    this.deliver(message);
    return answered;
  }

  /** The endpoint has nothing left to answer. */
  idle() {
    for (const resolve of this.#waiting.splice(0)) resolve();
  }

  release() {
    this.idle();
    this.#port.close();
  }
}

/**
 * A page's transport to its service worker (whose hub `serveClients()`).
 * It waits for an active worker (`navigator.serviceWorker.ready`), hands it
 * a MessageChannel of its own, and sends each message as an event that wakes
 * the worker. When the worker is stopped (the browser's idle timeout, an
 * update, `controllerchange`) the transport emits `close` (calls in flight
 * reject with `CONNECTION_CLOSED`: none is sent twice), connects to the
 * worker again and emits `reconnected`; calls made meanwhile wait for it.
 */
class ServiceWorkerTransport extends Transport {
  handshake = "announce";
  #container;
  #worker;
  #port;
  #open = false;
  #everOpen = false;
  #outbox = [];
  /** The worker this page last lost for good (replaced or unregistered). */
  #redundant;
  /** Aborted when the current connection ends: its lock wait stops. */
  #connection;
  #listeners;

  constructor(container) {
    super();
    this.#container = container;
    const onControllerChange = () => this.#lost();
    const onMessage = ({ data }) => {
      if (data?.[SERVICE_WORKER] === "unknown") this.#lost();
    };
    container.addEventListener("controllerchange", onControllerChange);
    container.addEventListener("message", onMessage);
    this.#listeners = () => {
      container.removeEventListener("controllerchange", onControllerChange);
      container.removeEventListener("message", onMessage);
    };
    this.#connect();
  }

  get connected() {
    return this.#open;
  }

  send(message, transfer) {
    if (this.destroyed) throw new Error("transport destroyed");
    if (this.#open) this.#post(message, transfer);
    else this.#outbox.push([message, transfer]);
  }

  #post(message, transfer) {
    this.#worker.postMessage({ [SERVICE_WORKER]: "message", message }, transfer ?? []);
  }

  async #connect() {
    const connection = new AbortController();
    this.#connection = connection;
    const reconnecting = this.#everOpen || this.#worker !== undefined;
    const worker = await activeWorker(this.#container, reconnecting, this.#redundant, connection.signal);
    if (worker === undefined || this.destroyed || connection.signal.aborted) return;
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = ({ data }) => {
      if (port1 !== this.#port) return;
      if (data?.[SERVICE_WORKER] === "connected") this.#opened(data.lock, connection);
      else this.deliver(data);
    };
    // Replaced or unregistered: it may linger a while before it stops.
    const onStateChange = () => {
      if (worker.state !== "redundant") return;
      this.#redundant = worker;
      if (this.#connection === connection) this.#lost();
    };
    worker.addEventListener("statechange", onStateChange);
    connection.signal.addEventListener("abort", () => worker.removeEventListener("statechange", onStateChange));
    this.#port = port1;
    this.#worker = worker;
    worker.postMessage({ [SERVICE_WORKER]: "connect" }, [port2]);
  }

  #opened(lock, connection) {
    this.#open = true;
    const outbox = this.#outbox;
    this.#outbox = [];
    for (const [message, transfer] of outbox) this.#post(message, transfer);
    if (typeof lock === "string") {
      whenGone(lock, connection.signal, () => {
        if (this.#connection === connection) this.#lost();
      });
    }
    this.emit("open", {});
    if (this.#everOpen) this.emit("reconnected", { attempt: 1 });
    this.#everOpen = true;
  }

  /** The worker this page spoke to is gone: what was sent to it fails, and the next one is asked. */
  #lost() {
    if (this.destroyed) return;
    const wasOpen = this.#open;
    this.#open = false;
    this.#connection?.abort();
    this.#port?.close();
    this.#port = undefined;
    if (wasOpen) {
      this.#outbox = [];
      this.emit("close", { code: 1001, reason: "the service worker stopped" });
      this.emit("reconnecting", { attempt: 1, delay: 0 });
    }
    this.#connect();
  }

  release() {
    this.#listeners();
    this.#connection?.abort();
    this.#port?.close();
    this.#outbox = [];
    this.#open = false;
  }
}

/**
 * The active worker of this page's registration, once there is one. When
 * reconnecting, the registration may be between an `unregister()` and the
 * next `register()`: then there is none for a moment (and `ready` would
 * still name the old one), and a worker that turned redundant (`gone`) is
 * not taken again. Gives up (undefined) once `signal` is aborted.
 */
async function activeWorker(container, reconnecting, gone, signal) {
  while (!signal.aborted) {
    const registration = (await container.getRegistration()) ?? (reconnecting ? undefined : await container.ready);
    const active = registration?.active;
    if (active && active !== gone && active.state !== "redundant") return active;
    const next = registration?.installing ?? registration?.waiting;
    await new Promise((resolve) => {
      if (next) next.addEventListener("statechange", resolve, { once: true });
      else setTimeout(resolve, 100);
    });
  }
  return undefined;
}

/** A page's transport to the service worker that controls it (or will): see `ServiceWorkerTransport`. */
export function serviceWorkerTransport(container = globalThis.navigator?.serviceWorker) {
  if (container === undefined) throw new TypeError("serviceWorkerTransport: no service workers here");
  return new ServiceWorkerTransport(container);
}
