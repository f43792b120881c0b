// The preview iframe: serves `navigate` / `refresh`, fetches pages from its
// parent, and reports its state with notifications.
import init, { ErrorCode, Peer, RPCError, windowTransport } from "/pkg/wiggum_rpc.js";

await init();
const parent = new Peer(windowTransport(window.parent, window, location.origin));
let route = "/";

async function render(path) {
  const { body } = await parent.request("fetch", { url: path });
  document.getElementById("page").innerHTML = body;
  route = path;
  parent.notify("updateNavigationState", { path });
  parent.notify("console", { level: "info", message: `rendered ${path}` });
  return { route };
}

parent.method("navigate", async ({ path }) => {
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new RPCError(ErrorCode.NAVIGATION_FAILED, "Navigation failed: a route starts with /", { path });
  }
  return render(path);
});
parent.method("refresh", () => render(route));
await render("/");
