// The demo page, which is the parent of the preview iframe, the main thread of
// the build worker and Chief to the Ralph worker. Every endpoint has a
// `trace` hook, so the inspector sees each message crossing each boundary.
import init, { compiledModule, ErrorCode, Peer, RPCError, portTransport, windowTransport, workerTransport } from "/pkg/wiggum_rpc.js";
import { connectMcp } from "/pkg/http.js";
import { serviceWorkerTransport } from "/pkg/hub.js";
import { webSocketTransport } from "/pkg/websocket.js";
import "/pkg/trace.js";
import { attachFS, configure, fs, InMemory, mounts } from "/vendor/zenfs.js";
import { Inspector } from "./inspector.js";

const $ = (id) => document.getElementById(id);
const codeNames = new Map(Object.entries(ErrorCode).map(([name, code]) => [code, name]));

function describeError(error) {
  if (error instanceof RPCError) return `${error.code} ${codeNames.get(error.code) ?? "error"}: ${error.message}`;
  return String(error);
}

// Shows how a call ended in a result line: `data-state` says which way.
async function show(target, call, format) {
  target.dataset.state = "pending";
  target.textContent = "…";
  try {
    const value = await call;
    target.dataset.state = "ok";
    target.textContent = format(value);
    return value;
  } catch (error) {
    target.dataset.state = "error";
    target.textContent = describeError(error);
    throw error;
  }
}
const settled = (promise) => promise.catch(() => undefined);

// Appends a line to a fixed-height list, keeping the newest in view.
function append(list, text, { error = false, label, follow = true } = {}) {
  const item = document.createElement("li");
  if (label) {
    const tag = document.createElement("b");
    tag.textContent = label;
    item.append(tag, " ");
  }
  item.append(text);
  if (error) item.classList.add("error");
  list.append(item);
  if (list.childElementCount > 200) list.firstElementChild.remove();
  if (follow) list.scrollTop = list.scrollHeight;
  return item;
}

await init();
// The project lives in a ZenFS file system the page serves to its workers:
// the build worker on a channel of its own, Ralph on the port its RPC uses.
await configure({ mounts: { "/project": InMemory } });
const projectFs = mounts.get("/project");
window.demoFs = fs; // for the console (and the tests): the page's side of the shared file system

const inspector = new Inspector({
  boundaries: ["preview", "build", "ralph", "mcp", "server", "sw"],
  errorCodes: ErrorCode,
  list: $("log"),
  count: $("inspector-count"),
  filter: $("filter"),
  pause: $("pause"),
  clear: $("clear"),
  stats: $("stats"),
});
// Each endpoint reports what crosses it to the inspector.
const traced = (boundary) => ({ trace: inspector.trace(boundary) });

// ── Preview iframe ↔ parent ────────────────────────────────────────────────
// The iframe has no files of its own: it fetches every page from this map.
const pages = new Map([
  ["/", { body: "<h1>Home</h1><p>Served by the parent over JSON-RPC: the iframe calls <code>fetch</code>.</p>" }],
  ["/about", {
    body: "<h1>About</h1><p>wiggum-rpc: one protocol for every boundary.</p>",
    script: 'console.info("about: script ran");',
  }],
  ["/docs", { body: "<h1>Docs</h1><p>request, notify, method, onNotify, destroy.</p>" }],
  ["/broken", {
    body: "<h1>Broken</h1><p>This page's script reads a property of undefined.</p>",
    script: "const user = undefined;\npage.querySelector('p').textContent = user.name;",
  }],
  // Untrusted code that never returns: in the sandboxed preview (a process of
  // its own in Chromium) the page goes on, and the call times out.
  ["/loop", { body: "<h1>Loop</h1><p>This page's script never returns.</p>", script: "for (;;) {}" }],
]);

let previewRendered;
const firstRender = new Promise((resolve) => (previewRendered = resolve));

// The preview frame and its Peer. Sandboxed (`allow-scripts` only, as a real
// app runs untrusted code), the frame's origin is opaque: the parent pins
// "null", and its calls wait for the frame's hello (an opaque frame cannot be
// read, so its load cannot be told from its initial document's).
let preview;
function openPreview(sandboxed) {
  preview?.destroy();
  const old = $("preview");
  const frame = document.createElement("iframe");
  frame.id = "preview";
  frame.title = sandboxed ? "preview (sandboxed)" : "preview";
  if (sandboxed) frame.sandbox.add("allow-scripts");
  old.replaceWith(frame);
  const peer = new Peer(
    windowTransport(frame.contentWindow, window, sandboxed ? "null" : location.origin, sandboxed ? { handshake: "wait" } : undefined),
    traced("preview"),
  );
  peer.method("fetch", ({ url }) => {
    const page = pages.get(url);
    // A missing page is an answer, as with HTTP: the iframe decides it failed.
    return page ? { status: 200, ...page } : { status: 404, body: "" };
  });
  peer.onNotify("updateNavigationState", ({ path, title, origin }) => {
    append($("preview-events"), `${path}${title ? ` (${title})` : ""}${origin === "null" ? " [sandboxed]" : ""}`, { label: "updateNavigationState" });
    previewRendered();
  });
  peer.onNotify("console", ({ level, message }) => {
    append($("preview-events"), message, { label: `console.${level}`, error: level === "error" });
  });
  peer.onNotify("error", ({ message }) => {
    append($("preview-events"), message, { label: "error", error: true });
  });
  preview = peer;
  // The frame loads once its parent listens: what a frame posts to a parent
  // whose scripts are still loading reaches nobody.
  frame.src = "preview.html";
}
openPreview(false);
$("sandboxed").onchange = () => openPreview($("sandboxed").checked);

$("navigate").onclick = () =>
  settled(show($("preview-result"), preview.request("navigate", { path: $("route").value.trim() }, { timeout: 5000 }), ({ route }) => `navigate → at ${route}`));
$("refresh").onclick = () =>
  settled(show($("preview-result"), preview.request("refresh"), ({ route }) => `refresh → at ${route}`));
$("route").addEventListener("keydown", (event) => event.key === "Enter" && $("navigate").click());

// ── Build worker ↔ main thread ─────────────────────────────────────────────
// A TSX project, compiled for real by esbuild-wasm in the worker, which reads
// it from the shared file system; the preview runs what it built (/app).
const sources = new Map([
  ["src/main.tsx", 'import { h } from "./h";\nimport { Greeting } from "./greeting";\n\nconst app = document.getElementById("app")!;\napp.append(<Greeting name="wiggum" />);\nconsole.log(`built app rendered: ${app.textContent}`);\n'],
  ["src/greeting.tsx", 'import { h } from "./h";\n\nexport function Greeting({ name }: { name: string }) {\n  return <h1 class="greeting">hello, {name}</h1>;\n}\n'],
  ["src/h.ts", "// The JSX factory: elements straight into the DOM.\nexport function h(tag: string | ((props: any) => Node), props: Record<string, any> | null, ...children: (Node | string)[]): Node {\n  if (typeof tag === \"function\") return tag({ ...props, children });\n  const element = document.createElement(tag);\n  for (const [name, value] of Object.entries(props ?? {})) element.setAttribute(name, String(value));\n  element.append(...children);\n  return element;\n}\n"],
]);
let openFile = "src/main.tsx";

function renderTabs(failing = new Set()) {
  $("tabs").replaceChildren(
    ...[...sources.keys()].map((path) => {
      const tab = document.createElement("button");
      tab.setAttribute("role", "tab");
      tab.dataset.file = path;
      tab.textContent = path;
      tab.setAttribute("aria-selected", String(path === openFile));
      if (failing.has(path)) tab.classList.add("error");
      tab.onclick = () => {
        openFile = path;
        $("source").value = sources.get(path);
        renderTabs(failing);
      };
      return tab;
    }),
  );
}
$("source").value = sources.get(openFile);
$("source").addEventListener("input", () => sources.set(openFile, $("source").value));
renderTabs();

// The worker instantiates the page's compiled module (no second fetch or
// compile), then mounts the project over its own MessageChannel. "stop"
// terminates it mid-build: its call fails at once, and the next build starts
// a new worker.
let builder;
let stopBuilder;
function startBuilder() {
  const worker = new Worker("build-worker.js", { type: "module" });
  const fsChannel = new MessageChannel();
  attachFS(fsChannel.port1, projectFs);
  fsChannel.port1.start();
  worker.postMessage(compiledModule());
  worker.postMessage({ type: "fs", port: fsChannel.port2 }, [fsChannel.port2]);
  const peer = new Peer(workerTransport(worker), traced("build"));
  peer.onNotify("buildWarning", ({ warnings }) => {
    for (const { text, file, line, column } of warnings) append($("build-output"), text, { label: `warning ${file}:${line}:${column}` });
  });
  builder = peer;
  stopBuilder = () => {
    worker.terminate();
    peer.destroy(); // the call in flight fails with DESTROYED
    fsChannel.port1.close();
    builder = undefined;
  };
}
startBuilder();

/** Writes the editor's files into the shared file system. */
async function saveProject() {
  for (const [path, source] of sources) {
    await fs.promises.mkdir(`/project/${path.split("/").slice(0, -1).join("/")}`, { recursive: true });
    await fs.promises.writeFile(`/project/${path}`, source);
  }
}

$("stop-build").onclick = () => stopBuilder?.();

$("build").onclick = async () => {
  $("build").disabled = true;
  $("stop-build").disabled = false;
  $("progress").value = 0;
  $("progress-label").textContent = "0";
  $("build-output").replaceChildren();
  try {
    await saveProject();
    if (!builder) startBuilder();
    // Its progress keeps it alive: it times out only after 60 s without any (a fresh worker
    // loads esbuild-wasm before the first), or at 5 minutes.
    const building = builder.request("build", { dir: "/project", entry: "src/main.tsx" }, {
      timeout: 60_000,
      maxTotalTimeout: 300_000,
      onProgress: ({ done, total, file }) => {
        $("progress").value = done / total;
        $("progress-label").textContent = `${done}/${total} ${file}`;
      },
    });
    const { outputs } = await show($("build-result"), building,
      ({ outputs }) => `esbuild bundled ${sources.size} files into ${Object.keys(outputs).join(", ")}; the buffers were moved back, and the preview runs it at /app`);
    for (const [path, bytes] of Object.entries(outputs)) {
      append($("build-output"), new TextDecoder().decode(bytes), { label: `${path} · ${bytes.byteLength} B`, follow: false });
    }
    renderTabs();
    pages.set("/app", { body: '<div id="app"></div>', script: new TextDecoder().decode(outputs["dist/main.js"]) });
    $("route").value = "/app";
    await settled(show($("preview-result"), preview.request("navigate", { path: "/app" }), ({ route }) => `navigate → at ${route}: the built app`));
  } catch (error) {
    const diagnostics = error instanceof RPCError ? (error.data?.diagnostics ?? []) : [];
    for (const { text, file, line, column } of diagnostics) {
      append($("build-output"), text, { label: `${file}:${line}:${column}`, error: true });
    }
    renderTabs(new Set(diagnostics.map(({ file }) => file)));
  } finally {
    $("build").disabled = false;
    $("stop-build").disabled = true;
  }
};

// The worker's OpenRPC document: each method with its params' JSON Schema.
$("discover").onclick = async () => {
  if (!builder) startBuilder();
  $("build-output").replaceChildren();
  const { info, methods } = await show($("build-result"), builder.request("rpc.discover"), ({ info, methods }) =>
    `${info.title}: ${methods.length} methods (rpc.discover, OpenRPC)`);
  for (const { name, params, result, errors } of methods) {
    const shown = params.map(({ name: param, schema }) => `${param}: ${JSON.stringify(schema)}`).join(", ");
    const codes = errors.map(({ $ref }) => $ref.split("/").pop()).join(" ");
    append($("build-output"), `(${shown}) → ${result.description ?? JSON.stringify(result.schema)}\nerrors: ${codes}`,
      { label: name, follow: false });
  }
};

// ── Chief ↔ Ralph ──────────────────────────────────────────────────────────
// The port is handed over with a plain message; JSON-RPC starts after it.
// ZenFS serves the project over the same port: each protocol takes only its
// own messages (counted below), and the peer leaves the port open for ZenFS.
const ralphWorker = new Worker("ralph-worker.js", { type: "module" });
const channel = new MessageChannel();
attachFS(channel.port1, projectFs);
const onPort = { jsonrpc: 0, zenfs: 0 };
channel.port1.addEventListener("message", ({ data }) => {
  if (data?._zenfs) onPort.zenfs++;
  else if (data?.jsonrpc === "2.0" || Array.isArray(data)) onPort.jsonrpc++;
  $("shared-port").textContent = `port shared with ZenFS: ${onPort.jsonrpc} JSON-RPC messages from Ralph (in the inspector), ${onPort.zenfs} ZenFS messages (not in it)`;
  $("shared-port").dataset.jsonrpc = onPort.jsonrpc;
  $("shared-port").dataset.zenfs = onPort.zenfs;
});
ralphWorker.postMessage({ type: "connect", port: channel.port2, module: compiledModule() }, [channel.port2]);
const ralph = new Peer(portTransport(channel.port1, { closePort: false }), traced("ralph"));

const TASKS = [
  { title: "Add a dark-mode toggle", file: "src/App.tsx" },
  { title: "Rename Button to ActionButton", file: "src/components/Button.tsx" },
  { title: "Cache the user query", file: "src/api/user.ts" },
];
let taskCount = 0;
let runningTask = null;
let question = null;

function markStep(index, state) {
  const item = $("steps").children[index];
  if (item) item.dataset.state = state;
}

ralph.onNotify("progress", ({ id, index, step }) => {
  if (id !== runningTask?.id) return;
  for (let done = 0; done < index; done++) markStep(done, "done");
  if (step === "done") return;
  const item = $("steps").children[index] ?? $("steps").appendChild(document.createElement("li"));
  item.textContent = step;
  item.dataset.state = "running";
});

ralph.onNotify("gateResult", ({ id, gate, passed, findings }) => {
  if (id !== runningTask?.id) return;
  const badge = document.createElement("span");
  badge.className = passed ? "gate pass" : "gate fail";
  badge.dataset.gate = gate;
  badge.textContent = `${gate} ${passed ? "✓" : "✗"}${findings.length ? ` (${findings.length} note${findings.length === 1 ? "" : "s"})` : ""}`;
  badge.title = findings.join("\n");
  $("gates").append(badge);
});

function setQuestion(text) {
  $("permission").dataset.state = text ? "asking" : "idle";
  $("permission-text").textContent = text ? `Ralph asks: ${text}` : "No question from Ralph.";
  $("allow").disabled = $("deny").disabled = !text;
}

function answer(granted) {
  if (!question) return;
  const { resolve } = question;
  question = null;
  setQuestion(null);
  resolve({ granted });
}

// Answered when a person clicks, so the promise stays pending until then.
ralph.method("requestPermission", ({ id, question: text }) =>
  new Promise((resolve) => {
    answer(false); // one question at a time: an older one is declined
    question = { id, resolve };
    setQuestion(text);
  }));
$("allow").onclick = () => answer(true);
$("deny").onclick = () => answer(false);

$("send-task").onclick = async () => {
  const task = { id: `task-${++taskCount}`, ...TASKS[Number($("task").value)] };
  runningTask = task;
  $("steps").replaceChildren();
  $("gates").replaceChildren();
  $("send-task").disabled = true;
  $("cancel-task").disabled = false;
  try {
    // No timeout: the task waits for a person to answer Ralph's question.
    await show($("task-result"), ralph.request("sendTask", task, { timeout: 0 }), ({ id, ms, wrote, gates }) =>
      `${id} done in ${ms} ms: wrote ${wrote.join(", ")}; gates ${Object.entries(gates).map(([gate, result]) => `${gate} ${result}`).join(", ")}`);
  } catch {
    const current = [...$("steps").children].find((item) => item.dataset.state === "running");
    if (current) current.dataset.state = "failed";
  } finally {
    // A question left open by a cancelled task is declined, so the call ends.
    if (question?.id === task.id) answer(false);
    runningTask = null;
    $("send-task").disabled = false;
    $("cancel-task").disabled = true;
  }
};

$("cancel-task").onclick = () => {
  if (!runningTask) return;
  $("cancel-task").disabled = true;
  settled(ralph.request("cancelTask", { id: runningTask.id }));
};

// ── MCP client ↔ server ───────────────────────────────────────────────────
// The demo's server (scripts/demo-mcp.mjs) answers at /mcp, beside this page,
// over either transport: Streamable HTTP, or the older HTTP+SSE (2024-11-05).
// Each choice opens its session once and keeps it; the panel calls the one chosen.
const mcpSessions = new Map();
function mcpSession(transport) {
  if (!mcpSessions.has(transport)) {
    const session = connectMcp("/mcp", { transport, clientInfo: { name: "wiggum-demo", version: "1.0.0" }, peer: traced("mcp") });
    mcpSessions.set(transport, session.then(async (mcp) => {
      mcp.onNotify("notifications/progress", ({ progress, total, message }) => {
        $("mcp-progress").max = total;
        $("mcp-progress").value = progress;
        $("mcp-progress-label").textContent = `${progress}/${total}`;
        if (message) $("mcp-result").textContent = message;
      });
      const { tools } = await mcp.request("tools/list");
      return { mcp, tools };
    }));
    // A session that could not open is tried again when chosen again.
    mcpSessions.get(transport).catch(() => mcpSessions.delete(transport));
  }
  return mcpSessions.get(transport);
}
let mcpToken = 0;
$("mcp-call").onclick = async () => {
  $("mcp-call").disabled = true;
  $("mcp-progress").value = 0;
  const pages = Number($("mcp-pages").value) || 1;
  const { mcp } = await mcpSession($("mcp-transport").value);
  const call = mcp.request("tools/call", { name: "build_site", arguments: { pages }, _meta: { progressToken: ++mcpToken } });
  await settled(show($("mcp-result"), call, (result) => result.content.map((part) => part.text).join(" ")));
  $("mcp-call").disabled = false;
};
// The choice waits while a session opens, so the list shows the chosen one's tools.
const mcpOpen = async () => {
  $("mcp-call").disabled = $("mcp-transport").disabled = true;
  $("mcp-tools").replaceChildren();
  const opened = mcpSession($("mcp-transport").value).then(({ mcp, tools }) => {
    for (const tool of tools) append($("mcp-tools"), tool.description ?? "", { label: tool.name, follow: false });
    $("mcp-call").disabled = false;
    return `${mcp.server.serverInfo.name} (MCP ${mcp.server.protocolVersion}): ${tools.length} tools`;
  });
  await settled(show($("mcp-result"), opened, (summary) => summary));
  $("mcp-transport").disabled = false;
};
$("mcp-transport").onchange = mcpOpen;
mcpOpen();

// ── Page ↔ server over WebSocket ───────────────────────────────────────────
// The demo's server (scripts/demo-hub.mjs): two hub processes on Redis behind a
// round-robin proxy at /ws. A dropped connection redials to the other process,
// which relays it to the one holding this page's session; a restarted process
// hands its sessions over to the other.
const stamp = () => new Date().toLocaleTimeString();
// A panel's connection state: its text, and `data-state` for styles and tests.
const connectionState = (id, state, text) => {
  $(id).textContent = text;
  $(id).dataset.state = state;
};
const server = new Peer(
  webSocketTransport(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`,
    { reconnect: { initialDelay: 300, maxDelay: 2000 } }),
  traced("server"),
);
server.on("open", () => {
  connectionState("ws-state", "open", "connected");
  $("ws-whoami").disabled = false;
  $("ws-drop").disabled = false;
  $("ws-restart").disabled = false;
});
server.on("close", ({ code }) => {
  connectionState("ws-state", "closed", "disconnected");
  append($("ws-events"), `connection closed (${code})`, { label: stamp() });
});
server.on("reconnecting", ({ attempt, delay }) =>
  append($("ws-events"), `reconnecting: attempt ${attempt} in ${Math.round(delay)} ms`, { label: stamp() }));
server.on("reconnected", ({ attempt }) =>
  append($("ws-events"), `reconnected after ${attempt} attempt${attempt === 1 ? "" : "s"}`, { label: stamp() }));
server.on("sessionend", () =>
  append($("ws-events"), "the server forgot this page's session: calls in flight failed", { label: stamp() }));
server.onNotify("clients", ({ clients }) =>
  append($("ws-events"), `server pushed: ${clients.length} page${clients.length === 1 ? "" : "s"} connected (${clients.join(", ")})`, { label: stamp() }));
$("ws-whoami").onclick = () => settled(show($("ws-result"), server.request("whoami"), (id) => `the server knows this page as ${id}`));
// A call in flight while the connection drops: the session carries it, and it is answered once.
$("ws-drop").onclick = async () => {
  const call = server.request("slow", [1500]);
  await server.request("drop");
  await settled(show($("ws-result"), call, (answer) => `${answer}, across a dropped connection: the same session`));
};
$("ws-restart").onclick = () =>
  settled(show($("ws-result"), server.request("restart"),
    () => "the server's process is replaced: it hands this page's session to the other one, where the page reconnects"));

// ── Page ↔ service worker ─────────────────────────────────────────────────
// The worker (sw.js) serves every page of the demo through its Hub.
const serviceWorker = "serviceWorker" in navigator ? navigator.serviceWorker : undefined;
if (serviceWorker) {
  settled(serviceWorker.register("sw.js", { type: "module" }));
  const worker = new Peer(serviceWorkerTransport(serviceWorker), traced("sw"));
  worker.on("open", () => {
    connectionState("sw-state", "open", "connected");
    $("sw-call").disabled = false;
    $("sw-replace").disabled = false;
  });
  worker.on("close", ({ reason }) => {
    connectionState("sw-state", "closed", "worker gone");
    append($("sw-events"), reason, { label: stamp() });
  });
  worker.on("reconnected", () => append($("sw-events"), "connected to the next worker", { label: stamp() }));
  $("sw-call").onclick = () => settled(show($("sw-result"), worker.request("hello"), ({ instance, calls }) =>
    `answered by worker ${instance} (its call ${calls})`));
  // A page cannot stop a worker itself: a new script URL installs a new
  // worker, which takes over (skipWaiting) and makes the old one redundant.
  // (Unregistering would not do: a registration with a controlled client, such
  // as a dedicated worker made after it took control, is resurrected by the
  // next register() of the same script.)
  let generation = 0;
  $("sw-replace").onclick = async () => {
    $("sw-replace").disabled = true;
    append($("sw-events"), "registering a new worker in the old one's place", { label: stamp() });
    await serviceWorker.register(`sw.js?generation=${++generation}`, { type: "module" });
  };
} else {
  connectionState("sw-state", "closed", "no service workers here");
}

for (const id of ["navigate", "refresh", "build", "discover", "send-task"]) $(id).disabled = false;
$("status").textContent = "connecting…";
await firstRender;
$("status").textContent = "ready";
$("status").classList.add("ready");
