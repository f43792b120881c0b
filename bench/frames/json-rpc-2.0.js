// Cold start in an iframe, json-rpc-2.0: a server answering the parent
// window, then word that it listens.
import { JSONRPCServer } from "json-rpc-2.0";

const server = new JSONRPCServer();
server.addMethod("add", ([a, b]) => a + b);
addEventListener("message", ({ data, source }) => {
  if (source === parent) server.receive(data).then((response) => response && parent.postMessage(response, "*"));
});
parent.postMessage("ready", "*");
