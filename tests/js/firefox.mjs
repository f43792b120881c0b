// Headless Firefox (Debian's firefox-esr) driven over W3C WebDriver through
// geckodriver, for the tests and the benchmark that need pages of their own
// in Firefox (playwright-core drives Chromium only): `open()` a page, `evaluate`
// an async function in it, open more tabs, `close()` everything.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

const root = new URL("../..", import.meta.url).pathname;
const geckodriver = join(process.env.HOME ?? "/root", ".cargo/bin/geckodriver");

async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A Firefox session; each tab is a handle for `evaluate`. */
export async function launchFirefox() {
  const port = await freePort();
  const driver = spawn(geckodriver, ["--port", String(port), "--host", "127.0.0.1"], { stdio: "ignore" });
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const { value } = await response.json();
    if (!response.ok) throw new Error(`WebDriver ${path}: ${value?.error}: ${value?.message}`);
    return value;
  };
  for (let waited = 0; ; waited += 100) {
    try {
      await call("GET", "/status");
      break;
    } catch (error) {
      if (waited > 10_000) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const options = JSON.parse(await readFile(join(root, "webdriver.json"), "utf8"))["moz:firefoxOptions"];
  const { sessionId } = await call("POST", "/session", {
    capabilities: { alwaysMatch: { browserName: "firefox", "moz:firefoxOptions": { ...options, args: ["-headless"] } } },
  });
  const session = `/session/${sessionId}`;
  // Scripts may run long (the benchmark): ten minutes.
  await call("POST", `${session}/timeouts`, { script: 600_000 });
  let current = await call("GET", `${session}/window`);
  const use = async (handle) => {
    if (handle !== current) await call("POST", `${session}/window`, { handle });
    current = handle;
  };
  return {
    /** The first tab, at `url`. */
    async open(url, handle = current) {
      await use(handle);
      await call("POST", `${session}/url`, { url });
      return handle;
    },
    /** A new tab at `url`. */
    async newTab(url) {
      const { handle } = await call("POST", `${session}/window/new`, { type: "tab" });
      return this.open(url, handle);
    },
    /** Runs `fn(...args)` (an async function, as source) in a tab; resolves with its result. */
    async evaluate(handle, fn, ...args) {
      await use(handle);
      const script = `const done = arguments[arguments.length - 1];
        (${fn}).apply(null, Array.from(arguments).slice(0, -1)).then(
          (value) => done({ value }), (error) => done({ error: error instanceof Error ? \`\${error.message}\\n\${error.stack}\` : String(error) }));`;
      const { value, error } = await call("POST", `${session}/execute/async`, { script, args });
      if (error !== undefined) throw new Error(`in Firefox: ${error}`);
      return value;
    },
    /** Closes a tab (not the last one). */
    async closeTab(handle) {
      await use(handle);
      await call("DELETE", `${session}/window`);
      const [next] = await call("GET", `${session}/window/handles`);
      current = undefined;
      await use(next);
    },
    async close() {
      await call("DELETE", session).catch(() => {});
      driver.kill();
    },
  };
}
