// Launches Debian's Chromium headless through playwright-core, with the flags
// this kind of machine needs (root, no GPU, closed network); playwright gives
// each launch a fresh profile.
import { chromium } from "playwright-core";

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
