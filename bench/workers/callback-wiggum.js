// The callback-by-reference measure, wiggum-rpc's worker: the references
// flavour as served (/pkg-references/), calling back a stub the page sent,
// and, for the baseline over the same connection, a method the page serves.
import init, { Peer, selfTransport } from "/pkg-references/wiggum_rpc.js";
import "/pkg-references/remote.js";
import { callBack } from "../callback-work.js";

await init();
const peer = new Peer(selfTransport());
peer.method("callStub", async ([calls, width, fn]) => {
  try {
    return await callBack(fn, calls, width);
  } finally {
    fn.release();
  }
});
peer.method("callPage", ([calls, width]) => callBack((i) => peer.request("callback", [i]), calls, width));
