// The docs site: guides per boundary, migrations, concepts, the API
// reference generated from the package's declarations (docs/api/, written
// by TypeDoc at build), and the benchmark's charts (docs/public/benchmark/).
import { defineConfig } from "vitepress";

const guide = [
  ["Getting started", "/guide/getting-started"],
  ["Preview iframe ↔ parent", "/guide/iframe"],
  ["Build worker ↔ page", "/guide/worker"],
  ["Coordinator ↔ agent (MessageChannel)", "/guide/message-channel"],
  ["Page ↔ server (WebSocket, hub)", "/guide/websocket"],
  ["One hub, many processes (Redis)", "/guide/cluster"],
  ["Service worker, SharedWorker, BroadcastChannel", "/guide/shared-workers"],
  ["MCP over HTTP", "/guide/mcp"],
  ["The duet-rpc daemon from an editor", "/guide/daemon"],
  ["From Rust (wasm apps)", "/guide/rust"],
  ["Context, middleware and tracing", "/guide/context"],
];
const migrate = [
  ["From an ad-hoc { type } boundary", "/migrate/ad-hoc"],
  ["From comlink", "/migrate/comlink"],
  ["From json-rpc-2.0", "/migrate/json-rpc-2.0"],
  ["From jrpc-oo", "/migrate/jrpc-oo"],
  ["From tRPC's middleware", "/migrate/trpc"],
];
const features = [
  ["Typed proxies and exposed classes", "/features/remote"],
  ["Functions and objects by reference", "/features/references"],
  ["Streamed results", "/features/stream"],
  ["A pool of workers", "/features/pool"],
  ["Checked params and results", "/features/contracts"],
  ["Introspection and OpenRPC", "/features/introspection"],
  ["Seeing the traffic: trace", "/features/trace"],
  ["The demo", "/features/demo"],
];
const concepts = [
  ["The handshake and strangers", "/concepts/handshake"],
  ["Batching toward friends", "/concepts/batching"],
  ["Cancellation", "/concepts/cancellation"],
  ["Timeouts", "/concepts/timeouts"],
  ["Errors and codes", "/concepts/errors"],
  ["Bad input and limits", "/concepts/bad-input"],
  ["Transferables", "/concepts/transferables"],
  ["Security", "/concepts/security"],
];
const items = (list) => list.map(([text, link]) => ({ text, link }));

export default defineConfig({
  title: "wiggum-rpc",
  description: "JSON-RPC 2.0 for every message boundary of a browser app.",
  cleanUrls: false,
  // A link to a page that does not exist fails the build.
  ignoreDeadLinks: false,
  // public/ is copied as it is (its tables.md is included by the benchmark page, not a page).
  srcExclude: ["typedoc.json", "benchmark/results.json", "public/**"],
  // The local search index is one large chunk, by design.
  vite: { build: { chunkSizeWarningLimit: 4096 } },
  themeConfig: {
    nav: [
      { text: "Guide", link: "/guide/getting-started" },
      { text: "Migrate", link: "/migrate/ad-hoc" },
      { text: "Features", link: "/features/remote" },
      { text: "Concepts", link: "/concepts/handshake" },
      { text: "API", link: "/api/" },
      { text: "Benchmark", link: "/benchmark" },
    ],
    sidebar: [
      { text: "Guide", items: items(guide) },
      { text: "Migrate", items: items(migrate) },
      { text: "Features", items: items(features) },
      { text: "Concepts", items: items(concepts) },
      { text: "Reference", items: [{ text: "API", link: "/api/" }, { text: "Benchmark", link: "/benchmark" }] },
    ],
    search: { provider: "local" },
    outline: [2, 3],
  },
});
