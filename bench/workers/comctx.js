// Cold start, comctx: the API provided over the worker's scope, through its README's postMessage adapter.
import { defineProxy } from "comctx";
import { COMCTX, comctxAdapter } from "../comctx.js";

const [provide] = defineProxy(() => ({ add: (a, b) => a + b }), COMCTX);
provide(comctxAdapter((message, transfer) => postMessage(message, transfer), self));
