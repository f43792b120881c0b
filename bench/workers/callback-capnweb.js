// The callback-by-reference measure, Cap'n Web's worker: a session over the
// MessagePort the page sends first; the function the page passes arrives as
// a stub, which the session disposes when the call returns.
import { newMessagePortRpcSession, RpcTarget } from "capnweb";
import { callBack } from "../callback-work.js";

class Api extends RpcTarget {
  callStub(calls, width, fn) {
    return callBack(fn, calls, width);
  }
}
addEventListener("message", ({ data }) => data instanceof MessagePort && newMessagePortRpcSession(data, new Api()), { once: true });
