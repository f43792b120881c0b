// Loads the package the way the page's URL says (`?build=web`: the
// no-bundler build and init(); `?build=bundled`: an esbuild bundle of the
// root entry, /vendor/csp-bundle.js) under whatever Content-Security-Policy
// the page was served with, and puts what happened in `window.result`: a
// call answered, or the error loading failed with.
const build = new URL(location.href).searchParams.get("build");

async function load() {
  if (build === "web") {
    const lib = await import("/pkg/wiggum_rpc.js");
    await lib.default();
    return lib;
  }
  return import("/vendor/csp-bundle.js");
}

try {
  const { Peer, portTransport } = await load();
  const { port1, port2 } = new MessageChannel();
  new Peer(portTransport(port1)).method("add", ([a, b]) => a + b);
  const client = new Peer(portTransport(port2));
  window.result = { answer: await client.request("add", [2, 3]) };
} catch (error) {
  window.result = { error: error.message, cause: error.cause === undefined ? undefined : String(error.cause) };
}
