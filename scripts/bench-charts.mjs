// Draws the benchmark page's charts (SVG) from the benchmark's JSON output
// (`node bench/run.mjs --json=FILE`): throughput against raw postMessage per
// browser, the cold start per browser, and what each entry costs a page
// beside the other libraries; and the same numbers as Markdown tables
// (tables.md beside the charts), which the benchmark page includes.
//
//   node scripts/bench-charts.mjs [results.json] [out-dir]
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const COLORS = { "wiggum-rpc": "#3b6fd8", raw: "#9aa0a6", "json-rpc-2.0": "#e3a33b", comlink: "#4fa36b", birpc: "#b05fc4", "Cap'n Web": "#d65a5a", penpal: "#2a9d9f", comctx: "#8c6d46" };
const color = (name) => COLORS[Object.keys(COLORS).find((key) => name.startsWith(key)) ?? "raw"];
const escape = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * A horizontal bar chart: groups of bars, each bar `{ label, value, text }`,
 * on one linear scale from zero. Returns the SVG's text.
 */
export function barChart({ title, note, groups }) {
  const width = 760;
  const labelWidth = 220;
  const barHeight = 18;
  const gap = 4;
  const groupGap = 16;
  // Room on the right for the longest value label (about 6.6 px a character).
  const longest = Math.max(...groups.flatMap((g) => g.bars.map((b) => String(b.text).length)));
  const plot = width - labelWidth - Math.ceil(longest * 6.6) - 16;
  const max = Math.max(...groups.flatMap((g) => g.bars.map((b) => b.value)));
  let y = 44;
  const parts = [];
  for (const group of groups) {
    if (group.label) {
      parts.push(`<text x="8" y="${y + 12}" class="group">${escape(group.label)}</text>`);
      y += 20;
    }
    for (const bar of group.bars) {
      const w = Math.max(1, (bar.value / max) * plot);
      parts.push(
        `<text x="${labelWidth - 8}" y="${y + 13}" text-anchor="end">${escape(bar.label)}</text>`,
        `<rect x="${labelWidth}" y="${y}" width="${w.toFixed(1)}" height="${barHeight}" rx="2" fill="${bar.color ?? color(bar.label)}"><title>${escape(bar.label)}: ${escape(bar.text)}</title></rect>`,
        `<text x="${(labelWidth + w + 6).toFixed(1)}" y="${y + 13}">${escape(bar.text)}</text>`,
      );
      y += barHeight + gap;
    }
    y += groupGap;
  }
  const height = y + (note ? 10 : 0);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escape(title)}">`,
    "<style>text{font:12px system-ui,sans-serif;fill:#333}.title{font-size:15px;font-weight:600}.group{font-weight:600}.note{fill:#666;font-size:11px}</style>",
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="8" y="22" class="title">${escape(title)}</text>`,
    ...parts,
    note ? `<text x="8" y="${height - 8}" class="note">${escape(note)}</text>` : "",
    "</svg>",
    "",
  ].join("\n");
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** The charts of one benchmark run, as `[file name, svg]`. */
export function charts(run) {
  const out = [];
  const libraries = run.variants.filter((v) => !v.startsWith("wiggum-rpc,"));
  const mode = run.smoke ? " (smoke mode: too few calls to mean anything)" : "";
  for (const browser of run.browsers ?? []) {
    const slug = browser.name.toLowerCase();
    out.push([
      `throughput-${slug}.svg`,
      barChart({
        title: `Calls per second ÷ raw postMessage, ${browser.version}${mode}`,
        note: `One page, a MessageChannel; medians of ${browser.runs} runs. Higher is better; raw = 1.`,
        groups: Object.entries(browser.results).map(([measure, byVariant]) => ({
          label: measure,
          bars: libraries.map((variant) => {
            const ratio = byVariant[variant] / byVariant.raw;
            return { label: variant, value: ratio, text: `${ratio.toFixed(2)}× (${Math.round(byVariant[variant]).toLocaleString("en-US")}/s)` };
          }),
        })),
      }),
    ]);
    out.push([
      `cold-start-${slug}.svg`,
      barChart({
        title: `new Worker() → first answer, ${browser.version}${mode}`,
        note: "Median milliseconds. Lower is better. wiggum-rpc: the worker asks the page for its module; \"own fetch\": it fetches its own; \"module shared\": the page posts its module unasked.",
        groups: ["uncached", "cached"].map((cache) => ({
          label: cache === "cached" ? "from the HTTP cache" : "uncached",
          bars: run.coldVariants
            .filter((variant) => variant in browser.cold[cache].worker)
            .map((variant) => ({ label: variant, value: browser.cold[cache].worker[variant], text: `${browser.cold[cache].worker[variant].toFixed(1)} ms` })),
        })),
      }),
    ]);
  }
  const { entries, rivals } = run.sizes;
  if (entries.length) {
    const [rootEntry, ...added] = entries;
    const name = (entry) => entry.replace(/`/g, "").replace(/ \(.*\)$/, "");
    out.push([
      "sizes.svg",
      barChart({
        title: "What a page pays, gzip (bundled by esbuild, minified)",
        note: "Lower is better. An entry's bar is what it adds to the root; each other library is bundled whole.",
        groups: [
          {
            label: "wiggum-rpc",
            bars: [
              { label: "wiggum-rpc (root)", value: rootEntry.wasm + rootEntry.js, text: `${kb(rootEntry.wasm + rootEntry.js)} (.wasm ${kb(rootEntry.wasm)} + JS ${kb(rootEntry.js)})` },
              ...added
                .filter((e) => e.entry.startsWith("+ `wiggum-rpc/") && !e.entry.includes("/web/"))
                .map((e) => ({ label: name(e.entry).replace(/^\+ /, "+ "), value: e.js, text: `+ ${kb(e.js)}`, color: COLORS["wiggum-rpc"] })),
            ],
          },
          { label: "the other libraries, whole", bars: rivals.map((r) => ({ label: r.name, value: r.bytes, text: kb(r.bytes) })) },
        ],
      }),
    ]);
  }
  return out;
}

/** The same run as Markdown tables, for the page beside the charts. */
export function tables(run) {
  const fmt = (n) => Math.round(n).toLocaleString("en-US");
  const libraries = run.variants.filter((v) => !v.startsWith("wiggum-rpc,"));
  const lines = [`Run of ${run.date.slice(0, 10)} on ${run.machine}${run.smoke ? " (smoke mode)" : ""}.`, ""];
  for (const browser of run.browsers ?? []) {
    lines.push(`### ${browser.version}`, "", `| calls/s (median of ${browser.runs}) | ${libraries.join(" | ")} | wiggum-rpc ÷ raw | ÷ fastest other library | with a \`trace\` hook ÷ without |`);
    lines.push(`| --- | ${libraries.map(() => "---:").join(" | ")} | ---: | ---: | ---: |`);
    for (const [measure, byVariant] of Object.entries(browser.results)) {
      const ours = byVariant["wiggum-rpc"];
      const fastest = Math.max(...libraries.filter((v) => v !== "raw" && v !== "wiggum-rpc").map((v) => byVariant[v]));
      const traced = byVariant["wiggum-rpc, traced"];
      const tracedRatio = traced === undefined ? "—" : (traced / ours).toFixed(2);
      lines.push(`| ${measure} | ${libraries.map((v) => fmt(byVariant[v])).join(" | ")} | ${(ours / byVariant.raw).toFixed(2)} | ${(ours / fastest).toFixed(2)} | ${tracedRatio} |`);
    }
    lines.push("", "| new Worker() → first answer (median ms) | uncached | from the HTTP cache |", "| --- | ---: | ---: |");
    for (const variant of run.coldVariants.filter((v) => v in browser.cold.cached.worker)) {
      lines.push(`| ${variant} | ${browser.cold.uncached.worker[variant].toFixed(1)} | ${browser.cold.cached.worker[variant].toFixed(1)} |`);
    }
    lines.push("");
  }
  const { entries, rivals } = run.sizes;
  if (entries.length) {
    lines.push("### Size", "", "| what a page loads (gzip) | .wasm | JS | total |", "| --- | ---: | ---: | ---: |");
    for (const { entry, wasm, js } of entries) lines.push(`| ${entry} | ${kb(wasm)} | ${kb(js)} | ${kb(wasm + js)} |`);
    for (const { name, bytes } of rivals) lines.push(`| ${name}, whole | | ${kb(bytes)} | ${kb(bytes)} |`);
  }
  return `${lines.join("\n")}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const input = process.argv[2] ?? join(root, "docs/benchmark/results.json");
  const outDir = process.argv[3] ?? join(root, "docs/public/benchmark");
  mkdirSync(outDir, { recursive: true });
  const run = JSON.parse(readFileSync(input, "utf8"));
  for (const [file, svg] of charts(run)) {
    writeFileSync(join(outDir, file), svg);
    console.log(join(outDir, file));
  }
  writeFileSync(join(outDir, "tables.md"), tables(run));
}
