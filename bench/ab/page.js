// Two builds of the package side by side in one page: each under its own
// URL (two instances of the module), a client and a server on a
// MessageChannel each, and raw postMessage beside them; slices of calls
// per variant, the three interleaved (their order reversed every other
// round), medians of `rounds` slices. Sequential calls (`calls` a slice),
// then 64 and 1,024 in flight (`calls` a slice, each of `width` lanes
// awaiting one call at a time, as the benchmark's rows). Run by bench/ab.mjs.

export async function ab(rounds, calls) {
  const load = async (url) => {
    const lib = await import(url);
    await lib.default();
    return lib;
  };
  const clients = {};
  for (const [name, url] of [["a", "/a/wiggum_rpc.js"], ["b", "/b/wiggum_rpc.js"]]) {
    const lib = await load(url);
    const { port1, port2 } = new MessageChannel();
    const server = new lib.JSONRPCServer(lib.portTransport(port1));
    server.method("add", ([a, b]) => a + b);
    clients[name] = new lib.JSONRPCClient(lib.portTransport(port2));
    // The hello answered: calls in flight go in batches from the first.
    await clients[name].request("add", [1, 2]);
  }
  // Raw postMessage: one message per call, answers matched by id.
  const { port1, port2 } = new MessageChannel();
  port1.onmessage = ({ data }) => port1.postMessage({ jsonrpc: "2.0", id: data.id, result: data.params[0] + data.params[1] });
  const waiting = new Map();
  let nextId = 0;
  port2.onmessage = ({ data }) => {
    const resolve = waiting.get(data.id);
    waiting.delete(data.id);
    resolve(data.result);
  };
  const call = {
    raw: (params) => new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      port2.postMessage({ jsonrpc: "2.0", method: "add", id, params });
    }),
    a: (params) => clients.a.request("add", params),
    b: (params) => clients.b.request("add", params),
  };
  // `n` calls, `width` of them in flight at any time.
  const slice = async (name, n, width) => {
    let next = 0;
    const lane = async () => {
      while (next < n) {
        const i = next++;
        if ((await call[name]([i, 1])) !== i + 1) throw new Error(`${name}: wrong result`);
      }
    };
    await Promise.all(Array.from({ length: width }, lane));
  };
  const results = {};
  for (const [row, width] of [["sequential", 1], ["64 in flight", 64], ["1024 in flight", 1024]]) {
    const n = width === 1 ? calls : calls * 3;
    const rates = { raw: [], a: [], b: [] };
    for (let round = 0; round < rounds; round++) {
      for (const name of round % 2 ? ["b", "a", "raw"] : ["raw", "a", "b"]) {
        const start = performance.now();
        await slice(name, n, width);
        rates[name].push(n / ((performance.now() - start) / 1000));
      }
    }
    const median = (values) => values.sort((x, y) => x - y)[values.length >> 1];
    const [raw, a, b] = [rates.raw, rates.a, rates.b].map(median);
    results[row] = { raw: Math.round(raw), a: Math.round(a), b: Math.round(b), "a ÷ raw": +(a / raw).toFixed(3), "b ÷ raw": +(b / raw).toFixed(3), "b ÷ a": +(b / a).toFixed(3) };
  }
  return results;
}
