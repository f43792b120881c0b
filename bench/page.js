// The benchmark page (and, in pool.js, the worker pools; in references.js, a
// worker's calls back to a function passed by reference): the same calls through raw postMessage (a hand-written
// id map), json-rpc-2.0, comlink, birpc, Cap'n Web, penpal, comctx and wiggum-rpc,
// each over a MessageChannel in this page. Bundled by bench/run.mjs; wiggum-rpc comes
// from /pkg/.
import init, { JSONRPCClient, JSONRPCServer, portTransport } from "/pkg/wiggum_rpc.js";
import { JSONRPCClient as JrpcClient, JSONRPCServer as JrpcServer } from "json-rpc-2.0";
import * as Comlink from "comlink";
import { createBirpc } from "birpc";
import { newMessagePortRpcSession, RpcTarget } from "capnweb";
import { connect, PortMessenger } from "penpal";
import { defineProxy } from "comctx";
import { COMCTX, comctxAdapter } from "./comctx.js";
import { order } from "./order.js";
import "/pkg/trace.js";
import "/pkg/middleware.js";
import { instrument } from "/pkg/otel.js";
import { propagation, trace } from "@opentelemetry/api";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import "./cold.js";
import "./load.js";
import "./pool.js";
import "./references.js";

const api = {
  add: (a, b) => a + b,
  echo: (value) => value,
};

/** Each variant opens a channel and resolves with `call(method, args)` plus `close()`. */
const variants = {
  raw() {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = ({ data: { id, method, params } }) => port1.postMessage({ id, result: api[method](...params) });
    const pending = new Map();
    let nextId = 0;
    port2.onmessage = ({ data: { id, result } }) => {
      const resolve = pending.get(id);
      pending.delete(id);
      resolve(result);
    };
    return {
      call: (method, params) =>
        new Promise((resolve) => {
          const id = ++nextId;
          pending.set(id, resolve);
          port2.postMessage({ id, method, params });
        }),
      close: () => (port1.close(), port2.close()),
    };
  },
  "json-rpc-2.0"() {
    const { port1, port2 } = new MessageChannel();
    const server = new JrpcServer();
    server.addMethod("add", ([a, b]) => a + b);
    server.addMethod("echo", ([value]) => value);
    port1.onmessage = ({ data }) => server.receive(data).then((response) => response && port1.postMessage(response));
    const client = new JrpcClient((request) => port2.postMessage(request));
    port2.onmessage = ({ data }) => client.receive(data);
    return { call: (method, params) => client.request(method, params), close: () => (port1.close(), port2.close()) };
  },
  comlink() {
    const { port1, port2 } = new MessageChannel();
    Comlink.expose(api, port1);
    const remote = Comlink.wrap(port2);
    return { call: (method, params) => remote[method](...params), close: () => (port1.close(), port2.close()) };
  },
  birpc() {
    const { port1, port2 } = new MessageChannel();
    const over = (port) => ({ post: (data) => port.postMessage(data), on: (handler) => (port.onmessage = ({ data }) => handler(data)) });
    createBirpc(api, over(port1));
    const remote = createBirpc({}, over(port2));
    return { call: (method, params) => remote[method](...params), close: () => (port1.close(), port2.close()) };
  },
  "Cap'n Web"() {
    const { port1, port2 } = new MessageChannel();
    class Api extends RpcTarget {
      add(a, b) {
        return a + b;
      }
      echo(value) {
        return value;
      }
    }
    newMessagePortRpcSession(port1, new Api());
    const remote = newMessagePortRpcSession(port2);
    return { call: (method, params) => remote[method](...params), close: () => (port1.close(), port2.close()) };
  },
  // penpal 7: a connection on each port, the calls once both ends have shaken hands.
  async penpal() {
    const { port1, port2 } = new MessageChannel();
    const server = connect({ messenger: new PortMessenger({ port: port1 }), methods: api });
    const client = connect({ messenger: new PortMessenger({ port: port2 }) });
    const remote = await client.promise;
    return { call: (method, params) => remote[method](...params), close: () => (client.destroy(), server.destroy()) };
  },
  // comctx, its options in ./comctx.js.
  comctx() {
    const { port1, port2 } = new MessageChannel();
    const [provide, inject] = defineProxy(() => api, COMCTX);
    const over = (port) => (port.start(), comctxAdapter((message, transfer) => port.postMessage(message, transfer), port));
    provide(over(port1));
    const remote = inject(over(port2));
    return { call: (method, params) => remote[method](...params), close: () => (port1.close(), port2.close()) };
  },
  "wiggum-rpc"() {
    return wiggum();
  },
  // The cost of the `trace` hook: an empty one on both ends.
  "wiggum-rpc, traced"() {
    const trace = () => {};
    return wiggum({ trace }, { trace });
  },
  // The cost of wiggum-rpc/middleware's chains: an empty middleware and an empty interceptor.
  "wiggum-rpc, empty chains"() {
    const pass = (call, next) => next();
    return wiggum(undefined, undefined, (server, client) => (server.use(pass), client.intercept(pass)));
  },
  // The cost of wiggum-rpc/otel: a client and a server span per call, the trace context in its metadata.
  "wiggum-rpc, otel"() {
    return wiggum(undefined, undefined, (server, client) => (instrument(server), instrument(client)));
  },
};

// OpenTelemetry's SDK as a page sets it up, each span recorded and handed
// to an exporter that drops it (the "wiggum-rpc, otel" variant).
trace.setGlobalTracerProvider(new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor({ export: (spans, done) => done({ code: 0 }), shutdown: async () => {} })],
}));
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

// `setUp(server, client)`: what a variant adds to the two endpoints.
function wiggum(serverOptions, clientOptions, setUp) {
  const { port1, port2 } = new MessageChannel();
  const server = new JSONRPCServer(portTransport(port1), serverOptions);
  server.method("add", ([a, b]) => a + b);
  server.method("echo", ([value]) => value);
  const client = new JSONRPCClient(portTransport(port2), clientOptions);
  setUp?.(server, client);
  return { call: (method, params) => client.request(method, params), close: () => (client.destroy(), server.destroy()) };
}

const workloads = {
  async sequential({ call }, { calls }) {
    for (let i = 0; i < calls; i++) if ((await call("add", [i, 1])) !== i + 1) throw new Error("wrong result");
    return calls;
  },
  async inFlight({ call }, { calls, width }) {
    let next = 0;
    const lane = async () => {
      while (next < calls) {
        const i = next++;
        if ((await call("add", [i, 1])) !== i + 1) throw new Error("wrong result");
      }
    };
    await Promise.all(Array.from({ length: width }, lane));
    return calls;
  },
  async payload({ call }, { calls }) {
    const bytes = new Uint8Array(1 << 20).fill(7);
    for (let i = 0; i < calls; i++) if ((await call("echo", [bytes])).byteLength !== bytes.byteLength) throw new Error("lost bytes");
    return calls;
  },
};

/**
 * Resolves after 10 ms in which the page runs whatever is still queued;
 * where the page may (Chromium, launched with `--expose-gc`), the garbage of
 * the slices before is collected first, so that no slice pays for another's
 * (a 1 MB payload's clones fill the heap in a few calls).
 */
function idle() {
  globalThis.gc?.();
  return new Promise((resolve) => setTimeout(resolve, 10));
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Runs every workload for every variant `runs` times; returns medians in
 * calls per second. Within a run, each variant's calls are made in slices
 * taken in turn with the other variants' (in a shuffled order), so a slow
 * second of a noisy machine costs every variant alike. Between slices the
 * page idles a moment: a library may leave work queued after its calls have
 * settled (Cap'n Web posts a release message for each call's result), and
 * that work must not be timed as the next variant's. `firstRun` numbers the
 * runs (each run's orders are seeded by its number), for a driver that asks
 * for one run of one measure at a time.
 */
window.runBenchmark = async function runBenchmark({ smoke = false, runs = 5, slices = smoke ? 1 : 10, only, firstRun = 0 } = {}) {
  await init();
  const scale = smoke ? 0.05 : 1;
  const measures = [
    ["sequential", "sequential", { calls: Math.ceil(10000 * scale) }],
    ["64 in flight", "inFlight", { calls: Math.ceil(30000 * scale), width: 64 }],
    ["1024 in flight", "inFlight", { calls: Math.ceil(30000 * scale), width: 1024 }],
    ["1 MB payload", "payload", { calls: Math.ceil(300 * scale) }],
  ].filter(([label]) => only === undefined || only.split(",").includes(label));
  const names = Object.keys(variants);
  const samples = {};
  for (let run = firstRun; run < firstRun + runs; run++) {
    for (const [label, workload, options] of measures) {
      const channels = await Promise.all(names.map((name) => variants[name]()));
      const sliceCalls = Math.ceil(options.calls / slices);
      for (const channel of channels) await workloads[workload](channel, { ...options, calls: sliceCalls }); // warm-up
      const seconds = names.map(() => 0);
      for (let slice = 0; slice < slices; slice++) {
        for (const v of order(names.length, run * slices + slice + 1)) {
          await idle();
          const started = performance.now();
          await workloads[workload](channels[v], { ...options, calls: sliceCalls });
          seconds[v] += (performance.now() - started) / 1000;
        }
      }
      for (const channel of channels) channel.close();
      names.forEach((name, v) => ((samples[label] ??= {})[name] ??= []).push((sliceCalls * slices) / seconds[v]));
    }
  }
  const results = {};
  for (const [label, byVariant] of Object.entries(samples)) {
    results[label] = Object.fromEntries(Object.entries(byVariant).map(([name, values]) => [name, median(values)]));
  }
  return { runs, smoke, results };
};
window.benchmarkReady = true;

/** One variant, one workload, once: for bench/profile.mjs. */
window.profileVariant = async function profileVariant(name, workload, width = 1024) {
  await init();
  const channel = await variants[name]();
  const options = { calls: workload === "payload" ? 600 : 30000, width };
  // One call first: calls made before the other side's hello go one message
  // each, and as long as calls stay in flight they stay that way.
  await workloads.sequential(channel, { calls: 1 });
  const started = performance.now();
  const calls = await workloads[workload](channel, options);
  channel.close();
  return calls / ((performance.now() - started) / 1000);
};
