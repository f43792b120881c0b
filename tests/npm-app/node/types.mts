// Compiled by tsc with `node16` resolution from an ES module, never run.
import { Peer, portTransport } from "wiggum-rpc";

declare const port: MessagePort;
const peer = new Peer(portTransport(port));
export const sum: Promise<number> = peer.request<number>("add", [1, 2]);
// @ts-expect-error params are an array or an object
peer.request("add", 3);

import init, { JSONRPCClient } from "wiggum-rpc/web";
await init();
export const client: JSONRPCClient = new JSONRPCClient(portTransport(port));
// @ts-expect-error the web entry's classes are typed too
new JSONRPCClient(portTransport(port)).request("add", 3);

import { webSocketTransport, type WebSocketTransport } from "wiggum-rpc/websocket";
export const socket: WebSocketTransport = webSocketTransport("ws://127.0.0.1:9000/");
// @ts-expect-error the transport's queue length is a number
export const queued: string = socket.queued;

import { FrameDecoder, streamTransport } from "wiggum-rpc/framing";
export const decoder: FrameDecoder = new FrameDecoder();
// @ts-expect-error streamTransport takes the two streams
streamTransport();

import "wiggum-rpc/stream";
export const streamed: Promise<unknown> = peer.stream("count", [3]).result;
// @ts-expect-error params are an array or an object
peer.stream("count", 3);

import { connectMcp } from "wiggum-rpc/http";
export const session = connectMcp("http://127.0.0.1:3000/mcp").then((mcp) => mcp.server.serverInfo.name);
// @ts-expect-error the URL is a string or a URL
connectMcp(3000);

// The Node build's Peer hands a server's session to another process's.
import type { HandedSession } from "wiggum-rpc";
export const handed: HandedSession = peer.handOff();
// @ts-expect-error a handed session's counts are numbers
export const sentText: string = peer.handOff().sent;

import { Hub } from "wiggum-rpc/hub";
export const leaving: Promise<{ handed: number; kept: number }> = new Hub().handOff({ wait: 10_000 });
// @ts-expect-error the wait is a number of ms
new Hub().handOff({ wait: "ten seconds" });
