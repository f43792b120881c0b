// The demo's WebSocket server, page ↔ server, served at `/ws` beside the
// demo page by scripts/serve.mjs: two hub processes (demo-hub-node.mjs)
// joined on a redis-server of their own, behind a small round-robin proxy,
// as a load balancer in front of a server's processes would be. A page
// whose connection drops redials to the next process, which relays it to the
// process holding its session: it keeps its client id and its calls. A
// process replaced ("restart") hands its sessions to the other first.
// Without redis-server (not set up by scripts/setup.sh), one process.
import { fork, spawnSync } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { startRedisServer } from "./redis-server.mjs";

const NODE_SCRIPT = new URL("./demo-hub-node.mjs", import.meta.url).pathname;

/** A redis-server of the demo's own, or undefined without one (not set up). */
async function startRedis() {
  if (spawnSync("redis-server", ["--version"]).status !== 0) return undefined;
  return startRedisServer().catch(() => undefined);
}

/** The `/ws` endpoint: `upgrade(request, socket, head)` for the HTTP server, and `close()`. */
export async function demoHub() {
  const redis = await startRedis();
  /** The hub processes, in the proxy's turn. */
  const nodes = [];
  /** Every connection the proxy carries, as [page side, hub side]. */
  const carried = new Set();
  let turn = 0;
  let named = 0;
  let closing = false;

  const cut = () => {
    for (const pair of carried) for (const end of pair) end.destroy();
  };
  const start = async () => {
    const name = `hub-${++named}`;
    const child = fork(NODE_SCRIPT, redis === undefined ? [name] : [name, redis.url], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    const node = { name, child, port: undefined };
    child.on("message", (message) => {
      if (message?.drop) cut();
      else if (message?.restart === name) void replace(node);
    });
    // A process that cannot start (target/pkg-node/ not built: `bash scripts/build.sh node`) says so, and exits.
    const exited = once(child, "exit").then(([code]) => {
      throw new Error(`the demo's hub process ${name} exited (${code}) before it was ready`);
    });
    const [{ ready }] = await Promise.race([once(child, "message"), exited]);
    exited.catch(() => {});
    node.port = ready.port;
    return node;
  };
  // A deploy: the new process first, then the old one leaves (SIGTERM: it hands its pages' sessions over).
  const replace = async (old) => {
    if (closing) return;
    const fresh = await start();
    nodes.splice(nodes.indexOf(old), 1, fresh);
    old.child.kill("SIGTERM");
  };
  try {
    nodes.push(await start());
    if (redis !== undefined) nodes.push(await start());
  } catch (error) {
    for (const { child } of nodes) child.kill("SIGKILL");
    await redis?.stop();
    throw error;
  }

  return {
    upgrade(request, socket, head) {
      const node = nodes[turn++ % nodes.length];
      const upstream = connect(node.port, "127.0.0.1");
      const pair = [socket, upstream];
      carried.add(pair);
      const gone = () => {
        carried.delete(pair);
        socket.destroy();
        upstream.destroy();
      };
      for (const end of pair) end.on("error", gone).on("close", gone);
      // The upgrade request as it came, then whatever followed it.
      const lines = [`${request.method} ${request.url} HTTP/1.1`];
      for (let at = 0; at < request.rawHeaders.length; at += 2) lines.push(`${request.rawHeaders[at]}: ${request.rawHeaders[at + 1]}`);
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head?.length) upstream.write(head);
      socket.pipe(upstream);
      upstream.pipe(socket);
    },
    async close() {
      closing = true;
      cut();
      await Promise.all(nodes.map(({ child }) => {
        if (child.exitCode !== null) return undefined;
        const exited = once(child, "exit");
        // Every process stops: none hands its sessions over (SIGTERM would).
        child.kill("SIGINT");
        // One that does not leave in time is ended.
        const late = setTimeout(() => child.kill("SIGKILL"), 3000);
        return exited.finally(() => clearTimeout(late));
      }));
      await redis?.stop();
    },
  };
}
