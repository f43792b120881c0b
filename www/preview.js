// The preview iframe: serves `navigate` / `refresh`, fetches its pages from
// the parent, runs a page's script, and reports what happens with
// `updateNavigationState`, `console` and `error` notifications.
import init, { ErrorCode, Peer, RPCError, windowTransport } from "/pkg/wiggum_rpc.js";

await init();
const parent = new Peer(windowTransport(window.parent, window, location.origin));
const page = document.getElementById("page");
let route = "/";

// What a page script sees as `console`: its output goes to the parent.
const pageConsole = Object.fromEntries(
  ["log", "info", "warn", "error"].map((level) => [level, (...args) => parent.notify("console", { level, message: args.join(" ") })]),
);

function reportError(kind, path, message) {
  parent.notify("error", { kind, path, message });
}
const describe = (error) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

// Errors a page script leaves behind (timers, promises) are reported too,
// instead of surfacing as the preview's own console errors.
addEventListener("error", (event) => {
  event.preventDefault();
  reportError("script", route, `script of ${route} threw ${describe(event.error ?? event.message)}`);
});
addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  reportError("script", route, `script of ${route} rejected with ${describe(event.reason)}`);
});

async function render(path) {
  const response = await parent.request("fetch", { url: path });
  if (response.status !== 200) {
    reportError("fetch", path, `fetch ${path} answered ${response.status}`);
    throw new RPCError(ErrorCode.NAVIGATION_FAILED, `Navigation failed: no page at ${path}`, { path, status: response.status });
  }
  page.innerHTML = response.body;
  route = path;
  parent.notify("updateNavigationState", { path, title: page.querySelector("h1")?.textContent ?? "", origin: self.origin });
  if (response.script) {
    try {
      new Function("page", "console", response.script)(page, pageConsole);
    } catch (error) {
      // The page still rendered, as in a real preview: the error is reported, not thrown.
      reportError("script", path, `script of ${path} threw ${describe(error)}`);
    }
  }
  return { route };
}

parent.method("navigate", async ({ path } = {}) => {
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new RPCError(ErrorCode.NAVIGATION_FAILED, "Navigation failed: a route starts with /", { path });
  }
  return render(path);
});
parent.method("refresh", () => render(route));
await render(route);
