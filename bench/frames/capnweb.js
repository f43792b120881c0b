// Cold start in an iframe, Cap'n Web: a MessagePort from the parent, then the session on it.
import { newMessagePortRpcSession, RpcTarget } from "capnweb";

class Api extends RpcTarget {
  add(a, b) {
    return a + b;
  }
}
addEventListener("message", ({ data, source }) => {
  if (source === parent && data instanceof MessagePort) newMessagePortRpcSession(data, new Api());
});
parent.postMessage("ready", "*");
