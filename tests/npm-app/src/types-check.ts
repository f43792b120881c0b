// Compiled by tsc, never run: the package's types say what the API does.
// Each @ts-expect-error must meet an error, or tsc fails: the types are not `any`.
import {
  ErrorCode,
  JSONRPCClient,
  JSONRPCServer,
  Peer,
  RPCError,
  type RPCTransport,
  portTransport,
  transfer,
  windowTransport,
  workerTransport,
} from "wiggum-rpc";

declare const worker: Worker;
declare const frame: HTMLIFrameElement;

const client = new JSONRPCClient(workerTransport(worker), { timeout: 5000, batch: true });
export const sum: Promise<number> = client.request<number>("add", [1, 2]);
// @ts-expect-error the result has the type asked for
export const wrong: Promise<string> = client.request<number>("add", [1, 2]);
client.request("add", [1, 2]).then((value) => {
  // @ts-expect-error an untyped result is unknown, not any
  value.toFixed();
});
// @ts-expect-error params are an array or an object
client.request("add", 3);
// @ts-expect-error options are checked
client.request("add", [], { timeot: 5 });
client.request("add", [], { timeout: 5, signal: new AbortController().signal, transfer: [new ArrayBuffer(1)] });
client.notify("log", { line: 1 });

const error = new RPCError(ErrorCode.BUILD_FAILED, "Build failed", { diagnostics: [] as string[] });
export const asError: Error = error;
export const code: number = error.code;
// @ts-expect-error codes are named
export const typo = ErrorCode.BUILD_FAIL;

const server = new JSONRPCServer(portTransport(new MessageChannel().port1));
server.method("add", ([a, b]: [number, number]) => a + b, { description: "Adds", params: ["a: number", "b: number"], returns: "number" });
// @ts-expect-error params are a list of strings
server.method("sub", ([a, b]: [number, number]) => a - b, { params: "a, b" });
server.method("bytes", () => transfer(new Uint8Array(4), [new ArrayBuffer(4)]));
server.onNotify("log", (params: { line: number }) => void params.line);
server.method("slow", (_params: unknown, { signal }) => new Promise<boolean>((resolve) => {
  signal.addEventListener("abort", () => resolve(signal.aborted));
}));
// @ts-expect-error the context has a signal and nothing else
server.method("wrong", (_params: unknown, { cancelled }) => cancelled);

const custom: RPCTransport = { send(_message: unknown) {}, onMessage(_handler: (message: unknown) => void) {} };
const peer = new Peer(custom);
peer.destroy();
new Peer(windowTransport(frame.contentWindow!, window, "https://preview.example", { handshake: true }));
// @ts-expect-error a transport needs onMessage
new Peer({ send() {} });

// `wiggum-rpc/remote` adds remote<API>(), typed by the API.
import "wiggum-rpc/remote";
const api = client.remote<{ add(a: number, b: number): number }>();
export const remoteSum: Promise<number> = api.add(1, 2);
// @ts-expect-error arguments are checked against the API
api.add("1", 2);

// The entry for browsers without a bundler has the same API, plus init().
import initWeb, { Peer as WebPeer, portTransport as webPortTransport } from "wiggum-rpc/web";
declare const webPort: MessagePort;
export const webReady: Promise<unknown> = initWeb();
export const webSum: Promise<number> = new WebPeer(webPortTransport(webPort)).request<number>("add", [1, 2]);
// @ts-expect-error params are an array or an object
new WebPeer(webPortTransport(webPort)).request("add", 3);

// `wiggum-rpc/websocket`: the transport and its options are typed.
import { type WebSocketTransport, webSocketTransport } from "wiggum-rpc/websocket";
const socket: WebSocketTransport = webSocketTransport("ws://127.0.0.1:9000/", { reconnect: { initialDelay: 500 } });
export const overSocket = new Peer(socket);
export const connected: boolean = socket.connected;
// @ts-expect-error reconnect settings are numbers
webSocketTransport("ws://127.0.0.1:9000/", { reconnect: { initialDelay: "soon" } });
// @ts-expect-error events are the lifecycle's
socket.on("opened", () => {});

// `wiggum-rpc/framing` is for Node: in a browser build it exports nothing.
// @ts-expect-error no FrameDecoder outside Node
import { FrameDecoder } from "wiggum-rpc/framing";
export const noDecoder: unknown = FrameDecoder;

// The no-bundler entry has the WebSocket transport too.
import { webSocketTransport as webSocketOfWeb } from "wiggum-rpc/web/websocket";
// @ts-expect-error a URL or a socket
webSocketOfWeb(42);

// `wiggum-rpc/stream` adds stream(), its chunks and result typed.
import type { StreamedCall } from "wiggum-rpc/stream";
const streamed: StreamedCall<number, string> = client.stream<number, string>("count", [3]);
export const streamedResult: Promise<string> = streamed.result;
// @ts-expect-error chunks are the type asked for
export const wrongChunks: AsyncIterable<string> = client.stream<number, string>("count", [3]);

// The no-bundler entry's sugar adds the same methods to its own classes.
import "wiggum-rpc/web/remote";
import "wiggum-rpc/web/stream";
const webPeer = new WebPeer(webPortTransport(webPort));
export const webRemote: Promise<number> = webPeer.remote<{ add(a: number, b: number): number }>().add(1, 2);
export const webStreamed: Promise<unknown> = webPeer.stream("count", [3]).result;
// @ts-expect-error expose takes an object and a name
webPeer.expose({});

// `wiggum-rpc/http`: the HTTP transport and the MCP session helper are typed.
import { connectMcp, httpTransport, type McpPeer } from "wiggum-rpc/http";
export const overHttp = new Peer(httpTransport("https://api.example/rpc", { headers: { authorization: "Bearer x" } }));
export const mcpSession: Promise<McpPeer> = connectMcp("https://mcp.example/mcp", { clientInfo: { name: "app", version: "1" } });
mcpSession.then((mcp) => {
  const version: string = mcp.server.protocolVersion;
  // @ts-expect-error the session id is a string or undefined, not a number
  const wrong: number = httpTransport("x").sessionId;
  return [version, wrong];
});
// @ts-expect-error headers are strings
httpTransport("https://api.example/rpc", { headers: { retries: 3 } });

// A transport of one's own on the package's base class.
import { Transport } from "wiggum-rpc";
class ChannelTransport extends Transport {
  constructor(private channel: BroadcastChannel) {
    super();
    channel.onmessage = (event) => this.deliver(event.data);
  }
  send(message: unknown) {
    this.channel.postMessage(message);
  }
  protected release() {
    this.channel.onmessage = null;
    this.emit("close", { code: 1000 });
  }
}
export const overChannel = new Peer(new ChannelTransport(new BroadcastChannel("rpc")));
// @ts-expect-error a transport must say how it sends
class Unsendable extends Transport {}
export const unsendable = Unsendable;

// MCP's own methods are typed on the session's Peer.
mcpSession.then(async (mcp) => {
  const { tools } = await mcp.request("tools/list");
  const toolName: string = tools[0].name;
  const called = await mcp.request("tools/call", { name: toolName, arguments: { a: 1 }, _meta: { progressToken: 1 } });
  const isError: boolean | undefined = called.isError;
  // @ts-expect-error tools/call needs the tool's name
  mcp.request("tools/call", { arguments: {} });
  // @ts-expect-error a tool result's content is a list of parts
  const flat: string = called.content;
  mcp.method("elicitation/create", ({ message }) => ({ action: "accept", content: { answer: message } }));
  // @ts-expect-error an elicitation's action is accept, decline or cancel
  mcp.method("elicitation/create", () => ({ action: "maybe" }));
  // Methods MCP does not name keep the general signature.
  const custom = await mcp.request<number>("x/custom", [1]);
  return [isError, custom, flat];
});

// The no-bundler entry's HTTP transport, and its framing entry (nothing outside Node).
import { httpTransport as httpOfWeb } from "wiggum-rpc/web/http";
export const webHttp = new WebPeer(httpOfWeb("https://api.example/rpc"));
// @ts-expect-error the URL is a string or a URL
httpOfWeb(8080);
// @ts-expect-error no encodeFrame outside Node
import { encodeFrame as webEncodeFrame } from "wiggum-rpc/web/framing";
export const noEncoder: unknown = webEncodeFrame;
