// Functions and objects by reference between a page and a worker
// (tests/js/references-browser.test.mjs), on the package's references
// flavour served at /pkg/. Each export returns what it saw.
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function lib() {
  const root = await import("/pkg/wiggum_rpc.js");
  await root.default();
  return { ...root, ...(await import("/pkg/remote.js")) };
}

/** Waits until both sides' tables hold nothing (a release is one notification away), or 5 s. */
async function tablesEmpty(peer, referencesHeld) {
  const started = performance.now();
  for (;;) {
    const here = referencesHeld(peer);
    const there = await peer.request("held");
    if ((here[0] === 0 && here[1] === 0 && there[0] === 0 && there[1] === 0) || performance.now() - started > 5000) return { here, there };
    await sleep(10);
  }
}

async function withWorker(use) {
  const { Peer, workerTransport, reference, referencesHeld } = await lib();
  const worker = new Worker("/references-worker.js", { type: "module" });
  const peer = new Peer(workerTransport(worker), { timeout: 20000 });
  try {
    return await use({ peer, worker, reference, referencesHeld });
  } finally {
    peer.destroy();
    worker.terminate();
  }
}

/** A callback the worker calls back `times` times, one after another, then releases. */
export function callbackCalledBack(times) {
  return withWorker(async ({ peer, reference, referencesHeld }) => {
    const lines = [];
    const onLog = (line, i) => {
      lines.push(line);
      return i;
    };
    const started = performance.now();
    const result = await peer.request("build", ["main.tsx", times, reference(onLog)]);
    const ms = performance.now() - started;
    const inOrder = lines.every((line, i) => line === `main.tsx: line ${i}`);
    return { result, calls: lines.length, inOrder, ms: Math.round(ms), tables: await tablesEmpty(peer, referencesHeld) };
  });
}

/** The same with `window` calls in flight. */
export function callbackInFlight(times, window) {
  return withWorker(async ({ peer, reference, referencesHeld }) => {
    let calls = 0;
    const sum = await peer.request("buildInFlight", [times, window, reference((n) => {
      calls += 1;
      return n;
    })]);
    return { sum, calls, tables: await tablesEmpty(peer, referencesHeld) };
  });
}

/** A live object the worker hands out: its methods, a private one, a missing one, release. */
export function liveObject() {
  return withWorker(async ({ peer, referencesHeld }) => {
    const project = await peer.request("openProject", ["demo"]);
    const out = { heldWhileOpen: referencesHeld(peer), workerWhileOpen: await peer.request("held") };
    out.sizes = [await project.writeFile("src/a.ts", "export const a = 1;"), await project.writeFile("src/b.ts", "b")];
    out.read = await project.readFile("src/a.ts");
    out.list = await project.list();
    out.thrown = await project.readFile("nope").then(() => "answered", (error) => ({ code: error.code, message: error.message }));
    out.private = await project._secret().then(() => "answered", (error) => error.code);
    out.missing = await project.deleteEverything().then(() => "answered", (error) => error.code);
    out.released = [project.release(), project.release()];
    out.afterRelease = await project.list().then(() => "answered", (error) => error.code);
    out.tables = await tablesEmpty(peer, referencesHeld);
    return out;
  });
}

/** A function sent to the worker and given back arrives as itself. */
export function passedBack() {
  return withWorker(async ({ peer, reference, referencesHeld }) => {
    const fn = () => "mine";
    const back = await peer.request("echo", [reference(fn)]);
    // The worker holds what it received until it releases it (not when it gives it back).
    const heldByWorker = await peer.request("held");
    const released = await peer.request("releaseEchoed");
    return { same: back === fn, heldByWorker, released, tables: await tablesEmpty(peer, referencesHeld) };
  });
}

/** The worker keeps a stub; the page's side ends: the worker terminated, its stub and ours fail, the tables go. */
export function connectionEnds() {
  return withWorker(async ({ peer, worker, reference, referencesHeld }) => {
    const out = {};
    await peer.request("keep", [reference((n) => n + 1)]);
    out.kept = await peer.request("callKept", [41]);
    const project = await peer.request("openProject", ["gone"]);
    out.heldBefore = referencesHeld(peer);
    await sleep(300); // the worker's lock has been seen held and is watched (as in gone.js)
    worker.terminate();
    out.afterEnd = await project.list().then(() => "answered", (error) => error.code);
    out.heldAfter = referencesHeld(peer);
    return out;
  });
}

/** A pool of workers: each stub calls the worker that made it, whichever worker a plain call would go to. */
export async function poolBound() {
  await lib(); // the module started (the pool's Peers are its)
  const { workerPool } = await import("/pkg/pool.js");
  const pool = workerPool(() => new Worker("/references-worker.js", { type: "module" }), { size: 2 });
  try {
    const opened = await Promise.all([0, 1, 2, 3].map(() => pool.request("openCounter", [100])));
    const makers = opened.map(({ made }) => made);
    const answered = [];
    for (let round = 0; round < 3; round++) {
      answered.push(await Promise.all(opened.map(({ counter }) => counter.whoami())));
    }
    const sums = await Promise.all(opened.map(({ counter }, i) => counter.add(i + 1)));
    const released = opened.map(({ counter }) => counter.release());
    const after = await opened[0].counter.whoami().then(() => "answered", (error) => error.code);
    return { makers, distinct: new Set(makers).size, answered, sums, released, after };
  } finally {
    pool.destroy();
  }
}

/** An iframe (windowTransport): the frame calls back its parent's callback, and hands it a live object. */
export async function frame() {
  const { Peer, windowTransport, reference, referencesHeld } = await lib();
  const element = document.createElement("iframe");
  document.body.append(element);
  const peer = new Peer(windowTransport(element.contentWindow, window, location.origin), { timeout: 20000 });
  element.src = "/references-frame.html";
  try {
    const lines = [];
    const built = await peer.request("build", [500, reference((line) => lines.push(line))]);
    const preview = await peer.request("preview");
    const rendered = [await preview.render("<p>hi</p>"), await preview.render("<p>again</p>")];
    const renders = await preview.renders();
    preview.release();
    return { built, lines: lines.length, inOrder: lines.every((line, i) => line === `line ${i}`), rendered, renders, tables: await tablesEmpty(peer, referencesHeld) };
  } finally {
    peer.destroy();
    element.remove();
  }
}
