// Node, ES module and CommonJS: `wiggum-rpc/framing`'s Content-Length codec,
// a frame cut in two and decoded back; the same classes by `require`.
import { createRequire } from "node:module";
import { FrameDecoder, encodeFrame } from "wiggum-rpc/framing";

const body = JSON.stringify({ jsonrpc: "2.0", method: "add", params: [2, 3], id: 1 });
const frame = encodeFrame(body);
const decoder = new FrameDecoder();
const messages = [...decoder.push(frame.subarray(0, 7)), ...decoder.push(frame.subarray(7))];
const required = createRequire(import.meta.url)("wiggum-rpc/framing");
console.log(JSON.stringify({ messages, sameClass: required.FrameDecoder === FrameDecoder }));
