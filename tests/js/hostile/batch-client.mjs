// The hostile test's million-request batch, sent from a process of its own
// (building and masking 57 MB would otherwise hold the other clients' process):
// prints the frame's size, then how the server closed the connection.
import { once } from "node:events";
import { WebSocket } from "ws";

const batch = Buffer.from(`[${Array.from({ length: 1_000_000 }, (_, id) =>
  `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":${id}}`).join(",")}]`);
const socket = new WebSocket(process.argv[2]);
await once(socket, "open");
console.log(JSON.stringify({ bytes: batch.length }));
socket.on("error", () => {});
const closed = once(socket, "close");
socket.send(batch);
const [code, reason] = await closed;
console.log(JSON.stringify({ code, reason: String(reason) }));
