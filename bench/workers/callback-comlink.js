// The callback-by-reference measure, comlink's worker: calls back the
// `Comlink.proxy(fn)` the page sent, then lets it go (its port closed).
import * as Comlink from "comlink";
import { callBack } from "../callback-work.js";

Comlink.expose({
  async callStub(calls, width, fn) {
    try {
      return await callBack(fn, calls, width);
    } finally {
      fn[Comlink.releaseProxy]();
    }
  },
});
