// Two builds of the package compared in one page, in headless Chromium and
// Firefox: calls per second of each, and of raw postMessage, interleaved
// (bench/ab/page.js): sequential, 64 and 1,024 in flight. Whole benchmark runs move by more than
// a change to the message path usually does; two builds measured in the
// same page, slice by slice, do not share that noise.
//
//   node bench/ab.mjs A B [loads] [rounds] [calls]
//
// A and B: web builds (pkg-web/ directories), e.g. a worktree's pkg-web/
// against this one's. Prints each page load's medians, a line per row;
// default 5 loads of 11 rounds of 10,000 calls a slice (30,000 for the
// rows in flight; Firefox's clock needs slices that long).
import { resolve } from "node:path";
import { launchChromium } from "../tests/js/browser.mjs";
import { launchFirefox } from "../tests/js/firefox.mjs";
import { startServer } from "../scripts/serve.mjs";

const [a, b, loads = 5, rounds = 11, calls = 10_000] = process.argv.slice(2);
if (!a || !b) {
  console.error("usage: node bench/ab.mjs A B [loads] [rounds] [calls]  (A, B: web builds, e.g. pkg-web/)");
  process.exit(2);
}
const root = new URL("..", import.meta.url).pathname;
const server = await startServer({
  mounts: [
    ["/a/", resolve(a)],
    ["/b/", resolve(b)],
    ["/ab/", `${root}bench/ab`],
    ["/", `${root}tests/js/pages`],
  ],
});
const blank = `${server.url}blank.html`;
const run = async (evaluate) => evaluate(Number(rounds), Number(calls));
const report = (browser, rows) => {
  for (const [row, medians] of Object.entries(rows)) console.log(browser, row, JSON.stringify(medians));
};
try {
  const chromium = await launchChromium();
  for (let load = 0; load < Number(loads); load++) {
    const page = await chromium.newPage();
    await page.goto(blank);
    report("Chromium", await run((r, c) => page.evaluate(async ([r, c]) => (await import("/ab/page.js")).ab(r, c), [r, c])));
    await page.close();
  }
  await chromium.close();
  const firefox = await launchFirefox();
  for (let load = 0; load < Number(loads); load++) {
    const tab = await firefox.open(blank);
    report("Firefox", await run((r, c) => firefox.evaluate(tab, async (r, c) => (await import("/ab/page.js")).ab(r, c), r, c)));
  }
  await firefox.close();
} finally {
  await server.close();
}
