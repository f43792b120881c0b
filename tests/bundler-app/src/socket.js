// A page that imports subpath entries as well as the root: a Peer over a
// WebSocket (`wiggum-rpc/websocket`) to the server the test names in `?ws=`,
// called through `remote()` (added by importing `wiggum-rpc/remote`, which a
// bundler must keep although nothing is imported from it by name).
import { ErrorCode, Peer, RPCError } from "wiggum-rpc";
import "wiggum-rpc/remote";
import { webSocketTransport } from "wiggum-rpc/websocket";

const peer = new Peer(webSocketTransport(new URLSearchParams(location.search).get("ws")));
const product = await peer.remote().mul(6, 7);
const missing = await peer.request("nope").catch((error) => error instanceof RPCError && error.code === ErrorCode.METHOD_NOT_FOUND);
peer.destroy();
window.result = { product, missing };
