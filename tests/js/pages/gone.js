// For each way the other side of a postMessage boundary can end, the time
// from its end to the rejection of a call waiting on it, and the rejection.
// Runs in a page with the web build loaded as `window.lib`.
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `hang`, ends the other side with `end()`, and measures until the call fails. */
async function measure(peer, end, timeout = 20000) {
  if ((await peer.request("ping")) !== "pong") throw new Error("no pong");
  const closes = [];
  peer.on("close", (detail) => closes.push(detail?.reason));
  const call = peer.request("hang", undefined, { timeout });
  await sleep(300); // the other side's lock has been seen held and is watched
  const started = performance.now();
  end();
  try {
    await call;
    return { outcome: "answered" };
  } catch (error) {
    return { code: error.code, ms: Math.round(performance.now() - started), closes };
  } finally {
    peer.destroy();
  }
}

const frame = async () => {
  const element = document.createElement("iframe");
  document.body.append(element);
  const peer = new window.lib.Peer(window.lib.windowTransport(element.contentWindow, window, location.origin));
  element.src = "/gone-frame.html";
  return { element, peer };
};

export async function endsNoticed() {
  const { Peer, workerTransport, portTransport } = window.lib;
  const results = {};

  const worker = new Worker("/gone-peer.js", { type: "module" });
  results["worker terminated"] = await measure(new Peer(workerTransport(worker)), () => worker.terminate());

  const second = new Worker("/gone-peer.js", { type: "module" });
  const { port1, port2 } = new MessageChannel();
  second.postMessage({ type: "port", port: port2 }, [port2]);
  const overPort = new Peer(portTransport(port1));
  results["the port's other side destroyed"] = await measure(overPort, () => overPort.notify("destroy"));
  second.terminate();

  // A port closed by hand instead of destroyed: nothing tells this side, and
  // the call waits for its (here short) timeout. The docs say to destroy().
  const fourth = new Worker("/gone-peer.js", { type: "module" });
  const channel = new MessageChannel();
  fourth.postMessage({ type: "port", port: channel.port2 }, [channel.port2]);
  const closedByHand = new Peer(portTransport(channel.port1));
  results["the port closed by hand"] = await measure(closedByHand, () => closedByHand.notify("close port"), 1500);
  fourth.terminate();

  const third = new Worker("/gone-peer.js", { type: "module" });
  const toWorker = new Peer(workerTransport(third));
  results["the worker's own Peer destroyed"] = await measure(toWorker, () => toWorker.notify("destroy"));
  third.terminate();

  const removed = await frame();
  results["iframe removed"] = await measure(removed.peer, () => removed.element.remove());

  const navigated = await frame();
  results["iframe navigated away"] = await measure(navigated.peer, () => (navigated.element.src = "/blank.html"));
  navigated.element.remove();
  return results;
}
