// A page that imports `wiggum-rpc/websocket` as well as the root: a Peer
// over a WebSocket to the server the test names in `?ws=`.
import { ErrorCode, Peer, RPCError } from "wiggum-rpc";
import { webSocketTransport } from "wiggum-rpc/websocket";

const peer = new Peer(webSocketTransport(new URLSearchParams(location.search).get("ws")));
const product = await peer.request("mul", [6, 7]);
const missing = await peer.request("nope").catch((error) => error instanceof RPCError && error.code === ErrorCode.METHOD_NOT_FOUND);
peer.destroy();
window.result = { product, missing };
