// What a Rust Peer asks of the platform that web-sys has no stable binding
// for, or that must run before the app's module is instantiated. This file
// is a wasm-bindgen snippet: it is evaluated when the app's glue is
// imported, before `init()` has fetched the .wasm.
//
// - Early messages: a worker (or a frame) may be posted calls before its
//   Rust code runs; they are kept here and handed to the first transport
//   made on this scope (the npm package's transports do the same).
// - Presence: one side holds a Web Lock while it lives and names it in its
//   hello; the other waits for that lock, which the browser frees however
//   the holder ends (the same names and steps as the npm package's).

const EARLY_LIMIT = 1000;
const MODULE = "$/module";

const isOurs = (data) => Array.isArray(data) || (data !== null && typeof data === "object" && data.jsonrpc === "2.0");

let early;
{
  const scope = globalThis;
  const inWorker = typeof DedicatedWorkerGlobalScope === "function" && scope instanceof DedicatedWorkerGlobalScope;
  const inWindow = typeof Window === "function" && scope instanceof Window;
  if (inWorker || inWindow) {
    const events = [];
    const listener = (event) => {
      if (!isOurs(event.data) || event.data.method === MODULE) return;
      events.push(event);
      if (events.length >= EARLY_LIMIT) scope.removeEventListener("message", listener);
    };
    scope.addEventListener("message", listener);
    early = { scope, events, listener };
  }
}

/** The message events that reached `scope` before a transport listened there (once; then none). */
export function takeEarly(scope) {
  if (early === undefined || early.scope !== scope) return [];
  const { events, listener } = early;
  early = undefined;
  scope.removeEventListener("message", listener);
  return events;
}

/** Holds a lock of a fresh name until `signal` aborts: its name, or undefined without Web Locks. */
export function holdPresence(signal) {
  const locks = globalThis.navigator?.locks;
  if (locks === undefined || typeof crypto?.randomUUID !== "function") return undefined;
  const name = `wiggum-rpc:${crypto.randomUUID()}`;
  setTimeout(() => {
    if (signal.aborted) return;
    try {
      locks.request(name, () => new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }))).catch(() => {});
    } catch {
      // No lock for this context (an opaque origin): the other side watches nothing.
    }
  }, 0);
  return name;
}

/** Calls `onGone` once the lock `name`, seen held, is free, unless `signal` aborts first. */
export async function watchPresence(name, signal, onGone) {
  const locks = globalThis.navigator?.locks;
  if (locks === undefined) return;
  try {
    for (let tries = 0; ; tries++) {
      const { held = [] } = await locks.query();
      if (signal.aborted) return;
      if (held.some((lock) => lock.name === name)) break;
      if (tries === 20) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await locks.request(name, { signal }, () => onGone());
  } catch {
    // Aborted, or no locks here: nothing to watch.
  }
}

/** Whether a frame's document has loaded (one of another origin, unreadable, has or will fire `load`). */
export function frameLoaded(target) {
  try {
    const document = target.document;
    const initial = document.documentElement === null || document.body === null || document.body.childNodes.length === 0;
    return document.readyState === "complete" && !(target.location.href === "about:blank" && initial);
  } catch {
    return true;
  }
}
