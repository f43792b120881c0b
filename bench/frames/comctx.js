// Cold start in an iframe, comctx: the API provided to the parent window, then says it listens.
import { defineProxy } from "comctx";
import { COMCTX, comctxAdapter } from "../comctx.js";

const [provide] = defineProxy(() => ({ add: (a, b) => a + b }), COMCTX);
provide(comctxAdapter((message) => parent.postMessage(message, location.origin), window, ({ source }) => source === parent));
parent.postMessage("ready", "*");
