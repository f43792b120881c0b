// Instances of the module side by side in one page: the entry imported under
// several URLs (a cache-busting query, an import-map alias), each with a
// .wasm of its own. Each instance serves and calls methods it learned
// in an order of its own, so a method-name table shared between instances
// would run the wrong method or none.

const METHODS = {
  sum: ([a, b]) => a + b,
  subtract: ([a, b]) => a - b,
  product: ([a, b]) => a * b,
  quotient: ([a, b]) => a / b,
};
const NAMES = Object.keys(METHODS);
const INSTANCES = 24;

/** `base`: where the build's entry is ("/pkg/" or "/unslimmed/"). */
export async function instances(base = "/pkg/") {
  const loaded = [];
  for (let i = 0; i < INSTANCES; i++) {
    const lib = await import(`${base}wiggum_rpc.js?instance=${i}`);
    await lib.default();
    loaded.push(lib);
  }
  const wrong = [];
  let answered = 0;
  const peers = [];
  // Instance i+1 calls instance i's methods in an order rotated by i: each
  // instance reads the names in an order of its own, as client and as server.
  for (let i = 0; i < INSTANCES; i++) {
    const server = loaded[i];
    const client = loaded[(i + 1) % INSTANCES];
    const { port1, port2 } = new MessageChannel();
    const serving = new server.Peer(server.portTransport(port1));
    for (const name of NAMES) serving.method(name, METHODS[name]);
    const calling = new client.Peer(client.portTransport(port2), { timeout: 30_000 });
    peers.push(serving, calling);
    for (const name of NAMES.map((_, k) => NAMES[(i + k) % NAMES.length])) {
      const params = [42, 23 + i];
      try {
        const answer = await calling.request(name, params);
        if (answer === METHODS[name](params)) answered++;
        else wrong.push(`${name}(${params}) answered ${answer}`);
      } catch (error) {
        wrong.push(`${name}(${params}) failed: ${error.code} ${error.message}`);
      }
    }
  }
  for (const peer of peers) peer.destroy();
  return { instances: INSTANCES, answered, wrong: wrong.slice(0, 10), wrongCount: wrong.length };
}
