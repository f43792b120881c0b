// The demo build worker's bundling (www/bundle.js) with the real esbuild-wasm
// in Node: a multi-file TSX project from memory and from a ZenFS file system
// served over a MessagePort, and the bad projects a user types: a syntax
// error, a missing import, an import cycle, a 5 MB file, an empty project.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runInNewContext } from "node:vm";
import { MessageChannel } from "node:worker_threads";
import * as esbuild from "esbuild-wasm";
import { WebSocket } from "ws";
import { bundle, fileSystemSource, memorySource } from "../../www/bundle.js";

globalThis.WebSocket ??= WebSocket; // ZenFS's channel detection reads it; Node 20 has none
const { configure, fs, InMemory, Port, resolveRemoteMount, umount } = await import("@zenfs/core");

const project = {
  "src/main.tsx": 'import { h } from "./h";\nimport { greet } from "./greet";\nconst node = <p class="greeting">{greet("wiggum")}</p>;\nconsole.log(node.render());\n',
  "src/h.ts": "export function h(tag: string, props: Record<string, string> | null, ...children: string[]) {\n  return { render: () => `<${tag}${props?.class ? ` class=\"${props.class}\"` : \"\"}>${children.join(\"\")}</${tag}>` };\n}\n",
  "src/greet.ts": "export const greet = (name: string): string => `hello, ${name}`;\n",
};

/** Runs an iife bundle; resolves with what it logged. */
function run(bytes) {
  const logged = [];
  runInNewContext(new TextDecoder().decode(bytes), { console: { log: (...args) => logged.push(args.join(" ")) } });
  return logged;
}

test("a TSX project of three files bundles; progress names each file; the output runs", async () => {
  const loads = [];
  const { outputs, warnings } = await bundle(esbuild, memorySource(project), { entry: "src/main.tsx", onLoad: (p) => loads.push(p) });
  assert.deepEqual(Object.keys(outputs), ["dist/main.js"]);
  assert.ok(outputs["dist/main.js"] instanceof Uint8Array);
  assert.deepEqual(run(outputs["dist/main.js"]), ['<p class="greeting">hello, wiggum</p>']);
  assert.deepEqual(loads.map((l) => l.file).sort(), ["src/greet.ts", "src/h.ts", "src/main.tsx"]);
  assert.deepEqual(loads.at(-1), { done: 3, total: 3, file: loads.at(-1).file });
  assert.deepEqual(warnings, []);
});

test("a syntax error is a diagnostic with its file, line and column", async () => {
  const broken = { ...project, "src/greet.ts": "export const greet = (name: string) => {\n  return `hello, ${name}`\n" };
  await assert.rejects(bundle(esbuild, memorySource(broken), { entry: "src/main.tsx" }), ({ diagnostics }) => {
    assert.equal(diagnostics.length, 1);
    assert.equal(diagnostics[0].file, "src/greet.ts");
    assert.equal(diagnostics[0].line, 3);
    assert.equal(typeof diagnostics[0].column, "number");
    assert.match(diagnostics[0].text, /Unexpected end of file/);
    return true;
  });
});

test("a missing import and a package import are diagnostics at the import", async () => {
  const missing = { ...project, "src/main.tsx": 'import { nope } from "./nope";\nimport React from "react";\nconsole.log(nope, React);\n' };
  await assert.rejects(bundle(esbuild, memorySource(missing), { entry: "src/main.tsx" }), ({ diagnostics }) => {
    assert.deepEqual(diagnostics.map((d) => [d.file, d.line]), [["src/main.tsx", 1], ["src/main.tsx", 2]]);
    assert.match(diagnostics[0].text, /cannot find "\.\/nope"/);
    assert.match(diagnostics[1].text, /"react" is not a file of the project/);
    return true;
  });
});

test("an import cycle bundles and runs; a warning comes as a warning, not a failure", async () => {
  const cycle = {
    "a.ts": 'import { b } from "./b";\nexport const a = () => "a" + b();\nconsole.log(a(), { x: 1, x: 2 }.x);\n',
    "b.ts": 'import { a } from "./a";\nexport const b = () => "b";\nexport const again = () => a;\n',
  };
  const seen = [];
  const { outputs, warnings } = await bundle(esbuild, memorySource(cycle), { entry: "a.ts", onWarnings: (w) => seen.push(...w) });
  assert.deepEqual(run(outputs["dist/a.js"]), ["ab 2"]);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0].text, /Duplicate key "x"/);
  assert.deepEqual(seen, warnings);
});

test("a 5 MB file bundles; an empty project is a diagnostic, not a crash", async () => {
  const big = { "main.ts": `const data = ${JSON.stringify("x".repeat(5 * 1024 * 1024))};\nconsole.log(data.length);\n` };
  const { outputs } = await bundle(esbuild, memorySource(big), { entry: "main.ts" });
  assert.deepEqual(run(outputs["dist/main.js"]), [String(5 * 1024 * 1024)]);
  await assert.rejects(bundle(esbuild, memorySource({}), { entry: "src/main.tsx" }), ({ diagnostics }) => {
    assert.match(diagnostics[0].text, /no entry point src\/main\.tsx in a project of 0 file/);
    return true;
  });
});

test("the sources read from a ZenFS file system served over a MessagePort", async () => {
  const { port1, port2 } = new MessageChannel();
  await resolveRemoteMount(port1, { backend: InMemory });
  await configure({ mounts: { "/project": { backend: Port, port: port2 } } });
  for (const [path, source] of Object.entries(project)) {
    await fs.promises.mkdir(`/project/${path.split("/").slice(0, -1).join("/")}`, { recursive: true });
    await fs.promises.writeFile(`/project/${path}`, source);
  }
  const { outputs } = await bundle(esbuild, fileSystemSource(fs.promises, "/project"), { entry: "src/main.tsx" });
  assert.deepEqual(run(outputs["dist/main.js"]), ['<p class="greeting">hello, wiggum</p>']);
  umount("/project");
  port1.close();
});
