// The parent page: serves `fetch` to the preview iframe, drives it with
// `navigate` / `refresh`, and asks the build worker to `build`.
import init, { ErrorCode, Peer, RPCError, windowTransport, workerTransport } from "/pkg/wiggum_rpc.js";
import { tap } from "./tap.js";

const $ = (id) => document.getElementById(id);
const files = new Map([
  ["/", "<h1>Home</h1><p>Served by the parent over JSON-RPC.</p>"],
  ["/about", "<h1>About</h1><p>wiggum-rpc: one protocol for every boundary.</p>"],
  ["/docs", "<h1>Docs</h1><p>request, notify, method, onNotify, destroy.</p>"],
]);

function report(boundary, direction, message) {
  const entries = Array.isArray(message) ? message : [message];
  for (const entry of entries) {
    const item = document.createElement("li");
    const what = entry.method ?? ("error" in entry ? `error ${entry.error.code}` : "result");
    const id = entry.id === undefined ? "" : ` #${JSON.stringify(entry.id)}`;
    item.innerHTML = `<span class="dir"></span>`;
    item.firstChild.textContent = `${boundary} ${direction}`;
    item.append(`${what}${id}`);
    if ("error" in entry) item.className = "error";
    $("log").append(item);
  }
  $("log").scrollTop = $("log").scrollHeight;
}

await init();

// Preview iframe ↔ parent.
const preview = new Peer(tap(windowTransport($("preview").contentWindow, window, location.origin), "preview", report));
preview.method("fetch", ({ url }) => {
  if (!files.has(url)) throw new RPCError(ErrorCode.NAVIGATION_FAILED, `No such page: ${url}`, { url });
  return { status: 200, body: files.get(url) };
});
preview.onNotify("updateNavigationState", ({ path }) => ($("preview-result").textContent = `iframe is at ${path}`));
preview.onNotify("console", ({ level, message }) => console[level]?.(`[preview] ${message}`));

async function show(promise, target) {
  target.classList.remove("error");
  try {
    const value = await promise;
    target.textContent = typeof value === "string" ? value : JSON.stringify(value, null, 1);
  } catch (error) {
    target.classList.add("error");
    target.textContent = error instanceof RPCError ? `RPCError ${error.code}: ${error.message}` : String(error);
  }
}

$("navigate").onclick = () => show(preview.request("navigate", { path: $("route").value }), $("preview-result"));
$("refresh").onclick = () => show(preview.request("refresh"), $("preview-result"));

// Build worker ↔ main thread.
const worker = new Worker("build-worker.js", { type: "module" });
const builder = new Peer(tap(workerTransport(worker), "worker", report));
builder.onNotify("buildProgress", ({ done, total }) => ($("progress").value = done / total));
$("build").onclick = async () => {
  $("progress").value = 0;
  const build = builder.request("build", { files: { "src/greet.js": $("source").value } }).then(({ outputs }) =>
    Object.entries(outputs).map(([path, bytes]) => `${path} (${bytes.byteLength} bytes, moved)\n${new TextDecoder().decode(bytes)}`).join("\n"));
  await show(build, $("build-result"));
};

for (const id of ["navigate", "refresh", "build"]) $(id).disabled = false;
$("status").textContent = "ready";
$("status").classList.add("ready");
