// Launches Debian's Chromium headless through playwright-core, with the flags
// this kind of machine needs (root, no GPU, closed network); playwright gives
// each launch a fresh profile.
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startServer } from "../../scripts/serve.mjs";

const root = new URL("../..", import.meta.url).pathname;

/** `extraArgs`: more Chromium flags (e.g. `--js-flags=--expose-gc`). */
export async function launchChromium({ args: extraArgs = [] } = {}) {
  const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
      ...extraArgs,
    ],
  });
}

/**
 * Serves a build of the package at `/pkg/` and the test pages (tests/js/pages/) at `/`,
 * and `mounts` (`[[prefix, dir], …]`) beside them.
 */
export function startPagesServer(build = "pkg-web", mounts = []) {
  return startServer({
    mounts: [
      ["/pkg/", join(root, build)],
      ...mounts,
      ["/", join(root, "tests/js/pages")],
    ],
  });
}

/**
 * A blank page in a fresh headless Chromium with a build of the package
 * loaded as `window.lib` (`pkg-web/` by default: the root entry, with
 * `remote.js`, `stream.js` and the named `entries` imported, and
 * `websocket.js`), served by a
 * static server of its own. Page errors go to
 * `pageErrors` when given, from the first load on. `close()` ends both.
 */
export async function openLibPage({ build = "pkg-web", pageErrors, entries = [], mounts = [] } = {}) {
  const server = await startPagesServer(build, mounts);
  const browser = await launchChromium();
  const page = await browser.newPage();
  if (pageErrors) page.on("pageerror", (error) => pageErrors.push(String(error)));
  await page.goto(`${server.url}blank.html`);
  await page.evaluate(async (entries) => {
    const root = await import("/pkg/wiggum_rpc.js");
    await root.default();
    for (const entry of ["remote", "stream", ...entries]) await import(`/pkg/${entry}.js`);
    window.lib = { ...root, ...(await import("/pkg/websocket.js")) };
  }, entries);
  return {
    page,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * The test pages (tests/js/pages/) in headless Chromium and in Firefox
 * (over WebDriver), each with the web build loaded as `window.lib`:
 * `run(browser, module, name, ...args)` calls export `name` of `module` (a
 * page script, e.g. "/pool.js") with `args` in that browser's page and
 * resolves with what it returns. `close()` ends both browsers and the server.
 * `build`: the build served at `/pkg/` (pkg-web/ unless given); `mounts`:
 * more directories served (`[[prefix, dir], …]`).
 */
export async function pagesInBothBrowsers(build = "pkg-web", mounts = []) {
  const { launchFirefox } = await import("./firefox.mjs");
  const chromium = await openLibPage({ build, mounts });
  const server = await startPagesServer(build, mounts);
  const firefox = await launchFirefox();
  return {
    async run(browser, module, name, ...args) {
      if (browser === "Chromium") {
        return chromium.page.evaluate(async ([module, name, args]) => (await import(module))[name](...args), [module, name, args]);
      }
      const tab = await firefox.open(`${server.url}blank.html`);
      return firefox.evaluate(tab, async (module, name, args) => {
        const root = await import("/pkg/wiggum_rpc.js");
        await root.default();
        window.lib = root;
        return (await import(module))[name](...args);
      }, module, name, args);
    },
    async close() {
      await chromium.close();
      await firefox.close();
      await server.close();
    },
  };
}
