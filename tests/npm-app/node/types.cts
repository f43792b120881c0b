// Compiled by tsc with `node16` resolution from a CommonJS module, never run.
import { Peer, portTransport } from "wiggum-rpc";

declare const port: MessagePort;
const peer = new Peer(portTransport(port));
export const sum: Promise<number> = peer.request<number>("add", [1, 2]);
// @ts-expect-error the result has the type asked for
export const wrong: Promise<string> = peer.request<number>("add", [1, 2]);

import init, { JSONRPCServer } from "wiggum-rpc/web";
export const ready: Promise<unknown> = init();
// @ts-expect-error a handler must be a function
new JSONRPCServer(portTransport(port)).method("add", 3);

import { webSocketTransport } from "wiggum-rpc/websocket";
export const socket = new Peer(webSocketTransport("ws://127.0.0.1:9000/", { reconnect: true }));
// @ts-expect-error reconnect is true or the schedule
webSocketTransport("ws://127.0.0.1:9000/", { reconnect: "yes" });

import { FrameDecoder, encodeFrame } from "wiggum-rpc/framing";
export const frame: Uint8Array = encodeFrame("{}");
export const decoder = new FrameDecoder();
// @ts-expect-error a frame is text
encodeFrame(42);

import "wiggum-rpc/remote";
export const viaRemote: Promise<number> = peer.remote<{ add(a: number, b: number): number }>().add(1, 2);
// @ts-expect-error expose takes an object and a name
peer.expose("Repo");
