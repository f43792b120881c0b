// Instances of the module side by side in one page, in Chromium and Firefox
// (tests/js/pages/instances.js): 24 imports of the entry under other URLs,
// each serving and calling methods it learned in an order of its own. Every
// call runs the method it names (each instance numbers the method names it
// reads in a table of its own: its glue is one file, evaluated per URL).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { pagesInBothBrowsers } from "./browser.mjs";

let browsers;
before(async () => {
  browsers = await pagesInBothBrowsers();
});
after(() => browsers?.close());

for (const browser of ["Chromium", "Firefox"]) {
  for (const [build, base] of [["the package's build", "/pkg/"]]) {
    test(`${browser}, ${build}: each instance runs the method a call names`, { timeout: 120_000 }, async () => {
      const seen = await browsers.run(browser, "/instances.js", "instances", base);
      console.log(`${browser}, ${build}: ${JSON.stringify(seen)}`);
      assert.deepEqual(seen.wrong, [], "no call ran another method or none");
      assert.equal(seen.answered, seen.instances * 4);
    });
  }
}
