// Runs the wasm-bindgen-test browser suite in headless Chromium or Firefox:
//   node scripts/browser-suite.mjs chromium|firefox [test filter]
//
// The browser reaches the test runner's server through a small HTTP proxy
// started here, which asks that server to close each connection after one
// response. The runner's server (tiny_http 0.12) hands every connection to a
// worker thread for as long as the browser keeps it alive, and two
// connections accepted at the same moment can leave the second queued
// without a worker (a lost wake-up in its thread pool). A browser that keeps
// its other connections alive then waits minutes for a module script, and
// the run fails with a page that never loaded. With one request per
// connection every worker is free again at once, and picks up what is queued.
// The proxy forwards loopback requests only and refuses everything else, so
// the browser's own background requests fail fast on this closed network.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, request } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const [browser, ...filter] = process.argv.slice(2);
if (browser !== "chromium" && browser !== "firefox") {
  console.error("usage: node scripts/browser-suite.mjs chromium|firefox [test filter]");
  process.exit(2);
}

const loopback = new Set(["127.0.0.1", "localhost", "[::1]"]);
const proxy = createServer((incoming, outgoing) => {
  let target;
  try {
    target = new URL(incoming.url);
  } catch {
    outgoing.writeHead(400).end();
    return;
  }
  if (target.protocol !== "http:" || !loopback.has(target.hostname)) {
    outgoing.writeHead(502).end();
    return;
  }
  const headers = { ...incoming.headers, connection: "close" };
  delete headers["proxy-connection"];
  const upstream = request(
    { host: target.hostname, port: target.port || 80, method: incoming.method, path: target.pathname + target.search, headers, agent: false },
    (answer) => {
      const { connection, "keep-alive": _, ...kept } = answer.headers;
      outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage, kept);
      answer.pipe(outgoing);
    },
  );
  upstream.on("error", () => outgoing.headersSent ? outgoing.destroy() : outgoing.writeHead(502).end());
  incoming.pipe(upstream);
});
// HTTPS (the browser's background traffic) is refused outright.
proxy.on("connect", (_, socket) => socket.end("HTTP/1.1 403 Forbidden\r\n\r\n"));
proxy.listen(0, "127.0.0.1");
await once(proxy, "listening");
const { port } = proxy.address();

const base = JSON.parse(await readFile(join(root, "webdriver.json"), "utf8"));
if (browser === "chromium") {
  // `<-loopback>` takes loopback off Chromium's implicit bypass list.
  base["goog:chromeOptions"].args.push(`--proxy-server=http://127.0.0.1:${port}`, "--proxy-bypass-list=<-loopback>");
} else {
  Object.assign(base["moz:firefoxOptions"].prefs, {
    "network.proxy.type": 1,
    "network.proxy.http": "127.0.0.1",
    "network.proxy.http_port": port,
    "network.proxy.no_proxies_on": "",
    "network.proxy.allow_hijacking_localhost": true,
  });
}
await mkdir(join(root, "target"), { recursive: true });
const capabilities = join(root, "target", `webdriver-${browser}.json`);
await writeFile(capabilities, JSON.stringify(base, null, 2));

const env = { ...process.env, WASM_BINDGEN_TEST_WEBDRIVER_JSON: capabilities };
if (browser === "chromium") {
  env.CHROMEDRIVER = "/usr/bin/chromedriver";
  delete env.GECKODRIVER;
} else {
  env.GECKODRIVER = join(process.env.HOME ?? "/root", ".cargo/bin/geckodriver");
  delete env.CHROMEDRIVER;
}
const args = ["test", "--target", "wasm32-unknown-unknown", "--lib", "--all-features"];
if (filter.length) args.push("--", ...filter);
const cargo = spawn("cargo", args, { cwd: root, env, stdio: "inherit" });
const [code] = await once(cargo, "exit");
proxy.close();
// A cargo killed by a signal has no exit code: a failure.
process.exit(code ?? 1);
