// Two builds of the package side by side in one page: each under its own
// URL (two instances of the module), a client and a server on a
// MessageChannel each, and raw postMessage beside them; `calls` sequential
// calls per slice, the three interleaved (their order reversed every other
// round), medians of `rounds` slices. Run by bench/ab.mjs.

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
    await clients[name].request("add", [1, 2]);
  }
  const { port1, port2 } = new MessageChannel();
  port1.onmessage = ({ data }) => port1.postMessage({ jsonrpc: "2.0", id: data.id, result: data.params[0] + data.params[1] });
  let answered;
  port2.onmessage = ({ data }) => answered(data);
  const variants = {
    async raw(n) {
      for (let i = 0; i < n; i++) {
        await new Promise((resolve) => {
          answered = resolve;
          port2.postMessage({ jsonrpc: "2.0", method: "add", id: i, params: [i, 1] });
        });
      }
    },
    async a(n) {
      for (let i = 0; i < n; i++) await clients.a.request("add", [i, 1]);
    },
    async b(n) {
      for (let i = 0; i < n; i++) await clients.b.request("add", [i, 1]);
    },
  };
  const rates = { raw: [], a: [], b: [] };
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 ? ["b", "a", "raw"] : ["raw", "a", "b"]) {
      const start = performance.now();
      await variants[name](calls);
      rates[name].push(calls / ((performance.now() - start) / 1000));
    }
  }
  const median = (values) => values.sort((x, y) => x - y)[values.length >> 1];
  const [raw, a, b] = [rates.raw, rates.a, rates.b].map(median);
  return { raw: Math.round(raw), a: Math.round(a), b: Math.round(b), "a ÷ raw": +(a / raw).toFixed(3), "b ÷ raw": +(b / raw).toFixed(3), "b ÷ a": +(b / a).toFixed(3) };
}
