// The worker side of the references tests (tests/js/pages/references.js),
// on the package's references flavour served at /pkg/: it calls a page's
// callback back, hands out a live object, gives a stub back, and says what
// its tables hold.
import init, { Peer, selfTransport } from "/pkg/wiggum_rpc.js";
import { reference, referencesHeld } from "/pkg/remote.js";

await init();
const peer = new Peer(selfTransport());

class Project {
  #files = new Map();
  constructor(name) {
    this.name = name;
  }
  writeFile(path, text) {
    this.#files.set(path, text);
    return this.#files.size;
  }
  readFile(path) {
    if (!this.#files.has(path)) throw new Error(`${path}: no such file`);
    return this.#files.get(path);
  }
  list() {
    return [...this.#files.keys()].sort();
  }
  _secret() {
    return "never served";
  }
}

// Calls `onLog` back `times` times, one after another, then releases it.
peer.method("build", async ([entry, times, onLog]) => {
  let sum = 0;
  for (let i = 0; i < times; i++) sum += await onLog(`${entry}: line ${i}`, i);
  onLog.release();
  return { lines: times, sum };
});
// The same with `window` calls in flight at once.
peer.method("buildInFlight", async ([times, window, onLog]) => {
  let sum = 0;
  for (let at = 0; at < times; at += window) {
    const batch = [];
    for (let i = at; i < Math.min(times, at + window); i++) batch.push(onLog(i));
    for (const n of await Promise.all(batch)) sum += n;
  }
  onLog.release();
  return sum;
});
peer.method("openProject", ([name]) => reference(new Project(name)));
// Gives a stub back to its owner, keeping it until told to release it.
let echoed;
peer.method("echo", ([stub]) => {
  echoed = stub;
  return stub;
});
peer.method("releaseEchoed", () => echoed.release());
// Keeps the stub (never released) and calls it when asked.
let kept;
peer.method("keep", ([stub]) => {
  kept = stub;
  return true;
});
peer.method("callKept", async ([value]) => kept(value));
peer.method("held", () => referencesHeld(peer));

// For the pool: which worker this is, and a counter that lives here.
const me = Math.random().toString(36).slice(2, 8);
peer.method("openCounter", async ([ms]) => {
  // Long enough that calls made at once go to different workers.
  await new Promise((resolve) => setTimeout(resolve, ms));
  let count = 0;
  return { made: me, counter: reference({ whoami: () => me, add: (n) => (count += n) }) };
});
