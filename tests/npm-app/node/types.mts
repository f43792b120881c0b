// Compiled by tsc with `node16` resolution from an ES module, never run.
import { Peer, portTransport } from "wiggum-rpc";

declare const port: MessagePort;
const peer = new Peer(portTransport(port));
export const sum: Promise<number> = peer.request<number>("add", [1, 2]);
// @ts-expect-error params are an array or an object
peer.request("add", 3);
