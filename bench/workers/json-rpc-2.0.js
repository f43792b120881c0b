// Cold start, json-rpc-2.0: a server on the worker's scope.
import { JSONRPCServer } from "json-rpc-2.0";

const server = new JSONRPCServer();
server.addMethod("add", ([a, b]) => a + b);
self.onmessage = ({ data }) => server.receive(data).then((response) => response && self.postMessage(response));
