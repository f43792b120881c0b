// The size budget: what a page pays for each entry of the npm package
// (scripts/entry-sizes.mjs, the measure the README's table is made with)
// against tests/size-budget.json. A size is deterministic for a toolchain, so
// this is a test, not a benchmark: an entry past its budget fails. A change
// that makes an entry smaller lowers its budget (`node
// scripts/entry-sizes.mjs --budget`) so that the bytes stay saved.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { BUDGET_FILE, entrySizes, kb } from "../../scripts/entry-sizes.mjs";

test("every entry of the npm package within its size budget", async () => {
  const budget = JSON.parse(readFileSync(BUDGET_FILE, "utf8"));
  const entries = await entrySizes();
  assert.ok(entries.length > 0, "pkg/ is built");
  const over = [];
  for (const { entry, wasm, js } of entries) {
    const size = wasm + js;
    const allowed = budget[entry];
    assert.ok(allowed !== undefined, `${entry} has a budget in ${BUDGET_FILE}`);
    console.log(`${entry}: ${size} B (${kb(size)}), budget ${allowed} B${size < allowed ? `, ${allowed - size} B under` : ""}`);
    if (size > allowed) over.push(`${entry}: ${size} B, ${size - allowed} B past its budget of ${allowed} B`);
  }
  assert.deepEqual(over, [], "entries past their budget");
  assert.deepEqual(Object.keys(budget).sort(), entries.map(({ entry }) => entry).sort(), "a budget for each entry, and none for an entry that is gone");
});
