// Cold start in an iframe, comlink: exposes the API to the parent window,
// then says it listens (comlink has no handshake of its own).
import * as Comlink from "comlink";

Comlink.expose({ add: (a, b) => a + b }, Comlink.windowEndpoint(parent));
parent.postMessage("ready", "*");
