// The frame side of the references tests (tests/js/pages/references.js): a
// preview in an iframe that calls back its parent's `onLog` and hands its
// parent a live object, over windowTransport.
import init, { Peer, windowTransport } from "/pkg/wiggum_rpc.js";
import { reference, referencesHeld } from "/pkg/remote.js";

await init();
const peer = new Peer(windowTransport(window.parent, window, location.origin));
peer.method("build", async ([times, onLog]) => {
  for (let i = 0; i < times; i++) await onLog(`line ${i}`);
  onLog.release();
  return times;
});
let renders = 0;
peer.method("preview", () => reference({ render: (html) => `${++renders}: ${html.length} bytes`, renders: () => renders }));
peer.method("held", () => referencesHeld(peer));
